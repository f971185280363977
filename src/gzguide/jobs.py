"""From an ``analyze`` request to jobs, and from file reports back to hints.

This is the seam between the protocol and the analysis: it resolves the request's
path against the workspace root, expands a directory into its source files, hands
absolute paths to a backend, and turns each report's findings into hints whose
``file_path`` echoes the request (joined with the file's relative path for a
directory). It knows neither how frames look nor how metrics are computed.
"""

from __future__ import annotations

import os
import posixpath
import stat
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import TYPE_CHECKING, Final

from gzguide.analysis.discovery import Walk
from gzguide.analysis.model import FileReport, Finding
from gzguide.messages import AnalyzeParams, EncodedHints, Hint, encode_hints
from gzguide.workers import Backend, Outcome
from gzguide.workspace import ThresholdSource

if TYPE_CHECKING:
    from gzguide.analysis.thresholds import Thresholds

#: The share of a directory request's budget its listing may take.
LISTING_SHARE: Final = 0.5
#: How many encoded answers the service keeps (a few KiB each).
MAX_ENCODED_ANSWERS: Final = 256


def to_hint(finding: Finding, file_path: str) -> Hint:
    return Hint(
        metric=finding.metric,
        precedence_band=finding.precedence_band,
        crossing_value=finding.crossing_value,
        archetype=finding.archetype,
        doctrinal_frame_headline=finding.headline,
        recommended_move=finding.move,
        file_path=file_path,
        start_line=finding.start_line,
        end_line=finding.end_line,
    )


def join_request_path(request_path: str, relative: str) -> str:
    """The hint path of a file found under a requested directory."""
    return posixpath.join(request_path, relative) if request_path else relative


class AnalysisService:
    """Answers analyze params with hints, through whichever backend it was given."""

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
        #: The workspace's threshold table; every job of a request is evaluated under
        #: the table as it was when the request arrived.
        self.thresholds = ThresholdSource(self.root) if thresholds is None else thresholds
        #: How long a directory request may take in all (None: no limit); files not
        #: started by then are left out, and the log line counts them.
        self.directory_budget_s = directory_budget_s
        self._on_error = on_error
        #: What the last request did, for its log line (file, cache state, worker).
        self.last: dict[str, object] = {}
        #: Encoded answers by (requested path, cursor), each valid while the backend
        #: hands back the very same report object (an unchanged file version).
        self._answers: OrderedDict[tuple[str, int | None], tuple[FileReport, EncodedHints]] = (
            OrderedDict()
        )

    def resolve(self, file_path: str) -> str:
        if file_path.startswith("/"):
            # What editors send, and what os.path.join would give back unchanged: it
            # is spared on the warm path, where it cost ~2.5 us of ~90 (measured).
            return file_path
        return os.path.join(self.root, file_path)

    def __call__(self, params: AnalyzeParams) -> list[Hint] | EncodedHints:
        """The answer to an analyze request (encoded once per unchanged file version)."""
        return self._guarded(params, encoded=True)

    def hints(self, params: AnalyzeParams) -> list[Hint]:
        """The hints themselves, for callers that are not writing a response."""
        found = self._guarded(params, encoded=False)
        assert isinstance(found, list)
        return found

    def _guarded(self, params: AnalyzeParams, encoded: bool) -> list[Hint] | EncodedHints:
        self.last = {"file_path": params.file_path}
        try:
            return self._analyze(params, encoded)
        except Exception as exc:  # a bug must cost one answer, never the session
            if self._on_error is not None:
                self._on_error("analyze_failed", file_path=params.file_path, error=repr(exc))
            return []

    def _analyze(self, params: AnalyzeParams, encoded: bool) -> list[Hint] | EncodedHints:
        requested = params.file_path
        if "\x00" in requested:
            return []
        target = self.resolve(requested)
        try:
            st: os.stat_result | None = os.stat(target)
        except (OSError, ValueError):
            st = None
        table = self.thresholds.current()
        if st is not None and stat.S_ISDIR(st.st_mode):
            return self._analyze_directory(requested, target, table)
        (outcome,) = self.backend.analyze([target], table, [st])
        worker = outcome.worker.as_log() if outcome.worker is not None else None
        self.last.update(cache=outcome.cache, worker=worker)
        if not encoded:
            findings = outcome.report.at_cursor(params.cursor_position)
            return [to_hint(f, requested) for f in findings]
        return self._answer(requested, params.cursor_position, outcome.report)

    def _answer(self, requested: str, cursor: int | None, report: FileReport) -> EncodedHints:
        key = (requested, cursor)
        known = self._answers.get(key)
        if known is not None and known[0] is report:
            self._answers.move_to_end(key)
            return known[1]
        encoded = encode_hints([to_hint(f, requested) for f in report.at_cursor(cursor)])
        self._answers[key] = (report, encoded)
        self._answers.move_to_end(key)
        while len(self._answers) > MAX_ENCODED_ANSWERS:
            self._answers.popitem(last=False)
        return encoded

    def _analyze_directory(self, requested: str, target: str, table: Thresholds) -> list[Hint]:
        budget = self.directory_budget_s
        started = time.monotonic()
        deadline = None if budget is None else started + budget
        # The listing gets part of the budget only: a folder too big to list in time
        # still has files analyzed, instead of a budget spent before the first one.
        listed_by = None if budget is None else started + budget * LISTING_SHARE
        walk = Walk(target, listed_by)
        relatives = walk.files()
        paths = [os.path.join(target, r) for r in relatives]
        outcomes: list[Outcome] = self.backend.analyze(paths, table, deadline=deadline)
        states: dict[str, int] = {}
        hints: list[Hint] = []
        for relative, outcome in zip(relatives, outcomes, strict=True):
            states[outcome.cache] = states.get(outcome.cache, 0) + 1
            hint_path = join_request_path(requested, relative)
            hints.extend(to_hint(f, hint_path) for f in outcome.report.findings)
        self.last.update(files=len(relatives), cache=states)
        if not walk.complete:
            self.last.update(walk_complete=False)
        return hints
