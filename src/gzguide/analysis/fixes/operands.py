"""Fixes of the boolean moves on the operands of one ``and``/``or``: a run of tests on
one subject said as one test, and an ``or`` that can never change the value dropped.

* ``membership``: ``x == a or x == b`` becomes ``x in (a, b)``. Safe only where it is
  provably the same test: ``x`` a plain name (read once instead of twice, to no
  effect), every choice a literal constant (building the tuple first evaluates
  nothing that could fail or act), an ``==`` run joined by ``or`` (``not in`` asks
  ``==``, where the ``!=`` of an ``and`` run asks ``__ne__``, which a class may define
  apart), and the ``or`` only ever tested for its truth (an ``if``, ``while``,
  ``assert``, ``not``...: ``in`` gives True or False where ``==`` gives whatever
  ``__eq__`` returns). ``in`` compares ``a == x`` after an identity test, but a
  constant's own ``__eq__`` answers only for its own type and defers to ``x``'s for any
  other, and is equal to itself: the same answer, from the same user code. Anything
  else is unsafe.
* ``isinstance_tuple``: ``isinstance(x, A) or isinstance(x, B)`` becomes
  ``isinstance(x, (A, B))``, which tests the classes in the same order and stops at
  the same one. Safe when ``x`` is a plain name and every class a builtin class the
  module does not rebind (evaluating it ahead cannot fail); unsafe otherwise (``B`` is
  evaluated even when ``A`` matches, and an attribute may raise or change).
* ``startswith_tuple``: ``s.startswith(a) or s.startswith(b)`` becomes
  ``s.startswith((a, b))``. Always unsafe: the receiver's class is not known (a class
  of its own may take no tuple), and a prefix not written as a literal may be a tuple
  itself, which ``str.startswith`` refuses inside a tuple.
* ``dead_or``: ``"".join(xs) or ""`` becomes ``"".join(xs)``. Safe: a join on a
  literal separator gives a plain ``str`` (or ``bytes``), empty exactly when the
  ``or`` would have given the empty literal.
"""

from __future__ import annotations

import ast
import builtins
import re
from collections.abc import Callable
from itertools import pairwise
from typing import Final, NamedTuple, cast

from gzguide.analysis.facts.walk import FunctionView
from gzguide.analysis.fixes.edits import Edit, Fix, Pos, Source
from gzguide.analysis.fixes.registry import fixer, one_line, operand, parent_of, parenthesized
from gzguide.analysis.fixes.tests import truth_tested
from gzguide.analysis.moves.base import Move
from gzguide.analysis.moves.booleans import (
    affix_key,
    affixes_in,
    called,
    empty_join,
    equality_subject,
    isinstance_subject,
    runs,
)
from gzguide.analysis.moves.kinds import Kind
from gzguide.analysis.moves.syntax import extent

#: The key that groups the operands of one ``and``/``or`` into a run a move names
#: (None: this ``and``/``or`` has no such run).
_RunKey = Callable[[ast.expr], str | None]
_KeyOf = Callable[[ast.BoolOp], _RunKey | None]

#: What a tuple's item may not be bare.
_LOOSE_ITEM: Final = (ast.NamedExpr, ast.Yield, ast.YieldFrom)

#: The builtin classes, whose names evaluate to nothing else unless the module rebinds them.
_BUILTIN_CLASSES: Final = frozenset(
    name for name, value in vars(builtins).items() if isinstance(value, type)
)


def _is_or(boolop: ast.BoolOp) -> bool:
    return isinstance(boolop.op, ast.Or)


class _Run(NamedTuple):
    """Adjacent operands of one ``and``/``or`` that a move makes one test."""

    boolop: ast.BoolOp
    values: list[ast.expr]

    @property
    def whole(self) -> bool:
        return len(self.values) == len(self.boolop.values)

    @property
    def one_line(self) -> bool:
        """Whether the run is on one line (a comment can only follow it, where the edit
        leaves it)."""
        return self.values[0].lineno == extent(self.values[-1])[1]

    def items(self, named: Callable[[ast.expr], ast.expr]) -> list[ast.expr]:
        """What the operands name (``named`` finds it in each), a literal tuple's items
        one by one."""
        return [item for value in self.values for item in affixes_in(named(value))]

    def replaced(self, source: Source, text: str) -> tuple[Edit, ...]:
        return (Edit(source.start(self.values[0]), source.end(self.values[-1]), text),)


def _run_at(view: FunctionView, span: tuple[int, int], key_of: _KeyOf) -> _Run | None:
    """The run of operands that the move on ``span`` names."""
    for boolop in view.boolops:
        key = key_of(boolop)
        if key is None:
            continue
        for run in runs(boolop.values, key):
            if (run[0].lineno, extent(run[-1])[1]) == span:
                return _Run(boolop, run)
    return None


def _tuple(source: Source, items: list[ast.expr]) -> str:
    return "(" + ", ".join(operand(source, i, _LOOSE_ITEM) for i in items) + ")"


def _membership_key(boolop: ast.BoolOp) -> _RunKey:
    return equality_subject(ast.Eq if _is_or(boolop) else ast.NotEq)


