"""The pool's logic without its processes: which worker runs which job, and what a failure costs.

A pure state machine, like :mod:`gzguide.framing` and :mod:`gzguide.guide.session`. Its
host (:mod:`gzguide.workers.pool`) tells it what happened: a job submitted, a
worker started (or not), bytes from a worker, the end of a worker's pipe, the
time. It answers with what to do, as :data:`Action` values: bytes to write to a
worker, a worker to start or to retire, a job's outcome, a line to log, jobs to
hand back. It never touches a process, a pipe or a clock, so every rule below is
tested without processes.

* **Affinity**: a path always goes to the worker in slot ``crc32(path) % size``,
  so its parsed version stays in that worker's cache; a directory's files spread
  over all of them. A slot whose worker is gone gets a new one when it has work.
* **Pipelining**: up to :data:`PIPELINE_DEPTH` jobs are in a worker's hands at
  once, the rest wait in the slot's queue. A job whose ``start_by`` passes
  before it is handed over is answered ``skipped``.
* **Deadlines**: the job at the head of a worker's hands must be finished within
  ``timeout`` seconds of when the worker started it (when the job before it
  finished, or when the worker said it was ready); a worker not ready yet gets
  :data:`STARTUP_TIMEOUT_S` more from its start. :meth:`Scheduler.next_deadline`
  says when to call :meth:`Scheduler.tick`.
* **Ends**: a worker that misses its deadline, whose pipe ends (it died, busy or
  idle) or that sends bytes that are not a message is retired and replaced at
  once. Only the job at the head of its hands fails (``timeout`` or
  ``crashed``); the jobs behind it go back to the front of the slot's queue, for
  its successor.
* **Giving up**: when a worker cannot be started at all, or when
  :data:`MAX_FAILED_STARTS` workers in a row end before they are ready, the
  scheduler gives up: every job not finished is handed back
  (:class:`GiveUp`), so that its host's owner can run them elsewhere, and no
  worker is started again. Workers still alive stay until the pool is closed.
* **Threshold tables**: a job names its table by fingerprint; the document goes
  along with the first job a worker gets under that table (see
  :mod:`gzguide.workers.ipc`).
"""

from __future__ import annotations

import enum
import zlib
from collections import deque
from collections.abc import Iterator
from typing import Final

import msgspec

from gzguide.answer import WorkerRef
from gzguide.freshness import CacheState
from gzguide.workers import Job, Outcome, failed, ipc

#: Jobs in a worker's hands at once: enough to keep it busy, few enough to requeue cheaply.
PIPELINE_DEPTH: Final = 4
#: What a worker gets, besides the analysis timeout, to say it is ready.
STARTUP_TIMEOUT_S: Final = 30.0
#: After this many workers in a row end before they are ready, the scheduler gives up.
MAX_FAILED_STARTS: Final = 3


class WorkerEnd(enum.StrEnum):
    """Why a worker ended (the ``reason`` of ``worker_exit`` and ``worker_replaced``)."""

    #: The pool was closed and the worker exited on EOF.
    CLOSED = "closed"
    #: The pool was closed and the worker had to be killed.
    KILLED_ON_CLOSE = "killed_on_close"
    #: Its pipe ended while it had nothing to do.
    DIED = "died"
    #: Its pipe ended during a job, or it sent something that is not a message.
    CRASHED = "crashed"
    #: It missed a job's deadline.
    TIMEOUT = "timeout"


# -- what the scheduler asks its host to do ---------------------------------------------


class Spawn(msgspec.Struct, frozen=True):
    """Start a worker in ``slot``, then report :meth:`Scheduler.spawned` or ``spawn_failed``."""

    slot: int


class Send(msgspec.Struct, frozen=True):
    """Write ``data`` to the worker in ``slot`` (in order, however long it takes), then ``text``."""

    slot: int
    data: bytes
    #: A text job's text, to be written as it is right after its message ``data``.
    text: bytes | None = None


