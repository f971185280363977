"""A one-function edit through a one-worker server, against ``ast.parse`` of the buffer.

``python -m benchmarks.edit_server [--edits 30] [--python PATH]``

The buffer is ``text_edit``'s (:func:`benchmarks.buffers.buffer_module`). A server
(``gz complexity guide --server --workers 1``, run by ``--python``: this checkout's
interpreter by default, another checkout's to compare) is pinned to CPU 1 and
sent each edited version as ``text``, with the cursor in the edited function: the
time from the request's write to the last byte of its answer. In this process, on
CPU 0, the same edit's text is analyzed in-process (with a memo of parts that
held the version before it, when this checkout has one) and ``ast.parse`` of it is
timed, alternately. Prints medians (ms) and the ratios to ``ast.parse``.
"""

from __future__ import annotations

import argparse
import ast
import gc
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.buffers import buffer_module, edit_in_memory
from benchmarks.harness import Measured, check_response, hints_of
from gzguide.analysis.engine import evaluate, measure
from gzguide.analysis.facts.parsed import parse_module
from gzguide.analysis.policy.thresholds import default_thresholds
from gzguide.analysis.reuse import PartMemo

#: The in-process memo's budget: what a one-worker server's worker may hold.
MEMO_BYTES = 96 * 1024 * 1024


def _parse_ms(text: str) -> float:
    gc.collect()
    gc.freeze()
    started = time.perf_counter_ns()
    ast.parse(text)
    elapsed = time.perf_counter_ns() - started
    gc.unfreeze()
    return elapsed / 1e6


def _in_process_ms(data: bytes, memo: PartMemo) -> float:
    table = default_thresholds()
    gc.collect()
    gc.freeze()
    started = time.perf_counter_ns()
    module = parse_module(data)
    assert module is not None
    evaluate(measure(module, memo), table)
    elapsed = time.perf_counter_ns() - started
    gc.unfreeze()
    return elapsed / 1e6


def _server_ms(server: Measured, path: Path, data: bytes, cursor: int) -> float:
    params = {"file_path": str(path), "text": data.decode(), "cursor_position": cursor}
    request_id, frame = server.frame("analyze", params)
    elapsed, body = server.timed(frame)
    hints_of(check_response(body, request_id))
    return elapsed / 1e6


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.edit_server")
    parser.add_argument("--edits", type=int, default=30)
    parser.add_argument("--python", default=sys.executable, help="the server's interpreter")
    args = parser.parse_args(argv)
    os.sched_setaffinity(0, {0})
    rng = random.Random(21)
    samples: dict[str, list[float]] = {"server": [], "in_process": [], "parse": []}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        path = root / "buffer.py"
        module = buffer_module(path)
        command = [args.python, "-m", "gzguide", "complexity", "guide", "--server"]
        options = ["--root", str(root), "--workers", "1", "--log-level", "error"]
        quiet = os.open(os.devnull, os.O_WRONLY)
        server = Measured(["taskset", "-c", "1", *command, *options], root, quiet)
        os.close(quiet)
        server.call("initialize", {"clientVersion": "1.1"})
        memo = PartMemo(MEMO_BYTES)
        data = module.render()
        _server_ms(server, path, data, 0)  # the first version, as an editor opens it
        _in_process_ms(data, memo)
        for _ in range(args.edits):
            data, cursor = edit_in_memory(module, rng)
            samples["server"].append(_server_ms(server, path, data, cursor))
            samples["in_process"].append(_in_process_ms(data, memo))
            samples["parse"].append(_parse_ms(data.decode()))
        server.shutdown()
    lines = data.count(b"\n")
    parse = statistics.median(samples["parse"])
    print(f"{lines}-line buffer, {args.edits} one-function edits; medians, ms")
    print("| what | ms | / ast.parse |")
    print("|---|---:|---:|")
    for name, values in samples.items():
        ms = statistics.median(values)
        print(f"| {name} | {ms:.1f} | {ms / parse:.2f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
