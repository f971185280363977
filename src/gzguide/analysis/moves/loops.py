"""Loop moves: a loop that only searches, fills, tests membership or reads until empty.

* ``any``/``all``/``next``: a loop that only searches (``for x in xs: if t: return
  True`` then ``return False``), or looks for a match before acting once;
* ``comprehension``: a loop that only fills a fresh list, set or dict (a loop that
  only copies is ``list(xs)``, ``set(xs)`` or ``dict(d)``);
* ``loop_else``: a loop ``else`` with no ``break`` to skip it;
* ``walrus_loop``: ``while True`` that reads a value and stops when there is none;
* ``membership_else``: a loop that breaks on an equal item, with an ``else``;
* ``yield_from``: a generator's loop that only yields each item is ``yield from``;
* ``min_max``: a loop that keeps the least (or greatest) item it has seen is ``min``
  (or ``max``).

Complexity gains are radon's points; nesting gains are real levels; size gains are
source lines.
"""

from __future__ import annotations

import ast
import math
from collections.abc import Iterator
from typing import Final, NamedTuple

from gzguide.analysis.facts.walk import FunctionView, Stmt, target_names
from gzguide.analysis.moves.base import UNCLASSIFIED, Concern, Move, lines, snippet
from gzguide.analysis.moves.kinds import Kind
from gzguide.analysis.moves.registry import statement_rule
from gzguide.analysis.moves.rendering import render
from gzguide.analysis.moves.syntax import (
    body_lines,
    costless,
    extent,
    inside_try,
    loop_target,
    mentions,
    name_loads,
    negation,
    nesting_archetype,
    read_outside_its_loops,
    renamed,
    same_tree,
    span_of,
)

#: The longest line a ``return next(...)`` may make, indentation included: reviewers
#: judged longer ones harder to read than the loop.
NEXT_CHARS: Final = 88


class _Search(NamedTuple):
    """A loop whose one ``if`` returns, and the ``return`` right after the loop."""

    loop: ast.For
    test: ast.expr
    after: ast.Return

    @property
    def span(self) -> tuple[int, int]:
        return (self.loop.lineno, extent(self.after)[1])

    @property
    def opening(self) -> str:
        return f"The loop at {lines(*extent(self.loop))} only searches"

    @property
    def clause(self) -> str:
        """The loop as a generator's ``for`` clause."""
        return f"for {loop_target(self.loop.target)} in {render(self.loop.iter)}"

    def verdict(self, kind: Kind, search: str, last: str) -> Move:
        """``any`` or ``all``: the loop and its final ``return <last>`` as one call."""
        call = snippet(f"return {search}", 78)
        text = f"{self.opening}: {call} replaces it and its `return {last}`"
        gains = {Concern.COMPLEXITY: 1, Concern.NESTING: 2, Concern.SIZE: body_lines([self.loop])}
        return Move(kind, UNCLASSIFIED, text + ".", self.span, gains, priority=3)

    def of_classes(self) -> Move | None:
        """``for cls in classes: if isinstance(x, cls): return True`` then ``return False``
        is one ``isinstance`` call with a tuple of the classes."""
        match self.test, self.loop.target:
            case ast.Call(
                func=ast.Name(id="isinstance"), args=[subject, ast.Name(id=each)], keywords=[]
            ), ast.Name(id=target) if each == target and not mentions(subject, {target}):
                classes = self.loop.iter
                tupled = (
                    render(classes)
                    if isinstance(classes, ast.Tuple)
                    else (f"tuple({render(classes)})")
                )
                call = snippet(f"return isinstance({render(subject)}, {tupled})", 78)
                text = f"{self.opening}: {call} replaces it and its `return False`."
                gains = {Concern.COMPLEXITY: 2, Concern.NESTING: 2}
                return Move(Kind.ANY, UNCLASSIFIED, text, self.span, gains, priority=3)
        return None

    def first_match(self, found: ast.expr, default: ast.expr | None) -> Move | None:
        """``next``: the first value the loop returns, or the final ``return``'s, when
        that costs nothing to compute (``next`` computes its default before it looks:
        a call there would run even when a match is found)."""
        if default is not None and not costless(default):
            return None
        fallback = render(default) if default is not None else "None"
        generator = f"({render(found)} {self.clause} if {render(self.test)})"
        written = f"return next({generator}, {fallback})"
        if self.loop.col_offset + len(written) > NEXT_CHARS:
            return None  # one long line reads worse than the loop it replaces
        call = snippet(written, 86)
        text = f"{self.opening} for the first match: {call} says so"
        gains = {Concern.NESTING: 2, Concern.SIZE: body_lines([self.loop])}
        return Move(Kind.NEXT, UNCLASSIFIED, text + ".", self.span, gains, priority=2)


