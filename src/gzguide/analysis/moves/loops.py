"""Loop moves: a loop that only searches, fills, tests membership or reads until empty.

* ``any``/``all``/``next``: a loop that only searches (``for x in xs: if t: return
  True`` then ``return False``), or looks for a match before acting once;
* ``comprehension``: a loop that only fills a fresh list, set or dict (a loop that
  only copies is ``list(xs)``, ``set(xs)`` or ``dict(d)``);
* ``loop_else``: a loop ``else`` with no ``break`` to skip it;
* ``walrus_loop``: ``while True`` that reads a value and stops when there is none;
* ``membership_else``: a loop that breaks on an equal item, with an ``else``.

Complexity gains are radon's points; nesting gains are real levels; size gains are
source lines.
"""

from __future__ import annotations

import ast
from typing import Final

from gzguide.analysis.facts.walk import FunctionView, Stmt
from gzguide.analysis.moves.base import UNCLASSIFIED, Concern, Move, lines, snippet
from gzguide.analysis.moves.kinds import Kind
from gzguide.analysis.moves.registry import statement_rule
from gzguide.analysis.moves.rendering import render
from gzguide.analysis.moves.syntax import (
    ARROWHEAD,
    body_lines,
    inside_try,
    is_const,
    loop_target,
    name_loads,
    negation,
    span_of,
)


@statement_rule(
    Kind.ANY, Kind.ALL, Kind.NEXT, concern=Concern.COMPLEXITY, doc="any-all-next", on=(ast.For,)
)
def _search(stmt: Stmt, view: FunctionView) -> Move | None:
    """``for x in xs: if t: return R`` followed by ``return D``."""
    node = stmt.node
    if not isinstance(node, ast.For) or node.orelse or len(node.body) != 1:
        return None
    inner = node.body[0]
    if not isinstance(inner, ast.If) or inner.orelse or len(inner.body) != 1:
        return None
    found = inner.body[0]
    after = stmt.next_node()
    if not isinstance(found, ast.Return) or not isinstance(after, ast.Return):
        return None
    span = (node.lineno, after.end_lineno or after.lineno)
    loop = f"The loop at {lines(node.lineno, node.end_lineno or node.lineno)} only searches"
    target, iterable = loop_target(node.target), render(node.iter)
    if is_const(found.value, True) and is_const(after.value, False):
        call = snippet(f"return any({render(inner.test)} for {target} in {iterable})", 78)
        text = f"{loop}: {call} replaces it and its `return False`"
        gains = {Concern.COMPLEXITY: 1, Concern.NESTING: 2, Concern.SIZE: body_lines([node])}
        return Move(Kind.ANY, UNCLASSIFIED, text + ".", span, gains, priority=3)
    if is_const(found.value, False) and is_const(after.value, True):
        negated = negation(inner.test)
        if isinstance(negated, ast.UnaryOp):  # no plain negation: `not any` reads better
            search = f"not any({render(inner.test)} for {target} in {iterable})"
        else:
            search = f"all({render(negated)} for {target} in {iterable})"
        call = snippet(f"return {search}", 78)
        text = f"{loop}: {call} replaces it and its `return True`"
        gains = {Concern.COMPLEXITY: 1, Concern.NESTING: 2, Concern.SIZE: body_lines([node])}
        return Move(Kind.ALL, UNCLASSIFIED, text + ".", span, gains, priority=3)
    if found.value is None or isinstance(found.value, ast.Constant):
        return None
    default = render(after.value) if after.value is not None else "None"
    expr = render(found.value)
    generator = f"({expr} for {target} in {iterable} if {render(inner.test)})"
    call = snippet(f"return next({generator}, {default})", 86)
    text = f"{loop} for the first match: {call} says so"
    gains = {Concern.NESTING: 2, Concern.SIZE: body_lines([node])}
    return Move(Kind.NEXT, UNCLASSIFIED, text + ".", span, gains, priority=2)


_EMPTY: Final = {"list": "[]", "set": "set()", "dict": "{}"}


