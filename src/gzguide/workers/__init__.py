"""Where analysis runs. A backend turns absolute file paths into file reports.

:class:`InProcessBackend` analyzes in the calling process (``--workers 0``: for
debugging, and the baseline the pool is measured against). The pool of worker
processes implements the same :class:`Backend` protocol.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from gzguide.analysis.model import FileReport


class Backend(Protocol):
    def analyze(self, paths: Sequence[str]) -> list[FileReport]:
        """One report per path, in the same order; an empty report when unanalyzable."""
        ...

    def close(self) -> None:
        """Stop whatever the backend runs; idempotent."""
        ...


EventSink = Callable[..., None]


def _ignore(event: str, **fields: object) -> None:
    del event, fields


class InProcessBackend:
    """Analysis in this process, with the same file-version cache a worker keeps."""

    def __init__(self, root: str, on_event: EventSink = _ignore) -> None:
        from gzguide.workers.analyst import Analyst

        self._analyst = Analyst(root, on_event)

    def analyze(self, paths: Sequence[str]) -> list[FileReport]:
        return [self._analyst.analyze(path).report for path in paths]

    def close(self) -> None:
        pass