def written_for_speed(view: FunctionView, loop: ast.stmt) -> bool:
    """Whether a comment on the loop or right above it says it is written for speed:
    ``any()``, ``next()`` and ``min()`` over a generator run slower than a plain loop on
    a few items (a fresh review's babel ``python_format``, "Explicit loop for
    performance reasons", judged wrong)."""
    last = loop.end_lineno or loop.lineno
    return any(loop.lineno - 1 <= line <= last for line in view.tuned)


@statement_rule(
    Kind.ANY, Kind.ALL, Kind.NEXT, concern=Concern.COMPLEXITY, doc="any-all-next", on=(ast.For,)
)
def _search(stmt: Stmt, view: FunctionView) -> Move | None:
    """``for x in xs: if t: return R`` followed by ``return D``."""
    if written_for_speed(view, stmt.node):
        return None
    match stmt.node, stmt.next_node():
        case (
            ast.For(
                body=[ast.If(test=test, body=[ast.Return(value=found)], orelse=[])], orelse=[]
            ) as loop,
            ast.Return(value=default) as after,
        ):
            return _search_move(_Search(loop, test, after), found, default)
    return None


def _search_move(search: _Search, found: ast.expr | None, default: ast.expr | None) -> Move | None:
    """``any``, ``all`` or ``next``, by what the loop returns (``found``) and what the
    ``return`` after it does (``default``)."""
    match found, default:
        case ast.Constant(value=True), ast.Constant(value=False):
            return search.of_classes() or search.verdict(
                Kind.ANY, f"any({render(search.test)} {search.clause})", "False"
            )
        case ast.Constant(value=False), ast.Constant(value=True):
            return search.verdict(Kind.ALL, _all_of(search), "True")
        case ast.Constant(), _:
            return None  # a constant either way, and no pair any() or all() says
        case ast.expr() as value, _:
            return search.first_match(value, default)
    return None


def _all_of(search: _Search) -> str:
    negated = negation(search.test)
    if isinstance(negated, ast.UnaryOp):  # no plain negation: `not any` reads better
        return f"not any({render(search.test)} {search.clause})"
    return f"all({render(negated)} {search.clause})"


class _Fresh(NamedTuple):
    """An empty collection a plain assignment makes."""

    name: str
    kind: str
    line: int


def _fresh_collection(node: ast.stmt | None) -> _Fresh | None:
    """The collection ``node`` makes when it is ``name = []`` / ``set()`` / ``{}`` / ``dict()``."""
    match node:
        case ast.Assign(targets=[ast.Name(id=name)], value=value):
            kind = empty_kind(value)
            return None if kind is None else _Fresh(name, kind, node.lineno)
    return None


def empty_kind(value: ast.expr) -> str | None:
    """What empty collection ``value`` makes (``[]``, ``{}``, ``list()``...), if it makes one."""
    match value:
        case ast.List(elts=[]):
            return "list"
        case ast.Dict(keys=[]):
            return "dict"
        case ast.Call(func=ast.Name(id="list" | "set" | "dict" as kind), args=[], keywords=[]):
            return kind
    return None


def _fill(statement: ast.stmt, name: str, kind: str) -> str | None:
    """The comprehension element when ``statement`` only adds one item to ``name``."""
    if kind == "dict":
        return _put(statement, name)
    return _added(statement, name, "append" if kind == "list" else "add")


def _put(statement: ast.stmt, name: str) -> str | None:
    """``key: value`` when ``statement`` is ``name[key] = value``."""
    match statement:
        case ast.Assign(
            targets=[ast.Subscript(value=ast.Name(id=filled), slice=key)], value=value
        ) if filled == name:
            return f"{render(key)}: {render(value)}"
    return None


def _added(statement: ast.stmt, name: str, method: str) -> str | None:
    """The item when ``statement`` is ``name.<method>(item)``."""
    match statement:
        case ast.Expr(
            value=ast.Call(
                func=ast.Attribute(value=ast.Name(id=filled), attr=called),
                args=[item],
                keywords=[],
            )
        ) if filled == name and called == method and not isinstance(item, ast.Starred):
            return render(item)
    return None


