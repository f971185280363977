"""Extract Function, with its preconditions checked on the code as written.

A block (one compound statement, or a run of statements of one body: a whole body
or a paragraph between blank lines) can move into a helper unchanged when:

* nothing in it leaves it: no ``global``/``nonlocal``, no ``break`` or
  ``continue`` of a loop outside it, and no ``return`` unless the block ends the
  function (then the call becomes ``return helper(...)``); a ``raise`` moves as it
  is, since the exception leaves the helper the same way; a block that yields (and
  sets nothing used after it) moves into a generator the function delegates to
  with ``yield from``, which passes on every value, ``send`` and ``throw``;
* it defines no nested function or class (their closures would change), and does
  not call the function it is in (the helper would recurse back into it);
* it reads at most three of the function's local values (the receiver of a method
  does not count: the helper is a method too) and sets at most one that is used
  after it (the helper returns it); it changes none of the objects it is handed
  (appending to the caller's list, setting a key of its dict), and no value goes in
  and comes back out (an accumulator threaded through the call): such a block is
  not a step of its own;
* the function keeps a step of its own without it (not only guard clauses and a
  return);
* it is worth a helper: at least three lines, not most of the function, and not a
  guard clause (an ``if`` that only raises or returns).

Its gains are exact: the radon points and the lines it holds leave the function,
which keeps one call line.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Final

from gzguide.analysis.facts.walk import (
    BREAK,
    CONTINUE,
    DECLARE,
    RETURN,
    YIELD,
    FunctionView,
    Pos,
    Stmt,
)
from gzguide.analysis.moves.base import UNCLASSIFIED, Concern, Move, lines, names
from gzguide.analysis.moves.kinds import Kind
from gzguide.analysis.moves.registry import rule

MIN_LINES: Final = 3
MAX_INPUTS: Final = 3
#: A block longer than this share of the function's body is the function itself.
MAX_SHARE: Final = 0.75

_DESCRIPTIONS: Final = {
    ast.If: "the `if`",
    ast.For: "the `for` loop",
    ast.AsyncFor: "the `async for` loop",
    ast.While: "the `while` loop",
    ast.Try: "the `try`",
    ast.TryStar: "the `try`",
    ast.With: "the `with` block",
    ast.AsyncWith: "the `async with` block",
    ast.Match: "the `match`",
}


@dataclass(frozen=True, slots=True)
class Extraction:
    statements: tuple[Stmt, ...]
    inputs: tuple[str, ...]
    output: str | None
    #: The block ends the function: the call becomes ``return helper(...)``.
    tail: bool
    #: The block yields: the helper is a generator the function delegates to
    #: with ``yield from``.
    generator: bool
    points: int
    conditions: int

    @property
    def returns_value(self) -> bool:
        """Whether a ``return`` in the block gives back a value."""
        return any(
            isinstance(n, ast.Return) and n.value is not None
            for s in self.statements
            for n in ast.walk(s.node)
        )

    @property
    def start_line(self) -> int:
        return self.statements[0].line

    @property
    def end_line(self) -> int:
        return self.statements[-1].end_line

    @property
    def size(self) -> int:
        return self.end_line - self.start_line + 1

    @property
    def what(self) -> str:
        if len(self.statements) == 1:
            node = self.statements[0].node
            orelse = node.orelse if isinstance(node, ast.If) else []
            if (
                len(orelse) == 1
                and isinstance(orelse[0], ast.If)
                and orelse[0].col_offset == node.col_offset
            ):
                return "the `if`/`elif` chain"
            if orelse:
                return "the `if`/`else`"
            return _DESCRIPTIONS.get(type(node), "the statement")
        return _describe_run(self.statements)

    @rule(Kind.EXTRACT, concern=Concern.COMPLEXITY, doc="extract")
    def move(
        self, view: FunctionView, concern: Concern, total: int, twin: str | None = None
    ) -> Move:
        """Worded for ``concern``; ``total`` is the function's radon complexity; ``twin``
        says where a copy of the block is (``"lines 9-14 (in `load`) word for word"``)."""
        takes = f"takes {names(self.inputs)}" if self.inputs else "takes no arguments"
        if self.generator:
            gives = "and that it delegates to with `yield from`"
        elif self.tail and self.returns_value:
            gives = "and whose result it returns"
        elif self.output:
            gives = f"and returns `{self.output}`"
        else:
            gives = ""
        kind = "a generator" if self.generator else "a helper"
        helper = f"{kind} that {takes} {gives}".rstrip()
        where = f"{lines(self.start_line, self.end_line).capitalize()} ({self.what})"
        if concern is Concern.COMPLEXITY:
            tail = f": {self.points} of its {total - 1} decision points go with them."
        else:
            tail = "."
        if twin is not None:
            text = f"{where} repeat {twin}: one {helper[2:]} "
            if concern is Concern.COMPLEXITY:
                text += f"can serve both, with {self.points} of its {total - 1} decision points."
            else:
                text += "can serve both."
        else:
            text = f"{where} can move into {helper}{tail}"
        archetype = "arrowhead" if _flattens(view, self) else UNCLASSIFIED
        gains = {
            Concern.COMPLEXITY: self.points,
            Concern.SIZE: self.size - 1,
        }
        return Move(Kind.EXTRACT, archetype, text, (self.start_line, self.end_line), gains, 1)


def _describe_run(statements: tuple[Stmt, ...]) -> str:
    """What two or more statements in a row are: a whole block, a loop with its set-up,
    or just a run of statements."""
    first, last = statements[0], statements[-1]
    parent = first.parent
    if parent is not None and len(statements) == len(first.container):
        owner = _DESCRIPTIONS.get(type(parent.node), "the statement")
        node = parent.node
        if first.container is getattr(node, "body", None):
            return f"the body of {owner}"
        if first.container is getattr(node, "finalbody", None):
            return "the `finally` block"
        if first.container is getattr(node, "orelse", None):
            return f"the `else` of {owner}"
        if any(first.container is h.body for h in getattr(node, "handlers", ())):
            return "the `except` block"
    if isinstance(last.node, ast.For | ast.AsyncFor | ast.While):
        return f"{_DESCRIPTIONS[type(last.node)]} with its set-up"
    return f"{len(statements)} statements"


def _flattens(view: FunctionView, block: Extraction) -> bool:
    """Whether the block holds the deepest code of an arrowhead-shaped function."""
    if not view.is_arrowhead():
        return False
    first, last = block.statements[0], block.statements[-1]
    return any(
        s.depth == view.max_depth and first.start <= s.start and s.end <= last.end
        for s in view.statements
    )


def _receiver(view: FunctionView, is_method: bool) -> str | None:
    if not is_method or not view.params:
        return None
    decorators = view.node.decorator_list
    if any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in decorators):
        return None
    return view.params[0]


def _candidates(view: FunctionView) -> list[tuple[Stmt, ...]]:
    """Compound statements, whole bodies and blank-line paragraphs of two or more statements."""
    found: list[tuple[Stmt, ...]] = []
    body = view.body
    if body and _is_docstring(body[0].node):
        body = body[1:]  # the docstring stays with its function
    blocks: list[list[Stmt]] = [body]
    for stmt in view.statements:
        if stmt.blocks and not stmt.is_elif:
            found.append((stmt,))
        blocks.extend(stmt.blocks)
    for block in blocks:
        if len(block) >= 2:
            found.append(tuple(block))
        found.extend(_loops_with_their_setup(view, block))
        paragraph: list[Stmt] = []
        for stmt in block:
            if paragraph and stmt.line > paragraph[-1].end_line + 1:
                found.extend(_paragraph(paragraph, block))
                paragraph = []
            paragraph.append(stmt)
        found.extend(_paragraph(paragraph, block))
    return found


def _paragraph(paragraph: list[Stmt], block: list[Stmt]) -> list[tuple[Stmt, ...]]:
    """A paragraph as a candidate, without the constants it starts by naming
    (``name = 'STARTTLS'``): those stay with the function, which reads them on; a
    helper returning a literal would only hide it."""
    first = 0
    while first < len(paragraph) and _names_a_constant(paragraph[first].node):
        first += 1
    run = paragraph[first:]
    return [tuple(run)] if 2 <= len(run) < len(block) else []


def _names_a_constant(node: ast.stmt) -> bool:
    return (
        isinstance(node, ast.Assign)
        and len(node.targets) == 1
        and isinstance(node.targets[0], ast.Name)
        and isinstance(node.value, ast.Constant)
    )


def _loops_with_their_setup(view: FunctionView, block: list[Stmt]) -> list[tuple[Stmt, ...]]:
    """Each loop of ``block`` with the assignments right before it that start the values
    it builds (``total = 0`` before ``for ...: total += ...``): one step, whole."""
    found = []
    for index, stmt in enumerate(block):
        if not isinstance(stmt.node, ast.For | ast.AsyncFor | ast.While) or index == 0:
            continue
        if not _starts_a_name(block[index - 1].node):
            continue
        _, written = view.names_within(stmt.start, stmt.end)
        built = written | view.mutated_within(stmt.start, stmt.end)
        first = index
        while first > 0 and _starts_a_name(block[first - 1].node, built):
            first -= 1
        if first < index:
            found.append(tuple(block[first : index + 1]))
    return found


def _starts_a_name(node: ast.stmt, among: set[str] | None = None) -> bool:
    """``name = ...`` (one plain name), optionally one of ``among``."""
    return (
        isinstance(node, ast.Assign)
        and len(node.targets) == 1
        and isinstance(node.targets[0], ast.Name)
        and (among is None or node.targets[0].id in among)
    )


def _tests_only_an_input(stmts: tuple[Stmt, ...], view: FunctionView, start: Pos) -> bool:
    """A lone ``if`` (no ``else``) on a bare name set before the block: the helper
    would take a flag only to test it; the ``if``'s body is the step."""
    if len(stmts) != 1:
        return False
    node = stmts[0].node
    if not isinstance(node, ast.If) or node.orelse:
        return False
    test = node.test
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        test = test.operand
    if not isinstance(test, ast.Name) or not any(p < start for p in view.stores.get(test.id, ())):
        return False
    # A body that uses the value too (``if exc_info: exc_info = normalized(exc_info)``)
    # works on it: then the name is a real input, not a flag.
    first, last = node.body[0], node.body[-1]
    body = ((first.lineno, first.col_offset), (last.end_lineno or 0, last.end_col_offset or 0))
    read, written = view.names_within(*body)
    return test.id not in read and test.id not in written