class Retire(msgspec.Struct, frozen=True):
    """Kill and reap the worker in ``slot``, whatever it is doing."""

    slot: int
    reason: WorkerEnd


class Complete(msgspec.Struct, frozen=True):
    """The job submitted as ``token`` is finished."""

    token: int
    outcome: Outcome


class Notice(msgspec.Struct, frozen=True):
    """A line for the log."""

    event: str
    fields: dict[str, object]


class GiveUp(msgspec.Struct, frozen=True):
    """No worker will run anything any more; the jobs of ``tokens`` are handed back."""

    reason: str
    tokens: tuple[int, ...]


Action = Spawn | Send | Retire | Complete | Notice | GiveUp


# -- state ------------------------------------------------------------------------------


class _Entry(msgspec.Struct, eq=False):
    token: int
    job: Job


class _Slot(msgspec.Struct, eq=False):
    index: int
    #: The live worker; None while there is none (not started, starting, or retired).
    worker: WorkerRef | None = None
    #: A :class:`Spawn` is out and not answered yet.
    starting: bool = False
    ready: bool = False
    spawned_at: float = 0.0
    #: When the job at the head of ``inflight`` started.
    head_started: float = 0.0
    queue: deque[_Entry] = msgspec.field(default_factory=deque)
    inflight: deque[_Entry] = msgspec.field(default_factory=deque)
    reader: ipc.MessageReader = msgspec.field(default_factory=ipc.result_reader)
    #: The fingerprint of the threshold table last sent to the worker.
    table: str | None = None
    #: The predecessor's pid and end, until its successor has started.
    replacing: tuple[int, WorkerEnd] | None = None


