"""The worker processes themselves: the thin host around :mod:`gzguide.workers.scheduler`.

The host starts and ends processes, moves bytes over their pipes, and hands the
scheduler's outcomes to the jobs' ``done`` callbacks; every decision is the
scheduler's. It has no loop of its own: the server's loop polls the descriptors
:meth:`Pool.watch` names (each worker's result pipe, and its job pipe while
bytes wait to be written) together with stdin and stdout, hands each event back
to :meth:`Pool.ready`, and calls :meth:`Pool.tick` when
:meth:`Pool.next_deadline` is reached. So one code path notices a death,
whether the worker was busy or idle, and job pipes never block the frontend
(they are non-blocking, with what does not fit kept until the worker reads).

Hygiene: workers get their own pipes (``pass_fds``), nothing else of ours; their
fd 1 points at stderr; they die with the frontend (see ``child.py``);
:meth:`Pool.close` ends them with EOF, then SIGKILL, and reaps every one.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import select
import signal
import subprocess
import sys
import time
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any, Final

import msgspec

from gzguide.answer import WorkerRef
from gzguide.freshness import CacheState
from gzguide.workers import Done, EventSink, Job, failed
from gzguide.workers.cache import TOTAL_CACHE_BYTES
from gzguide.workers.scheduler import (
    Action,
    Complete,
    GiveUp,
    Notice,
    Retire,
    Scheduler,
    Send,
    Spawn,
    WorkerEnd,
)

#: How long :meth:`Pool.close` lets workers exit on EOF before it kills them.
CLOSE_GRACE_S: Final = 0.3
#: How much is read from a worker's result pipe at once.
READ_CHUNK: Final = 1 << 16

#: What the pool does with the jobs it hands back when it gives up.
Unavailable = Callable[[str, Sequence[tuple[Job, Done]]], None]


#: At most this many buffers go into one gathering write.
WRITEV_BUFFERS: Final = 64


class _Process(msgspec.Struct, eq=False):
    slot: int
    proc: subprocess.Popen[bytes]
    jobs_fd: int
    results_fd: int
    #: What the job pipe has not taken yet: views of the messages and texts to write,
    #: in order (a text is written from the job's own bytes, never copied here).
    outbox: deque[memoryview] = msgspec.field(default_factory=deque)

    @property
    def ref(self) -> WorkerRef:
        return WorkerRef(self.slot, self.proc.pid)


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
        self.scheduler = Scheduler(size, timeout)
        self.size = size
        self._emit = on_event
        self._log_args = ["--log-level", log_level] + (["--log-file", log_file] if log_file else [])
        self._limit_args = ["--memory-mib", str(memory_mib)] if memory_mib else []
        self._command = list(command or [sys.executable, "-m", "gzguide.workers.child"])
        self._processes: list[_Process | None] = [None] * size
        #: Descriptor -> (slot, whether it is the result pipe).
        self._fds: dict[int, tuple[int, bool]] = {}
        self._jobs: dict[int, tuple[Job, Done]] = {}
        self._tokens = itertools.count(1)
        self._actions: deque[Action] = deque()
        self._acting = False
        #: Who takes the jobs handed back when the scheduler gives up.
        self.on_unavailable: Unavailable = self._fail_stranded
        self.closed = False

    # -- the Backend protocol ----------------------------------------------------------

    def submit(self, job: Job, done: Done) -> None:
        if self.closed:
            done(failed(CacheState.CRASHED))
            return
        token = next(self._tokens)
        self._jobs[token] = (job, done)
        self._act(self.scheduler.submit(token, job, time.monotonic()))

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        processes = self._live()
        for process in processes:
            with contextlib.suppress(OSError):
                os.close(process.jobs_fd)  # EOF: the worker finishes and exits
        deadline = time.monotonic() + CLOSE_GRACE_S
        for process in processes:
            self._log_exit(process, _reap_by(process, deadline))
            with contextlib.suppress(OSError):
                os.close(process.results_fd)
        self._processes = [None] * self.size
        self._fds.clear()
        self._actions.clear()

    # -- what the server's loop calls ------------------------------------------------------

    def start(self) -> None:
        """Start every worker now (the server does so once its first answer is out)."""
        self._act(self.scheduler.start())

    def watch(self) -> list[tuple[int, int]]:
        """The descriptors to poll, with their events."""
        watched = []
        for process in self._live():
            watched.append((process.results_fd, select.POLLIN))
            if process.outbox:
                watched.append((process.jobs_fd, select.POLLOUT))
        return watched

    def ready(self, fd: int, events: int) -> None:
        """``fd`` (one of :meth:`watch`'s) reported ``events``."""
        where = self._fds.get(fd)
        if where is None:
            return
        slot, is_results = where
        if not is_results:
            self._flush(slot)
            return
        try:
            chunk = os.read(fd, READ_CHUNK)
        except OSError:
            chunk = b""
        now = time.monotonic()
        scheduler = self.scheduler
        self._act(scheduler.received(slot, chunk, now) if chunk else scheduler.ended(slot, now))

    def next_deadline(self) -> float | None:
        return self.scheduler.next_deadline()

    def tick(self, now: float) -> None:
        self._act(self.scheduler.tick(now))

    # -- for tests and logs ------------------------------------------------------------------

    def pids(self) -> list[int]:
        return [p.proc.pid for p in self._live()]

    def _live(self) -> list[_Process]:
        """The workers running now, by slot."""
        return [p for p in self._processes if p is not None]

    def affinity(self, path: str) -> int:
        return self.scheduler.affinity(path)

    # -- carrying out the scheduler's actions ---------------------------------------------

    def _act(self, actions: list[Action]) -> None:
        """Carry out ``actions`` in order, and those they lead to.

        A ``done`` callback may submit more work; what that asks for is queued
        behind what is being carried out, so writes to a worker keep their order.
        """
        self._actions.extend(actions)
        if self._acting:
            return
        self._acting = True
        try:
            queue = self._actions
            while queue:
                self._do(queue.popleft())
        finally:
            self._acting = False

    def _do(self, action: Action) -> None:
        _REACTIONS[type(action)](self, action)

    def _send(self, action: Send) -> None:
        process = self._processes[action.slot]
        if process is not None:
            process.outbox.append(memoryview(action.data))
            if action.text:
                process.outbox.append(memoryview(action.text))
            self._flush(action.slot)

    def _complete(self, action: Complete) -> None:
        _job, done = self._jobs.pop(action.token)
        done(action.outcome)

    def _notice(self, action: Notice) -> None:
        self._emit(action.event, **action.fields)

    def _start_worker(self, action: Spawn) -> None:
        self._actions.extend(self._spawn(action.slot))

    def _end_worker(self, action: Retire) -> None:
        self._retire(action.slot, action.reason)

    def _hand_back(self, action: GiveUp) -> None:
        stranded = [self._jobs.pop(token) for token in action.tokens]
        self.on_unavailable(action.reason, stranded)

    def _fail_stranded(self, reason: str, stranded: Sequence[tuple[Job, Done]]) -> None:
        """Without anyone to take them, jobs handed back fail."""
        self._emit("pool_unavailable", reason=reason)
        for _job, done in stranded:
            done(failed(CacheState.CRASHED))

    def _flush(self, slot: int) -> None:
        process = self._processes[slot]
        if process is not None:
            _drain(process.jobs_fd, process.outbox)

    def _spawn(self, slot: int) -> list[Action]:
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
            str(slot),
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
            return self.scheduler.spawn_failed(slot, str(exc))
        os.close(jobs_r)
        os.close(results_w)
        os.set_blocking(jobs_w, False)  # our end only: the worker's end still blocks
        process = _Process(slot, proc, jobs_w, results_r)
        self._processes[slot] = process
        self._fds[jobs_w] = (slot, False)
        self._fds[results_r] = (slot, True)
        return self.scheduler.spawned(slot, process.ref, time.monotonic())

    def _retire(self, slot: int, reason: WorkerEnd) -> None:
        """Kill and reap the worker in ``slot``; free the slot."""
        process = self._processes[slot]
        if process is None:
            return
        self._processes[slot] = None
        for fd in (process.jobs_fd, process.results_fd):
            self._fds.pop(fd, None)
            with contextlib.suppress(OSError):
                os.close(fd)
        if process.proc.poll() is None:
            with contextlib.suppress(OSError):
                process.proc.send_signal(signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.proc.wait(timeout=5)
        self._log_exit(process, reason)

    def _log_exit(self, process: _Process, reason: WorkerEnd) -> None:
        self._emit(
            "worker_exit",
            worker=process.ref.as_log(),
            reason=reason.value,
            returncode=process.proc.returncode,
        )


#: How the pool carries out each kind of action (each method takes its kind).
_REACTIONS: Final[dict[type[Action], Callable[[Pool, Any], None]]] = {
    Send: Pool._send,
    Complete: Pool._complete,
    Notice: Pool._notice,
    Spawn: Pool._start_worker,
    Retire: Pool._end_worker,
    GiveUp: Pool._hand_back,
}


def _reap_by(process: _Process, deadline: float) -> WorkerEnd:
    """Wait until ``deadline`` for a worker told to exit; kill it if it has not. How it ended."""
    try:
        process.proc.wait(timeout=max(0.0, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        process.proc.kill()
        process.proc.wait()
        return WorkerEnd.KILLED_ON_CLOSE
    return WorkerEnd.CLOSED


def _drain(fd: int, outbox: deque[memoryview]) -> None:
    """Write ``outbox`` to the job pipe ``fd`` until it is empty or the pipe is full."""
    while outbox:
        written = _write_some(fd, outbox)
        if written is None:
            return
        _consume(outbox, written)


def _write_some(fd: int, outbox: deque[memoryview]) -> int | None:
    """One gathering write of the front of ``outbox``: how much it took; None when the pipe
    takes nothing now."""
    try:
        return os.writev(fd, list(itertools.islice(outbox, WRITEV_BUFFERS)))
    except BlockingIOError:
        return None  # the pipe is full: the rest goes when the worker reads
    except OSError:
        outbox.clear()  # it is gone: its result pipe says so, and that is handled
        return None


def _consume(outbox: deque[memoryview], written: int) -> None:
    """Drop the first ``written`` bytes of ``outbox``."""
    while written:
        head = outbox[0]
        if written < len(head):
            outbox[0] = head[written:]
            return
        written -= len(head)
        outbox.popleft()