def _container_end(stmt: Stmt) -> Pos:
    """Where the statement list ``stmt`` sits in ends; for the body of a ``with``,
    which always runs, where the list around the ``with`` ends (what ``stmt`` sets
    there is set for everything after the ``with`` too)."""
    while (
        stmt.parent is not None
        and isinstance(stmt.parent.node, ast.With | ast.AsyncWith)
        and stmt.container is stmt.parent.node.body
    ):
        stmt = stmt.parent
    last = stmt.container[-1] if stmt.container else stmt.node
    return (last.end_lineno or last.lineno, last.end_col_offset or 0)


def _raising_blocks(stmt: Stmt) -> Iterator[tuple[Pos, Pos]]:
    """The extents of ``stmt``'s blocks that end in a ``raise``: a value set in one
    never flows on to what follows the statement."""
    for block in stmt.blocks:
        if block and isinstance(block[-1].node, ast.Raise):
            yield block[0].start, block[-1].end


def _decorator_name(node: ast.expr) -> str:
    if isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else ""


def _within(stmts: tuple[Stmt, ...] | list[Stmt]) -> Iterator[Stmt]:
    """Every statement of the block, nested ones included (statements only)."""
    pending = list(stmts)
    while pending:
        stmt = pending.pop()
        yield stmt
        for block in stmt.blocks:
            pending.extend(block)


