"""Fixes of loop moves: a search loop as ``any()``/``all()`` (or one ``isinstance`` with
a tuple), a loop that only yields each item as ``yield from``.

A search is safe: ``any``/``all`` over a generator test the items in the same order and
stop at the same one, and the ``return`` right after the loop means its variable is
never read again. Not so when the module rebinds ``any``/``all``, nor for a test
with ``await``, ``yield`` or ``super()`` (a generator has a scope of its own): no fix
then. One ``isinstance`` with a literal tuple is safe; with ``tuple(classes)`` it is
not (the loop stops at a match, ``tuple()`` reads every class first). ``yield from``
is unsafe: it passes ``send()`` and ``throw()`` on to the iterator, the loop did not.
"""

from __future__ import annotations

import ast
from typing import Final, NamedTuple

from gzguide.analysis.facts.walk import FunctionView, Stmt
from gzguide.analysis.fixes.edits import Edit, Fix, Source
from gzguide.analysis.fixes.registry import fixer, one_line, operand, statement_at
from gzguide.analysis.fixes.tests import as_written, negated
from gzguide.analysis.moves.base import Move
from gzguide.analysis.moves.kinds import Kind
from gzguide.analysis.moves.syntax import mentions

#: What the iterable of a generator's ``for`` must not be bare (it would not parse, or
#: would take the ``if`` of a conditional for a filter).
_LOOSE_ITERABLE: Final = (ast.NamedExpr, ast.IfExp, ast.Lambda, ast.Tuple, ast.Yield)


def _nested_scope_breaks(test: ast.expr) -> bool:
    """Whether ``test`` would mean something else inside a generator's own scope."""
    for node in ast.walk(test):
        match node:
            case ast.Await() | ast.Yield() | ast.YieldFrom():
                return True
            case ast.Call(func=ast.Name(id="super"), args=[]):
                return True
    return False


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
        ) if one_line(test, loop.iter, loop.target) and not _nested_scope_breaks(test):
            return _Search(loop, test, hit is True, (source.start(loop), source.end(after)))
    return None


@fixer(Kind.ANY, Kind.ALL)
def search(move: Move, view: FunctionView, source: Source) -> Fix | None:
    found = statement_at(view, move.span[0], ast.For)
    if found is None or source.has_comment(*move.span):
        return None
    loop = _search_of(found[0], source)
    if loop is None:
        return None
    return (loop.is_any and _isinstance_of(source, loop)) or _verdict(source, loop)


def _clause(source: Source, loop: ast.For) -> str:
    return f"for {source.segment(loop.target)} in {operand(source, loop.iter, _LOOSE_ITERABLE)}"


def _verdict(source: Source, search: _Search) -> Fix | None:
    name = "any" if search.is_any else "all"
    if source.binds(name):
        return None
    element = (as_written if search.is_any else negated)(source, search.test)
    text = f"return {name}({element.text} {_clause(source, search.loop)})"
    kind = Kind.ANY if search.is_any else Kind.ALL
    return Fix(kind, f"Use {name}()", (Edit(*search.replaced, text),), safe=True)


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
