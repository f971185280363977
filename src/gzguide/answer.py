"""The typed seam between the protocol and the analysis: what an analyze request got.

The service (:mod:`gzguide.service`) builds an :class:`Answer` from the backends'
reports; the session puts it in its reply, :mod:`gzguide.guide.messages` encodes it as
hints, and the request's log record reads its facts from it. Nothing else travels
between the two sides: no side channel says what a request did.
"""

from __future__ import annotations

import msgspec

from gzguide.analysis.model import FileReport
from gzguide.freshness import CacheState


class WorkerRef(msgspec.Struct, frozen=True):
    """Which worker: its slot in the pool and its process id."""

    index: int
    pid: int

    def as_log(self) -> dict[str, int]:
        return {"index": self.index, "pid": self.pid}


class FileAnswer(msgspec.Struct, frozen=True):
    """One file's part of an answer."""

    #: What each of its hints' ``file_path`` says: the request's path for a file, that
    #: path joined with the file's relative path for a directory.
    hint_path: str
    report: FileReport
    cache: CacheState
    #: Which worker produced the report; None in-process or from the memo.
    worker: WorkerRef | None = None


class Answer(msgspec.Struct, frozen=True):
    """The answer to one analyze request, and the facts its log line reports."""

    #: The request's ``file_path``, exactly as sent.
    path: str
    #: The request's cursor (None: the whole file; always None for a directory).
    cursor: int | None
    #: One part for a file, one per source file for a directory (sorted by path);
    #: none when the request could not be analyzed at all.
    files: tuple[FileAnswer, ...]
    directory: bool = False
    #: False when listing the directory was stopped at its share of the budget.
    walk_complete: bool = True
    #: For a request that sent the buffer's text: the text's size in bytes (its UTF-8
    #: form); None when the file on disk was analyzed.
    text_bytes: int | None = None

    def hint_count(self) -> int:
        files = self.files
        if not self.directory and files:
            return len(files[0].report.at_cursor(self.cursor))
        return sum(len(part.report.findings) for part in files)


def unanswered(path: str, cursor: int | None, text_bytes: int | None = None) -> Answer:
    """The answer to a request that could not be analyzed at all: no hints, no cache state."""
    return Answer(path, cursor, (), text_bytes=text_bytes)
