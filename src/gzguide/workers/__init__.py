"""Where analysis runs. A backend turns absolute file paths into outcomes.

* :class:`InProcessBackend` analyzes in the calling process (``--workers 0``: for
  debugging, and the baseline the pool is measured against);
* :class:`gzguide.workers.pool.Pool` runs persistent worker processes;
* :class:`gzguide.workers.memo.Memo` wraps either with a stat-validated memo of
  finished reports, so an unchanged file costs a ``stat``.

This module stays light (no analysis imports): the frontend imports it at start-up.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from gzguide.analysis.model import EMPTY_REPORT, FileReport
from gzguide.answer import WorkerRef as WorkerRef
from gzguide.freshness import CacheState, Identity

if TYPE_CHECKING:
    from gzguide.analysis.thresholds import Thresholds

EventSink = Callable[..., None]


@dataclass(frozen=True, slots=True)
class Outcome:
    """One file's report and how it was obtained."""

    report: FileReport
    cache: CacheState
    #: The identity of the file version the report is for (None: unanalyzable).
    identity: Identity | None = None
    #: Wall-clock ns just before that version's bytes were last read or verified.
    read_at_ns: int = 0
    #: Which worker produced it; None in-process or from the memo.
    worker: WorkerRef | None = None


def failed(cache: CacheState, worker: WorkerRef | None = None) -> Outcome:
    return Outcome(EMPTY_REPORT, cache, worker=worker)


def past(deadline: float | None) -> bool:
    """Whether a batch deadline (``time.monotonic()`` seconds) has passed."""
    return deadline is not None and time.monotonic() >= deadline


Stats = Sequence[os.stat_result | None] | None


class Backend(Protocol):
    def analyze(
        self,
        paths: Sequence[str],
        thresholds: Thresholds,
        stats: Stats = None,
        deadline: float | None = None,
    ) -> list[Outcome]:
        """One outcome per path, in the same order; an empty report when unanalyzable.

        Every report is computed under ``thresholds``.

        ``stats``, when given, holds a fresh ``os.stat`` of each path (None where it
        failed), taken by the caller; a backend may use it instead of its own.
        ``deadline`` (``time.monotonic()`` seconds) bounds the whole batch: no file is
        started after it, and those left are ``skipped``.
        """
        ...

    def close(self) -> None:
        """Stop whatever the backend runs; idempotent."""
        ...


def _ignore(event: str, **fields: object) -> None:
    del event, fields


class InProcessBackend:
    """Analysis in this process, with the same file-version cache a worker keeps."""

    def __init__(self, on_event: EventSink = _ignore) -> None:
        from gzguide.workers.analyst import Analyst

        self.analyst = Analyst(on_event)

    def analyze(
        self,
        paths: Sequence[str],
        thresholds: Thresholds,
        stats: Stats = None,
        deadline: float | None = None,
    ) -> list[Outcome]:
        analyst = self.analyst
        return [
            failed(CacheState.SKIPPED) if past(deadline) else analyst.analyze(path, thresholds)
            for path in paths
        ]

    def close(self) -> None:
        pass