def _filled_by(node: ast.stmt) -> tuple[ast.For, ast.expr | None, ast.stmt] | None:
    """(the loop, its filter, the statement that adds) for a loop without ``else`` of one
    statement, or of one ``if`` of one statement."""
    match node:
        case ast.For(body=[ast.If(test=test, body=[add], orelse=[])], orelse=[]):
            return node, test, add
        case ast.For(body=[add], orelse=[]):
            return node, None, add
    return None


#: The brackets of a comprehension that builds each kind of collection.
_BRACKETS: Final = {"list": ("[", "]"), "set": ("{", "}"), "dict": ("{", "}")}


class _Fill(NamedTuple):
    """A loop that only adds to the empty collection made right before it."""

    loop: ast.For
    made: _Fresh
    element: str
    test: ast.expr | None

    @property
    def copied(self) -> str | None:
        """``list(xs)``, ``set(xs)`` or ``dict(d)`` when the loop only copies."""
        if self.test is not None:
            return None
        target, source = loop_target(self.loop.target), render(self.loop.iter)
        return _copy_of(self.element, target, source, self.made.kind)

    def built(self) -> str:
        """The statement that builds the collection in one step, quoted."""
        name, kind = self.made.name, self.made.kind
        if self.copied is not None:
            # `{k: v for k, v in d.items()}` copies: the constructor says so.
            return snippet(f"{name} = {self.copied}", 90)
        clause = f" for {loop_target(self.loop.target)} in {render(self.loop.iter)}"
        if self.test is not None:
            clause += f" if {render(self.test)}"
        opening, closing = _BRACKETS[kind]
        return snippet(f"{name} = {opening}{self.element}{clause}{closing}", 90)

    def move(self) -> Move:
        span = (self.made.line, extent(self.loop)[1])
        levels = 2 if self.test is not None else 1
        gains = {Concern.NESTING: levels, Concern.SIZE: span[1] - span[0]}
        # A comprehension's `for` counts as the loop's did; a constructor has none.
        less = ""
        if self.copied is not None:
            gains[Concern.COMPLEXITY] = 1
            less = ", 1 point less"
        text = (
            f"{lines(*span).capitalize()} fill `{self.made.name}` in a loop: "
            f"{self.built()} builds it in one step{less}."
        )
        return Move(Kind.COMPREHENSION, UNCLASSIFIED, text, span, gains, priority=2)


def _filling(stmt: Stmt) -> _Fill | None:
    """How the loop ``stmt`` fills the empty collection made right before it, when that
    is all it does."""
    shape, made = _filled_by(stmt.node), _fresh_collection(stmt.previous_node())
    if shape is None or made is None:
        return None
    loop, test, add = shape
    element = _fill(add, made.name, made.kind)
    # The collection must not be read while it fills (only the add itself).
    if element is None or sum(1 for _ in name_loads(loop, made.name)) != 1:
        return None
    return _Fill(loop, made, element, test)


@statement_rule(Kind.COMPREHENSION, concern=Concern.SIZE, doc="comprehension", on=(ast.For,))
def _comprehension(stmt: Stmt, view: FunctionView) -> Move | None:
    fill = _filling(stmt)
    if fill is None or inside_try(stmt):
        return None  # in a try, an error partway leaves a partial collection; a comprehension none
    return fill.move()


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
    if written_for_speed(view, stmt.node):
        return None
    match stmt.node:
        case (
            ast.For(
                body=[ast.If(test=test, body=[_, *_, ast.Break()] as body, orelse=[])], orelse=[]
            ) as loop
        ):
            if _uses_the_match(loop, body[:-1]):
                return None  # the action uses the match itself: that is next(), not any()
            if _targets_read_after(view, loop):
                return None  # any() binds no loop variable for the code after it
            search = f"any({render(test)} for {loop_target(loop.target)} in {render(loop.iter)})"
            text = (
                f"The loop at {lines(*extent(loop))} only looks for a match before acting "
                f"once: {snippet('if ' + search + ':', 80)} says so, a level less."
            )
            return Move(
                Kind.ANY, nesting_archetype(view), text, span_of(stmt), {Concern.NESTING: 1}, 3
            )
    return None


