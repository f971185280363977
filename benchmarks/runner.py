"""The command line: run every scenario in a temporary workspace, then write the results."""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from benchmarks import buffers, scenarios
from benchmarks.harness import Bench, BenchmarkError, Progress, Row
from benchmarks.plan import Plan
from benchmarks.report import write_all


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks",
        description="Benchmark the gzguide server over real pipes, with baselines.",
    )
    parser.add_argument(
        "--quick", action="store_true", help="few samples, small sizes: proves the suite works"
    )
    parser.add_argument("--out", default="bench-out", help="where results go (default: bench-out/)")
    return parser


def run(
    plan: Plan, progress: Progress
) -> tuple[list[Row], dict[str, Any], dict[str, Any], dict[str, Any]]:
    """Every scenario's rows, the two memory reports, and how the run was set up."""
    rows: list[Row] = []
    with tempfile.TemporaryDirectory(prefix="gzguide-bench-") as tmp:
        bench = Bench(plan, Path(tmp), progress)
        setup = {
            "child_environment": bench.env_note,
            "stdlib_module": str(bench.stdlib_source),
            "stdlib_module_lines": bench.module_lines,
            "server_command": "python -m gzguide complexity guide --server --root WORKSPACE",
        }
        try:
            progress.say("priming: every program once, unmeasured ...")
            bench.prime()
            for name, scenario in (
                ("startup", scenarios.startup),
                ("warm analyze", scenarios.warm),
                ("cold analyze", scenarios.cold),
                ("cursor-scoped analyze", scenarios.cursor),
                ("directory", scenarios.directory),
                ("editing session", scenarios.editing),
                ("engine floor", scenarios.engine_floor),
                ("buffers sent as text", buffers.buffers),
            ):
                progress.say(f"{name} ...")
                rows += scenario(bench)
            bench.stop_shared()
            progress.say("4 MiB buffer ...")
            text_rows, text_memory = buffers.big_text_memory(bench)
            rows += text_rows
            progress.say("memory ...")
            memory_rows, memory = scenarios.memory(bench)
            rows += memory_rows
        finally:
            bench.close()
    return rows, memory, text_memory, setup


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    plan = Plan.quick_plan() if args.quick else Plan.full()
    progress = Progress()
    progress.say(f"gzguide benchmarks ({'quick' if plan.quick else 'full'} run) -> {args.out}/")
    started = time.monotonic()
    try:
        rows, memory, text_memory, setup = run(plan, progress)
    except BenchmarkError as exc:
        print(f"benchmark failed: {exc}", file=sys.stderr)
        return 1
    table, wall = write_all(Path(args.out), rows, memory, setup, plan, started, text_memory)
    progress.say(f"done in {wall:.1f} s; results in {args.out}/")
    sys.stdout.write(table)
    return 0
