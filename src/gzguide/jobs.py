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
from collections.abc import Callable

from gzguide.analysis.discovery import source_files
from gzguide.analysis.model import Finding
from gzguide.messages import AnalyzeParams, Hint
from gzguide.workers import Backend, Outcome


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
    ) -> None:
        self.root = os.path.abspath(root)
        self.backend = backend
        self._on_error = on_error
        #: What the last request did, for its log line (file, cache state, worker).
        self.last: dict[str, object] = {}

    def resolve(self, file_path: str) -> str:
        return os.path.join(self.root, file_path)

    def __call__(self, params: AnalyzeParams) -> list[Hint]:
        self.last = {"file_path": params.file_path}
        try:
            return self._analyze(params)
        except Exception as exc:  # a bug must cost one answer, never the session
            if self._on_error is not None:
                self._on_error("analyze_failed", file_path=params.file_path, error=repr(exc))
            return []

    def _analyze(self, params: AnalyzeParams) -> list[Hint]:
        requested = params.file_path
        if "\x00" in requested:
            return []
        target = self.resolve(requested)
        try:
            is_dir = stat.S_ISDIR(os.stat(target).st_mode)
        except OSError:
            is_dir = False
        if is_dir:
            return self._analyze_directory(requested, target)
        (outcome,) = self.backend.analyze([target])
        worker = outcome.worker.as_log() if outcome.worker is not None else None
        self.last.update(cache=outcome.cache, worker=worker)
        findings = outcome.report.at_cursor(params.cursor_position)
        return [to_hint(f, requested) for f in findings]

    def _analyze_directory(self, requested: str, target: str) -> list[Hint]:
        relatives = source_files(target)
        paths = [os.path.join(target, r) for r in relatives]
        outcomes: list[Outcome] = self.backend.analyze(paths)
        states: dict[str, int] = {}
        hints: list[Hint] = []
        for relative, outcome in zip(relatives, outcomes, strict=True):
            states[outcome.cache] = states.get(outcome.cache, 0) + 1
            hint_path = join_request_path(requested, relative)
            hints.extend(to_hint(f, hint_path) for f in outcome.report.findings)
        self.last.update(files=len(relatives), cache=states)
        return hints
