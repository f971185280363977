"""The fixers of each kind of move: one function per kind, registered by its family.

A fixer takes the move, the walk of the function it is in and the file's source, and
gives the move's :class:`~gzguide.analysis.fixes.edits.Fix`, or None when this code
has a shape it does not edit (a comment where lines would be joined, a test that
spans lines): such a move is left for a person to make.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Collection
from typing import Final, TypeVar

from gzguide.analysis.facts.walk import FunctionView, Stmt
from gzguide.analysis.fixes.edits import Fix, Pos, Source
from gzguide.analysis.moves.base import Move
from gzguide.analysis.moves.kinds import Kind
from gzguide.analysis.moves.syntax import mentions

Fixer = Callable[[Move, FunctionView, Source], Fix | None]

FIXERS: Final[dict[Kind, Fixer]] = {}

_S = TypeVar("_S", bound=ast.stmt)


def fixer(*kinds: Kind) -> Callable[[Fixer], Fixer]:
    def register(make: Fixer) -> Fixer:
        for kind in kinds:
            FIXERS[kind] = make
        return make

    return register


def statement_at(view: FunctionView, line: int, node_type: type[_S]) -> tuple[Stmt, _S] | None:
    """The statement of ``node_type`` that starts on ``line`` (a move's first line)."""
    for stmt in view.statements:
        if stmt.line == line and isinstance(stmt.node, node_type):
            return stmt, stmt.node
    return None


def one_line(*nodes: ast.expr) -> bool:
    return all(n.lineno == n.end_lineno for n in nodes)


#: Expressions that need parentheses as an operand of ``and``, ``not`` or an argument.
_LOOSE: Final = (ast.NamedExpr, ast.IfExp, ast.Lambda, ast.BoolOp, ast.Tuple, ast.Yield)


def operand(source: Source, node: ast.expr, loose: tuple[type[ast.expr], ...] = _LOOSE) -> str:
    """``node``'s text, in parentheses when it binds more loosely than ``loose`` allows
    and is not written in them already (the tree's positions leave them out)."""
    text = source.segment(node)
    if isinstance(node, loose) and not (isinstance(node, ast.Tuple) and text.startswith("(")):
        return f"({text})"
    return text


#: The parentheses an expression is written in, on each side of it.
_OPENED: Final = re.compile(r"\([ \t]*$")
_CLOSED: Final = re.compile(r"[ \t]*\)")


def parenthesized(source: Source, start: Pos, end: Pos) -> tuple[Pos, Pos] | None:
    """From the parenthesis before ``start`` to the one after ``end``, when they are
    there."""
    opened = _OPENED.search(source.line(start[0])[: start[1]])
    closed = _CLOSED.match(source.line(end[0])[end[1] :])
    if opened is None or closed is None:
        return None
    return (start[0], opened.start()), (end[0], end[1] + closed.end())


def parent_of(root: ast.AST, node: ast.AST) -> ast.AST | None:
    return next((p for p in ast.walk(root) for c in ast.iter_child_nodes(p) if c is node), None)


def seen_elsewhere(view: FunctionView, names: Collection[str]) -> bool:
    """Whether one of ``names`` is ``global`` or ``nonlocal``, or a nested function or
    lambda mentions it (and may see it while a loop works on it, or after)."""
    lambdas = (n for n in ast.walk(view.node) if isinstance(n, ast.Lambda))
    nested = [*view.nested_nodes, *lambdas]
    return any(n in view.declared for n in names) or any(mentions(n, names) for n in nested)
