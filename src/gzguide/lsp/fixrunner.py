"""The work on a document's fixes, beside the loop.

Working out the fixes of a version means analysing its text again for each fix (each
one is verified on the text it edits), which on a long module takes as long as
several analyses. One thread does that work, a job at a time in the order asked;
the loop goes on reading, writing and watching the workers meanwhile. A finished
job is handed back through a pipe the loop polls with everything else (one wait):
the thread never calls into the session, and every answer is given on the loop.

::

    loop: ComputeFixes ──submit──▶ jobs queue ──▶ thread: document_fixes(text)
    loop ◀──ready(pipe)── finished deque + one byte on the pipe ◀──┘
"""

from __future__ import annotations

import contextlib
import os
import queue
import select
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from gzguide.analysis.fixes.document import NO_FIXES, DocumentFixes, document_fixes
from gzguide.pyfloor import oldest_python

if TYPE_CHECKING:
    from gzguide.analysis.policy.thresholds import Thresholds

FixesDone = Callable[[DocumentFixes], None]


@dataclass(frozen=True, slots=True)
class FixJob:
    text: str
    thresholds: Thresholds
    unsafe: bool
    done: FixesDone
    #: The document's file: its project's metadata says which Pythons the fixes may
    #: write for (read on the thread, never on the loop).
    path: str = ""


@dataclass(frozen=True, slots=True)
class _Finished:
    job: FixJob
    fixes: DocumentFixes
    #: What went wrong, when the work failed (the job then has no fixes).
    error: str | None


def work_out(job: FixJob) -> _Finished:
    """The job's fixes; a failure costs this one answer, never the session."""
    try:
        oldest = oldest_python(job.path) if job.path else None
        fixes = document_fixes(job.text, job.thresholds, job.unsafe, oldest)
        return _Finished(job, fixes, None)
    except Exception as exc:
        return _Finished(job, NO_FIXES, repr(exc))


class FixRunner:
    """Works out fixes on its own thread; a companion of the loop, which hands back
    each result (:meth:`ready`)."""

    def __init__(self, log: Any) -> None:
        self.log = log
        self._jobs: queue.SimpleQueue[FixJob | None] = queue.SimpleQueue()
        self._finished: deque[_Finished] = deque()
        self._wake_read, self._wake_write = os.pipe()
        os.set_blocking(self._wake_read, False)
        os.set_blocking(self._wake_write, False)
        self._thread: threading.Thread | None = None

    def submit(self, job: FixJob) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._work, name="gzguide-fixes", daemon=True)
            self._thread.start()
        self._jobs.put(job)

    def _work(self) -> None:
        while (job := self._jobs.get()) is not None:
            self._finished.append(work_out(job))
            # A full pipe wakes the loop already; a closed one: the server is stopping.
            with contextlib.suppress(OSError):
                os.write(self._wake_write, b"!")

    def close(self) -> None:
        """Stop the thread after the job it is on (it holds no resource worth waiting for)."""
        self._jobs.put(None)

    # -- the loop's companion ------------------------------------------------------------

    def start(self) -> None:
        pass  # the thread starts with the first job

    def watch(self) -> list[tuple[int, int]]:
        return [(self._wake_read, select.POLLIN)]

    def ready(self, fd: int, events: int) -> None:
        with contextlib.suppress(BlockingIOError):
            os.read(self._wake_read, 4096)
        while self._finished:
            self._hand_back(self._finished.popleft())

    def _hand_back(self, finished: _Finished) -> None:
        if finished.error is not None:
            self.log.error("fixes_failed", error=finished.error)
        finished.job.done(finished.fixes)

    def next_deadline(self) -> float | None:
        return None

    def tick(self, now: float) -> None:
        raise AssertionError("the fix runner has no deadline")
