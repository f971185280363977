"""From an analyze :class:`Request` to an :class:`~gzguide.answer.Answer`, for any front end.

This is the seam between the front ends and the analysis: it resolves the path
of the request's :class:`~gzguide.source.Source` against the workspace root,
expands a directory into its source files, takes the workspace's threshold
table, answers unchanged versions from the memo and hands the others to a
backend as jobs, and gathers the reports into an answer whose parts name the
paths the hints will echo. It knows no protocol (a front end turns its own
messages into a :class:`Request`), nor how frames look, how hints are encoded or
how metrics are computed.

A file and a buffer take one way: a file's version is known by its stat, a
buffer's by its content digest; the memo answers versions it has seen (a buffer
sent again, or equal to a file version analyzed before), and a job carries a
buffer's bytes to the worker of its file, so nothing is read from disk for it.

An answer is given through a callback: at once when nothing needs a backend's
work (or the backend works in-process), later when jobs went to worker
processes (the server's loop then delivers their outcomes).
"""

from __future__ import annotations

import os
import posixpath
import stat
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Final, NamedTuple

from gzguide.analysis.discovery import Walk
from gzguide.analysis.model import EMPTY_REPORT
from gzguide.analysis.source import MAX_SOURCE_BYTES
from gzguide.answer import Answer, FileAnswer, unanswered
from gzguide.freshness import CacheState, stat_or_none
from gzguide.source import Source
from gzguide.workers import Backend, Job, Outcome
from gzguide.workers.memo import Memo
from gzguide.workspace import ThresholdSource

if TYPE_CHECKING:
    from gzguide.analysis.policy.thresholds import Thresholds

#: The share of a directory request's budget its listing may take.
LISTING_SHARE: Final = 0.5

AnswerSink = Callable[[Answer], None]


def join_request_path(request_path: str, relative: str) -> str:
    """The hint path of a file found under a requested directory."""
    return posixpath.join(request_path, relative) if request_path else relative


def _part(hint_path: str, outcome: Outcome) -> FileAnswer:
    return FileAnswer(hint_path, outcome.report, outcome.cache, outcome.worker)


class _Once:
    """Hands an answer on once: a late outcome can never answer a request twice."""

    __slots__ = ("_done",)

    def __init__(self, done: AnswerSink) -> None:
        self._done: AnswerSink | None = done

    def __call__(self, answer: Answer) -> None:
        done, self._done = self._done, None
        if done is not None:
            done(answer)


class _Gather:
    """A directory's answer, given once the last of its files has an outcome."""

    def __init__(self, requested: str, count: int, walk_complete: bool, done: _Once) -> None:
        self.requested = requested
        self.walk_complete = walk_complete
        self.parts: list[FileAnswer | None] = [None] * count
        self.left = count
        self.done = done

    def put(self, index: int, part: FileAnswer) -> None:
        self.parts[index] = part
        self.left -= 1
        if not self.left:
            parts = tuple(p for p in self.parts if p is not None)
            self.done(Answer(self.requested, None, parts, True, self.walk_complete))


class Request(NamedTuple):
    """An analyze request as the service takes it, from whichever front end received it."""

    #: What to analyze, its path as the request names it (absolute, or relative to
    #: the workspace root): what the answer and its hints echo. A file's path may
    #: name a directory, whose source files are analyzed.
    source: Source
    #: An offset into the file's (or the buffer's) bytes; None: the whole file.
    cursor: int | None = None


def _refused(request: Request) -> Answer | None:
    """The answer to a request that is not analyzed at all, if it is one: a file path
    holding a NUL byte, a buffer past the source size limit."""
    source = request.source
    buffer = source.buffer
    if buffer is None:
        return unanswered(source.path, request.cursor) if "\x00" in source.path else None
    if buffer.size > MAX_SOURCE_BYTES:
        part = FileAnswer(source.path, EMPTY_REPORT, CacheState.UNANALYZABLE)
        return Answer(source.path, request.cursor, (part,), text_bytes=buffer.size)
    return None


def _answer(request: Request, outcome: Outcome) -> Answer:
    """The answer to a request of one file or buffer, from its outcome."""
    source = request.source
    part = _part(source.path, outcome)
    return Answer(source.path, request.cursor, (part,), text_bytes=source.text_bytes)


