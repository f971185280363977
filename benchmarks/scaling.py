"""Cold analysis time against file size, on near-copy modules of 1k to 16k lines.

``python -m benchmarks.scaling [--sizes 1000,2000,4000,8000,16000] [--iterations 5]``

Each module is :func:`benchmarks.corpus.near_copy_module` (small functions in a few
shapes, each a near copy of others: the case where finding copies costs the most).
For each size, the cold in-process analysis (parse, every metric, the detectors and
advice: what a worker, or ``--workers 0``, runs) and its floor (``ast.parse`` +
``cc_visit_ast`` + ``h_visit_ast`` + ``radon.raw.analyze`` on the same source) are
timed alternately in this process, and their medians printed, with each size's
time against the smallest size's: a linear engine keeps that ratio near the ratio of
the sizes. Before each sample the heap is collected and frozen, as a worker's is
between jobs (``workers.child``). Run it under ``taskset -c N`` on a quiet CPU; run it with another
checkout's interpreter (its ``.venv/bin/python``, from this directory) to measure
that checkout's engine on the same modules.
"""

from __future__ import annotations

import argparse
import ast
import gc
import statistics
import time
from collections.abc import Callable, Sequence

from benchmarks.corpus import near_copy_module
from gzguide import collector

#: The seed of every module of the sweep (the text depends on the size too).
SEED = 21
SIZES = (1000, 2000, 4000, 8000, 16000)


def _timed(fn: Callable[[], object]) -> float:
    # As a worker does between jobs: the garbage of what ran before collected, what
    # lives frozen, so the collections during the sample see only what it allocates.
    gc.collect()
    gc.freeze()
    started = time.perf_counter_ns()
    fn()
    return (time.perf_counter_ns() - started) / 1e6


def measure_size(lines: int, iterations: int) -> tuple[float, float]:
    """The median milliseconds of the engine and of the floor on one module."""
    from radon.complexity import cc_visit_ast
    from radon.metrics import h_visit_ast
    from radon.raw import analyze

    from gzguide.analysis.engine import analyze_bytes
    from gzguide.analysis.policy.thresholds import default_thresholds

    text = near_copy_module(SEED, lines)
    data = text.encode("utf-8")
    table = default_thresholds()

    def engine() -> None:
        analyze_bytes(data, table)

    def floor() -> None:
        tree = ast.parse(text)
        cc_visit_ast(tree)
        h_visit_ast(tree)
        analyze(text)

    engines, floors = [], []
    for i in range(iterations):
        # Alternate which side goes first, so neither always runs on a warmer cache.
        first, second = (engine, floor) if i % 2 else (floor, engine)
        a, b = _timed(first), _timed(second)
        engines.append(a if first is engine else b)
        floors.append(b if first is engine else a)
    return statistics.median(engines), statistics.median(floors)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.scaling")
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)))
    parser.add_argument("--iterations", type=int, default=5)
    args = parser.parse_args(argv)
    collector.tune()  # as a worker's (gzguide.collector): what it runs is measured
    sizes = [int(s) for s in args.sizes.split(",")]
    measure_size(200, 1)  # unmeasured: imports and first-call costs
    first: float | None = None
    print("lines   engine ms   floor ms   engine/floor   engine/smallest")
    for lines in sizes:
        engine, floor = measure_size(lines, args.iterations)
        first = engine if first is None else first
        print(
            f"{lines:>6}  {engine:>10.1f}  {floor:>9.1f}  {engine / floor:>13.2f}"
            f"  {engine / first:>16.2f}",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