def _binding_bodies(stmts: tuple[Stmt, ...]) -> dict[str, list[tuple[Pos, Pos]]]:
    """Per name, the spans of the bodies that constructs of the block run with it bound:
    a loop's target, an ``except ... as``, a ``with ... as``."""
    found: dict[str, list[tuple[Pos, Pos]]] = {}

    def bind(targets: list[ast.expr], body: list[ast.stmt]) -> None:
        if not body:
            return
        last = body[-1]
        span = (
            (body[0].lineno, body[0].col_offset),
            (last.end_lineno or last.lineno, last.end_col_offset or 0),
        )
        for target in targets:
            for n in ast.walk(target):
                if isinstance(n, ast.Name):
                    found.setdefault(n.id, []).append(span)

    for stmt in _within(stmts):
        node = stmt.node
        if isinstance(node, ast.For | ast.AsyncFor):
            bind([node.target], node.body)
        elif isinstance(node, ast.With | ast.AsyncWith):
            bind([i.optional_vars for i in node.items if i.optional_vars is not None], node.body)
        elif isinstance(node, ast.Try | ast.TryStar):
            for handler in node.handlers:
                if handler.name:
                    bind([ast.Name(handler.name)], handler.body)
    return found


def _is_docstring(node: ast.stmt) -> bool:
    return (
        isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    )


