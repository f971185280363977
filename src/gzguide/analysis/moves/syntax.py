"""Small facts about syntax trees that several families of moves test.

A loop target or a test as a person writes it, the plain negation of a test, the
lines a block takes, whether two trees are the same code.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from typing import Final

from gzguide.analysis.facts.walk import Stmt
from gzguide.analysis.moves.rendering import render

#: The archetype of a function whose work is nested several levels deep.
ARROWHEAD: Final = "arrowhead"


_NEGATED: Final[dict[type[ast.cmpop], type[ast.cmpop]]] = {
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.Is: ast.IsNot,
    ast.IsNot: ast.Is,
    ast.In: ast.NotIn,
    ast.NotIn: ast.In,
}


def loop_target(node: ast.expr) -> str:
    """A loop target as a ``for`` writes it (``a, b``, not ``(a, b)``)."""
    if isinstance(node, ast.Tuple) and node.elts:
        return ", ".join(render(e) for e in node.elts)
    return render(node)


def span_of(stmt: Stmt) -> tuple[int, int]:
    return (stmt.line, stmt.end_line)


def is_const(node: ast.AST | None, value: object) -> bool:
    return isinstance(node, ast.Constant) and node.value is value


def same_tree(a: ast.AST, b: ast.AST) -> bool:
    return ast.dump(a) == ast.dump(b)


def negation(test: ast.expr) -> ast.expr:
    """The plain negation of ``test`` (``not x`` -> ``x``, ``a == b`` -> ``a != b``)."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return test.operand
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and type(test.ops[0]) in _NEGATED:
        return ast.Compare(test.left, [_NEGATED[type(test.ops[0])]()], test.comparators)
    if isinstance(test, ast.BoolOp):
        # De Morgan, where every operand has a plain negation: `a != x and b != y`
        # reads better than `not (a == x or b == y)`.
        parts = [negation(v) for v in test.values]
        if not any(isinstance(p, ast.UnaryOp) and isinstance(p.op, ast.Not) for p in parts):
            return ast.BoolOp(ast.And() if isinstance(test.op, ast.Or) else ast.Or(), parts)
    return ast.UnaryOp(ast.Not(), test)


def body_lines(statements: list[ast.stmt]) -> int:
    if not statements:
        return 0
    return (statements[-1].end_lineno or statements[-1].lineno) - statements[0].lineno + 1


def is_compound(node: ast.stmt) -> bool:
    return isinstance(
        node, ast.If | ast.For | ast.AsyncFor | ast.While | ast.Try | ast.With | ast.Match
    )


def jumps(statements: list[ast.stmt]) -> bool:
    """Whether any of ``statements`` holds a return, yield, break or continue."""
    return any(
        isinstance(n, ast.Return | ast.Yield | ast.YieldFrom | ast.Break | ast.Continue)
        for s in statements
        for n in ast.walk(s)
    )


def reads_key(node: ast.expr | None, key: ast.expr, mapping: ast.expr) -> bool:
    return (
        isinstance(node, ast.Subscript)
        and same_tree(node.value, mapping)
        and same_tree(node.slice, key)
    )


def name_loads(node: ast.AST, name: str) -> Iterator[ast.Name]:
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name) and sub.id == name and isinstance(sub.ctx, ast.Load):
            yield sub


def inside_try(stmt: Stmt) -> bool:
    """Whether ``stmt`` runs in the body of a ``try`` (whose handlers see what it did)."""
    inner, parent = stmt, stmt.parent
    while parent is not None:
        node = parent.node
        if isinstance(node, ast.Try | ast.TryStar) and inner.container is node.body:
            return True
        inner, parent = parent, parent.parent
    return False
