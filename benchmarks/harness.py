"""The benchmark harness: the workspace, the measured processes, the samples and the loops.

The scenarios (:mod:`benchmarks.scenarios`) are built from these parts:

* :class:`Measured`: a child process that speaks framed JSON on its stdio (the gz
  server, or the naive baseline server), driven through the project's public
  client (:mod:`gzguide.client`). A timed sample writes a request encoded before
  the clock starts and stops the clock when the last byte of the answer has been
  read; taking the body out of that read and decoding it come after.
* :class:`Bench`: the temporary workspace, the long-lived servers the scenarios
  share, and one sample of each kind (an analyze request, a bare round trip, a
  ``radon`` process).
* :meth:`Bench.interleave`: the loop that runs several arms side by side in a
  fresh shuffled order each iteration, within a sample count and a time budget.
  Why the order is shuffled and the slow baselines get a loop of their own is in
  ``benchmarks/README.md``.
* :func:`tree_memory`: the resident memory of a process tree, from :mod:`gzguide.procfs`.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, TypeVar

from benchmarks import corpus
from benchmarks.plan import Plan
from benchmarks.stats import Series
from gzguide import procfs
from gzguide.client import SERVER_COMMAND, ClientError, GuideClient, encode_request

NAIVE_SERVER = Path(__file__).with_name("naive_server.py")
#: Files in the warm-up folder each gz server analyzes first, so every worker is
#: up (and has imported everything) before anything is measured.
WARMUP_FILES = 16
#: What the start-up baseline runs: the interpreter and the server's two heavy imports.
IMPORTS_BASELINE = (sys.executable, "-c", "import msgspec, structlog")
#: The same, timed to its first output byte instead of its exit: the server's
#: sample ends at its answer, before any interpreter teardown.
IMPORTS_READY = (sys.executable, "-c", "import os, msgspec, structlog; os.write(1, b'.')")
#: A healthy server answers in milliseconds to a second; this only stops a hang.
DEFAULT_TIMEOUT_S: Final = 60.0


class BenchmarkError(RuntimeError):
    """The server misbehaved (no answer, a wrong answer, an early exit)."""


def server_argv(*options: str) -> list[str]:
    """The command an editor runs: ``gz complexity guide --server OPTIONS``."""
    return [*SERVER_COMMAND, *options]


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


class Measured:
    """A child process that speaks framed JSON on its stdin/stdout, under measurement."""

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
        # Its own process group: killable as a whole, workers included.
        self.client = GuideClient.start(
            command=self.argv, cwd=cwd, env=env, stderr=stderr, new_session=True
        )
        self.connection = self.client.connection

    @property
    def pid(self) -> int:
        assert self.client.pid is not None
        return self.client.pid

    def frame(self, method: str, params: dict[str, Any] | None = None) -> tuple[int, bytes]:
        """A request's id and its encoded frame (encode before the clock starts)."""
        request_id = self.client.next_id()
        return request_id, encode_request(request_id, method, params)

    def send(self, data: bytes) -> None:
        try:
            self.connection.send(data, DEFAULT_TIMEOUT_S)
        except ClientError as exc:
            raise BenchmarkError(f"{self._what()}: cannot write: {exc}") from exc

    def receive(self, timeout_s: float = DEFAULT_TIMEOUT_S) -> bytes:
        """The body of the next complete frame."""
        return bytes(self._receive(timeout_s))

    def _receive(self, timeout_s: float) -> bytes | memoryview:
        try:
            return self.connection.receive_view(timeout_s)
        except ClientError as exc:
            raise BenchmarkError(f"{self._what()}: {exc}") from exc

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

    def shutdown(self, timeout_s: float = 15.0) -> int | None:
        """``shutdown``, then wait for the exit; kill the process group if it lingers."""
        with contextlib.suppress(BenchmarkError):
            self.call("shutdown", timeout_s=timeout_s)
        return self.client.close(timeout_s)

    def kill(self) -> None:
        """SIGKILL the child's process group (the server and its workers)."""
        self.client.kill()

    def _what(self) -> str:
        """The command, and the end of its stderr when there is one."""
        what = " ".join(os.path.basename(a) for a in self.argv[:6])
        if self.log_path is not None:
            with contextlib.suppress(OSError):
                tail = self.log_path.read_bytes()[-1500:].decode("utf-8", "replace")
                what += f"; the end of its stderr ({self.log_path.name}):\n{tail}"
        return what


