"""Fixes of boolean moves: ``if t: return True`` then ``return False`` as ``return t``.

``return t`` is safe when ``t`` is always a bool (``in``, ``is``, ``not``,
``isinstance()``, an ``and`` of such tests); otherwise the fix returns ``bool(t)``,
also safe, except for a comparison or a method call (``a == b``, ``s.startswith(p)``),
returned as it is, as a person writes it: unsafe, since a class may define ``==`` or
the method to return something other than a bool.
"""

from __future__ import annotations

import ast

from gzguide.analysis.facts.walk import FunctionView
from gzguide.analysis.fixes.edits import Edit, Fix, Source
from gzguide.analysis.fixes.registry import fixer, statement_at
from gzguide.analysis.fixes.tests import BOOL_BUILTINS, Test, as_written, negated
from gzguide.analysis.moves.base import Move
from gzguide.analysis.moves.kinds import Kind
from gzguide.analysis.moves.syntax import otherwise


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
