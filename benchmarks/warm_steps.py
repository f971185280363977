"""What a warm, unchanged-file request costs the server, step by step, in-process.

``python -m benchmarks.warm_steps [--rounds 2000] [--profile N]``

The request is ``warm_analyze``'s: the stdlib module (``inspect.py``) copied into a
temporary workspace, asked about by path after a first analysis, so that the
service's memo answers it. Each step of the frontend's work on it is timed over
``--rounds`` requests: the session reading the frame's body, the service's answer
(resolve, stat, threshold table, memo look-up, the answer built), the session's
reply, the response's encoding into parts and the request's log line (written to
``/dev/null``, as structured as on a real server). It prints each step's median in
microseconds; with ``--profile N``, the N costliest functions of ``--rounds``
whole requests under cProfile. Pin it with ``taskset -c N``.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec

from benchmarks.corpus import stdlib_module
from gzguide import logs
from gzguide.answer import Answer
from gzguide.guide.messages import ResponseEncoder
from gzguide.guide.session import Pending, Reply, Session
from gzguide.service import AnalysisService, Request
from gzguide.source import Source
from gzguide.workers.inprocess import InProcessBackend
from gzguide.workers.memo import Memo


def _body(path: Path, request_id: int) -> bytes:
    message = {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "analyze",
        "params": {"file_path": str(path)},
    }
    return msgspec.json.encode(message)


class _Front:
    """The server's per-request steps, without its pipes."""

    def __init__(self, root: Path, log: Any) -> None:
        self.session = Session()
        self.service = AnalysisService(str(root), InProcessBackend(), Memo())
        self.encoder = ResponseEncoder()
        self.log = log
        init = msgspec.json.encode(
            {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"clientVersion": "1.1"}}
        )
        self.session.handle_body(init)

    def pending(self, body: bytes) -> Pending:
        step = self.session.handle_body(body)
        assert isinstance(step, Pending)
        return step

    def answer(self, step: Pending) -> Answer:
        params = step.params
        request = Request(Source(params.file_path, step.text), params.cursor_position)
        return self.service.analyze_now(request)

    def reply(self, step: Pending, answer: Answer) -> Reply:
        return self.session.answered(step, answer)

    def encode(self, reply: Reply) -> object:
        return self.encoder.parts(reply.response)

    def log_line(self, reply: Reply) -> None:
        assert reply.record is not None
        self.log.info("request", **reply.record.log_fields(0.123))

    def whole(self, body: bytes) -> None:
        step = self.pending(body)
        reply = self.reply(step, self.answer(step))
        self.encode(reply)
        self.log_line(reply)


def _time_steps(front: _Front, body: bytes, rounds: int) -> dict[str, list[float]]:
    samples: dict[str, list[float]] = {}
    clock = time.perf_counter_ns

    def timed(name: str, fn: Callable[..., Any], *args: Any) -> Any:
        started = clock()
        value = fn(*args)
        samples.setdefault(name, []).append((clock() - started) / 1e3)
        return value

    for _ in range(rounds):
        started = clock()
        step = timed("session: read the request", front.pending, body)
        answer = timed("service: the memo's answer", front.answer, step)
        reply = timed("session: the reply", front.reply, step, answer)
        timed("encode the response", front.encode, reply)
        timed("the log line", front.log_line, reply)
        samples.setdefault("whole request", []).append((clock() - started) / 1e3)
    return samples


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.warm_steps")
    parser.add_argument("--rounds", type=int, default=2000)
    parser.add_argument("--profile", type=int, default=0)
    args = parser.parse_args(argv)
    null = os.open(os.devnull, os.O_WRONLY)
    logs.configure("info", null, process="frontend")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        path = root / "module.py"
        shutil.copyfile(stdlib_module(), path)
        os.utime(path, (time.time() - 60, time.time() - 60))  # outside the racy window
        front = _Front(root, logs.get_logger())
        body = _body(path, 1)
        front.whole(body)
        front.whole(body)
        samples = _time_steps(front, body, args.rounds)
        print(f"{args.rounds} warm requests of {path.stat().st_size} bytes; medians in µs")
        print("| step | µs |")
        print("|---|---:|")
        for name, values in samples.items():
            print(f"| {name} | {statistics.median(values):.1f} |")
        if args.profile:
            profile = cProfile.Profile()
            profile.enable()
            for _ in range(args.rounds):
                front.whole(body)
            profile.disable()
            pstats.Stats(profile).sort_stats("tottime").print_stats(args.profile)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
