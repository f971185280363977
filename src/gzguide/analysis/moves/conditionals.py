"""Conditional moves: ``if`` statements that nest deeper than what they say.

* ``merge_ifs``: an ``if`` whose whole body is an ``if``: one test, a level less;
* ``else_if``: an ``else`` whose whole body is an ``if``: an ``elif``;
* ``continue_guard``/``return_guard``/``else_guard``: a condition that wraps the
  rest of a loop body or function, or an ``else`` that only leaves, goes first;
* ``no_else``: an ``else`` after a branch that returns;
* ``same_arms``: two adjacent arms of an if/elif chain with identical bodies.

Nesting gains are real levels (``if``/``for``/``while``/``match``); size gains are
source lines.
"""

from __future__ import annotations

import ast
from itertools import pairwise
from typing import Final

from gzguide.analysis.facts.astshape import code_lines
from gzguide.analysis.facts.walk import FunctionView, Stmt
from gzguide.analysis.moves.base import UNCLASSIFIED, Concern, Move, code, lines, snippet
from gzguide.analysis.moves.kinds import Kind
from gzguide.analysis.moves.registry import statement_rule
from gzguide.analysis.moves.rendering import render
from gzguide.analysis.moves.syntax import (
    ARROWHEAD,
    body_lines,
    is_compound,
    jumps,
    negation,
    span_of,
)

#: A guard clause is worth it when the code it lets move out a level has this many
#: lines of code.
GUARD_LINES: Final = 6


#: A lone compound statement under an ``else`` after a return is worth a level from
#: this many lines of code.
NO_ELSE_LINES: Final = 4


@statement_rule(Kind.MERGE_IFS, concern=Concern.NESTING, doc="merge_ifs", on=(ast.If,))
def _merge_ifs(stmt: Stmt, view: FunctionView) -> Move | None:
    """An ``if`` (or the last ``elif``) whose whole body is an ``if``, neither with an else."""
    node = stmt.node
    if not isinstance(node, ast.If) or node.orelse or len(node.body) != 1:
        return None
    inner = node.body[0]
    if not isinstance(inner, ast.If) or inner.orelse:
        return None
    keyword = "elif" if stmt.is_elif else "if"
    test = ast.BoolOp(ast.And(), [node.test, inner.test])
    merged = snippet(f"{keyword} {render(test)}:", 76)
    text = (
        f"The `{keyword}` on line {node.lineno} holds only the `if` on line {inner.lineno}: "
        f"{merged} is one test and one level less."
    )
    span = (node.lineno, inner.lineno)
    archetype = ARROWHEAD if view.is_arrowhead() else UNCLASSIFIED
    region = (inner.lineno, inner.end_lineno or inner.lineno)
    return Move(Kind.MERGE_IFS, archetype, text, span, {Concern.NESTING: 1}, 3, region)


def _fails(body: list[ast.stmt]) -> bool:
    """Whether a block ends by raising or exiting the program."""
    last = body[-1]
    if isinstance(last, ast.Raise):
        return True
    call = last.value if isinstance(last, ast.Expr) else None
    if isinstance(call, ast.Call):
        func = call.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        return name in ("exit", "_exit", "abort", "fail")
    return False


@statement_rule(Kind.NO_ELSE, concern=Concern.NESTING, doc="no_else", on=(ast.If,))
def _else_after_return(stmt: Stmt, view: FunctionView) -> Move | None:
    """``if c: ... return x`` with an ``else`` of several statements: the else's body can
    move out a level (the ``if`` branch never falls through to it)."""
    node = stmt.node
    if not isinstance(node, ast.If) or stmt.is_elif or not node.orelse:
        return None
    if not isinstance(node.body[-1], ast.Return | ast.Raise | ast.Continue | ast.Break):
        return None
    orelse = node.orelse
    if len(orelse) == 1 and isinstance(orelse[0], ast.If):
        return None  # an elif: a chain of cases reads well as one
    if not any(is_compound(s) for s in orelse):
        return None
    if len(orelse) < 2 and code_lines(orelse) < NO_ELSE_LINES:
        return None  # one short statement under the else reads as well as beside it
    leaves = type(node.body[-1]).__name__.lower()
    inner = lines(orelse[0].lineno, orelse[-1].end_lineno or orelse[-1].lineno)
    text = (
        f"The `if` on line {node.lineno} ends in a `{leaves}`, so its `else` is not needed: "
        f"{inner} can move out a level."
    )
    return Move(Kind.NO_ELSE, UNCLASSIFIED, text, span_of(stmt), {Concern.NESTING: 1}, 2)


@statement_rule(Kind.RETURN_GUARD, concern=Concern.NESTING, doc="guard-clauses", on=(ast.If,))
def _guard_before_return(stmt: Stmt, view: FunctionView) -> Move | None:
    """``if c: <work>; return x`` then a final ``return y``: ``if not c: return y`` first."""
    node = stmt.node
    if not isinstance(node, ast.If) or stmt.is_elif or node.orelse or stmt.parent is not None:
        return None
    after = stmt.next_node()
    if not isinstance(after, ast.Return) or stmt.index + 2 != len(stmt.container):
        return None
    if not isinstance(node.body[-1], ast.Return) or not any(is_compound(s) for s in node.body):
        return None  # work that falls through to the final return is clear as it is
    if code_lines(node.body) < GUARD_LINES:
        return None
    guard = ast.If(negation(node.test), [after], [])
    inner = lines(node.body[0].lineno, node.body[-1].end_lineno or node.body[-1].lineno)
    text = (
        f"The `if` on line {node.lineno} wraps the function's work and the last line returns "
        f"the other case: {code(guard, 60)} first lets {inner} move out a level."
    )
    span = (node.lineno, after.end_lineno or after.lineno)
    return Move(Kind.RETURN_GUARD, ARROWHEAD, text, span, {Concern.NESTING: 1}, 2)


