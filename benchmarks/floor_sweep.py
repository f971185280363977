"""The engine against its floor on every standard-library module over N lines.

``python -m benchmarks.floor_sweep [--min-lines 800] [--instructions]``

For each module, the cold in-process analysis (parse, every metric, detectors and
advice) is compared with what any tool computing these metrics with radon pays on
the same source (``ast.parse`` + ``cc_visit_ast`` + ``h_visit_ast`` +
``radon.raw.analyze``), and the worst ratio is reported last.

By default each side is timed in this process, interleaved, and the medians are
compared. With ``--instructions`` each side runs once in a fresh interpreter under
``valgrind --tool=callgrind`` (with a fixed hash seed), and the instruction counts,
less a run that only starts up, are compared: slow (about a minute per module) but
the same on every run, whatever else the machine is doing.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import sysconfig
import time
from collections.abc import Callable, Sequence
from pathlib import Path

_SKIP = ("test", "idlelib", "lib2to3", "site-packages", "turtledemo")

#: What one side runs, in a fresh interpreter, for ``--instructions``.
_CHILD = """
import ast, sys
from radon.complexity import cc_visit_ast
from radon.metrics import h_visit_ast
from radon.raw import analyze
from gzguide.analysis.engine import evaluate, measure
from gzguide.analysis.facts.parsed import parse_module
from gzguide.analysis.policy.thresholds import default_thresholds
side, path = sys.argv[1], sys.argv[2]
data = open(path, "rb").read(); text = data.decode()
table = default_thresholds()
evaluate(measure(parse_module(b"def f(a):\\n    if a:\\n        return 1\\n")), table)
warm = ast.parse("x = 1"); cc_visit_ast(warm); h_visit_ast(warm); analyze("x = 1\\n")
if side == "engine":
    evaluate(measure(parse_module(data)), table)
elif side == "floor":
    tree = ast.parse(text); cc_visit_ast(tree); h_visit_ast(tree); analyze(text)
"""


def modules(min_lines: int) -> list[Path]:
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    found = []
    for path in sorted(stdlib.glob("*.py")) + sorted(stdlib.glob("*/*.py")):
        if any(part in _SKIP or part.startswith("test") for part in path.relative_to(stdlib).parts):
            continue
        with path.open("rb") as handle:
            if sum(1 for _ in handle) > min_lines:
                found.append(path)
    return found


def _timed(fn: Callable[[], object]) -> int:
    started = time.perf_counter_ns()
    fn()
    return time.perf_counter_ns() - started


def wall_clock_ratio(path: Path, iterations: int) -> float:
    import ast

    from radon.complexity import cc_visit_ast
    from radon.metrics import h_visit_ast
    from radon.raw import analyze

    from gzguide.analysis.engine import evaluate, measure
    from gzguide.analysis.facts.parsed import parse_module
    from gzguide.analysis.policy.thresholds import default_thresholds

    data = path.read_bytes()
    text = data.decode("utf-8")
    table = default_thresholds()

    def engine() -> None:
        module = parse_module(data)
        assert module is not None
        evaluate(measure(module), table)

    def floor() -> None:
        tree = ast.parse(text)
        cc_visit_ast(tree)
        h_visit_ast(tree)
        analyze(text)

    engine(), floor()
    engines, floors = [], []
    for i in range(iterations):
        # Alternate which side goes first, so neither always runs on a warmer cache.
        first, second = (engine, floor) if i % 2 else (floor, engine)
        a, b = _timed(first), _timed(second)
        engines.append(a if first is engine else b)
        floors.append(b if first is engine else a)
    return statistics.median(engines) / statistics.median(floors)


def _instructions(side: str, path: Path) -> int:
    env = dict(os.environ, PYTHONHASHSEED="0")
    done = subprocess.run(
        [
            "valgrind",
            "--tool=callgrind",
            "--callgrind-out-file=/dev/null",
            sys.executable,
            "-c",
            _CHILD,
            side,
            str(path),
        ],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    for line in done.stderr.splitlines():
        if "Collected" in line:
            return int(line.split()[-1])
    raise RuntimeError(f"no instruction count from valgrind:\n{done.stderr[-500:]}")


def instruction_ratio(path: Path, baseline: int) -> float:
    return (_instructions("engine", path) - baseline) / (_instructions("floor", path) - baseline)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.floor_sweep")
    parser.add_argument("--min-lines", type=int, default=800)
    parser.add_argument("--iterations", type=int, default=9)
    parser.add_argument("--instructions", action="store_true", help="count with callgrind")
    args = parser.parse_args(argv)
    found = modules(args.min_lines)
    baseline = _instructions("none", found[0]) if args.instructions else 0
    results = []
    for path in found:
        if args.instructions:
            ratio = instruction_ratio(path, baseline)
        else:
            ratio = wall_clock_ratio(path, args.iterations)
        results.append((ratio, path))
        print(f"{ratio:.3f}  {path.name}", flush=True)
    worst, where = max(results)
    kind = "instructions" if args.instructions else "median time"
    print(f"worst: {worst:.3f} ({kind}) on {where} of {len(results)} modules")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
