"""A small, efficient client for Content-Length framed JSON over a child's stdio.

The child is spawned with plain pipes; frames are written with ``os.write`` on the
raw descriptor and read with ``os.read`` (after a ``poll`` with a deadline, so a
hung server fails the run instead of hanging it). Requests are encoded before the
clock starts and responses decoded after it stops: a timed sample is the write,
the server's work and the read of the complete response frame, nothing else.

Also here: the process tree's resident memory, from ``/proc``.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import select
import signal
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Final

HEADER_END: Final = b"\r\n\r\n"
#: One read takes what a full pipe holds (64 KiB on Linux). A larger buffer is not
#: free: CPython allocates the whole buffer for every read, and past glibc's mmap
#: threshold (128 KiB) that is a fresh mapping whose pages fault in as the kernel
#: fills them; with 1 MiB reads that client-side cost was ~17 us per round trip and
#: ~45 us more for a 48 KB answer, measured between two bare processes.
READ_CHUNK: Final = 1 << 16
#: A healthy server answers in milliseconds to a second; this only stops a hang.
DEFAULT_TIMEOUT_S: Final = 60.0

SERVER_MODULE_ARGS: Final = ("-m", "gzguide", "complexity", "guide", "--server")


class BenchmarkError(RuntimeError):
    """The server misbehaved (no answer, a wrong answer, an early exit)."""


def encode_frame(payload: dict[str, Any]) -> bytes:
    body = json.dumps(payload, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    return b"Content-Length: %d\r\n\r\n%s" % (len(body), body)


def server_argv(*options: str) -> list[str]:
    """The command an editor runs: ``gz complexity guide --server OPTIONS``."""
    return [sys.executable, *SERVER_MODULE_ARGS, *options]


def child_environment(cache_dir: Path) -> tuple[dict[str, str], str]:
    """The environment the measured processes run in, and what was done to it.

    With ``PYTHONDONTWRITEBYTECODE`` set (as in some sandboxes and CI images), any
    module without a bytecode cache is compiled from source at every start, which
    would charge gzguide (often installed editable, never compiled) for what the
    baseline's pre-compiled site-packages do not pay. Then the children get their
    bytecode caches in ``cache_dir`` instead (``PYTHONPYCACHEPREFIX``), primed once
    before anything is measured; otherwise the environment is left as it is.
    """
    env = dict(os.environ)
    if env.pop("PYTHONDONTWRITEBYTECODE", ""):
        env["PYTHONPYCACHEPREFIX"] = str(cache_dir)
        return env, (
            "PYTHONDONTWRITEBYTECODE was set: children run without it, with bytecode "
            "caches under a temporary PYTHONPYCACHEPREFIX, primed before measuring"
        )
    return env, "inherited environment; bytecode caches primed before measuring"


def _content_length(header: bytes) -> int:
    for line in header.split(b"\r\n"):
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            return int(value)
    raise BenchmarkError(f"a response without Content-Length: {header!r}")


class FramedProcess:
    """A child process that speaks framed JSON on its stdin/stdout."""

    def __init__(
        self,
        argv: Sequence[str],
        cwd: str | Path,
        stderr: int,
        env: Mapping[str, str] | None = None,
        log_path: Path | None = None,
    ) -> None:
        self.argv = list(argv)
        #: Where its stderr goes, quoted when it fails.
        self.log_path = log_path
        self.proc = subprocess.Popen(
            self.argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr,
            cwd=cwd,
            env=env,
            bufsize=0,
            start_new_session=True,  # its own process group: killable as a whole
        )
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.in_fd = self.proc.stdin.fileno()
        self.out_fd = self.proc.stdout.fileno()
        self._buf = bytearray()
        self._poller = select.poll()
        self._poller.register(self.out_fd, select.POLLIN)
        self._ids = itertools.count(1)

    @property
    def pid(self) -> int:
        return self.proc.pid

    # -- frames -----------------------------------------------------------------

    def frame(self, method: str, params: dict[str, Any] | None = None) -> tuple[int, bytes]:
        """A request's id and its encoded frame (encode before the clock starts)."""
        request_id = next(self._ids)
        payload: dict[str, Any] = {"id": request_id, "method": method}
        if params is not None:
            payload["params"] = params
        return request_id, encode_frame(payload)

    def send(self, data: bytes) -> None:
        view = memoryview(data)
        try:
            while view:
                view = view[os.write(self.in_fd, view) :]
        except OSError as exc:
            raise BenchmarkError(f"{self._what()}: cannot write: {exc}") from exc

    def receive(self, timeout_s: float = DEFAULT_TIMEOUT_S) -> bytes:
        """The body of the next complete frame."""
        return bytes(self._receive(timeout_s))

    def _receive(self, timeout_s: float) -> bytes | memoryview:
        """The next frame's body, as it lies in what was read (copying it is decoding)."""
        deadline = time.monotonic() + timeout_s
        while True:
            body = self._take_frame()
            if body is not None:
                return body
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not self._poller.poll(int(remaining * 1000) + 1):
                raise BenchmarkError(f"no answer within {timeout_s:g} s from {self._what()}")
            chunk = os.read(self.out_fd, READ_CHUNK)
            if not chunk:
                with contextlib.suppress(subprocess.TimeoutExpired):
                    self.proc.wait(timeout=1)
                code = self.proc.returncode
                raise BenchmarkError(f"{self._what()} closed its stdout (exit status {code})")
            if not self._buf:
                body = self._whole_frame(chunk)
                if body is not None:
                    return body
            self._buf += chunk

    def _what(self) -> str:
        """The command, and the end of its stderr when there is one."""
        what = " ".join(os.path.basename(a) for a in self.argv[:6])
        if self.log_path is not None:
            with contextlib.suppress(OSError):
                tail = self.log_path.read_bytes()[-1500:].decode("utf-8", "replace")
                what += f"; the end of its stderr ({self.log_path.name}):\n{tail}"
        return what

    def _take_frame(self) -> bytes | None:
        buf = self._buf
        end = buf.find(HEADER_END)
        if end < 0:
            return None
        start = end + len(HEADER_END)
        length = _content_length(bytes(buf[:end]))
        if len(buf) < start + length:
            return None
        body = bytes(buf[start : start + length])
        del buf[: start + length]
        return body

    def _whole_frame(self, chunk: bytes) -> memoryview | None:
        """The body, when ``chunk`` (read with nothing buffered) holds a whole frame.

        The usual case, a response read in one piece, is not copied at all (three
        copies through the buffer); anything after the frame is buffered.
        """
        end = chunk.find(HEADER_END)
        if end < 0:
            return None
        start = end + len(HEADER_END)
        stop = start + _content_length(chunk[:end])
        if len(chunk) < stop:
            return None
        self._buf += chunk[stop:]
        return memoryview(chunk)[start:stop]

    def timed(self, frame: bytes, timeout_s: float = DEFAULT_TIMEOUT_S) -> tuple[int, bytes]:
        """Write ``frame``, read the answer: (elapsed ns, response body).

        The clock stops when the whole body has been read; taking it out of the read
        buffer is left to after, with the decoding.
        """
        started = time.perf_counter_ns()
        self.send(frame)
        body = self._receive(timeout_s)
        elapsed = time.perf_counter_ns() - started
        return elapsed, bytes(body)

    def call(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        timeout_s: float = DEFAULT_TIMEOUT_S,
    ) -> tuple[int, dict[str, Any]]:
        """A checked round trip: (elapsed ns, decoded response with the same id)."""
        request_id, frame = self.frame(method, params)
        elapsed, body = self.timed(frame, timeout_s)
        return elapsed, check_response(body, request_id)

    # -- lifecycle ----------------------------------------------------------------

    def initialize(self) -> dict[str, Any]:
        _, response = self.call("initialize", {"clientVersion": "1.0"})
        if "result" not in response:
            raise BenchmarkError(f"initialize failed: {response}")
        return response

    def shutdown(self, timeout_s: float = 15.0) -> int | None:
        """``shutdown``, then wait for the exit; kill the process group if it lingers."""
        with contextlib.suppress(BenchmarkError, OSError):
            self.call("shutdown", timeout_s=timeout_s)
        return self.close(timeout_s)

    def close(self, timeout_s: float = 15.0) -> int | None:
        """EOF to the child, wait for its exit (killing it if it lingers), close our ends.

        The pipes are closed through their file objects, never with ``os.close`` on
        the numbers: the objects would close those numbers again later, by then
        perhaps another process's pipe.
        """
        assert self.proc.stdin is not None and self.proc.stdout is not None
        with contextlib.suppress(OSError):
            self.proc.stdin.close()
        try:
            code = self.proc.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            self.kill()
            code = None
        with contextlib.suppress(OSError):
            self.proc.stdout.close()
        return code

    def kill(self) -> None:
        """SIGKILL the child's process group (the server and its workers)."""
        with contextlib.suppress(OSError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=10)
        for pipe in (self.proc.stdin, self.proc.stdout):
            if pipe is not None:
                with contextlib.suppress(OSError):
                    pipe.close()