def _is_trivial(node: ast.stmt) -> bool:
    """A docstring, ``pass``, a plain ``return``, or a guard clause."""
    if isinstance(node, ast.Pass | ast.Return):
        return True
    if isinstance(node, ast.Expr | ast.Assign) and isinstance(node.value, ast.Constant):
        return True  # a docstring, or a flag such as ``__tracebackhide__ = True``
    return (
        isinstance(node, ast.If)
        and not node.orelse
        and len(node.body) == 1
        and isinstance(node.body[0], ast.Raise | ast.Return | ast.Continue | ast.Break)
    )


def _is_guard(stmts: tuple[Stmt, ...]) -> bool:
    if len(stmts) != 1:
        return False
    node = stmts[0].node
    return (
        isinstance(node, ast.If)
        and not node.orelse
        and len(node.body) == 1
        and isinstance(node.body[0], ast.Raise | ast.Return | ast.Continue | ast.Break)
    )


#: Why a block cannot move out as it is.
SHORT: Final = "short"
MOST: Final = "most"
#: Without the block, the function would keep only guards, set-up and a return.
BARE: Final = "bare"
GUARD: Final = "guard"
SIMPLE: Final = "simple"
DEFINES: Final = "defines"
LEAVES_RETURN: Final = "return"
LEAVES_YIELD: Final = "yield"
LEAVES_LOOP: Final = "loop"
DECLARES: Final = "declares"
INPUTS: Final = "inputs"
OUTPUTS: Final = "outputs"
THREADS: Final = "threads"
CHANGES: Final = "changes"
INITIALIZES: Final = "initializes"
RECURSES: Final = "recurses"
FRAME: Final = "frame"
#: Calls that look at the caller's stack: in a helper they see one frame more.
_STACK_CALLS: Final = (
    "sys._getframe",
    "inspect.currentframe",
    "inspect.stack",
    "traceback.extract_stack",
    "traceback.format_stack",
    "traceback.print_stack",
    "warnings.warn",
)
FLAG: Final = "flag"
HANDS_OVER: Final = "hands_over"
#: Decorators under which a function's ``yield`` hands control to its caller once:
#: the generator is the protocol, not a stream of values to delegate.
_YIELD_PROTOCOLS: Final = frozenset(
    {"contextmanager", "asynccontextmanager", "fixture", "hookimpl", "hookwrapper"}
)


