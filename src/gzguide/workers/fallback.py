"""The pool while it can run workers, and another backend from the moment it cannot.

The pool gives up when workers cannot be started at all, or when three in a row
die before they are ready (see :mod:`gzguide.workers.scheduler`). It then hands
back every job it had not finished; this backend gives them, and every job after
them, to the secondary backend it makes at that moment (in-process analysis, as
``cli.py`` composes it), so the server goes on answering instead of failing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from gzguide.workers import Backend, Done, EventSink, Job
from gzguide.workers.pool import Pool


class Fallback:
    def __init__(
        self,
        primary: Pool,
        make_secondary: Callable[[], Backend],
        on_event: EventSink,
        secondary_name: str = "in-process",
    ) -> None:
        self.primary = primary
        self._make_secondary = make_secondary
        self._emit = on_event
        #: What the log's ``pool_unavailable`` line says analysis continues with.
        self.secondary_name = secondary_name
        self.secondary: Backend | None = None
        primary.on_unavailable = self._switch

    def submit(self, job: Job, done: Done) -> None:
        if self.secondary is None:
            self.primary.submit(job, done)
        else:
            self.secondary.submit(job, done)

    def _switch(self, reason: str, stranded: Sequence[tuple[Job, Done]]) -> None:
        if self.secondary is None:
            self._emit("pool_unavailable", reason=reason, fallback=self.secondary_name)
            self.secondary = self._make_secondary()
        for job, done in stranded:
            self.secondary.submit(job, done)

    def close(self) -> None:
        self.primary.close()
        if self.secondary is not None:
            self.secondary.close()
