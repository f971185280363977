"""The LSP mode: a ``didChange`` to its ``publishDiagnostics``, against the analysis floor.

An editor sends a change; what its user waits for is the diagnostics of the new
version. The scenario holds one 3,500-line buffer open in a real
``gz complexity guide --lsp`` (debounce 0, through ``initializationOptions``) and
types into it: each sample is one incremental ``didChange`` that rewrites the
buffer's last line (a comment, so every version is new text and nothing is
answered from a cache), timed from the write of the frame, encoded before the
clock starts, to the last byte of the publication for that version.

The floor is what no front end can save: the same text analyzed cold in this
process (``parse_module`` + ``measure`` + ``evaluate``, what a worker runs),
interleaved with the LSP samples in a shuffled order. The difference is the LSP
mode's own cost: framing, applying the edit, the job's trip to a worker and back,
the hints made diagnostics and encoded, the pipes.

Both sides are pinned (``taskset`` for the server and its workers, the same
affinity call for this process), so neither competes with the other for a
processor: the server on one CPU, the client on another while it waits for the
publication, and the floor on the server's CPU, where the worker analyzed.
Without two CPUs or ``taskset`` nothing is pinned, and the row says so.
"""

from __future__ import annotations

import gc
import json
import os
import shutil
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from benchmarks.corpus import synthetic_module
from benchmarks.harness import Arm, Bench, BenchmarkError, Measured, Row
from benchmarks.stats import Series

#: The buffer: a deterministic synthetic module (the same on every interpreter, unlike
#: a standard-library module) of about this many lines; with this seed, and the
#: comment line every sample rewrites, it is 3,500 lines exactly.
BUFFER_LINES: Final = 3480
BUFFER_SEED: Final = 76

LSP_COMMAND: Final = ("-m", "gzguide", "complexity", "guide", "--lsp")


@dataclass(frozen=True, slots=True)
class Pinning:
    """The CPUs the server and the client run on; ``None`` when not pinned."""

    server: frozenset[int] | None
    client: frozenset[int] | None

    @classmethod
    def choose(cls) -> Pinning:
        cpus = sorted(os.sched_getaffinity(0))
        if len(cpus) < 2 or shutil.which("taskset") is None:
            return cls(None, None)
        return cls(frozenset({cpus[-1]}), frozenset({cpus[0]}))

    def prefix(self) -> list[str]:
        """What the server's command starts with (its workers inherit the affinity)."""
        if self.server is None:
            return []
        return ["taskset", "-c", ",".join(map(str, sorted(self.server)))]

    def run_on(self, cpus: frozenset[int] | None) -> None:
        """Move this process to ``cpus`` (a no-op when nothing is pinned)."""
        if cpus is not None:
            os.sched_setaffinity(0, cpus)

    def describe(self) -> dict[str, Any]:
        if self.server is None or self.client is None:
            return {"pinned": False, "why": "fewer than 2 CPUs, or no taskset"}
        return {
            "pinned": True,
            "server_and_workers_cpus": sorted(self.server),
            "client_cpus": sorted(self.client),
            "floor_cpus": sorted(self.server),
        }


def frame(message: dict[str, Any]) -> bytes:
    body = json.dumps(message, separators=(",", ":")).encode("utf-8")
    return b"Content-Length: %d\r\n\r\n%b" % (len(body), body)


