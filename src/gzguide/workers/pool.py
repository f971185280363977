"""A pool of persistent worker processes, watched the way loky watches its workers.

* **Affinity**: a path always goes to the worker at ``crc32(path) % size``, so its
  parsed version stays in that worker's cache; a directory's files spread over all.
* **Deadlines**: the job a worker is working on must finish within ``timeout``
  seconds of when the worker started it; a worker that misses it is killed.
* **Deaths**: a worker's result pipe reads EOF the moment it dies, whether in a job
  (segfault, ``os._exit``, MemoryError) or idle. The frontend watches the result
  pipes of idle workers along with stdin (:meth:`Pool.watch_fds`), so a death is
  seen at once and the worker replaced before the next request. Only the job a
  failed worker held is lost (answered with an empty report); jobs queued behind
  it go to the replacement.
* **Hygiene**: workers get their own pipes (``pass_fds``), nothing else of ours;
  their fd 1 points at stderr; they die with the frontend (see ``child.py``);
  :meth:`Pool.close` ends them with EOF, then SIGKILL, and reaps every one.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import subprocess
import sys
import time
import zlib
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Final

from gzguide.freshness import CacheState
from gzguide.workers import Backend, EventSink, Outcome, Stats, WorkerRef, failed, past
from gzguide.workers.cache import TOTAL_CACHE_BYTES
from gzguide.workers.ipc import (
    Job,
    MessageReader,
    ProtocolError,
    Ready,
    Result,
    Table,
    pack,
    result_reader,
)

if TYPE_CHECKING:
    from gzguide.analysis.thresholds import Thresholds

#: Jobs in flight per worker: enough to keep it busy, few enough to requeue cheaply.
PIPELINE_DEPTH: Final = 4
#: A worker that has not said it is ready by then is replaced.
STARTUP_TIMEOUT_S: Final = 30.0
#: After this many workers in a row die before they are ready, the pool gives up
#: and the backend analyzes in-process instead of respawning forever.
MAX_FAILED_STARTS: Final = 3
#: How long :meth:`Pool.close` lets workers exit on EOF before it kills them.
CLOSE_GRACE_S: Final = 0.3


@dataclass(eq=False)
class _Job:
    seq: int
    index: int
    path: str
    thresholds: Thresholds


@dataclass(eq=False)
class _Worker:
    index: int
    proc: subprocess.Popen[bytes]
    jobs_fd: int
    results_fd: int
    spawned_at: float
    ready: bool = False
    #: When the job at the head of ``inflight`` started (monotonic seconds).
    head_started: float = 0.0
    inflight: deque[_Job] = field(default_factory=deque)
    reader: MessageReader = field(default_factory=result_reader)
    #: The fingerprint of the threshold table last sent to it.
    table: str | None = None

    @property
    def ref(self) -> WorkerRef:
        return WorkerRef(self.index, self.proc.pid)


class PoolUnavailable(Exception):
    """Workers cannot be started here; analyze in-process instead."""


class Pool:
    """N worker processes behind the :class:`~gzguide.workers.Backend` protocol."""

    def __init__(
        self,
        size: int,
        timeout: float,
        on_event: EventSink,
        log_level: str = "info",
        log_file: str | None = None,
        command: Sequence[str] | None = None,
        memory_mib: int | None = None,
    ) -> None:
        if size < 1:
            raise ValueError("a pool needs at least one worker")
        self.size = size
        self.timeout = timeout
        self._emit = on_event
        self._log_args = ["--log-level", log_level] + (["--log-file", log_file] if log_file else [])
        self._limit_args = ["--memory-mib", str(memory_mib)] if memory_mib else []
        self._command = list(command or [sys.executable, "-m", "gzguide.workers.child"])
        self._workers: list[_Worker | None] = [None] * size
        self._seq = 0
        self._results: list[Outcome | None] = []
        #: Jobs of the current batch without an outcome yet.
        self._pending = 0
        self._fallback: Backend | None = None
        self._failed_starts = 0
        self.replacements = 0
        self.closed = False

    # -- lifecycle -------------------------------------------------------------

    def start(self) -> None:
        for index in range(self.size):
            if self._workers[index] is None:
                self._spawn(index)

    def _spawn(self, index: int) -> _Worker:
        if self._failed_starts >= MAX_FAILED_STARTS:
            raise PoolUnavailable(f"{self._failed_starts} workers in a row died on start-up")
        jobs_r, jobs_w = os.pipe()
        results_r, results_w = os.pipe()
        argv = [
            *self._command,
            "--jobs-fd",
            str(jobs_r),
            "--results-fd",
            str(results_w),
            "--parent-pid",
            str(os.getpid()),
            "--index",
            str(index),
            "--cache-bytes",
            str(TOTAL_CACHE_BYTES // self.size),
            *self._log_args,
            *self._limit_args,
        ]
        try:
            proc = subprocess.Popen(
                argv,
                stdin=subprocess.DEVNULL,
                stdout=2,  # never the protocol's stream
                pass_fds=(jobs_r, results_w),
                close_fds=True,
            )
        except OSError as exc:
            for fd in (jobs_r, jobs_w, results_r, results_w):
                os.close(fd)
            self._failed_starts += 1
            raise PoolUnavailable(f"cannot start a worker: {exc}") from exc
        os.close(jobs_r)
        os.close(results_w)
        worker = _Worker(index, proc, jobs_w, results_r, time.monotonic())
        self._workers[index] = worker
        self._emit("worker_start", worker=worker.ref.as_log())
        return worker

    def _retire(self, worker: _Worker, reason: str) -> None:
        """Kill and reap ``worker``; free its slot."""
        for fd in (worker.jobs_fd, worker.results_fd):
            with contextlib.suppress(OSError):
                os.close(fd)
        if worker.proc.poll() is None:
            with contextlib.suppress(OSError):
                worker.proc.send_signal(signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            worker.proc.wait(timeout=5)
        if self._workers[worker.index] is worker:
            self._workers[worker.index] = None
        self._emit(
            "worker_exit",
            worker=worker.ref.as_log(),
            reason=reason,
            returncode=worker.proc.returncode,
        )

    def _replace(self, worker: _Worker, reason: str) -> _Worker | None:
        """Retire a failed worker and start its successor; requeue what it held."""
        if not worker.ready:
            self._failed_starts += 1
        self._retire(worker, reason)
        self.replacements += 1
        try:
            successor = self._spawn(worker.index)
        except PoolUnavailable as exc:
            self._emit("pool_unavailable", reason=str(exc))
            return None
        self._emit(
            "worker_replaced",
            worker=successor.ref.as_log(),
            old_pid=worker.proc.pid,
            reason=reason,
        )
        return successor

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        workers = [w for w in self._workers if w is not None]
        for worker in workers:
            with contextlib.suppress(OSError):
                os.close(worker.jobs_fd)  # EOF: the worker finishes and exits
            worker.jobs_fd = -1
        deadline = time.monotonic() + CLOSE_GRACE_S
        for worker in workers:
            reason = "closed"
            try:
                worker.proc.wait(timeout=max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                worker.proc.kill()
                worker.proc.wait()
                reason = "killed_on_close"
            self._emit(
                "worker_exit",
                worker=worker.ref.as_log(),
                reason=reason,
                returncode=worker.proc.returncode,
            )
            with contextlib.suppress(OSError):
                os.close(worker.results_fd)
        self._workers = [None] * self.size

    def pids(self) -> list[int]:
        return [w.proc.pid for w in self._workers if w is not None]

    # -- watching idle workers ---------------------------------------------------

    def watch_fds(self) -> list[int]:
        """Result pipes to watch while idle: readable means a message or a death."""
        return [w.results_fd for w in self._workers if w is not None]

    def service(self, fd: int) -> None:
        """An idle worker's pipe is readable: take its messages, or replace it if dead."""
        for worker in self._workers:
            if worker is not None and worker.results_fd == fd:
                self._pump(worker)
                return

    # -- analysis ------------------------------------------------------------------

    def affinity(self, path: str) -> int:
        return zlib.crc32(path.encode("utf-8", "surrogateescape")) % self.size

    def analyze(
        self,
        paths: Sequence[str],
        thresholds: Thresholds,
        stats: Stats = None,
        deadline: float | None = None,
    ) -> list[Outcome]:
        """Outcomes for ``paths``; in-process from the moment workers cannot start."""
        if self._fallback is None:
            try:
                return self._analyze(paths, thresholds, deadline)
            except PoolUnavailable as exc:
                from gzguide.workers import InProcessBackend

                self._emit("pool_unavailable", reason=str(exc), fallback="in-process")
                self._fallback = InProcessBackend(self._emit)
        return self._fallback.analyze(paths, thresholds, deadline=deadline)

    def _analyze(
        self, paths: Sequence[str], thresholds: Thresholds, deadline: float | None
    ) -> list[Outcome]:
        if self.closed:
            raise PoolUnavailable("the pool is closed")
        results: list[Outcome | None] = [None] * len(paths)
        queues: list[deque[_Job]] = [deque() for _ in range(self.size)]
        for index, path in enumerate(paths):
            self._seq += 1
            queues[self.affinity(path)].append(_Job(self._seq, index, path, thresholds))
        self._results = results
        self._pending = len(paths)
        while self._pending:
            if past(deadline) and any(queues):
                self._skip(queues)  # jobs already in a worker's hands still finish
                if not self._pending:
                    break
            for slot, queue in enumerate(queues):
                self._feed(slot, queue)
            busy = [w for w in self._workers if w is not None and w.inflight]
            if not busy and any(queues):
                # Every worker with work to do is gone for good.
                raise PoolUnavailable("no live worker can take the remaining jobs")
            now = time.monotonic()
            wait = min(self._deadline(w) for w in busy) - now
            if wait <= 0:
                for worker in busy:
                    if self._deadline(worker) <= now:
                        self._fail(worker, CacheState.TIMEOUT, queues)
            else:
                ready = _readable([w.results_fd for w in busy], wait)
                for worker in busy:
                    if worker.results_fd in ready and not self._pump(worker):
                        self._fail(worker, CacheState.CRASHED, queues)
        return [r for r in results if r is not None]

    def _skip(self, queues: list[deque[_Job]]) -> None:
        for queue in queues:
            for job in queue:
                self._results[job.index] = failed(CacheState.SKIPPED)
            self._pending -= len(queue)
            queue.clear()

    def _feed(self, slot: int, queue: deque[_Job]) -> None:
        worker = self._workers[slot]
        if worker is None and queue:
            worker = self._spawn(slot)
        if worker is None:
            return
        while queue and len(worker.inflight) < PIPELINE_DEPTH:
            job = queue.popleft()
            if not worker.inflight:
                worker.head_started = time.monotonic()
            worker.inflight.append(job)
            try:
                _write_all(worker.jobs_fd, pack_job(job, worker))
            except OSError:
                return  # it died; the read side sees EOF and fails it

    def _deadline(self, worker: _Worker) -> float:
        if not worker.ready:
            return worker.spawned_at + STARTUP_TIMEOUT_S + self.timeout
        return worker.head_started + self.timeout

    def _pump(self, worker: _Worker) -> bool:
        """Read what the worker sent; False when it is dead (EOF or garbage)."""
        try:
            chunk = os.read(worker.results_fd, 1 << 16)
        except OSError:
            chunk = b""
        if not chunk:
            if not worker.inflight:
                self._replace(worker, "died")
            return False
        worker.reader.feed(chunk)
        try:
            messages = worker.reader.messages()
        except ProtocolError:
            return False
        for message in messages:
            if isinstance(message, Ready):
                worker.ready = True
                self._failed_starts = 0
                worker.head_started = time.monotonic()
                self._emit("worker_ready", worker=worker.ref.as_log())
            elif isinstance(message, Result):
                self._complete(worker, message)
        return True

    def _complete(self, worker: _Worker, result: Result) -> None:
        if not worker.inflight or worker.inflight[0].seq != result.seq:
            return  # a result for a job we already gave up on
        job = worker.inflight.popleft()
        worker.head_started = time.monotonic()
        self._pending -= 1
        self._results[job.index] = Outcome(
            result.report, result.cache, result.identity, result.read_at_ns, worker.ref
        )

    def _fail(self, worker: _Worker, reason: CacheState, queues: list[deque[_Job]]) -> None:
        head = worker.inflight.popleft() if worker.inflight else None
        if head is not None:
            self._pending -= 1
            self._results[head.index] = failed(reason, worker.ref)
            self._emit(
                "job_failed",
                worker=worker.ref.as_log(),
                reason=reason,
                file_path=head.path,
                seq=head.seq,
            )
        queues[worker.index].extendleft(reversed(worker.inflight))
        worker.inflight.clear()
        self._replace(worker, reason)


def pack_job(job: _Job, worker: _Worker) -> bytes:
    """The job as the worker reads it, with its threshold table when the worker lacks it."""
    table = job.thresholds
    fingerprint = table.fingerprint
    new_table = None
    if worker.table != fingerprint:
        new_table = Table(table.source, table.document)
        worker.table = fingerprint
    return pack(Job(job.seq, job.path, fingerprint, new_table))


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _readable(fds: list[int], timeout: float) -> set[int]:
    poller = select.poll()
    for fd in fds:
        poller.register(fd, select.POLLIN)
    return {fd for fd, _ in poller.poll(max(0, int(timeout * 1000) + 1))}
