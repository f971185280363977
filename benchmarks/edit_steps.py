"""Where a one-function edit's analysis time goes, step by step, in-process.

``python -m benchmarks.edit_steps [--iterations 5] [--profile N]``

The buffer is ``text_edit``'s (:func:`benchmarks.buffers.buffer_module`: a generated
module of 3,500 lines or more); each sample edits one function's body, as
``text_edit`` and ``lsp_change`` do, and times every step of the cold analysis of
the new text (:mod:`gzguide.analysis.engine`) on its own, against ``ast.parse`` of
the same text, the heap collected and frozen before each step as a worker's is
between jobs. It also times what a worker and the service add per request: the
result's encoding and decoding on the pipe, the analyst's cache and the memo. It
prints each step's median in ms and its share of the whole analysis; with
``--profile N`` it also prints the N costliest functions of one analysis under
cProfile. Pin it with ``taskset -c N``.
"""

from __future__ import annotations

import argparse
import ast
import cProfile
import gc
import pstats
import random
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from benchmarks.buffers import buffer_module, edit_in_memory
from gzguide import collector
from gzguide.analysis.engine import evaluate, measure
from gzguide.analysis.facts.keywords import keyword_lines
from gzguide.analysis.facts.parsed import ParsedModule, parse_module
from gzguide.analysis.facts.scopes import collect_scopes
from gzguide.analysis.facts.toplevel import top_level
from gzguide.analysis.metrics.cc import function_complexities, total_complexity
from gzguide.analysis.metrics.cohesion import class_cohesion
from gzguide.analysis.metrics.lizard import lizard_function_metrics
from gzguide.analysis.metrics.module import module_metrics, raw_counts
from gzguide.analysis.policy.directives import read_directives
from gzguide.analysis.policy.thresholds import default_thresholds
from gzguide.analysis.reuse import PartMemo
from gzguide.freshness import CacheState
from gzguide.workers.ipc import Result, pack

#: The part memo's budget here: room for every part of the buffer's versions.
MEMO_BYTES = 64 * 1024 * 1024


def _timed(fn: Callable[[], object]) -> float:
    gc.collect()
    gc.freeze()
    started = time.perf_counter_ns()
    fn()
    elapsed = time.perf_counter_ns() - started
    gc.unfreeze()
    return elapsed / 1e6


def _steps(data: bytes, memo: PartMemo) -> dict[str, Callable[[], object]]:
    """Each step of one cold analysis of ``data``, runnable on its own; then the analysis
    with ``memo`` holding the parts of the version before the edit."""
    table = default_thresholds()
    fresh = parse_module(data)
    assert fresh is not None
    module: ParsedModule = fresh
    _ = module.tokens
    scopes = collect_scopes(module.tree)
    known = function_complexities(scopes)
    measured = measure(module)
    report = evaluate(measured, table)
    result = pack(Result(seq=1, report=report, cache=CacheState.MISS, identity=None, read_at_ns=0))

    def tokens() -> object:
        return ParsedModule(module.data, module.text, module.tree, module.lines).tokens

    from radon.metrics import h_visit_ast

    from gzguide.workers.ipc import _from_worker

    return {
        "ast.parse (floor)": lambda: ast.parse(module.text),
        "parse_module (decode, ast.parse, line index)": lambda: parse_module(data),
        "tokens (one tokenize pass)": tokens,
        "collect_scopes": lambda: collect_scopes(module.tree),
        "radon cc per function": lambda: function_complexities(scopes),
        "radon total complexity": lambda: total_complexity(module.tree, known),
        "lizard emulation": lambda: lizard_function_metrics(module),
        "class cohesion": lambda: class_cohesion(module),
        "halstead (h_visit_ast)": lambda: h_visit_ast(module.tree),
        "raw counts (from tokens)": lambda: raw_counts(module),
        "module metrics (halstead + raw + MI)": lambda: module_metrics(module, 1),
        "directives": lambda: read_directives(module.text, module.tokens),
        "top level names": lambda: top_level(module.tree, module.text),
        "keyword lines": lambda: keyword_lines(module.text),
        "measure (all of the above but parse)": lambda: measure(module),
        "evaluate (facts, candidates, advice)": lambda: evaluate(measured, table),
        "whole cold analysis": lambda: evaluate(measure(_parsed(data)), table),
        "whole analysis, parts of the version before from the memo": lambda: evaluate(
            measure(_parsed(data), memo), table
        ),
        "result encode (worker)": lambda: pack(
            Result(seq=1, report=report, cache=CacheState.MISS, identity=None, read_at_ns=0)
        ),
        "result decode (frontend)": lambda: _from_worker.decode(result[4:]),
    }


def _parsed(data: bytes) -> ParsedModule:
    module = parse_module(data)
    assert module is not None
    return module


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.edit_steps")
    parser.add_argument("--iterations", type=int, default=5)
    parser.add_argument("--profile", type=int, default=0)
    args = parser.parse_args(argv)
    collector.tune()  # as a worker's (gzguide.collector): what it runs is measured
    rng = random.Random(21)
    with tempfile.TemporaryDirectory() as tmp:
        module = buffer_module(Path(tmp) / "buffer.py")
        samples: dict[str, list[float]] = {}
        data = module.render()
        memo = PartMemo(MEMO_BYTES)
        for _ in range(args.iterations):
            measure(_parsed(data), memo)  # the version before the edit, as a worker saw it
            data, _cursor = edit_in_memory(module, rng)
            for name, step in _steps(data, memo).items():
                samples.setdefault(name, []).append(_timed(step))
    whole = statistics.median(samples["whole cold analysis"])
    floor = statistics.median(samples["ast.parse (floor)"])
    lines = data.count(b"\n")
    print(f"buffer: {lines} lines, {len(data)} bytes; medians of {args.iterations}")
    print("| step | ms | of the analysis | / ast.parse |")
    print("|---|---:|---:|---:|")
    for name, values in samples.items():
        ms = statistics.median(values)
        print(f"| {name} | {ms:.2f} | {ms / whole:.0%} | {ms / floor:.2f} |")
    if args.profile:
        table = default_thresholds()
        profile = cProfile.Profile()
        profile.enable()
        evaluate(measure(_parsed(data)), table)
        profile.disable()
        pstats.Stats(profile).sort_stats("cumulative").print_stats(args.profile)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