class Examiner:
    """Checks blocks of one function against the preconditions (each block once)."""

    def __init__(self, view: FunctionView, is_method: bool) -> None:
        self.view = view
        self._verdicts: dict[tuple[int, int, int], Extraction | str] = {}
        self.receiver = _receiver(view, is_method)
        self.is_method = is_method
        body = view.body
        self.body_lines = max(body[-1].end_line - body[0].line + 1, 1) if body else 1
        self.tail_node = body[-1].node if body else None
        self.closures = _closure_reads(view) if view.nested else {}
        self._bodies: dict[tuple[int, int], dict[str, list[tuple[Pos, Pos]]]] = {}
        self.yield_is_protocol = any(
            _decorator_name(d) in _YIELD_PROTOCOLS for d in view.node.decorator_list
        )

    def examine(self, stmts: tuple[Stmt, ...]) -> Extraction | str:
        key = (stmts[0].line, stmts[0].node.col_offset, stmts[-1].end_line)
        found = self._verdicts.get(key)
        if found is None:
            found = self._examine(stmts)
            self._verdicts[key] = found
        return found

    def extractions(self, min_points: int = 0) -> list[Extraction]:
        """Every block holding ``min_points`` or more that can move into a helper as it is."""
        out: list[Extraction] = []
        seen: set[tuple[int, int]] = set()
        for stmts in _candidates(self.view):
            span = (stmts[0].line, stmts[-1].end_line)
            if span in seen or sum(s.points for s in stmts) < min_points:
                continue
            seen.add(span)
            found = self.examine(stmts)
            if isinstance(found, Extraction):
                out.append(found)
        return out

    def _examine(self, stmts: tuple[Stmt, ...]) -> Extraction | str:
        view = self.view
        first, last = stmts[0], stmts[-1]
        size = last.end_line - first.line + 1
        if len(stmts) == 1 and not first.blocks:
            return SIMPLE  # one simple statement, however many lines its call takes
        if _is_guard(stmts):
            return GUARD
        if size < MIN_LINES:
            return SHORT
        if size > self.body_lines * MAX_SHARE:
            return MOST
        start, end = first.start, last.end
        if view.nested_within(start, end):
            return DEFINES
        if self._recurses(start, end):
            return RECURSES
        if self._reads_the_stack(start, end):
            return FRAME
        tail = last.node is self.tail_node and first.parent is None
        leaves = _leaves(view, start, end, tail)
        generator = leaves == LEAVES_YIELD
        if leaves is not None and not generator:
            return leaves
        if generator and self.yield_is_protocol:
            return HANDS_OVER  # a context manager's or fixture's yield is its whole point
        if _tests_only_an_input(stmts, view, start):
            return FLAG
        if self._sets_instance_state(start, end):
            return INITIALIZES
        inputs = self.inputs(stmts)
        if len(inputs) > MAX_INPUTS:
            return INPUTS
        outputs = [] if tail else self.outputs(stmts)
        if len(outputs) > (0 if generator else 1):
            return OUTPUTS
        if self.changed_inputs(stmts):
            return CHANGES  # it would change its caller's objects: not a step of its own
        if self.threaded(stmts):
            return THREADS
        if not self._leaves_work_behind(stmts):
            return BARE
        points = sum(s.points for s in stmts)
        conditions = sum(s.conditions for s in stmts)
        output = outputs[0] if outputs else None
        return Extraction(
            stmts, tuple(inputs), output, tail and not generator, generator, points, conditions
        )

    def inputs(self, stmts: tuple[Stmt, ...]) -> list[str]:
        """The local values the block reads that it does not set first itself."""
        view = self.view
        start, end = stmts[0].start, stmts[-1].end
        read, _ = view.names_within(start, end)
        return sorted(
            n
            for n in read
            if n != self.receiver
            and any(p < start or p > end for p in view.stores.get(n, ()))
            and not self._set_first(n, stmts)
        )

    def outputs(self, stmts: tuple[Stmt, ...]) -> list[str]:
        """The names the block sets that the function reads after it (a value set only
        on a path that raises never reaches those reads)."""
        start, end = stmts[0].start, stmts[-1].end
        _, written = self.view.names_within(start, end)
        raising = [r for s in _within(stmts) for r in _raising_blocks(s)]
        return sorted(
            n
            for n in written
            if self._used_after(n, stmts[0], end)
            and not all(
                any(a <= p <= b for a, b in raising)
                for p in self.view.stores.get(n, ())
                if start <= p <= end
            )
        )

    def changed_inputs(self, stmts: tuple[Stmt, ...]) -> list[str]:
        """The inputs whose objects the block changes in place."""
        start, end = stmts[0].start, stmts[-1].end
        return sorted(set(self.inputs(stmts)) & self.view.mutated_within(start, end))

    def threaded(self, stmts: tuple[Stmt, ...]) -> list[str]:
        """Outputs that had a value before the block, which may keep it (a path through
        the block that does not set it): that value would have to go in and come out."""
        start = stmts[0].start
        return [
            n for n in self.outputs(stmts) if any(p < start for p in self.view.stores.get(n, ()))
        ]

    def _sets_instance_state(self, start: Pos, end: Pos) -> bool:
        """Whether the block, in ``__init__``, sets attributes of the instance: they are
        the class's state, which ``__init__`` is the one place to show."""
        if self.receiver is None or self.view.node.name != "__init__":
            return False
        return any(
            isinstance(n, ast.Attribute)
            and isinstance(n.ctx, ast.Store)
            and isinstance(n.value, ast.Name)
            and n.value.id == self.receiver
            and start <= (n.lineno, n.col_offset) <= end
            for n in ast.walk(self.view.node)
        )

    def _set_first(self, name: str, stmts: tuple[Stmt, ...]) -> bool:
        """Whether the block sets ``name`` in one of its own statements before it reads
        it: then the value it had before does not matter."""
        view = self.view
        start, end = stmts[0].start, stmts[-1].end
        stores = [p for p in view.stores.get(name, ()) if start <= p <= end]
        loads = [p for p in view.loads.get(name, ()) if start <= p <= end]
        if not stores or not loads:
            return False
        first, read = min(stores), min(loads)
        # The store must run whenever the block does (in a plain statement of its own)
        # and be done before the first read (``x = x + 1`` reads first).
        if any(not s.blocks and s.start <= first <= s.end < read for s in stmts):
            return True
        # Or each read follows a plain statement of the block that sets it, earlier in
        # the same statement list or in one around the read (each branch of an
        # ``if``/``else`` that sets it first, say).
        setters = [
            (s.end, _container_end(s))
            for s in _within(stmts)
            if not s.blocks and any(s.start <= p <= s.end for p in stores)
        ]
        if all(any(after < p <= until for after, until in setters) for p in loads):
            return True
        # Or every read is inside the body of a construct of the block that binds the
        # name first: a loop's target, an ``except ... as``, a ``with ... as``.
        key = (id(stmts[0]), id(stmts[-1]))
        bodies = self._bodies.get(key)
        if bodies is None:
            bodies = self._bodies[key] = _binding_bodies(stmts)
        scopes = bodies.get(name, [])
        return bool(scopes) and all(any(a <= p <= b for a, b in scopes) for p in loads)

    def _recurses(self, start: tuple[int, int], end: tuple[int, int]) -> bool:
        """Whether the block calls the function it is in (a helper would recurse back)."""
        name = self.view.node.name
        # A parameter or local of the function's own name hides it (``def
        # properties(validator, properties, ...)``): reading that is no call.
        hidden = name in self.view.params or name in self.view.stores
        # A method's own name is not in scope in its body: a bare ``set(...)`` in
        # ``def set(self)`` is the builtin.
        if not hidden and not self.is_method and self.view.loads_between(name, start, end):
            return True
        return self.receiver is not None and any(
            start <= p <= end for p in self.view.method_calls.get(f"{self.receiver}.{name}", ())
        )

    def _reads_the_stack(self, start: tuple[int, int], end: tuple[int, int]) -> bool:
        """Whether the block looks at frames by depth (``sys._getframe(1)``; a warning
        is reported at a frame counted from its call) or at the function's own names
        (``locals()``): moved into a helper, it would see other ones."""
        calls = self.view.method_calls
        return any(start <= p <= end for key in _STACK_CALLS for p in calls.get(key, ())) or any(
            self.view.loads_between(n, start, end) for n in ("locals", "vars")
        )

    def _leaves_work_behind(self, stmts: tuple[Stmt, ...]) -> bool:
        """Whether the function keeps a step of its own once the block is out (not only
        its docstring, guard clauses and a return)."""
        if stmts[0].parent is not None:
            return True  # the statement around the block stays
        taken = {id(s) for s in stmts}
        start, end = stmts[0].start, stmts[-1].end
        return any(
            id(s) not in taken and not _is_trivial(s.node) and not self._feeds(s, start, end)
            for s in self.view.body
        )

    def _feeds(self, stmt: Stmt, start: Pos, end: Pos) -> bool:
        """Whether ``stmt`` only prepares values for the block: it calls nothing and
        every name it sets is read inside the block alone (``read = src.read`` before a
        copy loop, ``if not size: size = DEFAULT``). Such a statement is no step of
        its own: it would go into the helper with the block."""
        if any(isinstance(n, ast.Call | ast.Await | ast.Yield) for n in ast.walk(stmt.node)):
            return False
        _, written = self.view.names_within(stmt.start, stmt.end)
        if not written or (self.receiver is not None and self.receiver in written):
            return False
        for name in written:
            reads = [p for p in self.view.loads.get(name, ()) if not stmt.start <= p <= stmt.end]
            if not reads or name in self.closures or not all(start <= p <= end for p in reads):
                return False
        return True

    def _used_after(self, name: str, first: Stmt, end: tuple[int, int]) -> bool:
        loads = [*self.view.loads.get(name, ()), *self.closures.get(name, ())]
        later = [p for p in loads if p > end]
        if later and (name in self.closures or not self._rebound_first(name, end, later)):
            return True
        # Inside a loop, a value set in one pass may be read at the top of the next.
        loop = first.parent
        while loop is not None:
            if isinstance(loop.node, ast.For | ast.AsyncFor | ast.While) and any(
                loop.start <= p < first.start for p in loads
            ):
                return True
            loop = loop.parent
        return False

    def _rebound_first(self, name: str, end: Pos, loads: list[Pos]) -> bool:
        """Whether every one of ``loads`` (all after ``end``) reads a value set after
        ``end``: a plain statement setting ``name`` earlier in its statement list (or in
        one around it), or a loop target, ``with ... as`` or ``except ... as`` binding
        it for the body the read is in. Then the value the block left is never read."""
        view = self.view
        stores = [p for p in view.stores.get(name, ()) if p > end]
        if not stores:
            return False
        after = [st for st in view.statements if st.start > end]
        setters = [
            (st.end, _container_end(st))
            for st in after
            if not st.blocks and any(st.start <= p <= st.end for p in stores)
        ]
        bodies = _binding_bodies(tuple(after)).get(name, [])
        return all(
            any(a < p <= b for a, b in setters) or any(a <= p <= b for a, b in bodies)
            for p in loads
        )


