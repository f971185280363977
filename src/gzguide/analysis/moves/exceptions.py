"""Exception moves: handlers that say the same thing twice, and errors only ignored.

* ``same_handlers``: adjacent ``except`` clauses with the same body;
* ``suppress``: ``try: ... except E: pass`` is ``with contextlib.suppress(E):``, where
  that reads better: not where the ``try`` returns or jumps (``try: return f(x)``
  then a fallback is the "try this first" idiom, no clearer as a ``with``), not for
  ``StopIteration`` (around a loop the handler is dead, around ``next()`` the
  default argument says it), and not in a loop (a context manager per iteration).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from itertools import pairwise

from gzguide.analysis.facts.walk import FunctionView, Stmt
from gzguide.analysis.moves.base import UNCLASSIFIED, Concern, Move, lines, snippet
from gzguide.analysis.moves.kinds import Kind
from gzguide.analysis.moves.registry import function_rule, statement_rule
from gzguide.analysis.moves.rendering import render
from gzguide.analysis.moves.syntax import (
    body_lines,
    extent,
    is_const,
    jumps,
    same_code,
    span_of,
)


def _caught(types: ast.expr) -> list[ast.expr]:
    """The types an ``except`` clause names (one, or a tuple of them)."""
    return types.elts if isinstance(types, ast.Tuple) else [types]


def _does_nothing(statement: ast.stmt) -> bool:
    return isinstance(statement, ast.Pass) or (
        isinstance(statement, ast.Expr) and is_const(statement.value, Ellipsis)
    )


def _ignored_exception(node: ast.stmt) -> str | None:
    """The exception a ``try`` ignores when it is ``try: ... except E: pass`` and nothing
    else, and its body runs to its end (no return, yield, break or continue)."""
    match node:
        case ast.Try(
            body=tried,
            handlers=[ast.ExceptHandler(type=ast.expr() as types, name=None, body=body)],
            orelse=[],
            finalbody=[],
        ) if all(_does_nothing(s) for s in body) and not jumps(tried):
            caught = [render(t) for t in _caught(types)]
            return ", ".join(caught) if "StopIteration" not in caught else None
    return None


def _suppressible(stmt: Stmt) -> str | None:
    """What ``stmt`` ignores, where ``contextlib.suppress`` would say it better."""
    return None if _in_a_loop(stmt) else _ignored_exception(stmt.node)


def _in_a_loop(stmt: Stmt) -> bool:
    parent = stmt.parent
    while parent is not None and not isinstance(parent.node, ast.For | ast.While):
        parent = parent.parent
    return parent is not None


@statement_rule(
    Kind.SAME_HANDLERS, concern=Concern.SIZE, doc="same_handlers", on=(ast.Try, ast.TryStar)
)
def _same_handlers(stmt: Stmt, view: FunctionView) -> Move | None:
    """Adjacent ``except`` clauses with the same body: one clause with a tuple of types."""
    match stmt.node:
        case ast.Try(handlers=handlers) | ast.TryStar(handlers=handlers):
            for first, second in pairwise(handlers):
                types = _joined_types(first, second)
                if types is not None:
                    return _same_handlers_move(stmt.node, first, second, types)
    return None


def _joined_types(first: ast.ExceptHandler, second: ast.ExceptHandler) -> list[ast.expr] | None:
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


@function_rule(Kind.SUPPRESS, concern=Concern.COMPLEXITY, doc="suppress")
def suppress_moves(view: FunctionView) -> Iterator[Move]:
    """One move for all ``try``/``except E: pass`` blocks of the function."""
    found = [(s, e) for s in view.statements if (e := _suppressible(s)) is not None]
    if not found:
        return
    first, exception = found[0]
    at = ", ".join(str(s.line) for s, _ in found[:4])
    if len(found) == 1:
        text = (
            f"The `try` at {lines(*span_of(first))} only ignores {snippet(exception, 48)}: "
            f"{snippet(f'with contextlib.suppress({exception}):', 60)} says so, 1 point less."
        )
    else:
        text = (
            f"The {len(found)} `try`/`except …: pass` blocks (lines {at}) only ignore errors: "
            f"`with contextlib.suppress(…):` says so, {len(found)} points less."
        )
    span = (first.line, found[-1][0].end_line)
    gains = {Concern.COMPLEXITY: len(found), Concern.SIZE: 2 * len(found)}
    yield Move(Kind.SUPPRESS, UNCLASSIFIED, text, span, gains, 4)