@statement_rule(
    Kind.CONTINUE_GUARD,
    Kind.RETURN_GUARD,
    Kind.ELSE_GUARD,
    concern=Concern.NESTING,
    doc="guard-clauses",
    on=(ast.If,),
)
def _wrapping_guard(stmt: Stmt, view: FunctionView) -> Move | None:
    """The last statement of a loop body or of the function is an ``if`` that wraps it."""
    node = stmt.node
    if not isinstance(node, ast.If) or stmt.is_elif or stmt.next_node() is not None:
        return None
    parent = stmt.parent
    in_loop = parent is not None and isinstance(parent.node, ast.For | ast.AsyncFor | ast.While)
    if in_loop:
        assert parent is not None
        if stmt.container is not parent.node.body:  # type: ignore[attr-defined]
            return None
    elif parent is not None:
        return None
    body_lines = code_lines(node.body)
    if not any(is_compound(s) for s in node.body) or body_lines < GUARD_LINES:
        return None  # flattening a few plain lines by a level changes little
    if not node.orelse:
        if not in_loop and (body_lines * 2 < code_lines(view.node.body) or _fails(node.body)):
            return None  # not the main path: an error exit reads better where it is
        guard = ast.If(negation(node.test), [ast.Continue() if in_loop else ast.Return()], [])
        where = "loop body" if in_loop else "function"
        inner = lines(node.body[0].lineno, node.body[-1].end_lineno or 0)
        text = (
            f"The `if` on line {node.lineno} wraps the rest of the {where}: starting with "
            f"{code(guard, 60)} lets {inner} move out a level."
        )
        kind = Kind.CONTINUE_GUARD if in_loop else Kind.RETURN_GUARD
        return Move(kind, ARROWHEAD, text, span_of(stmt), {Concern.NESTING: 1}, 2)
    # An else that only leaves: handle it first.
    orelse = node.orelse
    if len(orelse) > 2 or isinstance(orelse[0], ast.If):
        return None
    last = orelse[-1]
    if body_lines < 3 or code_lines(orelse) * 2 > body_lines:
        return None
    if not isinstance(last, ast.Return | ast.Raise | ast.Continue | ast.Break):
        if in_loop or len(orelse) > 1 or code_lines(orelse) > 1 or jumps(orelse):
            return None  # two cases of some size each read well side by side
        # The function ends with this if: its short else can go first and return.
        test = code(negation(node.test), 50)
        inner = lines(node.body[0].lineno, node.body[-1].end_lineno or 0)
        text = (
            f"The `else` of the `if` on line {node.lineno} is the short case: put it first, "
            f"under {test} and followed by `return`, and {inner} move out a level."
        )
        return Move(Kind.ELSE_GUARD, ARROWHEAD, text, span_of(stmt), {Concern.NESTING: 1}, 2)
    word = type(last).__name__.lower()
    test = code(negation(node.test), 50)
    inner = lines(node.body[0].lineno, node.body[-1].end_lineno or 0)
    text = (
        f"The `else` of the `if` on line {node.lineno} only does a `{word}`: put it first, "
        f"under {test}, and {inner} move out a level."
    )
    return Move(Kind.ELSE_GUARD, ARROWHEAD, text, span_of(stmt), {Concern.NESTING: 1}, 2)


@statement_rule(Kind.ELSE_IF, concern=Concern.NESTING, doc="else_if", on=(ast.If,))
def _else_if(stmt: Stmt, view: FunctionView) -> Move | None:
    """``else:`` whose whole body is an ``if``: that is an ``elif``."""
    node = stmt.node
    if not isinstance(node, ast.If) or len(node.orelse) != 1:
        return None
    inner = node.orelse[0]
    if not isinstance(inner, ast.If) or inner.col_offset == node.col_offset:
        return None  # already an elif
    text = (
        f"The `else` of the `if` on line {node.lineno} holds only the `if` on line "
        f"{inner.lineno}: making it an `elif` takes a level away."
    )
    archetype = ARROWHEAD if view.is_arrowhead() else UNCLASSIFIED
    span = (node.lineno, inner.lineno)
    region = (inner.lineno, inner.end_lineno or inner.lineno)
    return Move(Kind.ELSE_IF, archetype, text, span, {Concern.NESTING: 1}, 3, region)


@statement_rule(Kind.SAME_ARMS, concern=Concern.SIZE, doc="same_arms", on=(ast.If,))
def _same_arms(stmt: Stmt, view: FunctionView) -> Move | None:
    node = stmt.node
    if not isinstance(node, ast.If) or stmt.is_elif:
        return None
    arms: list[ast.If] = [node]
    while len(arms[-1].orelse) == 1 and isinstance(arms[-1].orelse[0], ast.If):
        arms.append(arms[-1].orelse[0])
    if len(arms) < 2:
        return None
    for a, b in pairwise(arms):
        # Cheap tests first: most adjacent arms differ in shape or size.
        if [type(x) for x in a.body] != [type(x) for x in b.body]:
            continue
        if body_lines(a.body) != body_lines(b.body):
            continue
        if ast.dump(ast.Module(a.body, [])) == ast.dump(ast.Module(b.body, [])):
            text = (
                f"The arms on lines {a.lineno} and {b.lineno} run the same code: "
                f"join their tests with `or` and write it once."
            )
            gains = {Concern.SIZE: body_lines(b.body) + 1}
            span = (a.lineno, b.end_lineno or b.lineno)
            return Move(Kind.SAME_ARMS, UNCLASSIFIED, text, span, gains, 3)
    return None
