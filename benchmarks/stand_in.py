"""The warm path against a stand-in that writes the same bytes.

``python -m benchmarks.stand_in [--rounds 400]``

A real server (``gz complexity guide --server``, default workers) answers the warm,
unchanged-file request of ``warm_analyze`` (the stdlib module copied into a
temporary workspace). The stand-in (``python -m benchmarks.stand_in --serve FILE``)
is the least a server can do for the same answer: read a frame, write the body the
real server gave, with the request's id put in. Both are timed with the project's
client (write the frame, read the last byte of the answer), interleaved, with the
servers pinned to the client's CPU (``same CPU``) and then to the other one
(``other CPU``); ``--pause-ms`` leaves the servers idle before each sample, as an
editor's pauses do (their caches then cold). The difference between the two arms
is what the real server does per request beyond moving those bytes. Prints the
medians (µs), their ratio and each server's CPU time per request.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import NamedTuple

from benchmarks.corpus import stdlib_module
from benchmarks.harness import Measured, check_response, server_argv
from gzguide import procfs

_ID = re.compile(rb'"id":(\d+)')


def _read_frame(fd: int, pending: bytearray) -> bytes | None:
    """The next frame's body from ``fd`` (``pending`` holds what was read past it)."""
    while True:
        end = pending.find(b"\r\n\r\n")
        if end >= 0:
            length = int(pending[:end].split(b":", 1)[1])
            start = end + 4
            if len(pending) >= start + length:
                body = bytes(pending[start : start + length])
                del pending[: start + length]
                return body
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            return None
        pending += chunk


def serve(answer_file: str) -> int:
    """The stand-in: each request answered with the stored body, its id put in."""
    template = Path(answer_file).read_bytes()
    found = _ID.search(template)
    assert found is not None
    head, tail = template[: found.start(1)], template[found.end(1) :]
    pending = bytearray()
    while (body := _read_frame(0, pending)) is not None:
        request = _ID.search(body)
        request_id = request.group(1) if request is not None else b"null"
        answer = head + request_id + tail
        os.writev(1, [b"Content-Length: %d\r\n\r\n" % len(answer), answer])
    return 0


class _Pair(NamedTuple):
    """Medians of the two arms' round trips, and each server's CPU per request (µs)."""

    real: float
    stand_in: float
    real_cpu: float
    stand_in_cpu: float


def _sample(server: Measured, path: Path) -> int:
    request_id, frame = server.frame("analyze", {"file_path": str(path)})
    elapsed, body = server.timed(frame)
    check_response(body, request_id)
    return elapsed


def _pair(
    workspace: Path, path: Path, cpu: int, rounds: int, pause_s: float, server_options: list[str]
) -> _Pair:
    prefix = ["taskset", "-c", str(cpu)]
    quiet = os.open(os.devnull, os.O_WRONLY)
    options = ["--root", str(workspace), *server_options]
    real = Measured([*prefix, *server_argv(*options)], workspace, quiet)
    real.call("initialize", {"clientVersion": "1.1"})
    _request_id, frame = real.frame("analyze", {"file_path": str(path)})
    for _ in range(3):
        _elapsed, body = real.timed(frame)
    answer = workspace / "answer.json"
    answer.write_bytes(body)
    stand_in = Measured(
        [*prefix, sys.executable, "-m", "benchmarks.stand_in", "--serve", str(answer)],
        Path.cwd(),
        quiet,
    )
    os.close(quiet)
    rng = random.Random(21)
    samples: dict[str, list[int]] = {"real": [], "stand_in": []}
    arms = [("real", real), ("stand_in", stand_in)]
    cpu_before = {name: procfs.cpu_seconds(server.pid) for name, server in arms}
    for _ in range(rounds):
        rng.shuffle(arms)
        for name, server in arms:
            time.sleep(pause_s)
            samples[name].append(_sample(server, path))
    cpu = {
        name: (procfs.cpu_seconds(server.pid) - cpu_before[name]) / rounds * 1e6
        for name, server in arms
    }
    real.shutdown()
    stand_in.kill()
    return _Pair(
        statistics.median(samples["real"]) / 1e3,
        statistics.median(samples["stand_in"]) / 1e3,
        cpu["real"],
        cpu["stand_in"],
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.stand_in")
    parser.add_argument("--rounds", type=int, default=400)
    parser.add_argument("--pause-ms", type=float, default=0.0, help="idle time before each sample")
    parser.add_argument(
        "--server-option", action="append", default=[], help="an option for the real server"
    )
    parser.add_argument("--serve", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve is not None:
        return serve(args.serve)
    os.sched_setaffinity(0, {0})
    with tempfile.TemporaryDirectory() as tmp:
        workspace = Path(tmp)
        path = workspace / "module.py"
        shutil.copyfile(stdlib_module(), path)
        os.utime(path, (time.time() - 60, time.time() - 60))
        print(f"medians of {args.rounds}, µs; server CPU per request, µs")
        print("| server on | real | stand-in | ratio | real CPU | stand-in CPU |")
        print("|---|---:|---:|---:|---:|---:|")
        for label, cpu in (("same CPU", 0), ("other CPU", 1)):
            p = _pair(workspace, path, cpu, args.rounds, args.pause_ms / 1e3, args.server_option)
            print(
                f"| {label} | {p.real:.1f} | {p.stand_in:.1f} | {p.real / p.stand_in:.2f} "
                f"| {p.real_cpu:.1f} | {p.stand_in_cpu:.1f} |"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