def _targets_read_after(view: FunctionView, loop: ast.For) -> bool:
    """Whether a name the loop binds is read outside the loops that bind it."""
    return any(read_outside_its_loops(view, name) for name in target_names(loop.target))


def _uses_the_match(loop: ast.For, action: list[ast.stmt]) -> bool:
    targets = target_names(loop.target)
    return any(mentions(statement, targets) for statement in action)


def _breaks(statements: list[ast.stmt]) -> bool:
    """Whether a ``break`` in ``statements`` ends the loop they are the body of (a
    nested loop's own body breaks that loop; its ``else`` breaks this one)."""
    pending = list(statements)
    while pending:
        node = pending.pop()
        match node:
            case ast.Break():
                return True
            case ast.FunctionDef() | ast.AsyncFunctionDef() | ast.ClassDef():
                pass
            case ast.For() | ast.AsyncFor() | ast.While():
                pending.extend(node.orelse)
            case _:
                pending.extend(_held(node))
    return False


def _held(node: ast.stmt) -> Iterator[ast.stmt]:
    """The statements ``node`` holds itself: its blocks, and its handlers' and cases' bodies."""
    for field in ("body", "orelse", "finalbody"):
        yield from getattr(node, field, ())
    for part in (*getattr(node, "handlers", ()), *getattr(node, "cases", ())):
        yield from part.body


def _else_line(
    view: FunctionView,
    loop: ast.For | ast.AsyncFor | ast.While,
    after: int,
    until: float = math.inf,
) -> int:
    """The line of ``loop``'s ``else:``: the first loop-else point from line ``after`` to
    ``until``, or else the line of the ``else``'s first statement."""
    first = loop.orelse[0].lineno
    return next(
        (p.line for p in view.points if p.kind == "loop_else" and after <= p.line <= until),
        first,
    )


@statement_rule(
    Kind.LOOP_ELSE,
    concern=Concern.COMPLEXITY,
    doc="loop_else",
    on=(ast.For, ast.AsyncFor, ast.While),
)
def _loop_else_without_break(stmt: Stmt, view: FunctionView) -> Move | None:
    """A loop ``else`` with no ``break`` to skip it: it runs whenever the loop finishes."""
    node = stmt.node
    if not isinstance(node, ast.For | ast.AsyncFor | ast.While) or not node.orelse:
        return None
    if _breaks(node.body):
        return None
    else_line = _else_line(view, node, extent(node.body[-1])[1], node.orelse[0].lineno)
    loop = "`for`" if isinstance(node, ast.For | ast.AsyncFor) else "`while`"
    text = (
        f"The {loop} loop on line {node.lineno} has no `break`, so its `else` (line "
        f"{else_line}) runs whenever the loop finishes, as code after it would: drop the "
        "`else:` and unindent its body, 1 point less."
    )
    gains = {Concern.COMPLEXITY: 1, Concern.SIZE: 1}
    return Move(Kind.LOOP_ELSE, UNCLASSIFIED, text, (node.lineno, else_line), gains, 3)


@statement_rule(Kind.WALRUS_LOOP, concern=Concern.COMPLEXITY, doc="walrus_loop", on=(ast.While,))
def _walrus_loop(stmt: Stmt, view: FunctionView) -> Move | None:
    """``while True: x = f(); if not x: break; ...``: ``while x := f():``."""
    match stmt.node:
        case (
            ast.While(
                test=ast.Constant(value=True | 1),
                body=[
                    ast.Assign(targets=[ast.Name(id=name)], value=value),
                    ast.If(test=test, body=[ast.Break()], orelse=[]) as leave,
                    _,
                    *_,
                ],
                orelse=[],
            ) as loop
        ):
            header = _walrus_header(name, value, test)
            if header is None:
                return None
            text = (
                f"Lines {loop.lineno}-{leave.end_lineno} read a value and stop when there is "
                f"none: `while {header}:` does both, 1 point less."
            )
            gains = {Concern.COMPLEXITY: 1, Concern.NESTING: 1, Concern.SIZE: 2}
            span = (loop.lineno, leave.end_lineno or 0)
            return Move(Kind.WALRUS_LOOP, UNCLASSIFIED, text, span, gains, 4)
    return None


