"""From an ``analyze`` request's params, or a buffer's text, to an :class:`~gzguide.answer.Answer`.

This is the seam between the protocol and the analysis: it resolves the request's
path against the workspace root, expands a directory into its source files, takes
the workspace's threshold table, answers unchanged files from the memo and hands
the others to a backend as jobs, and gathers the reports into an answer whose
parts name the paths the hints will echo. It knows neither how frames look, nor
how hints are encoded, nor how metrics are computed.

A buffer's text (:meth:`AnalysisService.analyze_text`, whatever front end
received it) takes the same way, known by its content digest instead of a stat:
the memo answers bytes it has seen (a buffer sent again, or equal to a file
version analyzed before), the job carries the bytes to the worker of its file,
and nothing is read from disk.

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
from typing import TYPE_CHECKING, Final

from gzguide.analysis.discovery import Walk
from gzguide.analysis.model import EMPTY_REPORT
from gzguide.analysis.source import MAX_SOURCE_BYTES
from gzguide.answer import Answer, FileAnswer, unanswered
from gzguide.freshness import CacheState, stat_or_none
from gzguide.guide.messages import AnalyzeParams, BufferText
from gzguide.workers import Backend, Job, Outcome, Text
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


class AnalysisService:
    """Answers analyze params, through the memo and whichever backend it was given."""

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

    def analyze(self, params: AnalyzeParams, done: AnswerSink) -> None:
        """Answer ``params`` through ``done``: once, and at once when nothing must be awaited.

        A bug in here costs the one answer (empty, and logged), never the session;
        whatever ``done`` itself raises (the client left) is the caller's.
        """
        once = _Once(done)
        try:
            answer = self._analyze(params, once)
        except Exception as exc:
            answer = self._failed(params, exc)
        if answer is not None:
            once(answer)

    def analyze_now(self, params: AnalyzeParams) -> Answer:
        """The answer, from a backend that answers before it returns (in-process analysis)."""
        answers: list[Answer] = []
        self.analyze(params, answers.append)
        if not answers:
            raise RuntimeError("analyze_now needs a backend that answers at once")
        return answers[0]

    def analyze_text(
        self, file_path: str, text: bytes | BufferText, cursor: int | None, done: AnswerSink
    ) -> None:
        """Answer for a buffer of ``file_path`` holding ``text`` (its UTF-8 form) through ``done``.

        Nothing is read from disk: ``file_path`` is what the hints echo, and where
        the job goes (the worker that caches its file); ``cursor`` is an offset into
        ``text``. The text is analyzed as a file holding those bytes would be.
        Answered once, and at once when nothing must be awaited; a bug in here
        costs the one answer, as for :meth:`analyze`. A :class:`BufferText` from a
        request brings its digest along when it was computed before (the same text
        sent again), and its bytes are only asked for when a worker needs them.
        """
        once = _Once(done)
        if isinstance(text, bytes):
            text = BufferText(text)
        try:
            answer = self._analyze_text(file_path, text, cursor, once)
        except Exception as exc:
            answer = self._failed_text(file_path, text, cursor, exc)
        if answer is not None:
            once(answer)

    def analyze_text_now(self, file_path: str, text: bytes, cursor: int | None = None) -> Answer:
        """:meth:`analyze_text`'s answer, from a backend that answers before it returns."""
        answers: list[Answer] = []
        self.analyze_text(file_path, text, cursor, answers.append)
        if not answers:
            raise RuntimeError("analyze_text_now needs a backend that answers at once")
        return answers[0]

    def _failed(self, params: AnalyzeParams, exc: Exception) -> Answer:
        if self._on_error is not None:
            self._on_error("analyze_failed", file_path=params.file_path, error=repr(exc))
        return unanswered(params.file_path, params.cursor_position)

    def _failed_text(
        self, file_path: str, text: BufferText, cursor: int | None, exc: Exception
    ) -> Answer:
        if self._on_error is not None:
            self._on_error("analyze_failed", file_path=file_path, source="text", error=repr(exc))
        return unanswered(file_path, cursor, text.size)

    def _analyze_text(
        self, requested: str, text: BufferText, cursor: int | None, done: _Once
    ) -> Answer | None:
        """The answer when it is known at once; None when ``done`` will get it."""
        size = text.size
        if size > MAX_SOURCE_BYTES:
            part = FileAnswer(requested, EMPTY_REPORT, CacheState.UNANALYZABLE)
            return Answer(requested, cursor, (part,), text_bytes=size)
        table = self.thresholds.current()
        fingerprint = table.fingerprint
        digest = text.digest()
        memo = self.memo
        if memo is not None:
            known = memo.lookup_text(digest, fingerprint)
            if known is not None:
                return Answer(requested, cursor, (_part(requested, known),), text_bytes=size)

        def finished(outcome: Outcome) -> None:
            try:
                if memo is not None:
                    memo.store_text(digest, fingerprint, outcome)
                answer = Answer(requested, cursor, (_part(requested, outcome),), text_bytes=size)
            except Exception as exc:
                answer = self._failed_text(requested, text, cursor, exc)
            done(answer)

        job = Job(self.resolve(requested), table, text=Text(text.data(), digest))
        self.backend.submit(job, finished)
        return None

    def _analyze(self, params: AnalyzeParams, done: _Once) -> Answer | None:
        """The answer when it is known at once; None when ``done`` will get it."""
        requested = params.file_path
        cursor = params.cursor_position
        if "\x00" in requested:
            return unanswered(requested, cursor)
        target = self.resolve(requested)
        st = stat_or_none(target)
        table = self.thresholds.current()
        if st is not None and stat.S_ISDIR(st.st_mode):
            self._analyze_directory(requested, target, table, done)
            return None
        memo = self.memo
        if memo is not None:
            known = memo.lookup(target, st, table.fingerprint)
            if known is not None:
                return Answer(requested, cursor, (_part(requested, known),))

        def finished(outcome: Outcome) -> None:
            try:
                if memo is not None:
                    memo.store(target, st, table.fingerprint, outcome)
                answer = Answer(requested, cursor, (_part(requested, outcome),))
            except Exception as exc:
                answer = self._failed(params, exc)
            done(answer)

        self.backend.submit(Job(target, table), finished)
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
            path = os.path.join(target, relative)
            hint_path = join_request_path(requested, relative)
            st = stat_or_none(path)
            known = self._remembered(path, st, fingerprint)
            if known is not None:
                gather.put(index, _part(hint_path, known))
            else:
                finished = self._file_finished(gather, index, hint_path, path, st, fingerprint)
                self.backend.submit(Job(path, table, start_by), finished)

    def _directory_deadlines(self, started: float) -> tuple[float | None, float | None]:
        """When a directory request's files must have started, and its listing ended (if ever).

        The listing gets part of the budget only: a folder too big to list in time
        still has files analyzed, instead of a budget spent before the first one.
        """
        budget = self.directory_budget_s
        if budget is None:
            return None, None
        return started + budget, started + budget * LISTING_SHARE

    def _remembered(self, path: str, st: os.stat_result | None, fingerprint: str) -> Outcome | None:
        """The memo's outcome for this version of ``path``, if there is a memo and it has one."""
        memo = self.memo
        return memo.lookup(path, st, fingerprint) if memo is not None else None

    def _file_finished(
        self,
        gather: _Gather,
        index: int,
        hint_path: str,
        path: str,
        st: os.stat_result | None,
        fingerprint: str,
    ) -> Callable[[Outcome], None]:
        """What to do with the outcome of one file of a directory request."""

        def finished(outcome: Outcome) -> None:
            memo = self.memo
            if memo is not None:
                try:
                    memo.store(path, st, fingerprint, outcome)
                except Exception as exc:
                    if self._on_error is not None:
                        self._on_error("analyze_failed", file_path=path, error=repr(exc))
            gather.put(index, _part(hint_path, outcome))

        return finished