def _compare(value: ast.expr) -> ast.Compare:
    return cast(ast.Compare, value)


def _compared(value: ast.expr) -> ast.expr:
    return _compare(value).comparators[0]


def _subject(source: Source, compare: ast.Compare) -> str:
    """The left side of ``compare`` as written, with the parentheses it was written in."""
    opened = source.between(source.start(compare), source.start(compare.left)).count("(")
    return "(" * opened + source.segment(compare.left) + ")" * opened


@fixer(Kind.MEMBERSHIP)
def membership(move: Move, view: FunctionView, source: Source) -> Fix | None:
    run = _run_at(view, move.span, _membership_key)
    if run is None or not run.one_line:
        return None
    start, end, turned = _membership_place(view, source, run)
    word = "in" if _is_or(run.boolop) is not turned else "not in"
    subject = _subject(source, _compare(run.values[0]))
    edit = Edit(start, end, f"{subject} {word} {_tuple(source, run.items(_compared))}")
    return Fix(move.kind, f"Use {word} (...)", (edit,), _same_membership(view, run))


def _same_membership(view: FunctionView, run: _Run) -> bool:
    """Whether ``in`` is the same test as the run for every input: ``==`` of a plain
    name with literal constants only, joined by an ``or`` asked only for its truth."""
    plain = all(
        isinstance(_compare(v).left, ast.Name) and isinstance(_compared(v), ast.Constant)
        for v in run.values
    )
    return plain and _is_or(run.boolop) and id(run.boolop) in truth_tested(view.node)


def _membership_place(view: FunctionView, source: Source, run: _Run) -> tuple[Pos, Pos, bool]:
    """Where the ``in`` test goes, and whether it takes the place of a ``not`` too (and
    is turned around): a whole ``and``/``or`` in parentheses under another one, or
    under ``not``, no longer needs them."""
    start, end = source.start(run.values[0]), source.end(run.values[-1])
    grouped = parenthesized(source, start, end) if run.whole else None
    match parent_of(view.node, run.boolop) if grouped else None:
        case ast.UnaryOp(op=ast.Not()) as negated:
            return source.start(negated), source.end(negated), True
        case ast.BoolOp() if grouped:
            return grouped[0], grouped[1], False
    return start, end, False


def _isinstance_key(boolop: ast.BoolOp) -> _RunKey | None:
    return isinstance_subject if _is_or(boolop) else None


def _classes(value: ast.expr) -> ast.expr:
    return called(value).args[1]


@fixer(Kind.ISINSTANCE_TUPLE)
def isinstance_tuple(move: Move, view: FunctionView, source: Source) -> Fix | None:
    run = _run_at(view, move.span, _isinstance_key)
    if run is None or not run.one_line or source.binds("isinstance"):
        return None
    subject, classes = called(run.values[0]).args[0], run.items(_classes)
    text = f"isinstance({operand(source, subject, _LOOSE_ITEM)}, {_tuple(source, classes)})"
    safe = isinstance(subject, ast.Name) and _builtin_classes(source, classes)
    return Fix(move.kind, "Use one isinstance()", run.replaced(source, text), safe)


def _builtin_classes(source: Source, classes: list[ast.expr]) -> bool:
    return all(
        isinstance(c, ast.Name) and c.id in _BUILTIN_CLASSES and not source.binds(c.id)
        for c in classes
    )


def _affix_key(boolop: ast.BoolOp) -> _RunKey:
    return affix_key(negated=not _is_or(boolop))


def _affixes(value: ast.expr) -> ast.expr:
    return called(value).args[0]


@fixer(Kind.STARTSWITH_TUPLE)
def startswith_tuple(move: Move, view: FunctionView, source: Source) -> Fix | None:
    run = _run_at(view, move.span, _affix_key)
    if run is None or not run.one_line:
        return None
    method = called(run.values[0]).func
    called_as = source.between(source.start(method), source.end(method))
    text = f"{called_as}({_tuple(source, run.items(_affixes))})"
    if isinstance(run.values[0], ast.UnaryOp):
        text = f"not {text}"
    return Fix(move.kind, "Use one call with a tuple", run.replaced(source, text), safe=False)


#: What lies between a join and the empty literal its ``or`` falls back to.
_BARE_OR: Final = re.compile(r"[ \t]+or[ \t]+")


@fixer(Kind.DEAD_OR)
def dead_or(move: Move, view: FunctionView, source: Source) -> Fix | None:
    for boolop in filter(_is_or, view.boolops):
        for left, right in pairwise(boolop.values):
            if (left.lineno, extent(right)[1]) == move.span and empty_join(left, right):
                return _dropped_or(move, source, left, right)
    return None


def _dropped_or(move: Move, source: Source, left: ast.expr, right: ast.expr) -> Fix | None:
    gap = source.between(source.end(left), source.start(right))
    if not one_line(left, right) or not _BARE_OR.fullmatch(gap):
        return None
    edit = Edit(source.end(left), source.end(right), "")
    return Fix(move.kind, "Drop the dead or", (edit,), safe=True)
