"""Where analysis runs. A backend takes jobs and reports each one's outcome.

* :class:`~gzguide.workers.inprocess.InProcessBackend` analyzes in the calling
  process (``--workers 0``: for debugging, and the baseline the pool is measured
  against);
* :class:`~gzguide.workers.pool.Pool` runs persistent worker processes (its rules
  are :mod:`gzguide.workers.scheduler`'s);
* :class:`~gzguide.workers.fallback.Fallback` is the pool until the pool cannot
  start workers, and in-process analysis from then on.

A job is of a :class:`~gzguide.source.Source`: a file to read, or an editor's
buffer, whose bytes travel with the job (nothing is read from disk for it) and are
known by their content digest.

A backend may answer a job before :meth:`Backend.submit` returns (in-process) or
later (the pool, from the server's loop); either way it calls the job's ``done``
exactly once. The service keeps a memo of finished reports in front of it
(:mod:`gzguide.workers.memo`).

This module stays light (no analysis imports): the frontend imports it at start-up.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

import msgspec

from gzguide.analysis.model import EMPTY_REPORT, FileReport
from gzguide.answer import WorkerRef
from gzguide.freshness import CacheState, Identity

if TYPE_CHECKING:
    from gzguide.analysis.policy.thresholds import Thresholds
    from gzguide.source import Source

__all__ = [
    "Backend",
    "Done",
    "EventSink",
    "Job",
    "Outcome",
    "WorkerRef",
    "failed",
    "past",
]


class Job(msgspec.Struct, frozen=True):
    """One file, or one buffer of a file, to analyze."""

    #: What is analyzed, at its absolute path: that path is what a file's version
    #: is read from, and what picks the worker (a buffer goes where its file goes,
    #: so they share a cache); a buffer's bytes are held by the job.
    source: Source
    #: The threshold table the report is evaluated under.
    thresholds: Thresholds
    #: ``time.monotonic()`` seconds: a job not started by then is ``skipped``.
    start_by: float | None = None


class Outcome(msgspec.Struct, frozen=True):
    """One file's report and how it was obtained."""

    report: FileReport
    cache: CacheState
    #: The identity of the file version the report is for (None: unanalyzable).
    identity: Identity | None = None
    #: Wall-clock ns just before that version's bytes were last read or verified.
    read_at_ns: int = 0
    #: Which worker produced it; None in-process or from the memo.
    worker: WorkerRef | None = None
    #: The content digest of the bytes the report is for (None: none were analyzed).
    digest: bytes | None = None


Done = Callable[[Outcome], None]
#: Where the backends report events for the log: ``emit(event, **fields)``.
EventSink = Callable[..., None]


def failed(cache: CacheState, worker: WorkerRef | None = None) -> Outcome:
    return Outcome(EMPTY_REPORT, cache, worker=worker)


def past(start_by: float | None) -> bool:
    """Whether a job's start-by time (``time.monotonic()`` seconds) has passed."""
    return start_by is not None and time.monotonic() >= start_by


class Backend(Protocol):
    def submit(self, job: Job, done: Done) -> None:
        """Analyze ``job``; ``done`` gets its outcome once, now or later.

        The report is empty when the file is unanalyzable, when its analysis
        failed, and when the job was not started by its ``start_by``.
        """
        ...

    def close(self) -> None:
        """Stop whatever the backend runs; idempotent."""
        ...