def _walrus_header(name: str, value: ast.expr, test: ast.expr) -> str | None:
    """The ``while`` test that reads ``name = value`` and stops where ``test`` breaks."""
    walrus = ast.NamedExpr(ast.Name(name, ast.Store()), value)
    match test:
        case ast.UnaryOp(op=ast.Not(), operand=ast.Name(id=tested)) if tested == name:
            return render(walrus).removeprefix("(").removesuffix(")")
        case ast.Compare(
            left=ast.Name(id=tested), ops=[ast.Is()], comparators=[ast.Constant(value=None)]
        ) if tested == name:
            return render(ast.Compare(walrus, [ast.IsNot()], [ast.Constant(None)]))
    return None


@statement_rule(
    Kind.MEMBERSHIP_ELSE,
    concern=Concern.COMPLEXITY,
    doc="membership-isinstance_tuple-startswith_tuple",
    on=(ast.For,),
)
def _membership_else(stmt: Stmt, view: FunctionView) -> Move | None:
    """``for x in xs: if x == v: break`` with an ``else``: ``if v not in xs:`` and
    the ``else`` body."""
    match stmt.node:
        case (
            ast.For(
                target=ast.Name(id=name),
                body=[
                    ast.If(
                        test=ast.Compare(left=left, ops=[ast.Eq()], comparators=[right]),
                        body=[ast.Break()],
                        orelse=[],
                    )
                ],
                orelse=[_, *_],
            ) as loop
        ):
            value = _compared_with(name, left, right)
            if value is None or _mentions_any(loop.orelse, name):
                return None  # the `else` reads the loop's variable: the loop also sets it
            if any(p > stmt.end for p in view.loads.get(name, ())):
                return None  # the loop's variable is read after it: the loop also sets it
            return _membership_move(view, loop, value)
    return None


def _mentions_any(statements: list[ast.stmt], name: str) -> bool:
    return any(mentions(s, (name,)) for s in statements)


def _compared_with(name: str, left: ast.expr, right: ast.expr) -> ast.expr | None:
    """The side of ``left == right`` that is not the plain name ``name``, when the other
    is and this one does not hold it."""
    for side, value in ((left, right), (right, left)):
        if isinstance(side, ast.Name) and side.id == name:
            return None if mentions(value, (name,)) else value
    return None


def _membership_move(view: FunctionView, loop: ast.For, value: ast.expr) -> Move:
    rewrite = ast.Compare(value, [ast.NotIn()], [loop.iter])
    else_line = _else_line(view, loop, after=loop.lineno + 1)
    text = (
        f"The loop on line {loop.lineno} only tests membership: `if {render(rewrite)}:` "
        f"with its `else` body (line {else_line}) does the same, 2 points less."
    )
    gains = {Concern.COMPLEXITY: 2, Concern.NESTING: 1, Concern.SIZE: 2}
    return Move(Kind.MEMBERSHIP_ELSE, UNCLASSIFIED, text, (loop.lineno, else_line), gains, 4)


@statement_rule(Kind.YIELD_FROM, concern=Concern.COMPLEXITY, doc="yield_from", on=(ast.For,))
def _yield_from(stmt: Stmt, view: FunctionView) -> Move | None:
    """``for x in xs: yield x`` in a generator: ``yield from xs``."""
    if isinstance(view.node, ast.AsyncFunctionDef):
        return None  # an async generator cannot delegate: `yield from` is a syntax error there
    match stmt.node:
        case (
            ast.For(
                target=ast.Name(id=name),
                body=[ast.Expr(value=ast.Yield(value=ast.Name(id=yielded)))],
                orelse=[],
            ) as loop
        ) if yielded == name and not read_outside_its_loops(view, name):
            return _yield_from_move(loop)
    return None


def _yield_from_move(loop: ast.For) -> Move:
    source = render(loop.iter)
    text = (
        f"The loop at {lines(*extent(loop))} only yields each item of {snippet(source, 50)}: "
        f"{snippet('yield from ' + source, 70)} says so, 1 point less."
    )
    gains = {Concern.COMPLEXITY: 1, Concern.SIZE: 1}
    return Move(Kind.YIELD_FROM, UNCLASSIFIED, text, extent(loop), gains, 4)


class Running(NamedTuple):
    """A loop that keeps, in a name set to None right before it, the item it likes best
    so far: ``best = None`` / ``for x in xs: if best is None or x < best: best = x``."""

    loop: ast.For
    start: int
    kept: str
    item: str
    #: The comparison after ``best is None or``.
    test: ast.expr


