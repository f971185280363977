"""Small facts about syntax trees that several families of moves test.

A loop target or a test as a person writes it, the plain negation of a test, the
lines a block takes, whether two trees are the same code, the arms of an ``if``
chain and what runs when its test fails.
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Collection, Iterator
from typing import Final, TypeGuard, TypeVar

from gzguide.analysis.facts.walk import FunctionView, Stmt, target_names
from gzguide.analysis.moves.base import UNCLASSIFIED
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


def extent(node: ast.expr | ast.stmt | ast.excepthandler) -> tuple[int, int]:
    """The first and last line of ``node``."""
    return (node.lineno, node.end_lineno or node.lineno)


def nesting_archetype(view: FunctionView) -> str:
    """What a move that takes a level away is evidence of in this function."""
    return ARROWHEAD if view.is_arrowhead() else UNCLASSIFIED


def is_const(node: ast.AST | None, value: object) -> bool:
    return isinstance(node, ast.Constant) and node.value is value


def same_tree(a: ast.AST, b: ast.AST) -> bool:
    return ast.dump(a) == ast.dump(b)


def same_code(a: list[ast.stmt], b: list[ast.stmt]) -> bool:
    """Whether two blocks are the same statements (positions aside)."""
    return ast.dump(ast.Module(a, [])) == ast.dump(ast.Module(b, []))


_Node = TypeVar("_Node", bound=ast.AST)


def renamed(node: _Node, old: str, new: str) -> _Node:
    """A copy of ``node`` in which every plain name ``old`` reads ``new``."""
    fresh = copy.deepcopy(node)
    for sub in ast.walk(fresh):
        if isinstance(sub, ast.Name) and sub.id == old:
            sub.id = new
    return fresh


def negation(test: ast.expr) -> ast.expr:
    """The plain negation of ``test`` (``not x`` -> ``x``, ``a == b`` -> ``a != b``)."""
    match test:
        case ast.UnaryOp(op=ast.Not(), operand=operand):
            return operand
        case ast.Compare(left=left, ops=[op], comparators=comparators) if type(op) in _NEGATED:
            return ast.Compare(left, [_NEGATED[type(op)]()], comparators)
        case ast.BoolOp() if (flipped := _de_morgan(test)) is not None:
            return flipped
    return ast.UnaryOp(ast.Not(), test)


def _de_morgan(test: ast.BoolOp) -> ast.BoolOp | None:
    """``a != x and b != y`` for ``not (a == x or b == y)``, which it reads better than;
    None where an operand has no plain negation."""
    parts = [negation(v) for v in test.values]
    if any(_is_not(p) for p in parts):
        return None
    return ast.BoolOp(ast.And() if isinstance(test.op, ast.Or) else ast.Or(), parts)


def _is_not(node: ast.expr) -> bool:
    return isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not)


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


def reads_key(node: ast.expr | None, key: ast.expr, mapping: ast.expr) -> TypeGuard[ast.Subscript]:
    return (
        isinstance(node, ast.Subscript)
        and same_tree(node.value, mapping)
        and same_tree(node.slice, key)
    )


def name_loads(node: ast.AST, name: str) -> Iterator[ast.Name]:
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name) and sub.id == name and isinstance(sub.ctx, ast.Load):
            yield sub


def mentions(node: ast.AST, names: Collection[str]) -> bool:
    """Whether ``node`` holds one of ``names``, read or written."""
    return any(isinstance(n, ast.Name) and n.id in names for n in ast.walk(node))


def if_chain(node: ast.If) -> list[ast.If]:
    """An ``if`` and each ``if`` its ``else`` holds alone (an ``elif``), in order."""
    arms = [node]
    while True:
        match arms[-1].orelse:
            case [ast.If() as arm]:
                arms.append(arm)
            case _:
                return arms


def otherwise(stmt: Stmt) -> ast.stmt | None:
    """What runs when the test of the ``if`` ``stmt`` fails, when that is one statement:
    its ``else``'s only one, or with no ``else`` the statement after it."""
    match stmt.node:
        case ast.If(orelse=[only]):
            return only
        case ast.If(orelse=[]):
            return stmt.next_node()
    return None


def inside_try(stmt: Stmt) -> bool:
    """Whether ``stmt`` runs in the body of a ``try`` (whose handlers see what it did)."""
    return _inside_body(stmt, (ast.Try, ast.TryStar))


def inside_with(stmt: Stmt) -> bool:
    """Whether ``stmt`` runs in the body of a ``with`` (whose manager may swallow an
    error, and the code after then sees what it did)."""
    return _inside_body(stmt, (ast.With, ast.AsyncWith))


def _inside_body(stmt: Stmt, kinds: tuple[type[ast.stmt], ...]) -> bool:
    """Whether ``stmt`` runs in the ``body`` of a statement of one of ``kinds``."""
    inner, parent = stmt, stmt.parent
    while parent is not None:
        node = parent.node
        if isinstance(node, kinds) and inner.container is getattr(node, "body", None):
            return True
        inner, parent = parent, parent.parent
    return False


def read_outside_its_loops(view: FunctionView, name: str) -> bool:
    """Whether ``name``, a loop's variable, is read outside every loop that binds it: a
    rewrite without the loop would leave it unset there."""
    bound = [extent(s.node) for s in view.statements if _binds_in_a_loop(s.node, name)]
    return any(
        not any(first <= line <= last for first, last in bound)
        for line, _ in view.loads.get(name, ())
    )


def _binds_in_a_loop(node: ast.stmt, name: str) -> bool:
    """Whether ``node`` is a ``for`` loop that binds ``name`` (its variable, or one of
    the names it unpacks to)."""
    if not isinstance(node, ast.For | ast.AsyncFor):
        return False
    return name in target_names(node.target)


def costless(node: ast.expr | None) -> bool:
    """Whether evaluating ``node`` does nothing but give a value: a literal, a name, an
    attribute, or a container of those (no call, no subscript that may raise)."""
    match node:
        case ast.Constant() | ast.Name():
            return True
        case ast.Attribute(value=value):
            return costless(value)
        case ast.Tuple(elts=parts) | ast.List(elts=parts) | ast.Set(elts=parts):
            return all(map(costless, parts))
        case ast.Dict(keys=keys, values=values):
            return all(map(costless, [*keys, *values]))
    return False