def tree_memory(root_pid: int) -> dict[str, Any]:
    """Summed VmRSS (and PSS, which does not count shared pages twice) of the tree."""
    pids = procfs.tree(root_pid)
    rss = {pid: procfs.rss_kib(pid) for pid in pids}
    pss = sum(procfs.pss_kib(pid) for pid in pids)
    return {
        "processes": len(pids),
        "rss_mib": round(sum(rss.values()) / 1024, 2),
        "pss_mib": round(pss / 1024, 2) if pss else None,
        "rss_mib_by_process": [round(rss[pid] / 1024, 2) for pid in pids],
    }


@dataclass
class Row:
    """One measured scenario and the baselines measured with it."""

    key: str
    title: str
    series: Series
    baselines: list[Series] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class Arm:
    """One participant of an interleaved loop: sampled on iterations ``i % every == 0``."""

    series: Series
    sample: Callable[[int], int]
    every: int = 1


class Progress:
    def __init__(self) -> None:
        self.started = time.monotonic()

    def elapsed(self) -> float:
        return time.monotonic() - self.started

    def say(self, message: str) -> None:
        print(f"[{self.elapsed():6.1f} s] {message}", file=sys.stderr, flush=True)


class Bench:
    """The workspace, the servers started in it, and the ways to sample them."""

    def __init__(self, plan: Plan, workspace: Path, progress: Progress) -> None:
        self.plan = plan
        self.workspace = workspace
        self.progress = progress
        self.logs = workspace / "logs"
        self.logs.mkdir(parents=True, exist_ok=True)
        self.env, self.env_note = child_environment(workspace / "pycache")
        self.processes: list[Measured] = []
        #: The shared servers, started by :meth:`prime`.
        self.main: Measured
        self.quiet: Measured
        self.inproc: Measured
        self.naive: Measured
        self.warmup_dir = workspace / "warmup"
        corpus.write_tree(self.warmup_dir, WARMUP_FILES, seed=7, lines=(20, 40), per_dir=100)
        self.stdlib_source = corpus.stdlib_module()
        self.module = workspace / "module" / self.stdlib_source.name
        self.module.parent.mkdir()
        shutil.copy2(self.stdlib_source, self.module)  # keeps its old mtime: an unchanged file
        self.module_lines = self.module.read_bytes().count(b"\n")

    # -- processes ----------------------------------------------------------------

    def log_fd(self, name: str) -> int:
        return os.open(self.logs / f"{name}.log", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)

    def spawn(self, argv: Sequence[str], name: str) -> Measured:
        name = f"{name}-{len(self.processes) + 1}"
        fd = self.log_fd(name)
        try:
            process = Measured(argv, self.workspace, fd, self.env, self.logs / f"{name}.log")
        finally:
            os.close(fd)
        self.processes.append(process)
        return process

    def start(self, *configs: tuple[str, ...], naive: bool = False) -> list[Measured]:
        """gz servers, one per option tuple (then the naive server if asked), all ready.

        They start concurrently; each is initialized, and each gz server analyzes
        the warm-up folder, so that every worker is up and has imported everything.
        """
        servers = [
            self.spawn(server_argv("--root", str(self.workspace), *options), "gz")
            for options in configs
        ]
        if naive:
            servers.append(self.spawn([sys.executable, str(NAIVE_SERVER)], "naive"))
        self._all(servers, "initialize", {"clientVersion": "1.0"})
        self._all(servers[: len(configs)], "analyze", {"file_path": str(self.warmup_dir)})
        return servers

    @staticmethod
    def _all(servers: Sequence[Measured], method: str, params: dict[str, Any]) -> None:
        sent = []
        for server in servers:
            request_id, frame = server.frame(method, params)
            server.send(frame)
            sent.append(request_id)
        for server, request_id in zip(servers, sent, strict=True):
            if "result" not in check_response(server.receive(), request_id):
                raise BenchmarkError(f"{method} failed on {server.argv[1:]}")

    def stop(self, *servers: Measured) -> None:
        for server in servers:
            server.shutdown()
            if server in self.processes:
                self.processes.remove(server)

    def close(self) -> None:
        for process in self.processes:
            process.kill()
        self.processes.clear()

    def prime(self) -> None:
        """Start the shared servers; run every measured program once, unmeasured.

        An editor keeps one server for a session, so the scenarios share these
        (each on its own files): the default server (``main``), one with logging
        off, one with ``--workers 0``, and the naive server. Running each program
        once first fills the bytecode and page caches nothing should be charged for.
        """
        shared = self.start((), ("--log-level", "error"), ("--workers", "0"), naive=True)
        self.main, self.quiet, self.inproc, self.naive = shared
        for server in shared:
            self.analyze_sample(server, self.module, 1000)
        self.ping_sample(self.main)
        self.radon_sample(self.warmup_dir)
        for program in (IMPORTS_BASELINE, IMPORTS_READY):
            subprocess.run(program, env=self.env, stdout=subprocess.DEVNULL, check=True)

    def stop_shared(self) -> None:
        self.stop(self.main, self.quiet, self.inproc, self.naive)

    # -- samples ------------------------------------------------------------------

    def analyze_sample(
        self, server: Measured, path: Path, cursor: int | None = None
    ) -> tuple[int, int]:
        """One timed analyze request: (elapsed ns, number of hints)."""
        params: dict[str, Any] = {"file_path": str(path)}
        if cursor is not None:
            params["cursor_position"] = cursor
        request_id, frame = server.frame("analyze", params)
        elapsed, body = server.timed(frame)
        return elapsed, len(hints_of(check_response(body, request_id)))

    def ping_sample(self, server: Measured) -> int:
        """One bare framed round trip: an unknown method, answered with -32601."""
        request_id, frame = server.frame("ping")
        elapsed, body = server.timed(frame)
        error = check_response(body, request_id).get("error")
        if not isinstance(error, dict) or error.get("code") != -32601:
            raise BenchmarkError(f"ping: expected a -32601 error, got {body[:200]!r}")
        return elapsed

    def radon_sample(self, path: Path) -> int:
        """One ``radon cc -j PATH`` process: spawn, output read, exit."""
        argv = [sys.executable, "-m", "radon", "cc", "-j", str(path)]
        started = time.perf_counter_ns()
        done = subprocess.run(
            argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=self.env, check=False
        )
        elapsed = time.perf_counter_ns() - started
        if done.returncode != 0 or not isinstance(json.loads(done.stdout), dict):
            raise BenchmarkError(f"radon cc -j {path}: exit {done.returncode}")
        return elapsed

    def interleave(
        self,
        label: str,
        arms: Sequence[Arm],
        iterations: int,
        budget_s: float,
        min_iterations: int = 3,
    ) -> int:
        """Run ``arms`` for ``iterations`` or until ``budget_s``; iterations run.

        Each iteration runs the arms in a fresh order, shuffled with a fixed seed (so a
        rerun repeats it). What ran just before a sample matters on a small machine:
        a request to the same server a moment earlier leaves its caches warm, a
        baseline's process start-up leaves them cold. A rotating order would not
        help, since it keeps each arm right after the same one; shuffled, every arm
        follows every other one equally often, and that effect lands on all of them.

        Sub-millisecond arms are never interleaved with the slow baselines (a naive
        server re-parsing a module, a radon process), which cost orders of magnitude
        more CPU: they would take most of the loop's time and leave the caches of the
        next samples cold, so that a fast arm's median would depend on how often they
        run. A scenario runs its fast arms in one loop and its slow baselines in
        another (``benchmarks/README.md`` has the runs that showed it).
        """
        deadline = time.monotonic() + budget_s
        report_every = max(1, iterations // 4)
        orders = shuffled(arms)
        done = 0
        for i in range(iterations):
            for arm in next(orders):
                if i % arm.every == 0:
                    arm.series.add(arm.sample(i))
            done = i + 1
            if done % report_every == 0:
                self.progress.say(f"{label}: {done}/{iterations}")
            if done >= min_iterations and time.monotonic() > deadline:
                self.progress.say(f"{label}: time budget reached after {done} iterations")
                break
        return done


#: The seed of the order the arms of an interleaved loop run in.
ORDER_SEED = 1

T = TypeVar("T")


def shuffled(items: Sequence[T], seed: int = ORDER_SEED) -> Iterator[list[T]]:
    """Endless fresh orders of ``items``, the same sequence for the same seed."""
    rng = random.Random(seed)
    while True:
        yield rng.sample(items, len(items))
