"""Fixes of loop moves: a search loop as ``any()``/``all()`` (or one ``isinstance`` with
a tuple), a loop that only yields each item as ``yield from``.

A search is safe: ``any``/``all`` over a generator test the items in the same order and
stop at the same one, and the ``return`` right after the loop means its variable is
never read again. Not so when the module rebinds ``any``/``all``, nor for a test
with ``await``, ``yield`` or ``super()`` (a generator has a scope of its own): no fix
then. One ``isinstance`` with a literal tuple is safe; with ``tuple(classes)`` it is
not (the loop stops at a match, ``tuple()`` reads every class first). ``yield from``
is unsafe: it passes ``send()`` and ``throw()`` on to the iterator, the loop did not.

A loop ``else`` with no ``break`` to skip it runs whenever the loop ends, as code
after the loop does: dropping the ``else:`` line is safe. So is ``while x := read():``
for ``while True:`` that reads ``x`` and breaks when it is falsy (or None): the test
reads and stops in the same order, and a ``continue`` reads again, as it did.
"""

from __future__ import annotations

import ast
from typing import Final, NamedTuple

from gzguide.analysis.facts.walk import FunctionView, Stmt
from gzguide.analysis.fixes.conditionals import unwrapped_else
from gzguide.analysis.fixes.edits import Edit, Fix, Source
from gzguide.analysis.fixes.generators import for_clause, nested_scope_breaks
from gzguide.analysis.fixes.registry import fixer, one_line, operand, statement_at
from gzguide.analysis.fixes.searches import first_match
from gzguide.analysis.fixes.tests import as_written, has_plain_negation, negated
from gzguide.analysis.moves.base import Move
from gzguide.analysis.moves.kinds import Kind
from gzguide.analysis.moves.syntax import mentions

#: The lines a search's fix replaces: from the loop to the end of the ``return`` after it.
_Replaced = tuple[tuple[int, int], tuple[int, int]]


class _Search(NamedTuple):
    loop: ast.For
    test: ast.expr
    #: Whether the loop returns True on a match (``any``), or False (``all``).
    is_any: bool
    replaced: _Replaced


def _search_of(stmt: Stmt, source: Source) -> _Search | None:
    match stmt.node, stmt.next_node():
        case (
            ast.For(
                body=[ast.If(test=test, body=[ast.Return(value=ast.Constant(value=hit))])]
            ) as loop,
            ast.Return(value=ast.Constant()) as after,
        ) if one_line(test, loop.iter, loop.target) and not nested_scope_breaks(test):
            return _Search(loop, test, hit is True, (source.start(loop), source.end(after)))
    return None


@fixer(Kind.ANY, Kind.ALL)
def search(move: Move, view: FunctionView, source: Source) -> Fix | None:
    found = statement_at(view, move.span[0], ast.For)
    if found is None:
        return None
    loop = _search_of(found[0], source)
    if loop is None:
        return first_match(move, found[1], source)  # a loop that acts once on a match
    if source.has_comment(*move.span):
        return None
    return _search_fix(source, loop)


def _search_fix(source: Source, search: _Search) -> Fix | None:
    if search.is_any:
        return _isinstance_of(source, search) or _verdict(source, search, Kind.ANY)
    if has_plain_negation(search.test):
        return _verdict(source, search, Kind.ALL)
    return _none_of(source, search)


def _verdict(source: Source, search: _Search, kind: Kind) -> Fix | None:
    name = kind.value
    if source.binds(name):
        return None
    element = (as_written if kind is Kind.ANY else negated)(source, search.test)
    text = f"return {name}({element.text} {for_clause(source, search.loop)})"
    return Fix(kind, f"Use {name}()", (Edit(*search.replaced, text),), safe=True)


def _none_of(source: Source, search: _Search) -> Fix | None:
    """An ``all`` whose test has no plain negation, written as the move words it:
    ``not any(t ...)`` says it more directly than ``all(not t ...)``."""
    if source.binds("any"):
        return None
    element = as_written(source, search.test)
    text = f"return not any({element.text} {for_clause(source, search.loop)})"
    return Fix(Kind.ALL, "Use not any()", (Edit(*search.replaced, text),), safe=True)


