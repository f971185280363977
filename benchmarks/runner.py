"""The command line: run every scenario in a temporary workspace, then write the results."""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

from benchmarks import buffers, lsp_change, scenarios
from benchmarks.harness import Bench, BenchmarkError, Progress, Row
from benchmarks.plan import Plan
from benchmarks.report import write_all
from gzguide import collector

#: The scenarios that share the long-lived server, in the order they run.
SHARED: Final = (
    ("startup", "startup", scenarios.startup),
    ("warm", "warm analyze", scenarios.warm),
    ("cold", "cold analyze", scenarios.cold),
    ("cursor", "cursor-scoped analyze", scenarios.cursor),
    ("directory", "directory", scenarios.directory),
    ("editing", "editing session", scenarios.editing),
    ("engine_floor", "engine floor", scenarios.engine_floor),
    ("buffers", "buffers sent as text", buffers.buffers),
    # On a server of its own (the LSP mode), while the shared ones are idle.
    ("lsp", "lsp change", lsp_change.lsp_change),
)
#: Every group ``--only`` can name: the shared ones, then those on servers of their own.
GROUPS: Final = (*(key for key, _, _ in SHARED), "big_buffer", "memory")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks",
        description="Benchmark the gzguide server over real pipes, with baselines.",
    )
    parser.add_argument(
        "--quick", action="store_true", help="few samples, small sizes: proves the suite works"
    )
    parser.add_argument("--out", default="bench-out", help="where results go (default: bench-out/)")
    parser.add_argument(
        "--only",
        type=_groups,
        default=GROUPS,
        metavar="GROUP[,GROUP...]",
        help="run only these scenario groups (the checks of the others are inconclusive): "
        + ", ".join(GROUPS),
    )
    return parser


def _groups(value: str) -> tuple[str, ...]:
    names = tuple(name.strip() for name in value.split(",") if name.strip())
    unknown = [name for name in names if name not in GROUPS]
    if unknown or not names:
        raise argparse.ArgumentTypeError(f"unknown group(s) {unknown}; choose from {GROUPS}")
    return names


def run(
    plan: Plan, progress: Progress, groups: Sequence[str] = GROUPS
) -> tuple[list[Row], dict[str, Any], dict[str, Any], dict[str, Any]]:
    """The rows of the scenarios of ``groups``, the two memory reports, and the set-up."""
    rows: list[Row] = []
    memory: dict[str, Any] = {}
    text_memory: dict[str, Any] = {}
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
            for key, name, scenario in SHARED:
                if key in groups:
                    progress.say(f"{name} ...")
                    rows += scenario(bench)
            bench.stop_shared()
            if "big_buffer" in groups:
                progress.say("4 MiB buffer ...")
                text_rows, text_memory = buffers.big_text_memory(bench)
                rows += text_rows
            if "memory" in groups:
                progress.say("memory ...")
                memory_rows, memory = scenarios.memory(bench)
                rows += memory_rows
        finally:
            bench.close()
    return rows, memory, text_memory, setup


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    # Floors measured in this process run as a worker runs (gzguide.collector).
    collector.tune()
    plan = Plan.quick_plan() if args.quick else Plan.full()
    progress = Progress()
    progress.say(f"gzguide benchmarks ({'quick' if plan.quick else 'full'} run) -> {args.out}/")
    started = time.monotonic()
    try:
        rows, memory, text_memory, setup = run(plan, progress, args.only)
    except BenchmarkError as exc:
        print(f"benchmark failed: {exc}", file=sys.stderr)
        return 1
    table, wall = write_all(Path(args.out), rows, memory, setup, plan, started, text_memory)
    progress.say(f"done in {wall:.1f} s; results in {args.out}/")
    sys.stdout.write(table)
    return 0
