"""Exception moves: handlers that say the same thing twice.

* ``same_handlers``: adjacent ``except`` clauses with the same body.

``try: ... except E: pass`` gets no move: ``contextlib.suppress`` says the same with a
point less, but reviewers reading code they had not seen judged such moves taste, never
worth making (a linter that wants it, such as ruff's SIM105, says so).
"""

from __future__ import annotations

import ast
from itertools import pairwise

from gzguide.analysis.facts.walk import FunctionView, Stmt
from gzguide.analysis.moves.base import UNCLASSIFIED, Concern, Move, snippet
from gzguide.analysis.moves.kinds import Kind
from gzguide.analysis.moves.registry import statement_rule
from gzguide.analysis.moves.rendering import render
from gzguide.analysis.moves.syntax import (
    body_lines,
    extent,
    same_code,
)


def _caught(types: ast.expr) -> list[ast.expr]:
    """The types an ``except`` clause names (one, or a tuple of them)."""
    return types.elts if isinstance(types, ast.Tuple) else [types]


@statement_rule(
    Kind.SAME_HANDLERS, concern=Concern.SIZE, doc="same_handlers", on=(ast.Try, ast.TryStar)
)
def _same_handlers(stmt: Stmt, view: FunctionView) -> Move | None:
    """Adjacent ``except`` clauses with the same body: one clause with a tuple of types."""
    match stmt.node:
        case ast.Try(handlers=handlers) | ast.TryStar(handlers=handlers):
            for first, second in pairwise(handlers):
                types = joined_types(first, second)
                if types is not None:
                    return _same_handlers_move(stmt.node, first, second, types)
    return None


def joined_types(first: ast.ExceptHandler, second: ast.ExceptHandler) -> list[ast.expr] | None:
    """The types of two ``except`` clauses that say the same thing, in order; None when
    they say different things (or either catches everything)."""
    match first.type, second.type:
        case ast.expr() as one, ast.expr() as other if first.name == second.name and same_code(
            first.body, second.body
        ):
            return [*_caught(one), *_caught(other)]
    return None


def _same_handlers_move(
    node: ast.stmt, first: ast.ExceptHandler, second: ast.ExceptHandler, types: list[ast.expr]
) -> Move:
    joined = snippet(f"except ({', '.join(render(t) for t in types)}):", 70)
    text = (
        f"The `except` clauses on lines {first.lineno} and {second.lineno} do the same: "
        f"{joined} says it once"
    )
    gained = {Concern.SIZE: body_lines(second.body) + 1}
    if isinstance(node, ast.Try):  # radon counts each handler of a plain try
        text += ", 1 point less"
        gained[Concern.COMPLEXITY] = 1
    span = (first.lineno, extent(second)[1])
    return Move(Kind.SAME_HANDLERS, UNCLASSIFIED, text + ".", span, gained, 4)