def _isinstance_of(source: Source, search: _Search) -> Fix | None:
    """``return isinstance(x, classes)`` for a loop over classes asking ``isinstance(x, cls)``."""
    match search.test, search.loop.target:
        case ast.Call(
            func=ast.Name(id="isinstance"), args=[subject, ast.Name(id=each)], keywords=[]
        ), ast.Name(id=target) if each == target and not mentions(subject, {target}):
            if source.binds("isinstance"):
                return None
            classes, literal = _classes(source, search.loop.iter)
            text = f"return isinstance({source.segment(subject)}, {classes})"
            edit = Edit(*search.replaced, text)
            return Fix(Kind.ANY, "Use one isinstance()", (edit,), safe=literal)
    return None


def _classes(source: Source, iterable: ast.expr) -> tuple[str, bool]:
    """The classes as ``isinstance``'s tuple, and whether they are a literal tuple."""
    if not isinstance(iterable, ast.Tuple):
        return f"tuple({source.segment(iterable)})", False
    text = source.segment(iterable)
    return (text if text.startswith("(") else f"({text})"), True


@fixer(Kind.YIELD_FROM)
def yield_from(move: Move, view: FunctionView, source: Source) -> Fix | None:
    found = statement_at(view, move.span[0], ast.For)
    if found is None:
        return None
    loop = found[1]
    if not one_line(loop.iter) or source.has_comment(*move.span):
        return None
    text = f"yield from {operand(source, loop.iter, (ast.NamedExpr, ast.Tuple, ast.Yield))}"
    edit = Edit(source.start(loop), source.end(loop), text)
    return Fix(move.kind, "Use yield from", (edit,), safe=False)


@fixer(Kind.LOOP_ELSE)
def loop_else(move: Move, view: FunctionView, source: Source) -> Fix | None:
    found = statement_at(view, move.span[0], ast.stmt)
    match found[1] if found is not None else None:
        case (
            ast.For(orelse=[first, *_])
            | ast.AsyncFor(orelse=[first, *_])
            | ast.While(orelse=[first, *_]) as loop
        ):
            return _unwrapped_else(move, source, loop, first)
    return None


def _unwrapped_else(
    move: Move, source: Source, loop: ast.For | ast.AsyncFor | ast.While, first: ast.stmt
) -> Fix | None:
    """The ``else:`` line gone and its body a level out."""
    edits = unwrapped_else(source, move.span[1], first, loop.end_lineno or loop.lineno)
    return Fix(move.kind, "Drop the loop's else", tuple(edits), safe=True) if edits else None


#: What may not stand bare as the value of ``:=``.
_LOOSE_VALUE: Final = (ast.Tuple, ast.Yield, ast.YieldFrom, ast.NamedExpr, ast.Lambda)


@fixer(Kind.WALRUS_LOOP)
def walrus_loop(move: Move, view: FunctionView, source: Source) -> Fix | None:
    found = statement_at(view, move.span[0], ast.While)
    match found[1] if found is not None else None:
        case (
            ast.While(
                body=[
                    ast.Assign(targets=[ast.Name(id=name)], value=value) as read,
                    ast.If(test=stop_test) as stop,
                    *_,
                ]
            ) as loop
        ) if _whole_lines(source, read, stop):
            walrus = f"{name} := {operand(source, value, _LOOSE_VALUE)}"
            test = walrus if isinstance(stop_test, ast.UnaryOp) else f"({walrus}) is not None"
            header = Edit(source.start(loop.test), source.end(loop.test), test)
            cut = Edit((read.lineno, 0), ((stop.end_lineno or stop.lineno) + 1, 0), "")
            return Fix(move.kind, "Read in the while test", (header, cut), safe=True)
    return None


def _whole_lines(source: Source, read: ast.stmt, stop: ast.If) -> bool:
    """Whether the read and the ``if`` that stops take whole lines of their own, with no
    comment: the edit removes those lines."""
    last = stop.end_lineno or stop.lineno
    if source.has_comment(read.lineno, last):
        return False
    begins = source.start(read)[1] == len(source.indent(read.lineno))
    return (
        begins
        and read.end_lineno == read.lineno
        and source.end(stop)[1] == len(source.line(last).rstrip())
    )