def _fresh_collection(node: ast.stmt | None) -> tuple[str, str] | None:
    """(name, kind) when ``node`` is ``name = []`` / ``set()`` / ``{}`` / ``dict()``."""
    if not isinstance(node, ast.Assign) or len(node.targets) != 1:
        return None
    target, value = node.targets[0], node.value
    if not isinstance(target, ast.Name):
        return None
    if isinstance(value, ast.List) and not value.elts:
        return target.id, "list"
    if isinstance(value, ast.Dict) and not value.keys:
        return target.id, "dict"
    if (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Name)
        and value.func.id in ("list", "set", "dict")
        and not value.args
        and not value.keywords
    ):
        return target.id, value.func.id
    return None


def _fill(statement: ast.stmt, name: str, kind: str) -> str | None:
    """The comprehension element when ``statement`` only adds one item to ``name``."""
    if kind == "dict":
        if (
            isinstance(statement, ast.Assign)
            and len(statement.targets) == 1
            and isinstance(statement.targets[0], ast.Subscript)
            and isinstance(statement.targets[0].value, ast.Name)
            and statement.targets[0].value.id == name
        ):
            key = render(statement.targets[0].slice)
            return f"{key}: {render(statement.value)}"
        return None
    method = "append" if kind == "list" else "add"
    if (
        isinstance(statement, ast.Expr)
        and isinstance(statement.value, ast.Call)
        and isinstance(statement.value.func, ast.Attribute)
        and statement.value.func.attr == method
        and isinstance(statement.value.func.value, ast.Name)
        and statement.value.func.value.id == name
        and len(statement.value.args) == 1
        and not statement.value.keywords
        and not isinstance(statement.value.args[0], ast.Starred)
    ):
        return render(statement.value.args[0])
    return None


@statement_rule(Kind.COMPREHENSION, concern=Concern.SIZE, doc="comprehension", on=(ast.For,))
def _comprehension(stmt: Stmt, view: FunctionView) -> Move | None:
    node = stmt.node
    if not isinstance(node, ast.For) or node.orelse or len(node.body) != 1:
        return None
    fresh = _fresh_collection(stmt.previous_node())
    if fresh is None:
        return None
    name, kind = fresh
    inner = node.body[0]
    test: ast.expr | None = None
    if isinstance(inner, ast.If) and not inner.orelse and len(inner.body) == 1:
        test, inner = inner.test, inner.body[0]
    element = _fill(inner, name, kind)
    if element is None:
        return None
    # The collection must not be read while it fills (only the add itself).
    if sum(1 for _ in name_loads(node, name)) != 1:
        return None
    if inside_try(stmt):
        return None  # an error partway leaves a partial collection; a comprehension none
    target, source = loop_target(node.target), render(node.iter)
    clause = f" for {target} in {source}"
    if test is not None:
        clause += f" if {render(test)}"
    brackets = ("{", "}") if kind in ("set", "dict") else ("[", "]")
    built = snippet(f"{name} = {brackets[0]}{element}{clause}{brackets[1]}", 90)
    if test is None:
        copied = _copy_of(element, target, source, kind)
        if copied is not None:
            # `{k: v for k, v in d.items()}` copies: the constructor says so.
            built = snippet(f"{name} = {copied}", 90)
    start = node.lineno - 1 if stmt.index > 0 else node.lineno
    previous = stmt.previous_node()
    if previous is not None:
        start = previous.lineno
    span = (start, node.end_lineno or node.lineno)
    text = f"{lines(*span).capitalize()} fill `{name}` in a loop: {built} builds it in one step."
    levels = 2 if test is not None else 1
    gains = {Concern.NESTING: levels, Concern.SIZE: span[1] - span[0]}
    return Move(Kind.COMPREHENSION, UNCLASSIFIED, text, span, gains, priority=2)


