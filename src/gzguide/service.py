"""From an ``analyze`` request's params to an :class:`~gzguide.answer.Answer`.

This is the seam between the protocol and the analysis: it resolves the request's
path against the workspace root, expands a directory into its source files, takes
the workspace's threshold table, hands absolute paths to a backend and gathers
its reports into an answer whose parts name the paths the hints will echo. It
knows neither how frames look, nor how hints are encoded, nor how metrics are
computed.
"""

from __future__ import annotations

import os
import posixpath
import stat
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Final

from gzguide.analysis.discovery import Walk
from gzguide.answer import Answer, FileAnswer, unanswered
from gzguide.freshness import stat_or_none
from gzguide.messages import AnalyzeParams
from gzguide.workers import Backend, Outcome
from gzguide.workspace import ThresholdSource

if TYPE_CHECKING:
    from gzguide.analysis.thresholds import Thresholds

#: The share of a directory request's budget its listing may take.
LISTING_SHARE: Final = 0.5

AnswerSink = Callable[[Answer], None]


def join_request_path(request_path: str, relative: str) -> str:
    """The hint path of a file found under a requested directory."""
    return posixpath.join(request_path, relative) if request_path else relative


def _part(hint_path: str, outcome: Outcome) -> FileAnswer:
    return FileAnswer(hint_path, outcome.report, outcome.cache, outcome.worker)


class AnalysisService:
    """Answers analyze params, through whichever backend it was given."""

    def __init__(
        self,
        root: str,
        backend: Backend,
        on_error: Callable[..., None] | None = None,
        directory_budget_s: float | None = None,
        thresholds: ThresholdSource | None = None,
    ) -> None:
        self.root = os.path.abspath(root)
        self.backend = backend
        #: How long a directory request may take in all (None: no limit); files not
        #: started by then are left out, and the log line counts them.
        self.directory_budget_s = directory_budget_s
        #: The workspace's threshold table; every job of a request is evaluated under
        #: the table as it was when the request arrived.
        self.thresholds = ThresholdSource(self.root) if thresholds is None else thresholds
        self._on_error = on_error

    def resolve(self, file_path: str) -> str:
        if file_path.startswith("/"):
            return file_path  # what editors send, and what os.path.join gives back unchanged
        return os.path.join(self.root, file_path)

    def analyze(self, params: AnalyzeParams, done: AnswerSink) -> None:
        """Answer ``params`` through ``done``: once, and at once when nothing must be awaited."""
        try:
            self._analyze(params, done)
        except Exception as exc:  # a bug must cost one answer, never the session
            self._failed(params, exc, done)

    def analyze_now(self, params: AnalyzeParams) -> Answer:
        """The answer, from a backend that answers before it returns (in-process analysis)."""
        answers: list[Answer] = []
        self.analyze(params, answers.append)
        if not answers:
            raise RuntimeError("analyze_now needs a backend that answers at once")
        return answers[0]

    def _failed(self, params: AnalyzeParams, exc: Exception, done: AnswerSink) -> None:
        if self._on_error is not None:
            self._on_error("analyze_failed", file_path=params.file_path, error=repr(exc))
        done(unanswered(params.file_path, params.cursor_position))

    def _analyze(self, params: AnalyzeParams, done: AnswerSink) -> None:
        requested = params.file_path
        if "\x00" in requested:
            done(unanswered(requested, params.cursor_position))
            return
        target = self.resolve(requested)
        st = stat_or_none(target)
        table = self.thresholds.current()
        if st is not None and stat.S_ISDIR(st.st_mode):
            self._analyze_directory(requested, target, table, done)
            return
        (outcome,) = self.backend.analyze([target], table, [st])
        done(Answer(requested, params.cursor_position, (_part(requested, outcome),)))

    def _analyze_directory(
        self, requested: str, target: str, table: Thresholds, done: AnswerSink
    ) -> None:
        budget = self.directory_budget_s
        started = time.monotonic()
        deadline = None if budget is None else started + budget
        # The listing gets part of the budget only: a folder too big to list in time
        # still has files analyzed, instead of a budget spent before the first one.
        listed_by = None if budget is None else started + budget * LISTING_SHARE
        walk = Walk(target, listed_by)
        relatives = walk.files()
        paths = [os.path.join(target, r) for r in relatives]
        outcomes = self.backend.analyze(paths, table, deadline=deadline)
        parts = tuple(
            _part(join_request_path(requested, relative), outcome)
            for relative, outcome in zip(relatives, outcomes, strict=True)
        )
        done(Answer(requested, None, parts, directory=True, walk_complete=walk.complete))
