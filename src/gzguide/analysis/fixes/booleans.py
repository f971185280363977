"""Fixes of boolean moves: ``if t: return True`` then ``return False`` as ``return t``.

``return t`` is safe when ``t`` is always a bool (``in``, ``is``, ``not``,
``isinstance()``, an ``and`` of such tests); otherwise the fix returns ``bool(t)``,
also safe, except for a comparison or a method call (``a == b``, ``s.startswith(p)``),
returned as it is, as a person writes it: unsafe, since a class may define ``==`` or
the method to return something other than a bool.

``a and b or c``, with ``b`` always true, is ``b if a else c``: ``a``'s truth is asked
once either way, and ``b`` or ``c`` evaluated as before. Safe when ``b`` is a literal
(a constant, or a tuple, list, set or dict display), whose truth Python decides; a
string built with ``+`` (``name + ' = '``) is unsafe, since a class of its own on the
other side decides what the ``+`` gives, which may be false.
"""

from __future__ import annotations

import ast
from typing import Final

from gzguide.analysis.facts.walk import FunctionView
from gzguide.analysis.fixes.edits import Edit, Fix, Source
from gzguide.analysis.fixes.registry import (
    fixer,
    one_line,
    operand,
    parent_of,
    parenthesized,
    statement_at,
)
from gzguide.analysis.fixes.tests import BOOL_BUILTINS, Test, as_written, negated
from gzguide.analysis.moves.base import Move
from gzguide.analysis.moves.kinds import Kind
from gzguide.analysis.moves.syntax import extent, otherwise


@fixer(Kind.BOOL_RETURN)
def bool_return(move: Move, view: FunctionView, source: Source) -> Fix | None:
    found = statement_at(view, move.span[0], ast.If)
    if found is None or source.has_comment(*move.span):
        return None
    stmt, node = found
    match node.body, otherwise(stmt):
        case [ast.Return(value=ast.Constant(value=bool() as first))], ast.Return() as last:
            result = _returned(source, node.test, first)
            if result is None:
                return None
            edit = Edit(source.start(node), source.end(last), f"return {result.text}")
            return Fix(move.kind, "Return the test", (edit,), safe=result.is_bool)
    return None


def _returned(source: Source, test: ast.expr, first: bool) -> Test | None:
    """What the fix returns: the test, or its negation when the ``if`` returns False."""
    if first:
        return _as_bool(as_written(source, test), test, source)
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return _as_bool(negated(source, test), test.operand, source)
    return negated(source, test)


def _as_bool(result: Test, test: ast.expr, source: Source) -> Test | None:
    """The returned test, through ``bool()`` where it may be something else and a
    person would write the call; None if ``bool`` or a builtin it relies on is rebound."""
    if not source.bound_names.isdisjoint(BOOL_BUILTINS):
        return None
    if result.is_bool:
        return result
    if isinstance(test, ast.Compare) or _method_call(test):
        return result  # as a person writes it: unsafe
    return Test(f"bool({source.segment(test)})", True)


def _method_call(test: ast.expr) -> bool:
    return isinstance(test, ast.Call) and isinstance(test.func, ast.Attribute)


#: Literals whose truth no code of the program decides.
_LITERALS: Final = (ast.Constant, ast.Tuple, ast.List, ast.Set, ast.Dict)


@fixer(Kind.CONDITIONAL)
def conditional(move: Move, view: FunctionView, source: Source) -> Fix | None:
    for boolop in view.boolops:
        match boolop.values:
            case [ast.BoolOp(op=ast.And(), values=[test, value]), other] if extent(
                boolop
            ) == move.span and one_line(boolop):
                text = (
                    f"{source.segment(value)} if {operand(source, test, _UNDER_IF)} "
                    f"else {operand(source, other, _UNDER_ELSE)}"
                )
                placed = _placed(view, source, boolop, text)
                edit = Edit(source.start(boolop), source.end(boolop), placed)
                safe = isinstance(value, _LITERALS)
                return Fix(move.kind, "Use a conditional expression", (edit,), safe)
    return None


#: What may not stand bare as the test of a conditional expression, or after its ``else``.
_UNDER_IF: Final = (ast.NamedExpr, ast.IfExp, ast.Lambda)
_UNDER_ELSE: Final = (ast.NamedExpr, ast.Tuple, ast.Yield, ast.YieldFrom)


def _placed(view: FunctionView, source: Source, boolop: ast.BoolOp, text: str) -> str:
    """``text`` in parentheses where its place binds tighter than a conditional (an
    operand of ``+``, ``and``, a comparison...), unless the ``or`` was written in some:
    the tree leaves those out of its extent, so they stay."""
    if parenthesized(source, source.start(boolop), source.end(boolop)):
        return text
    match parent_of(view.node, boolop):
        case ast.stmt() | ast.keyword() | ast.Call() | ast.Subscript() | ast.FormattedValue():
            return text
        case ast.Tuple() | ast.List() | ast.Set() | ast.Dict():
            return text
    return f"({text})"