@statement_rule(Kind.MIN_MAX, concern=Concern.COMPLEXITY, doc="min_max", on=(ast.For,))
def _min_max(stmt: Stmt, view: FunctionView) -> Move | None:
    if written_for_speed(view, stmt.node):
        return None
    running = running_extreme(stmt)
    if running is None or read_outside_its_loops(view, running.item):
        return None
    found = extreme(running)
    return None if found is None else _min_max_move(running, *found)


def running_extreme(stmt: Stmt) -> Running | None:
    """The loop ``stmt`` as a running minimum or maximum, when it is one."""
    match stmt.previous_node(), stmt.node:
        case (
            ast.Assign(targets=[ast.Name(id=kept)], value=ast.Constant(value=None)) as made,
            ast.For(
                target=ast.Name(id=item),
                body=[
                    ast.If(
                        test=ast.BoolOp(op=ast.Or(), values=[unset, test]),
                        body=[ast.Assign(targets=[ast.Name(id=stored)], value=ast.Name(id=taken))],
                        orelse=[],
                    )
                ],
                orelse=[],
            ) as loop,
        ) if (stored, taken) == (kept, item) and _is_none_test(unset, kept):
            found = Running(loop, made.lineno, kept, item, test)
            return None if mentions(loop.iter, (kept, item)) else found
    return None


def _is_none_test(test: ast.expr, name: str) -> bool:
    """Whether ``test`` is ``name is None``."""
    match test:
        case ast.Compare(
            left=ast.Name(id=tested), ops=[ast.Is()], comparators=[ast.Constant(value=None)]
        ):
            return tested == name
    return False


def extreme(running: Running) -> tuple[str, ast.expr] | None:
    """``min`` or ``max``, and what of the item is compared (the item itself, or its key),
    when the loop's test is a strict ``<`` or ``>`` of the same key of both: ``min()``
    and ``max()`` keep the first of equal items, as a strict test does (``<=`` keeps the
    last)."""
    match running.test:
        case ast.Compare(left=left, ops=[ast.Lt() | ast.Gt() as op], comparators=[right]):
            less = isinstance(op, ast.Lt)
            for mine, kept, smaller in ((left, right, less), (right, left, not less)):
                if _same_key(running, mine, kept):
                    return ("min" if smaller else "max"), mine
    return None


def _same_key(running: Running, mine: ast.expr, kept: ast.expr) -> bool:
    """Whether ``kept`` is ``mine`` with the kept name for the item (``len(best)`` for
    ``len(x)``), each reading only its own."""
    item, name = running.item, running.kept
    if mentions(mine, (name,)) or mentions(kept, (item,)):
        return False
    return same_tree(renamed(kept, name, item), mine)


def key_of(item: str, key: ast.expr) -> tuple[ast.expr, bool] | None:
    """What compares items by ``key``: None for the item itself; else the function
    (``len`` for ``len(x)``) or, when there is no such function, ``key`` as the body of
    a lambda (True)."""
    match key:
        case ast.Name(id=name) if name == item:
            return None
        case ast.Call(func=func, args=[ast.Name(id=name)], keywords=[]) if name == item:
            # `x.f(x)` has no function without the item: a lambda says it.
            return (key, True) if mentions(func, (item,)) else (func, False)
    return key, True


def _key_argument(item: str, key: ast.expr) -> str:
    """The ``key=`` argument that compares items by ``key`` (none for the item itself)."""
    found = key_of(item, key)
    if found is None:
        return ""
    function, is_body = found
    return f", key=lambda {item}: {render(function)}" if is_body else f", key={render(function)}"


def _min_max_move(running: Running, function: str, key: ast.expr) -> Move:
    keyed = _key_argument(running.item, key)
    call = f"{running.kept} = {function}({render(running.loop.iter)}{keyed}, default=None)"
    span = (running.start, extent(running.loop)[1])
    kept = "minimum" if function == "min" else "maximum"
    text = f"{lines(*span).capitalize()} keep a running {kept}: {snippet(call, 90)} says so"
    gains = {Concern.COMPLEXITY: 3, Concern.NESTING: 2, Concern.SIZE: span[1] - span[0]}
    return Move(Kind.MIN_MAX, UNCLASSIFIED, text + ", 3 points less.", span, gains, 4)
