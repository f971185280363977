"""The fixes of a file: for each hint whose move has a fixer, the move's fix, verified.

A fix is tied to a hint (the band says which functions deserve the change, and the
hint says which move); a fix whose edits do not keep the move's promise is dropped
and logged. :func:`fix_text` makes fixes one after the other, analysing the text
again each time (a fix can enable another, and each is verified on the text it edits).
"""

from __future__ import annotations

import logging
from collections.abc import Collection
from dataclasses import dataclass
from typing import Final

from gzguide.analysis.engine import Measured, evaluate, measure
from gzguide.analysis.facts.file import FileFacts
from gzguide.analysis.facts.lines import text_lines
from gzguide.analysis.facts.parsed import parse_module
from gzguide.analysis.facts.scopes import Scope
from gzguide.analysis.facts.versions import Version
from gzguide.analysis.facts.walk import FunctionView
from gzguide.analysis.fixes import (  # noqa: F401 (registers)
    booleans,
    conditionals,
    copies,
    extremes,
    fills,
    guards,
    handlers,
    lookup_tables,
    lookups,
    loops,
    many,
    operands,
    searches,
)
from gzguide.analysis.fixes.edits import Fix, Source, apply_edits, overlap
from gzguide.analysis.fixes.registry import FIXERS, Fixer
from gzguide.analysis.fixes.verify import (
    REAL_DEPTH,
    CopyPromise,
    DefKey,
    Promise,
    copy_promise,
    definition_values,
    verify,
)
from gzguide.analysis.model import Finding
from gzguide.analysis.moves.base import Move
from gzguide.analysis.moves.catalog import function_moves
from gzguide.analysis.moves.copies import copied_function
from gzguide.analysis.moves.kinds import SINCE, Kind
from gzguide.analysis.policy.thresholds import Thresholds

log = logging.getLogger(__name__)

#: More fixes than this in one file in one run means something keeps undoing itself.
MAX_ROUNDS: Final = 200


@dataclass(frozen=True, slots=True)
class Offered:
    """A verified fix, with the hint it is for and what it does to the hint's value."""

    fix: Fix
    finding: Finding
    #: The qualified name of the function it edits.
    subject: str
    before: float
    after: float
    #: The metric ``before`` and ``after`` are of: the hint's, or, where the fix leaves
    #: that one as it is (merged ``if``s on a complexity hint), the one it lowers.
    metric: str = ""

    @property
    def summary(self) -> str:
        """``Use any(): radon_cc 6 -> 4``."""
        return self.titled(self.fix.title)

    @property
    def placed_summary(self) -> str:
        """``Use elif on line 12: lizard_nloc 22 -> 21``: the summary of a fix that
        another of the same words sits beside."""
        first = min(edit.start for edit in self.fix.edits)[0]
        return self.titled(f"{self.fix.title} on line {first}")

    def titled(self, title: str) -> str:
        metric = self.metric or self.finding.metric
        named = _TITLED.get(metric, metric)
        return f"{title}: {named} {_fmt(self.before)} -> {_fmt(self.after)}"


def _fmt(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:.2f}"


def _facts(measured: Measured) -> FileFacts:
    return FileFacts(
        measured.tree,
        measured.scopes,
        measured.classes,
        measured.top_level,
        measured.keywords,
    )


class _File:
    """One version of a file, measured once, as its fixes need it."""

    def __init__(self, text: str, measured: Measured, oldest: Version | None = None) -> None:
        self.text = text
        self.measured = measured
        #: The oldest Python the file's project supports, when known.
        self.oldest = oldest
        self.source = Source(text, measured.tree)
        self.facts = _facts(measured)
        self.values = definition_values(measured)
        self.keys = _keys(measured.scopes)
        #: No fix may write a line longer than this: the file's longest, or 79.
        self.widest = max(LINE_CHARS, _longest_line(text))

    def _fixer(self, finding: Finding) -> Fixer | None:
        return _fixer_of(finding) if self._supported(finding) else None

    def _supported(self, finding: Finding) -> bool:
        """Whether the fix's syntax runs on every Python the file's project supports."""
        if not _too_new(finding.kind, self.oldest):
            return True
        log.info("fix_rejected kind=%s line=%d why=older_python", finding.kind, finding.start_line)
        return False

    def scope_of(self, finding: Finding) -> Scope | None:
        for scope in self.measured.scopes:
            if scope.is_function and (scope.start_line, scope.end_line) == (
                finding.start_line,
                finding.end_line,
            ):
                return scope
        return None

    def offer(self, finding: Finding) -> Offered | None:
        scope = self.scope_of(finding)
        make = self._fixer(finding)
        if scope is None or make is None:
            return None
        view = self.facts.view(scope)
        move = _the_move(self._moves(scope, view, finding), finding)
        if move is None:
            return None
        fix = make(move, view, self.source)
        promise = self._promise(scope, finding, move)
        if fix is None or promise is None:
            return None
        return self._verified(fix, promise, finding)

    def _moves(self, scope: Scope, view: FunctionView, finding: Finding) -> list[Move]:
        """The moves the hint's can be: a copy is found among the file's functions."""
        if finding.kind != Kind.COPIED_FUNCTION.value:
            return function_moves(view)
        found = copied_function(scope, self.facts)
        return [found] if found is not None else []

    def _promise(self, scope: Scope, finding: Finding, move: Move) -> Promise | CopyPromise | None:
        """What a fix of ``move`` must give: copies keep a promise of their own."""
        if move.kind is Kind.COPIED_FUNCTION:
            return copy_promise(self.keys, self.measured.scopes, scope, move)
        return Promise(self.keys[scope.key], finding.metric, move)

    def _verified(
        self, fix: Fix, promise: Promise | CopyPromise, finding: Finding
    ) -> Offered | None:
        edited = None if overlap(fix.edits) else apply_edits(self.text, fix.edits)
        why = _unfit(edited, self.widest)
        after = verify(self.values, edited, promise) if edited is not None and not why else None
        if after is None:
            why = why or "unverified"
            log.info("fix_rejected kind=%s line=%d why=%s", fix.kind, finding.start_line, why)
            return None
        where = promise.where
        was, now = self.values[where], after[where]
        metric = _changed_metric(was, now, finding.metric)
        return Offered(fix, finding, where[0], was[metric], now[metric], metric)