def _copy_of(element: str, target: str, source: str, kind: str) -> str | None:
    """``list(xs)``, ``set(xs)`` or ``dict(d)`` where the comprehension would only copy."""
    if kind == "dict":
        key, _, value = element.partition(": ")
        if target in (f"{key}, {value}", f"({key}, {value})"):
            inner = source.removesuffix(".items()")
            return f"dict({inner})"
        return None
    if element == target:
        return f"{kind}({source})"
    return None


@statement_rule(Kind.ANY, concern=Concern.NESTING, doc="any-all-next", on=(ast.For,))
def _first_match(stmt: Stmt, view: FunctionView) -> Move | None:
    """``for x in xs: if t: ...; break`` (nothing else in the loop): ``if any(t ...):``."""
    node = stmt.node
    if not isinstance(node, ast.For) or node.orelse or len(node.body) != 1:
        return None
    inner = node.body[0]
    if not isinstance(inner, ast.If) or inner.orelse or len(inner.body) < 2:
        return None
    if not isinstance(inner.body[-1], ast.Break):
        return None
    targets = {n.id for n in ast.walk(node.target) if isinstance(n, ast.Name)}
    action = inner.body[:-1]
    if any(isinstance(n, ast.Name) and n.id in targets for a in action for n in ast.walk(a)):
        return None  # the action uses the match itself: that is next(), not any()
    test = f"any({render(inner.test)} for {loop_target(node.target)} in {render(node.iter)})"
    text = (
        f"The loop at {lines(node.lineno, node.end_lineno or node.lineno)} only looks for a "
        f"match before acting once: {snippet('if ' + test + ':', 80)} says so, a level less."
    )
    archetype = ARROWHEAD if view.is_arrowhead() else UNCLASSIFIED
    return Move(Kind.ANY, archetype, text, span_of(stmt), {Concern.NESTING: 1}, 3)


def _breaks(statements: list[ast.stmt]) -> bool:
    """Whether a ``break`` in ``statements`` ends the loop they are the body of (a
    nested loop's own body breaks that loop; its ``else`` breaks this one)."""
    pending = list(statements)
    while pending:
        node = pending.pop()
        if isinstance(node, ast.Break):
            return True
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            continue
        if isinstance(node, ast.For | ast.AsyncFor | ast.While):
            pending.extend(node.orelse)
            continue
        for field in ("body", "orelse", "finalbody"):
            pending.extend(getattr(node, field, ()))
        for part in (*getattr(node, "handlers", ()), *getattr(node, "cases", ())):
            pending.extend(part.body)
    return False


@statement_rule(
    Kind.LOOP_ELSE,
    concern=Concern.COMPLEXITY,
    doc="loop_else",
    on=(ast.For, ast.AsyncFor, ast.While),
)
def _loop_else_without_break(stmt: Stmt, view: FunctionView) -> Move | None:
    """A loop ``else`` with no ``break`` to skip it: it always runs."""
    node = stmt.node
    if not isinstance(node, ast.For | ast.AsyncFor | ast.While) or not node.orelse:
        return None
    if _breaks(node.body):
        return None
    body_end = node.body[-1].end_lineno or node.body[-1].lineno
    else_line = next(
        (
            p.line
            for p in view.points
            if p.kind == "loop_else" and body_end <= p.line <= node.orelse[0].lineno
        ),
        node.orelse[0].lineno,
    )
    loop = "`for`" if isinstance(node, ast.For | ast.AsyncFor) else "`while`"
    text = (
        f"The {loop} loop on line {node.lineno} has no `break`, so its `else` (line "
        f"{else_line}) always runs: drop the `else:` and unindent its body, 1 point less."
    )
    gains = {Concern.COMPLEXITY: 1, Concern.SIZE: 1}
    return Move(Kind.LOOP_ELSE, UNCLASSIFIED, text, (node.lineno, else_line), gains, 3)