class Scheduler:
    """The rules of a pool of ``size`` workers whose jobs must finish within ``timeout``."""

    def __init__(self, size: int, timeout: float) -> None:
        if size < 1:
            raise ValueError("a pool needs at least one worker")
        self.size = size
        self.timeout = timeout
        self._slots = [_Slot(index) for index in range(size)]
        self._failed_starts = 0
        #: Why the scheduler gave up, once it has.
        self.gave_up: str | None = None

    def affinity(self, path: str) -> int:
        return zlib.crc32(path.encode("utf-8", "surrogateescape")) % self.size

    def workers(self) -> list[WorkerRef]:
        return [s.worker for s in self._slots if s.worker is not None]

    # -- inputs ------------------------------------------------------------------------

    def start(self) -> list[Action]:
        """Start a worker in every slot that has none."""
        actions: list[Action] = []
        if self.gave_up is None:
            for slot in self._slots:
                if slot.worker is None and not slot.starting:
                    slot.starting = True
                    actions.append(Spawn(slot.index))
        return actions

    def submit(self, token: int, job: Job, now: float) -> list[Action]:
        if self.gave_up is not None:
            return [GiveUp(self.gave_up, (token,))]
        slot = self._slots[self.affinity(job.source.path)]
        slot.queue.append(_Entry(token, job))
        return self._feed(slot, now)

    def spawned(self, index: int, worker: WorkerRef, now: float) -> list[Action]:
        """The worker asked for by ``Spawn(index)`` runs."""
        slot = self._slots[index]
        slot.worker = worker
        slot.starting = slot.ready = False
        slot.spawned_at = now
        slot.reader = ipc.result_reader()
        slot.table = None
        actions: list[Action] = [Notice("worker_start", {"worker": worker.as_log()})]
        if slot.replacing is not None:
            old_pid, reason = slot.replacing
            slot.replacing = None
            fields: dict[str, object] = {
                "worker": worker.as_log(),
                "old_pid": old_pid,
                "reason": reason.value,
            }
            actions.append(Notice("worker_replaced", fields))
        return actions + self._feed(slot, now)

    def spawn_failed(self, index: int, reason: str) -> list[Action]:
        """The worker asked for by ``Spawn(index)`` could not be started."""
        self._slots[index].starting = False
        return self._give_up(f"cannot start a worker: {reason}")

    def received(self, index: int, data: bytes, now: float) -> list[Action]:
        """Bytes from the worker in ``index``."""
        slot = self._slots[index]
        worker = slot.worker
        if worker is None:
            return []
        slot.reader.feed(data)
        actions: list[Action] = []
        for message in slot.reader.messages():
            actions += self._message(slot, worker, message, now)
        if slot.reader.broken is not None:
            return actions + self._end(slot, WorkerEnd.CRASHED, now)
        return actions + self._feed(slot, now)

    def ended(self, index: int, now: float) -> list[Action]:
        """The pipe from the worker in ``index`` ended: the worker is gone."""
        slot = self._slots[index]
        if slot.worker is None:
            return []
        return self._end(slot, WorkerEnd.CRASHED if slot.inflight else WorkerEnd.DIED, now)

    def tick(self, now: float) -> list[Action]:
        """The time is ``now``: deadlines that passed are acted on."""
        actions: list[Action] = []
        for slot in self._slots:
            if _busy(slot) and now >= self._deadline(slot):
                actions += self._end(slot, WorkerEnd.TIMEOUT, now)
            actions += self._skip_late(slot, now)
        return actions

    def next_deadline(self) -> float | None:
        """When :meth:`tick` must be called next (monotonic seconds), if ever."""
        return min((due for slot in self._slots for due in self._due_times(slot)), default=None)

    # -- rules -------------------------------------------------------------------------

    def _message(self, slot: _Slot, worker: WorkerRef, message: object, now: float) -> list[Action]:
        """What one message from the slot's worker leads to."""
        match message:
            case ipc.Ready():
                return [self._ready(slot, worker, now)]
            case ipc.Result():
                return self._result(slot, worker, message, now)
        return []

    def _ready(self, slot: _Slot, worker: WorkerRef, now: float) -> Notice:
        """The worker says it is ready: its start succeeded, and its first job starts now."""
        slot.ready = True
        self._failed_starts = 0
        slot.head_started = now
        return Notice("worker_ready", {"worker": worker.as_log()})

    @staticmethod
    def _result(slot: _Slot, worker: WorkerRef, result: ipc.Result, now: float) -> list[Action]:
        """The worker finished the job at the head of its hands; the next one starts now."""
        inflight = slot.inflight
        if not inflight or inflight[0].token != result.seq:
            return []  # a result for a job given up on already
        entry = inflight.popleft()
        slot.head_started = now
        outcome = Outcome(
            result.report, result.cache, result.identity, result.read_at_ns, worker, result.digest
        )
        return [Complete(entry.token, outcome)]

    def _due_times(self, slot: _Slot) -> Iterator[float]:
        """The slot's deadlines: its head job's, and its first queued job's start-by time."""
        if _busy(slot):
            yield self._deadline(slot)
        start_by = _first_start_by(slot)
        if start_by is not None:
            yield start_by

    def _deadline(self, slot: _Slot) -> float:
        if not slot.ready:
            return slot.spawned_at + STARTUP_TIMEOUT_S + self.timeout
        return slot.head_started + self.timeout

    def _feed(self, slot: _Slot, now: float) -> list[Action]:
        """Hand queued jobs to the slot's worker (or ask for one) as far as the pipeline allows."""
        if slot.worker is None:
            return self._spawn_for(slot)
        actions: list[Action] = []
        queue, inflight = slot.queue, slot.inflight
        while queue and len(inflight) < PIPELINE_DEPTH:
            actions.append(self._hand_over(slot, queue.popleft(), now))
        return actions

    def _spawn_for(self, slot: _Slot) -> list[Action]:
        """A worker for a slot without one that has work, unless one is starting or the
        scheduler gave up."""
        if not slot.queue or slot.starting or self.gave_up is not None:
            return []
        slot.starting = True
        return [Spawn(slot.index)]

    def _hand_over(self, slot: _Slot, entry: _Entry, now: float) -> Action:
        """A queued job to the slot's worker; ``skipped`` if its start-by time has passed."""
        if _is_late(entry.job, now):
            return Complete(entry.token, failed(CacheState.SKIPPED))
        if not slot.inflight:
            slot.head_started = now
        slot.inflight.append(entry)
        return self._send(slot, entry)

    @staticmethod
    def _send(slot: _Slot, entry: _Entry) -> Send:
        """The job as the worker reads it, with its threshold table when the worker lacks it."""
        job = entry.job
        table = job.thresholds
        fingerprint = table.fingerprint
        new_table = None
        if slot.table != fingerprint:
            new_table = ipc.Table(table.source, table.document)
            slot.table = fingerprint
        message, text = ipc.job_message(entry.token, job.source, fingerprint, new_table)
        return Send(slot.index, ipc.pack(message), text)

    def _skip_late(self, slot: _Slot, now: float) -> list[Action]:
        """Queued jobs whose start-by time passed, from the front of the queue."""
        actions: list[Action] = []
        queue = slot.queue
        while queue and _is_late(queue[0].job, now):
            actions.append(Complete(queue.popleft().token, failed(CacheState.SKIPPED)))
        return actions

    def _end(self, slot: _Slot, reason: WorkerEnd, now: float) -> list[Action]:
        """Retire the slot's worker: its head job fails, the rest wait for its successor."""
        worker = slot.worker
        assert worker is not None
        actions = _fail_head(slot, worker, reason)
        slot.queue.extendleft(reversed(slot.inflight))
        slot.inflight.clear()
        if not slot.ready:
            self._failed_starts += 1
        actions.append(Retire(slot.index, reason))
        slot.worker = None
        slot.ready = False
        slot.table = None
        return actions + self._replace(slot, worker, reason)

    def _replace(self, slot: _Slot, worker: WorkerRef, reason: WorkerEnd) -> list[Action]:
        """A successor for a retired worker, unless the scheduler gives up (or gave up)."""
        if self.gave_up is not None:
            return []
        if self._failed_starts >= MAX_FAILED_STARTS:
            return self._give_up(f"{self._failed_starts} workers in a row died on start-up")
        slot.replacing = (worker.pid, reason)
        slot.starting = True
        return [Spawn(slot.index)]

    def _give_up(self, reason: str) -> list[Action]:
        self.gave_up = reason
        tokens: list[int] = []
        for slot in self._slots:
            tokens += (entry.token for entry in slot.inflight)
            tokens += (entry.token for entry in slot.queue)
            slot.inflight.clear()
            slot.queue.clear()
            slot.replacing = None
        return [GiveUp(reason, tuple(tokens))]


def _busy(slot: _Slot) -> bool:
    """Whether the slot's worker has jobs in its hands (so a deadline runs)."""
    return slot.worker is not None and bool(slot.inflight)


def _first_start_by(slot: _Slot) -> float | None:
    """The start-by time of the job first in the slot's queue, if it has one."""
    return slot.queue[0].job.start_by if slot.queue else None


def _is_late(job: Job, now: float) -> bool:
    """Whether ``job`` had to start before ``now``."""
    return job.start_by is not None and now >= job.start_by


def _fail_head(slot: _Slot, worker: WorkerRef, reason: WorkerEnd) -> list[Action]:
    """The job at the head of an ending worker's hands fails: its log line and its outcome."""
    if not slot.inflight:
        return []
    head = slot.inflight.popleft()
    state = CacheState.TIMEOUT if reason is WorkerEnd.TIMEOUT else CacheState.CRASHED
    source = head.job.source
    fields: dict[str, object] = {
        "worker": worker.as_log(),
        "reason": state.value,
        "file_path": source.path,
        "seq": head.token,
    }
    if source.buffer is not None:
        fields["source"] = "text"
    return [Notice("job_failed", fields), Complete(head.token, failed(state, worker))]