def _too_new(kind: str, oldest: Version | None) -> bool:
    """Whether the fix of ``kind`` writes syntax the project's oldest Python lacks (a
    kind is its :class:`Kind`'s value, as a hint names it)."""
    needed = SINCE.get(Kind(kind)) if kind in _KINDS else None
    return needed is not None and oldest is not None and oldest < needed


#: The longest line a fix may write in a file whose lines are all shorter: PEP 8's
#: width (a file kept to it has no longer line, and a fix should not be the first; one
#: formatted wider shows its width in its own longest lines).
LINE_CHARS: Final = 79


def _unfit(edited: str | None, widest: int) -> str:
    """Why the edited text is no fix to offer before it is measured ("": none)."""
    if edited is None:
        return "overlapping"
    return "too_wide" if _longest_line(edited) > widest else ""


def _longest_line(text: str) -> int:
    return max(map(len, text_lines(text)), default=0)


#: The values a fix's title may name when the hint's own does not move, in order: last,
#: the levels the code really nests (a guard takes one away where lizard's depth, which
#: rises at every branch, may stay; a title saying `2 -> 2` reads as no change).
_SHOWN: Final = ("radon_cc", "lizard_nesting_depth", "lizard_ccn", "lizard_nloc", REAL_DEPTH)
#: How a title names a value that is not a metric of the protocol's.
_TITLED: Final = {REAL_DEPTH: "nesting levels"}


def _changed_metric(was: dict[str, float], now: dict[str, float], metric: str) -> str:
    """``metric`` if the fix changes it, else the first of :data:`_SHOWN` it lowers."""
    if was.get(metric) != now.get(metric):
        return metric
    lowered = (m for m in _SHOWN if m in was and m in now and now[m] < was[m])
    return next(lowered, metric)


_KINDS: Final = frozenset(k.value for k in Kind)


def _fixer_of(finding: Finding) -> Fixer | None:
    """The fixer of the hint's move (none for a census, or a hint not on a function)."""
    if finding.kind not in _KINDS or not finding.related:
        return None
    return FIXERS.get(Kind(finding.kind))


def _keys(scopes: list[Scope]) -> dict[tuple[int, int], DefKey]:
    seen: dict[str, int] = {}
    keys: dict[tuple[int, int], DefKey] = {}
    for scope in scopes:
        n = seen.get(scope.qualname, 0)
        keys[scope.key] = (scope.qualname, n)
        seen[scope.qualname] = n + 1
    return keys


def _the_move(moves: list[Move], finding: Finding) -> Move | None:
    span = finding.related[0][:2]
    return next((m for m in moves if m.kind == finding.kind and m.span == span), None)


def file_fixes(
    text: str,
    thresholds: Thresholds,
    metrics: Collection[str] | None = None,
    oldest: Version | None = None,
) -> list[Offered]:
    """The verified fixes of the hints of ``text`` (of ``metrics`` only, when given);
    none that writes syntax newer than ``oldest``, the oldest Python its project
    supports, when known."""
    module = parse_module(text.encode())
    if module is None:
        return []
    try:
        return _fixes(text, measure(module), thresholds, metrics, oldest)
    except RecursionError:
        return []


def _fixes(
    text: str,
    measured: Measured,
    thresholds: Thresholds,
    metrics: Collection[str] | None,
    oldest: Version | None,
) -> list[Offered]:
    findings = evaluate(measured, thresholds).findings
    file = _File(text, measured, oldest)
    found = (file.offer(f) for f in findings if metrics is None or f.metric in metrics)
    return [o for o in found if o is not None]


def fix_text(
    text: str,
    thresholds: Thresholds,
    metrics: Collection[str] | None = None,
    unsafe: bool = False,
    oldest: Version | None = None,
) -> tuple[str, list[Offered]]:
    """``text`` with every fix made that is allowed (safe ones, or all when ``unsafe``),
    one at a time until none is left; and the fixes made, in order."""
    made: list[Offered] = []
    for _ in range(MAX_ROUNDS):
        found = file_fixes(text, thresholds, metrics, oldest)
        allowed = [o for o in found if unsafe or o.fix.safe]
        if not allowed:
            break
        made.append(allowed[0])
        text = apply_edits(text, allowed[0].fix.edits)
    return text, made
