"""Exception moves: handlers that say the same thing twice, and errors only ignored.

* ``same_handlers``: adjacent ``except`` clauses with the same body;
* ``suppress``: ``try: ... except E: pass`` is ``with contextlib.suppress(E):``.
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
    is_const,
    span_of,
)


def _ignored_exception(node: ast.stmt) -> str | None:
    """The exception a ``try`` ignores when it is ``try: ... except E: pass`` and nothing else."""
    if not isinstance(node, ast.Try) or node.orelse or node.finalbody or len(node.handlers) != 1:
        return None
    handler = node.handlers[0]
    if handler.type is None or handler.name is not None:
        return None
    if all(
        isinstance(s, ast.Pass) or (isinstance(s, ast.Expr) and is_const(s.value, Ellipsis))
        for s in handler.body
    ):
        types = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
        return ", ".join(render(t) for t in types)
    return None


@statement_rule(
    Kind.SAME_HANDLERS, concern=Concern.SIZE, doc="same_handlers", on=(ast.Try, ast.TryStar)
)
def _same_handlers(stmt: Stmt, view: FunctionView) -> Move | None:
    """Adjacent ``except`` clauses with the same body: one clause with a tuple of types."""
    node = stmt.node
    if not isinstance(node, ast.Try | ast.TryStar):
        return None
    handlers = node.handlers
    for first, second in pairwise(handlers):
        if first.type is None or second.type is None or first.name != second.name:
            continue
        if ast.dump(ast.Module(first.body, [])) != ast.dump(ast.Module(second.body, [])):
            continue
        types = [
            *(first.type.elts if isinstance(first.type, ast.Tuple) else [first.type]),
            *(second.type.elts if isinstance(second.type, ast.Tuple) else [second.type]),
        ]
        joined = snippet(f"except ({', '.join(render(t) for t in types)}):", 70)
        text = (
            f"The `except` clauses on lines {first.lineno} and {second.lineno} do the same: "
            f"{joined} says it once"
        )
        gained = {Concern.SIZE: body_lines(second.body) + 1}
        if isinstance(node, ast.Try):  # radon counts each handler of a plain try
            text += ", 1 point less"
            gained[Concern.COMPLEXITY] = 1
        span = (first.lineno, second.end_lineno or second.lineno)
        return Move(Kind.SAME_HANDLERS, UNCLASSIFIED, text + ".", span, gained, 4)
    return None


@function_rule(Kind.SUPPRESS, concern=Concern.COMPLEXITY, doc="suppress")
def suppress_moves(view: FunctionView) -> Iterator[Move]:
    """One move for all ``try``/``except E: pass`` blocks of the function."""
    found = [(s, e) for s in view.statements if (e := _ignored_exception(s.node)) is not None]
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