@statement_rule(Kind.WALRUS_LOOP, concern=Concern.COMPLEXITY, doc="walrus_loop", on=(ast.While,))
def _walrus_loop(stmt: Stmt, view: FunctionView) -> Move | None:
    """``while True: x = f(); if not x: break; ...``: ``while x := f():``."""
    node = stmt.node
    if not (
        isinstance(node, ast.While)
        and not node.orelse
        and isinstance(node.test, ast.Constant)
        and node.test.value in (True, 1)
        and len(node.body) >= 3
    ):
        return None
    made, leave = node.body[0], node.body[1]
    if not (
        isinstance(made, ast.Assign)
        and len(made.targets) == 1
        and isinstance(made.targets[0], ast.Name)
        and isinstance(leave, ast.If)
        and not leave.orelse
        and len(leave.body) == 1
        and isinstance(leave.body[0], ast.Break)
    ):
        return None
    name = made.targets[0].id
    test = leave.test
    walrus = ast.NamedExpr(ast.Name(name, ast.Store()), made.value)
    if (
        isinstance(test, ast.UnaryOp)
        and isinstance(test.op, ast.Not)
        and isinstance(test.operand, ast.Name)
        and test.operand.id == name
    ):
        header: ast.expr = walrus
    elif (
        isinstance(test, ast.Compare)
        and isinstance(test.left, ast.Name)
        and test.left.id == name
        and len(test.ops) == 1
        and isinstance(test.ops[0], ast.Is)
        and is_const(test.comparators[0], None)
    ):
        header = ast.Compare(walrus, [ast.IsNot()], [ast.Constant(None)])
    else:
        return None
    rendered = render(header)
    if header is walrus:
        rendered = rendered.removeprefix("(").removesuffix(")")
    text = (
        f"Lines {node.lineno}-{leave.end_lineno} read a value and stop when there is none: "
        f"`while {rendered}:` does both, 1 point less."
    )
    gains = {Concern.COMPLEXITY: 1, Concern.NESTING: 1, Concern.SIZE: 2}
    return Move(
        Kind.WALRUS_LOOP, UNCLASSIFIED, text, (node.lineno, leave.end_lineno or 0), gains, 4
    )


@statement_rule(
    Kind.MEMBERSHIP_ELSE,
    concern=Concern.COMPLEXITY,
    doc="membership-isinstance_tuple-tuple_compare",
    on=(ast.For,),
)
def _membership_else(stmt: Stmt, view: FunctionView) -> Move | None:
    """``for x in xs: if x == v: break`` with an ``else``: ``if v not in xs:`` and
    the ``else`` body."""
    node = stmt.node
    if not isinstance(node, ast.For) or not node.orelse or len(node.body) != 1:
        return None
    inner = node.body[0]
    if not (
        isinstance(inner, ast.If)
        and not inner.orelse
        and len(inner.body) == 1
        and isinstance(inner.body[0], ast.Break)
        and isinstance(node.target, ast.Name)
    ):
        return None
    test = inner.test
    if not (
        isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)
    ):
        return None
    name = node.target.id
    sides = [test.left, test.comparators[0]]
    loop_side = [n for n in sides if isinstance(n, ast.Name) and n.id == name]
    if len(loop_side) != 1:
        return None
    (value,) = [n for n in sides if n is not loop_side[0]]
    if any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(value)):
        return None
    end = (node.end_lineno or node.lineno, node.end_col_offset or 0)
    if any(p > end for p in view.loads.get(name, ())):
        return None  # the loop's variable is read after it: the loop also sets it
    rewrite = ast.Compare(value, [ast.NotIn()], [node.iter])
    else_line = next(
        (p.line for p in view.points if p.kind == "loop_else" and node.lineno < p.line),
        node.orelse[0].lineno,
    )
    text = (
        f"The loop on line {node.lineno} only tests membership: `if {render(rewrite)}:` "
        f"with its `else` body (line {else_line}) does the same, 2 points less."
    )
    gains = {Concern.COMPLEXITY: 2, Concern.NESTING: 1, Concern.SIZE: 2}
    return Move(Kind.MEMBERSHIP_ELSE, UNCLASSIFIED, text, (node.lineno, else_line), gains, 4)
