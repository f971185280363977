"""Analysis in the calling process, with the same file-version cache a worker keeps.

Used with ``--workers 0``, by the one-shot command, and by the fallback once the
pool cannot start workers. Every job is answered before :meth:`submit` returns.
"""

from __future__ import annotations

from gzguide.freshness import CacheState
from gzguide.workers import Done, EventSink, Job, failed, past


def _ignore(event: str, **fields: object) -> None:
    del event, fields


class InProcessBackend:
    def __init__(self, on_event: EventSink = _ignore) -> None:
        from gzguide.workers.analyst import Analyst

        self.analyst = Analyst(on_event)

    def submit(self, job: Job, done: Done) -> None:
        if past(job.start_by):
            done(failed(CacheState.SKIPPED))
        else:
            done(self.analyst.analyze(job.source, job.thresholds))

    def close(self) -> None:
        pass