def _leaves(
    view: FunctionView, start: tuple[int, int], end: tuple[int, int], tail: bool
) -> str | None:
    """What leaves the block; a ``yield`` is reported only when nothing else does
    (a block that only yields can move into a generator the function delegates to)."""
    yields = False
    for jump in view.jumps_within(start, end):
        if jump.kind == YIELD:
            yields = True
        elif jump.kind == DECLARE:
            return DECLARES
        elif jump.kind == RETURN and (not tail or yields or _yields_within(view, start, end)):
            return LEAVES_RETURN
        elif jump.kind in (BREAK, CONTINUE) and (
            jump.loop is None or not start <= jump.loop <= end
        ):
            return LEAVES_LOOP
    if view.declared and any(view.stores_between(n, start, end) for n in view.declared):
        return DECLARES  # a helper would set a local of its own instead
    return LEAVES_YIELD if yields else None


def _yields_within(view: FunctionView, start: tuple[int, int], end: tuple[int, int]) -> bool:
    return any(j.kind == YIELD for j in view.jumps_within(start, end))


def _closure_reads(view: FunctionView) -> dict[str, list[tuple[int, int]]]:
    """Names that nested definitions read, as if read where they are defined."""
    reads: dict[str, list[tuple[int, int]]] = {}
    for node in view.nested_nodes:
        where = (node.lineno, node.col_offset)
        for sub in ast.walk(node):
            if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Load):
                reads.setdefault(sub.id, []).append(where)
    return reads