class AnalysisService:
    """Answers analyze requests, through the memo and whichever backend it was given."""

    def __init__(
        self,
        root: str,
        backend: Backend,
        memo: Memo | None = None,
        on_error: Callable[..., None] | None = None,
        directory_budget_s: float | None = None,
        thresholds: ThresholdSource | None = None,
    ) -> None:
        self.root = os.path.abspath(root)
        self.backend = backend
        #: Finished reports of unchanged files; None: every file goes to the backend.
        self.memo = memo
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

    def analyze(self, request: Request, done: AnswerSink) -> None:
        """Answer ``request`` through ``done``: once, and at once when nothing must be awaited.

        A bug in here costs the one answer (empty, and logged), never the session;
        whatever ``done`` itself raises (the client left) is the caller's.
        """
        once = _Once(done)
        try:
            answer = self._analyze(request, once)
        except Exception as exc:
            answer = self._failed(request, exc)
        if answer is not None:
            once(answer)

    def analyze_now(self, request: Request) -> Answer:
        """The answer, from a backend that answers before it returns (in-process analysis)."""
        answers: list[Answer] = []
        self.analyze(request, answers.append)
        if not answers:
            raise RuntimeError("analyze_now needs a backend that answers at once")
        return answers[0]

    def _failed(self, request: Request, exc: Exception) -> Answer:
        source = request.source
        if self._on_error is not None:
            of_buffer = {} if source.buffer is None else {"source": "text"}
            self._on_error("analyze_failed", file_path=source.path, **of_buffer, error=repr(exc))
        return unanswered(source.path, request.cursor, source.text_bytes)

    def _analyze(self, request: Request, done: _Once) -> Answer | None:
        """The answer when it is known at once; None when ``done`` will get it."""
        refused = _refused(request)
        if refused is not None:
            return refused
        requested = request.source
        target = requested.at(self.resolve(requested.path))
        st = None if target.buffer is not None else stat_or_none(target.path)
        table = self.thresholds.current()
        if st is not None and stat.S_ISDIR(st.st_mode):
            self._analyze_directory(requested.path, target.path, table, done)
            return None
        known = self._remembered(target, st, table.fingerprint)
        if known is not None:
            return _answer(request, known)

        def finished(outcome: Outcome) -> None:
            try:
                self._remember(target, st, table.fingerprint, outcome)
                answer = _answer(request, outcome)
            except Exception as exc:
                answer = self._failed(request, exc)
            done(answer)

        self.backend.submit(Job(target.held(), table), finished)
        return None

    def _analyze_directory(
        self, requested: str, target: str, table: Thresholds, done: _Once
    ) -> None:
        start_by, listed_by = self._directory_deadlines(time.monotonic())
        walk = Walk(target, listed_by)
        relatives = walk.files()
        gather = _Gather(requested, len(relatives), walk.complete, done)
        if not relatives:
            done(Answer(requested, None, (), True, walk.complete))
            return
        fingerprint = table.fingerprint
        for index, relative in enumerate(relatives):
            source = Source(os.path.join(target, relative))
            hint_path = join_request_path(requested, relative)
            st = stat_or_none(source.path)
            known = self._remembered(source, st, fingerprint)
            if known is not None:
                gather.put(index, _part(hint_path, known))
            else:
                finished = self._file_finished(gather, index, hint_path, source, st, fingerprint)
                self.backend.submit(Job(source, table, start_by), finished)

    def _directory_deadlines(self, started: float) -> tuple[float | None, float | None]:
        """When a directory request's files must have started, and its listing ended (if ever).

        The listing gets part of the budget only: a folder too big to list in time
        still has files analyzed, instead of a budget spent before the first one.
        """
        budget = self.directory_budget_s
        if budget is None:
            return None, None
        return started + budget, started + budget * LISTING_SHARE

    def _remembered(
        self, source: Source, st: os.stat_result | None, fingerprint: str
    ) -> Outcome | None:
        """The memo's outcome for this version of ``source``, if there is a memo and it has one."""
        memo = self.memo
        return memo.lookup(source, st, fingerprint) if memo is not None else None

    def _remember(
        self, source: Source, st: os.stat_result | None, fingerprint: str, outcome: Outcome
    ) -> None:
        """Give the memo, if there is one, the outcome of this version of ``source``."""
        if self.memo is not None:
            self.memo.store(source, st, fingerprint, outcome)

    def _file_finished(
        self,
        gather: _Gather,
        index: int,
        hint_path: str,
        source: Source,
        st: os.stat_result | None,
        fingerprint: str,
    ) -> Callable[[Outcome], None]:
        """What to do with the outcome of one file of a directory request."""

        def finished(outcome: Outcome) -> None:
            try:
                self._remember(source, st, fingerprint, outcome)
            except Exception as exc:
                if self._on_error is not None:
                    self._on_error("analyze_failed", file_path=source.path, error=repr(exc))
            gather.put(index, _part(hint_path, outcome))

        return finished