def check_response(body: bytes, request_id: int) -> dict[str, Any]:
    try:
        response = json.loads(body)
    except ValueError as exc:
        raise BenchmarkError(f"a response that is not JSON: {body[:200]!r}") from exc
    if not isinstance(response, dict) or response.get("id") != request_id:
        raise BenchmarkError(f"expected the answer to {request_id}, got {body[:200]!r}")
    return response


def hints_of(response: dict[str, Any]) -> list[dict[str, Any]]:
    result = response.get("result")
    if not isinstance(result, dict) or not isinstance(result.get("hints"), list):
        raise BenchmarkError(f"an analyze answer without hints: {str(response)[:200]}")
    hints: list[dict[str, Any]] = result["hints"]
    return hints


# -- memory --------------------------------------------------------------------


def _parent_of(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            stat = handle.read()
    except OSError:
        return None
    # The command name may hold spaces and parentheses: fields follow the last ')'.
    fields = stat[stat.rfind(b")") + 2 :].split()
    return int(fields[1]) if len(fields) > 1 else None


def process_tree(root_pid: int) -> list[int]:
    """``root_pid`` and all of its descendants (found through each process's ppid)."""
    children: dict[int, list[int]] = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            parent = _parent_of(int(name))
            if parent is not None:
                children.setdefault(parent, []).append(int(name))
    tree: list[int] = []
    stack = [root_pid]
    while stack:
        pid = stack.pop()
        tree.append(pid)
        stack.extend(children.get(pid, []))
    return tree


def _status_kib(pid: int, field_name: bytes) -> int:
    try:
        with open(f"/proc/{pid}/status", "rb") as handle:
            for line in handle:
                if line.startswith(field_name):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return 0


def _pss_kib(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/smaps_rollup", "rb") as handle:
            for line in handle:
                if line.startswith(b"Pss:"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return 0


def tree_memory(root_pid: int) -> dict[str, Any]:
    """Summed VmRSS (and PSS, which does not count shared pages twice) of the tree."""
    pids = process_tree(root_pid)
    rss = {pid: _status_kib(pid, b"VmRSS:") for pid in pids}
    pss = sum(_pss_kib(pid) for pid in pids)
    return {
        "processes": len(pids),
        "rss_mib": round(sum(rss.values()) / 1024, 2),
        "pss_mib": round(pss / 1024, 2) if pss else None,
        "rss_mib_by_process": [round(rss[pid] / 1024, 2) for pid in pids],
    }


def memory_supported() -> bool:
    return sys.platform.startswith("linux") and os.path.exists("/proc/self/status")
