"""The LSP mode: a ``didChange`` to its ``publishDiagnostics``, against the analysis floor.

An editor sends a change; what its user waits for is the diagnostics of the new
version. The scenario holds the buffer of the ``text_edit`` scenario (a generated
module of 3,500 lines or more, :func:`benchmarks.buffers.buffer_module`) open in a
real ``gz complexity guide --lsp`` with ``initializationOptions.debounceMs`` 0 and
edits it the same way, one function's body at a time. Each sample is one
incremental ``didChange`` (the range between what the old and new text share at
either end, replaced), encoded before the clock starts, timed from the write of
its frame to the last byte of the publication for that version. Every version is
new text, so neither the memo nor a worker's cache has it: it is analyzed cold.

The floor is what no front end can save, the same as ``text_edit``'s: the same
text analyzed cold in this process (parse, measure, evaluate: what a worker
runs), interleaved with the LSP samples in a shuffled order, with this process's
heap frozen as a worker's is between jobs. The difference is the LSP mode's own
cost: framing, applying the edit, the text's trip to a worker and the report's
trip back, the hints made diagnostics and encoded, the pipes. The pinning is
``text_edit``'s too (:func:`benchmarks.buffers.pinned`): the server's whole tree on
one CPU, this process (client and floor) on the other.
"""

from __future__ import annotations

import gc
import json
import os
import random
import sys
import time
from typing import Any, Final

from benchmarks.buffers import (
    BUFFER_SEED,
    CLIENT_CPU,
    SERVER_CPU,
    analyze_in_process,
    buffer_module,
    edit_in_memory,
    pinned,
)
from benchmarks.harness import Arm, Bench, BenchmarkError, Measured, Row
from benchmarks.stats import Series

LSP_COMMAND: Final = ("-m", "gzguide", "complexity", "guide", "--lsp")


def frame(message: dict[str, Any]) -> bytes:
    body = json.dumps(message, separators=(",", ":")).encode("utf-8")
    return b"Content-Length: %d\r\n\r\n%b" % (len(body), body)


def position(text: str, offset: int) -> dict[str, int]:
    """The LSP position of string index ``offset`` (an ASCII text: any encoding's units)."""
    line_start = text.rfind("\n", 0, offset) + 1
    return {"line": text.count("\n", 0, offset), "character": offset - line_start}


def incremental_change(old: str, new: str) -> dict[str, Any]:
    """The one range edit that turns ``old`` into ``new``, as an editor would send it."""
    limit = min(len(old), len(new))
    start = 0
    while start < limit and old[start] == new[start]:
        start += 1
    end = 0
    while end < limit - start and old[-1 - end] == new[-1 - end]:
        end += 1
    return {
        "range": {"start": position(old, start), "end": position(old, len(old) - end)},
        "text": new[start : len(new) - end],
    }