class LspSession:
    """One ``--lsp`` server with one open document, driven over its pipes."""

    def __init__(self, bench: Bench, pinning: Pinning, text: str) -> None:
        argv = [*pinning.prefix(), sys.executable, *LSP_COMMAND, "--root", str(bench.workspace)]
        self.process: Measured = bench.spawn(argv, "lsp")
        self.uri = (bench.workspace / "lsp" / "buffer.py").as_uri()
        self.version = 1
        self.last_line = text.count("\n") - 1
        self.hints: list[int] = []
        params = {
            "processId": os.getpid(),
            "rootUri": bench.workspace.as_uri(),
            "capabilities": {},
            "initializationOptions": {"debounceMs": 0},
        }
        self.process.send(
            frame({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params})
        )
        answer = json.loads(self.process.receive())
        if answer.get("id") != 1 or "result" not in answer:
            raise BenchmarkError(f"lsp initialize: {str(answer)[:200]}")
        self.process.send(frame({"jsonrpc": "2.0", "method": "initialized", "params": {}}))
        item = {"uri": self.uri, "languageId": "python", "version": 1, "text": text}
        self.process.send(
            frame(
                {
                    "jsonrpc": "2.0",
                    "method": "textDocument/didOpen",
                    "params": {"textDocument": item},
                }
            )
        )
        self.check(self.process.receive(), 1)

    def change(self, last_line: str) -> bytes:
        """The frame of the next version: the buffer's last line replaced."""
        self.version += 1
        edit = {
            "range": {
                "start": {"line": self.last_line, "character": 0},
                "end": {"line": self.last_line + 1, "character": 0},
            },
            "text": last_line + "\n",
        }
        params = {
            "textDocument": {"uri": self.uri, "version": self.version},
            "contentChanges": [edit],
        }
        return frame({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": params})

    def timed(self, change: bytes) -> int:
        """Send ``change``; nanoseconds until its publication has been read whole."""
        started = time.perf_counter_ns()
        self.process.send(change)
        body = self.process.receive()
        elapsed = time.perf_counter_ns() - started
        self.check(body, self.version)
        return elapsed

    def check(self, body: bytes, version: int) -> None:
        note = json.loads(body)
        params = note.get("params") or {}
        if note.get("method") != "textDocument/publishDiagnostics" or params.get("version") != (
            version
        ):
            raise BenchmarkError(f"expected the diagnostics of version {version}: {body[:200]!r}")
        self.hints.append(len(params["diagnostics"]))

    def close(self, bench: Bench) -> None:
        self.process.send(frame({"jsonrpc": "2.0", "id": 2, "method": "shutdown"}))
        self.process.receive()
        self.process.send(frame({"jsonrpc": "2.0", "method": "exit"}))
        status = self.process.client.close(15.0)
        if self.process in bench.processes:
            bench.processes.remove(self.process)
        if status != 0:
            raise BenchmarkError(f"the lsp server exited {status} after shutdown and exit")


def lsp_change(bench: Bench) -> list[Row]:
    from gzguide.analysis.engine import evaluate, measure
    from gzguide.analysis.parsed import parse_module
    from gzguide.analysis.thresholds import default_thresholds

    plan = bench.plan
    base = synthetic_module(BUFFER_SEED, BUFFER_LINES)
    text = base + "# edit 0\n"
    lines = text.count("\n")
    pinning = Pinning.choose()
    home = os.sched_getaffinity(0)
    table = default_thresholds()
    session = LspSession(bench, pinning, text)
    try:
        counts: list[int] = []

        def typed(i: int) -> str:
            # Every sample's text is new (to the server's memo and the worker's cache).
            return f"# edit {i + 1}"

        def lsp_sample(i: int) -> int:
            change = session.change(typed(i))
            pinning.run_on(pinning.client)
            return session.timed(change)

        def floor_sample(i: int) -> int:
            data = (base + typed(i) + "\n").encode("utf-8")
            pinning.run_on(pinning.server)
            # As a worker does after each job: what the process holds already is kept
            # out of the collections the analysis triggers.
            gc.freeze()
            started = time.perf_counter_ns()
            module = parse_module(data)
            assert module is not None
            counts.append(len(evaluate(measure(module), table).findings))
            return time.perf_counter_ns() - started

        series = Series(
            "lsp_change",
            "didChange → publishDiagnostics",
            f"an incremental didChange of a {lines:,}-line buffer, debounce 0, to its "
            "publishDiagnostics read whole",
        )
        floor = Series(
            "analysis_floor",
            "in-process analysis",
            "parse_module + measure + evaluate of the same text, in this process, cold",
        )
        # Unmeasured: the worker's and this process's imports and first-call costs.
        for i in range(-3, 0):
            session.timed(session.change(typed(i - 10)))
            floor_sample(i - 10)
        session.hints.clear()
        counts.clear()
        bench.interleave(
            "lsp change",
            [Arm(series, lsp_sample), Arm(floor, floor_sample)],
            plan.lsp_iterations,
            plan.lsp_budget_s,
        )
        session.close(bench)
    finally:
        os.sched_setaffinity(0, home)
        gc.unfreeze()
    if sorted(set(session.hints)) != sorted(set(counts)):
        raise BenchmarkError(
            f"the diagnostics ({sorted(set(session.hints))}) are not the analysis's hints "
            f"({sorted(set(counts))})"
        )
    extra = {"buffer_lines": lines, "diagnostics": _mode(session.hints), **pinning.describe()}
    return [
        Row(
            "lsp_change",
            f"LSP: didChange → publishDiagnostics, {lines:,}-line buffer (debounce 0)",
            series,
            [floor],
            extra=extra,
        )
    ]


def _mode(values: Sequence[int]) -> int | None:
    return max(set(values), key=list(values).count) if values else None