class LspSession:
    """One ``--lsp`` server with one open document, driven over its pipes."""

    def __init__(self, bench: Bench, prefix: list[str], uri: str, text: str) -> None:
        argv = [*prefix, sys.executable, *LSP_COMMAND, "--root", str(bench.workspace)]
        self.process: Measured = bench.spawn(argv, "lsp")
        self.uri = uri
        self.text = text
        self.version = 1
        #: The number of diagnostics of each measured publication.
        self.counts: list[int] = []
        params = {
            "processId": os.getpid(),
            "rootUri": bench.workspace.as_uri(),
            "capabilities": {},
            # Every hint shown, census too: the check counts one diagnostic per hint.
            "initializationOptions": {"debounceMs": 0, "census": "all"},
        }
        self.send({"id": 1, "method": "initialize", "params": params})
        answer = json.loads(self.process.receive())
        if answer.get("id") != 1 or "result" not in answer:
            raise BenchmarkError(f"lsp initialize: {str(answer)[:200]}")
        self.send({"method": "initialized", "params": {}})
        item = {"uri": uri, "languageId": "python", "version": 1, "text": text}
        self.send({"method": "textDocument/didOpen", "params": {"textDocument": item}})
        self.check(self.process.receive(), 1)

    def send(self, message: dict[str, Any]) -> None:
        self.process.send(frame({"jsonrpc": "2.0", **message}))

    def change(self, text: str) -> bytes:
        """The frame of the next version, which holds ``text``."""
        self.version += 1
        params = {
            "textDocument": {"uri": self.uri, "version": self.version},
            "contentChanges": [incremental_change(self.text, text)],
        }
        self.text = text
        return frame({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": params})

    def timed(self, change: bytes) -> int:
        """Send ``change``; nanoseconds until its publication has been read whole."""
        started = time.perf_counter_ns()
        self.process.send(change)
        body = self.process.receive()
        elapsed = time.perf_counter_ns() - started
        self.counts.append(self.check(body, self.version))
        return elapsed

    @staticmethod
    def check(body: bytes, version: int) -> int:
        """The number of diagnostics ``body`` publishes; it must be ``version``'s."""
        note = json.loads(body)
        params = note.get("params") or {}
        published = note.get("method") == "textDocument/publishDiagnostics"
        if not published or params.get("version") != version:
            raise BenchmarkError(f"expected the diagnostics of version {version}: {body[:200]!r}")
        return len(params["diagnostics"])

    def close(self, bench: Bench) -> None:
        """``shutdown`` then ``exit``: it must end with status 0."""
        self.send({"id": 2, "method": "shutdown"})
        self.process.receive()
        self.send({"method": "exit"})
        status = self.process.client.close(15.0)
        if self.process in bench.processes:
            bench.processes.remove(self.process)
        if status != 0:
            raise BenchmarkError(f"the lsp server exited {status} after shutdown and exit")


def _check_last(session: LspSession, data: bytes) -> None:
    """The last publication held one diagnostic per hint of its text that the editor
    shows (a copy's and a second hint of one definition are in the hover only)."""
    from gzguide.analysis.engine import evaluate, measure
    from gzguide.analysis.facts.parsed import parse_module
    from gzguide.analysis.policy.thresholds import default_thresholds
    from gzguide.lsp.families import hidden_copies, second_hints

    module = parse_module(data)
    found = evaluate(measure(module), default_thresholds()).findings if module else []
    hints = len(found) - len(hidden_copies(found) | second_hints(found))
    if not session.counts or session.counts[-1] != hints:
        raise BenchmarkError(f"{session.counts[-1:]} diagnostics published for {hints} hints")


def lsp_change(bench: Bench) -> list[Row]:
    folder = bench.workspace / "lsp"
    folder.mkdir()
    module = buffer_module(folder / "buffer.py")
    rng = random.Random(BUFFER_SEED)
    text = module.render().decode("utf-8")
    lines = text.count("\n")
    series = Series(
        "lsp_change",
        "didChange → publishDiagnostics",
        "one function edited, sent as an incremental didChange (debounce 0), to its "
        "publishDiagnostics read whole",
    )
    floor = Series(
        "analysis_floor",
        "in-process analysis of the same text",
        "parse + every metric + detectors and advice of the same bytes, cold, in this process",
    )
    with pinned() as prefix:
        session = LspSession(bench, prefix, module.path.as_uri(), text)
        current: dict[str, Any] = {}

        def next_edit(i: int) -> None:
            if current.get("i") != i:
                data, _cursor = edit_in_memory(module, rng)
                current.update(i=i, data=data)

        def lsp_arm(i: int) -> int:
            next_edit(i)
            return session.timed(session.change(current["data"].decode("utf-8")))

        def floor_arm(i: int) -> int:
            next_edit(i)
            return analyze_in_process(current["data"])

        gc.freeze()
        try:
            for i in range(-3, 0):  # unmeasured: the worker's imports and first calls
                lsp_arm(i)
                floor_arm(i)
            session.counts.clear()
            bench.interleave(
                "lsp change",
                [Arm(series, lsp_arm), Arm(floor, floor_arm)],
                bench.plan.lsp_iterations,
                bench.plan.lsp_budget_s,
            )
        finally:
            gc.unfreeze()
        session.close(bench)
    _check_last(session, current["data"])
    notes = ["each iteration makes one edit; both arms handle that edit's text"]
    if prefix:
        notes.append(f"client and in-process analysis on CPU {CLIENT_CPU}, server on {SERVER_CPU}")
    counts = session.counts
    extra = {"lines": lines, "diagnostics": max(set(counts), key=counts.count) if counts else None}
    return [
        Row(
            "lsp_change",
            f"LSP: buffer edited in one function ({lines:,} lines), didChange → "
            "publishDiagnostics (debounce 0)",
            series,
            [floor],
            notes=notes,
            extra=extra,
        )
    ]
