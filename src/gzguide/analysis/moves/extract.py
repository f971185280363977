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
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Final

from gzguide.analysis.facts.walk import (
    BREAK,
    CONTINUE,
    DECLARE,
    RETURN,
    YIELD,
    FunctionView,
    Jump,
    Pos,
    Stmt,
)
from gzguide.analysis.moves.base import UNCLASSIFIED, Concern, Move, lines, names
from gzguide.analysis.moves.kinds import Kind
from gzguide.analysis.moves.registry import rule

if TYPE_CHECKING:
    from gzguide.analysis.facts.file import FileFacts

MIN_LINES: Final = 3
MAX_INPUTS: Final = 3
#: A block longer than this share of the function's body is the function itself.
MAX_SHARE: Final = 0.75

_LOOPS: Final = (ast.For, ast.AsyncFor, ast.While)

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
    def hands_back(self) -> bool:
        """Whether the block sets a name it takes (``comma = True`` after ``if comma:``):
        a helper would take it and give it back at every call, state passed around."""
        taken = set(self.inputs)
        return any(
            isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) and n.id in taken
            for s in self.statements
            for n in ast.walk(s.node)
        )

    @property
    def debug_only(self) -> bool:
        """Whether the block is, or is under, ``if __debug__:``: code the compiler drops
        under ``-O``, where a helper would have to live too."""
        if any(_is_debug_test(s.node) for s in self.statements):
            return True
        stmt: Stmt | None = self.statements[0].parent
        while stmt is not None:
            if _is_debug_test(stmt.node):
                return True
            stmt = stmt.parent
        return False

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
            return _describe_statement(self.statements[0].node)
        return _describe_run(self.statements)

    @rule(Kind.EXTRACT, concern=Concern.COMPLEXITY, doc="extract")
    def move(
        self,
        view: FunctionView,
        concern: Concern,
        total: int,
        twin: str | None = None,
        differs: bool = False,
    ) -> Move:
        """Worded for ``concern``; ``total`` is the function's radon complexity; ``twin``
        says where a copy of the block is (``"lines 9-14 (in `load`) word for word"``)."""
        text = self._text(concern is Concern.COMPLEXITY, total, twin, differs)
        archetype = "arrowhead" if _flattens(view, self) else UNCLASSIFIED
        gains = {
            Concern.COMPLEXITY: self.points,
            Concern.SIZE: self.size - 1,
        }
        return Move(Kind.EXTRACT, archetype, text, (self.start_line, self.end_line), gains, 1)

    def _text(self, counted: bool, total: int, twin: str | None, differs: bool) -> str:
        """The move's sentence; ``counted``: it names the decision points that go."""
        where = f"{lines(self.start_line, self.end_line).capitalize()} ({self.what})"
        helper = self._helper(differs)
        points = f"{self.points} of its {total - 1} decision points"
        if twin is None:
            tail = f": {points} go with them." if counted else "."
            return f"{where} can move into {helper}{tail}"
        serves = f"can serve both, with {points}." if counted else "can serve both."
        return f"{where} repeat {twin}: one {helper[2:]} {serves}"

    def _helper(self, differs: bool = False) -> str:
        """What the helper is: ``a helper that takes `x` and returns `y```; ``differs``:
        its copy differs in a value, which the helper takes too."""
        takes = f"takes {names(self.inputs)}" if self.inputs else "takes no arguments"
        if differs:
            takes = f"{takes}, and what differs," if self.inputs else "takes what differs"
        kind = "a generator" if self.generator else "a helper"
        return f"{kind} that {takes} {self._gives()}".rstrip()

    def _gives(self) -> str:
        """How the function gets the helper's work back."""
        if self.generator:
            return "and that it delegates to with `yield from`"
        if self.tail and self.returns_value:
            return "and whose result it returns"
        return f"and returns `{self.output}`" if self.output else ""


def _is_debug_test(node: ast.stmt) -> bool:
    match node:
        case ast.If(test=ast.Name(id="__debug__")):
            return True
    return False


def _describe_statement(node: ast.stmt) -> str:
    """What one compound statement is, as a reader names it."""
    match node:
        case ast.If(orelse=[ast.If(col_offset=column)]) if column == node.col_offset:
            return "the `if`/`elif` chain"
        case ast.If(orelse=[_, *_]):
            return "the `if`/`else`"
    return _DESCRIPTIONS.get(type(node), "the statement")


def _describe_run(statements: tuple[Stmt, ...]) -> str:
    """What two or more statements in a row are: a whole block, a loop with its set-up,
    or just a run of statements."""
    first, last = statements[0], statements[-1]
    parent = first.parent
    if parent is not None and len(statements) == len(first.container):
        whole = _describe_body(first.container, parent.node)
        if whole is not None:
            return whole
    if isinstance(last.node, _LOOPS):
        return f"{_DESCRIPTIONS[type(last.node)]} with its set-up"
    return f"{len(statements)} statements"


#: The blocks of a compound statement that a run of statements can be the whole of,
#: and how each is named (``{owner}``: the statement it belongs to).
_BODIES: Final = (
    ("body", "the body of {owner}"),
    ("finalbody", "the `finally` block"),
    ("orelse", "the `else` of {owner}"),
)


def _describe_body(body: list[ast.stmt], node: ast.stmt) -> str | None:
    """What the whole block ``body`` of the statement ``node`` is, if it is one."""
    owner = _DESCRIPTIONS.get(type(node), "the statement")
    for name, words in _BODIES:
        if body is getattr(node, name, None):
            return words.format(owner=owner)
    if any(body is h.body for h in getattr(node, "handlers", ())):
        return "the `except` block"
    return None


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
    blocks: list[list[Stmt]] = [_without_docstring(view.body)]
    for stmt in view.statements:
        if stmt.blocks and not stmt.is_elif:
            found.append((stmt,))
        blocks.extend(stmt.blocks)
    for block in blocks:
        found.extend(_runs_of(view, block))
    return found


def _distinct_blocks(view: FunctionView, min_points: int) -> Iterator[tuple[Stmt, ...]]:
    """The candidates holding ``min_points`` or more, each span once (its first time)."""
    seen: set[tuple[int, int]] = set()
    for stmts in _candidates(view):
        span = (stmts[0].line, stmts[-1].end_line)
        if span not in seen and sum(s.points for s in stmts) >= min_points:
            seen.add(span)
            yield stmts


def _without_docstring(body: list[Stmt]) -> list[Stmt]:
    """The function's body but its docstring, which stays with the function."""
    return body[1:] if body and _is_docstring(body[0].node) else body


def _runs_of(view: FunctionView, block: list[Stmt]) -> list[tuple[Stmt, ...]]:
    """The candidates among the statements of one block: the whole block, its loops
    with their set-up, and its paragraphs."""
    found = [tuple(block)] if len(block) >= 2 else []
    found.extend(_loops_with_their_setup(view, block))
    for paragraph in _paragraphs(block):
        found.extend(_paragraph(paragraph, block))
    return found


def _paragraphs(block: list[Stmt]) -> Iterator[list[Stmt]]:
    """The runs of ``block`` between blank lines (the last one may be empty)."""
    paragraph: list[Stmt] = []
    for stmt in block:
        if paragraph and stmt.line > paragraph[-1].end_line + 1:
            yield paragraph
            paragraph = []
        paragraph.append(stmt)
    yield paragraph


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
    for index in range(1, len(block)):
        if isinstance(block[index].node, _LOOPS) and _starts_a_name(block[index - 1].node):
            first = _setup_start(view, block, index)
            if first < index:
                found.append(tuple(block[first : index + 1]))
    return found


def _setup_start(view: FunctionView, block: list[Stmt], index: int) -> int:
    """Where the assignments that start the values the loop ``block[index]`` builds
    begin (``index`` itself when none does)."""
    loop = block[index]
    _, written = view.names_within(loop.start, loop.end)
    built = written | view.mutated_within(loop.start, loop.end)
    first = index
    while first > 0 and _starts_a_name(block[first - 1].node, built):
        first -= 1
    return first


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
    found = _lone_test(stmts)
    if found is None:
        return False
    node, flag = found
    if not any(p < start for p in view.stores.get(flag, ())):
        return False
    # A body that uses the value too (``if exc_info: exc_info = normalized(exc_info)``)
    # works on it: then the name is a real input, not a flag.
    read, written = view.names_within(*_extent(node.body))
    return flag not in read and flag not in written


def _lone_test(stmts: tuple[Stmt, ...]) -> tuple[ast.If, str] | None:
    """The block's one statement when it is an ``if`` without ``else`` testing a bare
    name (or its negation), and that name."""
    match stmts:
        case [Stmt(node=ast.If(test=ast.Name(id=flag), orelse=[]) as node)]:
            return node, flag
        case [Stmt(node=ast.If(test=ast.UnaryOp(ast.Not(), ast.Name(id=flag)), orelse=[]) as node)]:
            return node, flag
    return None


def _extent(body: list[ast.stmt]) -> tuple[Pos, Pos]:
    """From the start of a statement list's first statement to the end of its last."""
    first, last = body[0], body[-1]
    end = (last.end_lineno or last.lineno, last.end_col_offset or 0)
    return (first.lineno, first.col_offset), end


def _container_end(stmt: Stmt) -> Pos:
    """Where the statement list ``stmt`` sits in ends; for the body of a ``with``,
    which always runs, where the list around the ``with`` ends (what ``stmt`` sets
    there is set for everything after the ``with`` too)."""
    while (owner := _with_around(stmt)) is not None:
        stmt = owner
    last = stmt.container[-1] if stmt.container else stmt.node
    return (last.end_lineno or last.lineno, last.end_col_offset or 0)


def _with_around(stmt: Stmt) -> Stmt | None:
    """The ``with`` whose body ``stmt`` is in, if it is in one."""
    parent = stmt.parent
    if (
        parent is not None
        and isinstance(parent.node, ast.With | ast.AsyncWith)
        and stmt.container is parent.node.body
    ):
        return parent
    return None


def _raising_blocks(stmt: Stmt) -> Iterator[tuple[Pos, Pos]]:
    """The extents of ``stmt``'s blocks that end in a ``raise``: a value set in one
    never flows on to what follows the statement."""
    for block in stmt.blocks:
        if block and isinstance(block[-1].node, ast.Raise):
            yield block[0].start, block[-1].end


def decorator_name(node: ast.expr) -> str:
    """``x`` of ``@x``, ``@a.x`` or ``@x(...)``."""
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
    for stmt in _within(stmts):
        bindings = _BINDINGS.get(type(stmt.node))
        if bindings is None:
            continue
        for bound, body in bindings(stmt.node):
            if body:
                span = _extent(body)
                for name in bound:
                    found.setdefault(name, []).append(span)
    return found


#: What a statement binds for one of its bodies: the names, and that body.
_Binding = tuple[list[str], list[ast.stmt]]


def _loop_bindings(node: ast.stmt) -> Iterator[_Binding]:
    assert isinstance(node, ast.For | ast.AsyncFor)
    yield _names_in([node.target]), node.body


def _with_bindings(node: ast.stmt) -> Iterator[_Binding]:
    assert isinstance(node, ast.With | ast.AsyncWith)
    yield _names_in([i.optional_vars for i in node.items if i.optional_vars is not None]), node.body


def _handler_bindings(node: ast.stmt) -> Iterator[_Binding]:
    assert isinstance(node, ast.Try | ast.TryStar)
    for handler in node.handlers:
        if handler.name:
            yield [handler.name], handler.body


def _names_in(targets: list[ast.expr]) -> list[str]:
    return [n.id for target in targets for n in ast.walk(target) if isinstance(n, ast.Name)]


#: The statements that bind names for their body, and what each binds there.
_BINDINGS: Final[dict[type[ast.stmt], Callable[[ast.stmt], Iterator[_Binding]]]] = {
    ast.For: _loop_bindings,
    ast.AsyncFor: _loop_bindings,
    ast.With: _with_bindings,
    ast.AsyncWith: _with_bindings,
    ast.Try: _handler_bindings,
    ast.TryStar: _handler_bindings,
}


def _is_docstring(node: ast.stmt) -> bool:
    return (
        isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    )


def _is_trivial(node: ast.stmt) -> bool:
    """A docstring, ``pass``, a plain ``return``, or a guard clause."""
    match node:
        case ast.Pass() | ast.Return():
            return True
        case ast.Expr(value=ast.Constant()) | ast.Assign(value=ast.Constant()):
            return True  # a docstring, or a flag such as ``__tracebackhide__ = True``
    return _is_guard_clause(node)


def _is_guard(stmts: tuple[Stmt, ...]) -> bool:
    return len(stmts) == 1 and _is_guard_clause(stmts[0].node)


def _is_guard_clause(node: ast.stmt) -> bool:
    """An ``if`` without ``else`` whose body only leaves (raises, returns, jumps)."""
    match node:
        case ast.If(orelse=[], body=[ast.Raise() | ast.Return() | ast.Continue() | ast.Break()]):
            return True
    return False


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
#: The functions that look at the caller's stack, by module: in a helper they see one
#: frame more (a warning is reported at a frame counted from its call).
_STACK_FUNCTIONS: Final = {
    "sys": ("_getframe",),
    "inspect": ("currentframe", "stack", "getouterframes", "trace"),
    "traceback": ("extract_stack", "format_stack", "print_stack", "walk_stack"),
    "warnings": ("warn",),
}
#: Those functions called on their modules as imported under their own names.
STACK_CALLS: Final = frozenset(f"{m}.{f}" for m, fs in _STACK_FUNCTIONS.items() for f in fs)
FLAG: Final = "flag"
#: It calls a local that only holds another value's method (``append = parts.append``).
ALIAS: Final = "alias"
#: The block calls a function defined inside this one: the helper would take a closure.
CLOSURE: Final = "closure"
HANDS_OVER: Final = "hands_over"
#: Decorators under which a function's ``yield`` hands control to its caller once:
#: the generator is the protocol, not a stream of values to delegate.
_YIELD_PROTOCOLS: Final = frozenset(
    {"contextmanager", "asynccontextmanager", "fixture", "hookimpl", "hookwrapper"}
)


def stack_calls(tree: ast.Module) -> frozenset[str]:
    """How the module's code calls the functions that look at the caller's stack: on
    their modules (``inspect.stack``, ``ins.stack`` after ``import inspect as ins``), or
    by the names a ``from`` import binds them to (``stack``, or ``frames`` after ``from
    inspect import stack as frames``)."""
    found = set(STACK_CALLS)
    for node in _statements(tree.body):
        match node:
            case ast.Import(names=aliases):
                found.update(_on_modules(aliases))
            case ast.ImportFrom(module=str(module), names=aliases):
                found.update(_from_module(module, aliases))
    return frozenset(found)


def _statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """Every statement of ``body`` and of the blocks nested in it, at any depth (an
    import is a statement: the expressions around need no visit), in no set order."""
    stack = list(body)
    while stack:
        stmt = stack.pop()
        yield stmt
        for field in _BLOCK_FIELDS:
            stack.extend(getattr(stmt, field, ()))
        for part in (*getattr(stmt, "handlers", ()), *getattr(stmt, "cases", ())):
            stack.extend(part.body)


#: The fields of a statement that hold a block of statements.
_BLOCK_FIELDS: Final = ("body", "orelse", "finalbody")


def _on_modules(aliases: list[ast.alias]) -> Iterator[str]:
    """``bound.function`` for each stack reader of a module an ``import`` binds."""
    for alias in aliases:
        bound = alias.asname or alias.name
        yield from (f"{bound}.{f}" for f in _STACK_FUNCTIONS.get(alias.name, ()))


def _from_module(module: str, aliases: list[ast.alias]) -> Iterator[str]:
    """The names a ``from module import ...`` binds to stack readers."""
    readers = _STACK_FUNCTIONS.get(module, ())
    return (alias.asname or alias.name for alias in aliases if alias.name in readers)


def stack_calls_of(facts: FileFacts) -> frozenset[str]:
    """:func:`stack_calls` of the file, worked out once."""
    known = facts.memo.get(stack_calls)
    if not isinstance(known, frozenset):
        known = facts.memo[stack_calls] = stack_calls(facts.tree)
    return known


class _Block:
    """One block under examination, with what several checks ask of it (each worked
    out once, when a check first needs it)."""

    def __init__(self, examiner: Examiner, stmts: tuple[Stmt, ...]) -> None:
        self.examiner = examiner
        self.stmts = stmts
        first, last = stmts[0], stmts[-1]
        self.start, self.end = first.start, last.end
        self.size = last.end_line - first.line + 1
        #: The block ends the function (then its ``return`` becomes the call's).
        self.tail = last.node is examiner.tail_node and first.parent is None

    @cached_property
    def leaves(self) -> str | None:
        return _leaves(self.examiner.view, self.start, self.end, self.tail)

    @property
    def generator(self) -> bool:
        return self.leaves == LEAVES_YIELD

    @cached_property
    def inputs(self) -> list[str]:
        return self.examiner.inputs(self.stmts)

    @cached_property
    def outputs(self) -> list[str]:
        return [] if self.tail else self.examiner.outputs(self.stmts)

    def extraction(self) -> Extraction:
        """The block as a move, once every check has passed."""
        stmts, generator = self.stmts, self.generator
        points = sum(s.points for s in stmts)
        conditions = sum(s.conditions for s in stmts)
        output = self.outputs[0] if self.outputs else None
        tail = self.tail and not generator
        return Extraction(stmts, tuple(self.inputs), output, tail, generator, points, conditions)


class Examiner:
    """Checks blocks of one function against the preconditions (each block once)."""

    def __init__(
        self,
        view: FunctionView,
        is_method: bool,
        stack_calls: frozenset[str] | Callable[[], frozenset[str]] = STACK_CALLS,
    ) -> None:
        self.view = view
        #: The calls that read the caller's stack, as the module spells them (or how to
        #: find them: a walk of the module, made only if a block gets that far).
        self._stack_calls = stack_calls
        #: Whether a block that yields can move into a generator the function delegates
        #: to: an async generator cannot (``yield from`` is a syntax error there).
        self.delegates = not isinstance(view.node, ast.AsyncFunctionDef)
        self._verdicts: dict[tuple[int, int, int], Extraction | str] = {}
        self.receiver = _receiver(view, is_method)
        self.is_method = is_method
        body = view.body
        self.body_lines = max(body[-1].end_line - body[0].line + 1, 1) if body else 1
        self.tail_node = body[-1].node if body else None
        self.closures = _closure_reads(view) if view.nested else {}
        self._bodies: dict[tuple[int, int], dict[str, list[tuple[Pos, Pos]]]] = {}
        self.yield_is_protocol = any(
            decorator_name(d) in _YIELD_PROTOCOLS for d in view.node.decorator_list
        )

    @cached_property
    def stack_calls(self) -> frozenset[str]:
        found = self._stack_calls
        return found if isinstance(found, frozenset) else found()

    def examine(self, stmts: tuple[Stmt, ...]) -> Extraction | str:
        key = (stmts[0].line, stmts[0].node.col_offset, stmts[-1].end_line)
        found = self._verdicts.get(key)
        if found is None:
            found = self._examine(stmts)
            self._verdicts[key] = found
        return found

    def extractions(
        self, min_points: int = 0, wanted: Callable[[tuple[Stmt, ...]], bool] = bool
    ) -> list[Extraction]:
        """Every block holding ``min_points`` or more that can move into a helper as it is
        (of those ``wanted`` says yes to, asked before the block is examined)."""
        out: list[Extraction] = []
        for stmts in _distinct_blocks(self.view, min_points):
            found = self.examine(stmts) if wanted(stmts) else None
            if isinstance(found, Extraction):
                out.append(found)
        return out

    def _examine(self, stmts: tuple[Stmt, ...]) -> Extraction | str:
        """The first obstacle the checks find, in their order, or the extraction."""
        block = _Block(self, stmts)
        for check in _CHECKS:
            obstacle = check(self, block)
            if obstacle is not None:
                return obstacle
        return block.extraction()

    # -- the checks, in the order they run: each returns the obstacle it finds ------

    def _simple(self, block: _Block) -> str | None:
        """One simple statement, however many lines its call takes."""
        return SIMPLE if len(block.stmts) == 1 and not block.stmts[0].blocks else None

    def _guard(self, block: _Block) -> str | None:
        return GUARD if _is_guard(block.stmts) else None

    def _short(self, block: _Block) -> str | None:
        return SHORT if block.size < MIN_LINES else None

    def _most(self, block: _Block) -> str | None:
        return MOST if block.size > self.body_lines * MAX_SHARE else None

    def _defines(self, block: _Block) -> str | None:
        return DEFINES if self.view.nested_within(block.start, block.end) else None

    def _calls_itself(self, block: _Block) -> str | None:
        return RECURSES if self._recurses(block.start, block.end) else None

    def _looks_at_frames(self, block: _Block) -> str | None:
        return FRAME if self._reads_the_stack(block.start, block.end) else None

    def _jumps_out(self, block: _Block) -> str | None:
        """What leaves the block, unless it only yields and the function can delegate
        (then it moves into a generator)."""
        return None if block.generator and self.delegates else block.leaves

    def _hands_over(self, block: _Block) -> str | None:
        """A context manager's or fixture's ``yield`` is its whole point."""
        return HANDS_OVER if block.generator and self.yield_is_protocol else None

    def _flag(self, block: _Block) -> str | None:
        return FLAG if _tests_only_an_input(block.stmts, self.view, block.start) else None

    def _initializes(self, block: _Block) -> str | None:
        return INITIALIZES if self._sets_instance_state(block.start, block.end) else None

    def _calls_an_alias(self, block: _Block) -> str | None:
        """A local speed alias (``append = parts.append``) the block only calls: a helper
        would take the bound method as a parameter."""
        aliases = [n for n in block.inputs if self._only_a_method(n)]
        return ALIAS if any(_only_called(block.stmts, n) for n in aliases) else None

    def _calls_a_closure(self, block: _Block) -> str | None:
        """A function nested in this one that the block reads: a helper would take it as a
        parameter, and what it closes over with it."""
        nested = {n.name for n in self.view.nested_nodes if not isinstance(n, ast.ClassDef)}
        return CLOSURE if nested & set(block.inputs) else None

    def _only_a_method(self, name: str) -> bool:
        """Whether every value the function gives ``name`` is an attribute of a name."""
        setters = [s for s in self.view.statements if _sets_to_an_attribute(s.node, name)]
        return bool(setters) and len(setters) == len(self.view.stores.get(name, ()))

    def _too_many_inputs(self, block: _Block) -> str | None:
        return INPUTS if len(block.inputs) > MAX_INPUTS else None

    def _too_many_outputs(self, block: _Block) -> str | None:
        return OUTPUTS if len(block.outputs) > (0 if block.generator else 1) else None

    def _changes(self, block: _Block) -> str | None:
        """It would change its caller's objects: not a step of its own."""
        return CHANGES if self.changed_inputs(block.stmts) else None

    def _threads(self, block: _Block) -> str | None:
        return THREADS if self.threaded(block.stmts) else None

    def _bare(self, block: _Block) -> str | None:
        return None if self._leaves_work_behind(block.stmts) else BARE

    # -- what the checks and the census ask of a block --------------------------------

    def inputs(self, stmts: tuple[Stmt, ...]) -> list[str]:
        """The local values the block reads that it does not set first itself."""
        start, end = stmts[0].start, stmts[-1].end
        read, _ = self.view.names_within(start, end)
        return sorted(
            n
            for n in read
            if n != self.receiver
            and self._set_outside(n, start, end)
            and not self._set_first(n, stmts)
        )

    def _set_outside(self, name: str, start: Pos, end: Pos) -> bool:
        """Whether ``name`` is set somewhere before or after the span."""
        return any(p < start or p > end for p in self.view.stores.get(name, ()))

    def outputs(self, stmts: tuple[Stmt, ...]) -> list[str]:
        """The names the block sets that the function reads after it (a value set only
        on a path that raises never reaches those reads)."""
        start, end = stmts[0].start, stmts[-1].end
        _, written = self.view.names_within(start, end)
        raising = _raising_spans(stmts)
        return sorted(
            n
            for n in written
            if self._used_after(n, stmts[0], end)
            and not self._set_only_where_it_raises(n, start, end, raising)
        )

    def _set_only_where_it_raises(
        self, name: str, start: Pos, end: Pos, raising: list[tuple[Pos, Pos]]
    ) -> bool:
        stores = self.view.stores.get(name, ())
        return all(_inside(p, raising) for p in stores if start <= p <= end)

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
        receiver = self.receiver
        if receiver is None or self.view.node.name != "__init__":
            return False
        return any(
            isinstance(n, ast.Attribute)
            and _is_set_on(n, receiver)
            and start <= (n.lineno, n.col_offset) <= end
            for n in ast.walk(self.view.node)
        )

    def _set_first(self, name: str, stmts: tuple[Stmt, ...]) -> bool:
        """Whether the block sets ``name`` in one of its own statements before it reads
        it: then the value it had before does not matter."""
        view = self.view
        start, end = stmts[0].start, stmts[-1].end
        stores = _between(view.stores.get(name, ()), start, end)
        loads = _between(view.loads.get(name, ()), start, end)
        if not stores or not loads:
            return False
        return (
            _set_up_front(stmts, min(stores), min(loads))
            or _each_after_a_setter(loads, _setters(_within(stmts), stores))
            or self._bound_around_each(name, stmts, loads)
        )

    def _bound_around_each(self, name: str, stmts: tuple[Stmt, ...], loads: list[Pos]) -> bool:
        """Whether every read is inside the body of a construct of the block that binds
        the name first: a loop's target, an ``except ... as``, a ``with ... as``."""
        key = (id(stmts[0]), id(stmts[-1]))
        bodies = self._bodies.get(key)
        if bodies is None:
            bodies = self._bodies[key] = _binding_bodies(stmts)
        scopes = bodies.get(name, [])
        return bool(scopes) and all(_inside(p, scopes) for p in loads)

    def _recurses(self, start: tuple[int, int], end: tuple[int, int]) -> bool:
        """Whether the block calls the function it is in (a helper would recurse back)."""
        name = self.view.node.name
        return self._calls_by_name(name, start, end) or self._calls_on_receiver(name, start, end)

    def _calls_by_name(self, name: str, start: Pos, end: Pos) -> bool:
        # A parameter or local of the function's own name hides it (``def
        # properties(validator, properties, ...)``): reading that is no call.
        hidden = name in self.view.params or name in self.view.stores
        # A method's own name is not in scope in its body: a bare ``set(...)`` in
        # ``def set(self)`` is the builtin.
        return not hidden and not self.is_method and self.view.loads_between(name, start, end)

    def _calls_on_receiver(self, name: str, start: Pos, end: Pos) -> bool:
        if self.receiver is None:
            return False
        calls = self.view.method_calls.get(f"{self.receiver}.{name}", ())
        return any(start <= p <= end for p in calls)

    def _reads_the_stack(self, start: tuple[int, int], end: tuple[int, int]) -> bool:
        """Whether the block looks at frames by depth (``sys._getframe(1)``; a warning
        is reported at a frame counted from its call) or at the function's own names
        (``locals()``): moved into a helper, it would see other ones."""
        return any(self._calls_between(name, start, end) for name in self.stack_calls) or any(
            self.view.loads_between(n, start, end) for n in ("locals", "vars")
        )

    def _calls_between(self, name: str, start: Pos, end: Pos) -> bool:
        """Whether the span calls ``name`` (``module.function``, or a name an import
        bound, which the function does not bind itself)."""
        view = self.view
        if "." in name:
            return any(start <= p <= end for p in view.method_calls.get(name, ()))
        own = name in view.params or name in view.stores
        return not own and view.loads_between(name, start, end)

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
        if _calls_anything(stmt.node):
            return False
        _, written = self.view.names_within(stmt.start, stmt.end)
        if not written or self._sets_the_receiver(written):
            return False
        return all(self._read_only_within(name, stmt, start, end) for name in written)

    def _sets_the_receiver(self, written: set[str]) -> bool:
        return self.receiver is not None and self.receiver in written

    def _read_only_within(self, name: str, stmt: Stmt, start: Pos, end: Pos) -> bool:
        """Whether every read of ``name`` outside ``stmt`` is in the span (and there is one)."""
        reads = [p for p in self.view.loads.get(name, ()) if not stmt.start <= p <= stmt.end]
        return bool(reads) and name not in self.closures and all(start <= p <= end for p in reads)

    def _used_after(self, name: str, first: Stmt, end: tuple[int, int]) -> bool:
        loads = [*self.view.loads.get(name, ()), *self.closures.get(name, ())]
        return self._read_later(name, end, loads) or _read_on_a_next_pass(first, loads)

    def _read_later(self, name: str, end: Pos, loads: list[Pos]) -> bool:
        """Whether one of ``loads`` after ``end`` can read the value the block left."""
        later = [p for p in loads if p > end]
        return bool(later) and (name in self.closures or not self._rebound_first(name, end, later))

    def _rebound_first(self, name: str, end: Pos, loads: list[Pos]) -> bool:
        """Whether every one of ``loads`` (all after ``end``) reads a value set after
        ``end``: a plain statement setting ``name`` earlier in its statement list (or in
        one around it), or a loop target, ``with ... as`` or ``except ... as`` binding
        it for the body the read is in. Then the value the block left is never read."""
        stores = [p for p in self.view.stores.get(name, ()) if p > end]
        if not stores:
            return False
        return self._each_rebound(name, end, stores, loads)

    def _each_rebound(self, name: str, end: Pos, stores: list[Pos], loads: list[Pos]) -> bool:
        """Whether each of ``loads`` follows a statement after ``end`` holding one of
        ``stores``, or sits in a body that binds ``name``."""
        after = [st for st in self.view.statements if st.start > end]
        bodies = _binding_bodies(tuple(after)).get(name, [])
        setters = _setters(after, stores)
        return all(_after_a_setter(p, setters) or _inside(p, bodies) for p in loads)


#: The checks a block must pass to move out as it is, in order: the first obstacle
#: found is the verdict.
_CHECKS: Final[tuple[Callable[[Examiner, _Block], str | None], ...]] = (
    Examiner._simple,
    Examiner._guard,
    Examiner._short,
    Examiner._most,
    Examiner._defines,
    Examiner._calls_itself,
    Examiner._looks_at_frames,
    Examiner._jumps_out,
    Examiner._hands_over,
    Examiner._flag,
    Examiner._initializes,
    Examiner._too_many_inputs,
    Examiner._too_many_outputs,
    Examiner._changes,
    Examiner._threads,
    Examiner._bare,
    Examiner._calls_an_alias,
    Examiner._calls_a_closure,
)


def _sets_to_an_attribute(node: ast.stmt, name: str) -> bool:
    """Whether ``node`` is ``name = other.attribute``."""
    match node:
        case ast.Assign(targets=[ast.Name(id=target)], value=ast.Attribute(value=ast.Name())):
            return target == name
    return False


def _only_called(stmts: tuple[Stmt, ...], name: str) -> bool:
    """Whether the block reads ``name`` and only ever to call it."""
    reads = [n for n in _nodes(stmts) if _is_name(n, name)]
    called = _called(stmts)
    return bool(reads) and all(id(n) in called for n in reads)


def _is_name(node: ast.AST, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def _called(stmts: tuple[Stmt, ...]) -> set[int]:
    """The ids of the nodes the block calls (``f`` of ``f(x)``)."""
    return {id(n.func) for n in _nodes(stmts) if isinstance(n, ast.Call)}


def _nodes(stmts: tuple[Stmt, ...]) -> Iterator[ast.AST]:
    return (n for s in stmts for n in ast.walk(s.node))


def _between(positions: Iterable[Pos], start: Pos, end: Pos) -> list[Pos]:
    return [p for p in positions if start <= p <= end]


def _inside(pos: Pos, spans: list[tuple[Pos, Pos]]) -> bool:
    return any(a <= pos <= b for a, b in spans)


def _after_a_setter(pos: Pos, setters: list[tuple[Pos, Pos]]) -> bool:
    """Whether ``pos`` is after one of ``setters`` (each: where a statement setting the
    name ends, and where the statement list its value holds for ends)."""
    return any(after < pos <= until for after, until in setters)


def _each_after_a_setter(loads: list[Pos], setters: list[tuple[Pos, Pos]]) -> bool:
    return all(_after_a_setter(p, setters) for p in loads)


def _setters(statements: Iterable[Stmt], stores: list[Pos]) -> list[tuple[Pos, Pos]]:
    """The plain statements among ``statements`` that hold one of ``stores``: where each
    ends, and where the statement list it is in (or one it holds for) ends."""
    return [
        (s.end, _container_end(s))
        for s in statements
        if not s.blocks and any(s.start <= p <= s.end for p in stores)
    ]


def _set_up_front(stmts: tuple[Stmt, ...], first: Pos, read: Pos) -> bool:
    """Whether the store at ``first`` runs whenever the block does (in a plain statement
    of its own) and is done before the first read at ``read`` (``x = x + 1`` reads
    first)."""
    return any(not s.blocks and s.start <= first <= s.end < read for s in stmts)


def _raising_spans(stmts: tuple[Stmt, ...]) -> list[tuple[Pos, Pos]]:
    return [r for s in _within(stmts) for r in _raising_blocks(s)]


def _is_set_on(node: ast.Attribute, receiver: str) -> bool:
    """``receiver.attr = ...`` (the attribute as a target)."""
    value = node.value
    return isinstance(node.ctx, ast.Store) and isinstance(value, ast.Name) and value.id == receiver


def _calls_anything(node: ast.stmt) -> bool:
    return any(isinstance(n, ast.Call | ast.Await | ast.Yield) for n in ast.walk(node))


def _read_on_a_next_pass(first: Stmt, loads: list[Pos]) -> bool:
    """Whether a loop around the block reads the name before the block: a value set
    in one pass may be read at the top of the next."""
    loop = first.parent
    while loop is not None:
        if isinstance(loop.node, _LOOPS) and any(loop.start <= p < first.start for p in loads):
            return True
        loop = loop.parent
    return False


def _leaves(
    view: FunctionView, start: tuple[int, int], end: tuple[int, int], tail: bool
) -> str | None:
    """What leaves the block; a ``yield`` is reported only when nothing else does
    (a block that only yields can move into a generator the function delegates to)."""
    jumps = view.jumps_within(start, end)
    yields = any(j.kind == YIELD for j in jumps)
    found = _first_exit(jumps, start, end, returns_leave=not tail or yields)
    if found is not None:
        return found
    if _sets_a_declared_name(view, start, end):
        return DECLARES  # a helper would set a local of its own instead
    return LEAVES_YIELD if yields else None


def _first_exit(jumps: list[Jump], start: Pos, end: Pos, returns_leave: bool) -> str | None:
    """The first jump out of the block; a ``return`` leaves it unless the block ends the
    function and yields nothing (``returns_leave`` says which)."""
    for jump in jumps:
        found = _exit_of(jump, start, end, returns_leave)
        if found is not None:
            return found
    return None


def _exit_of(jump: Jump, start: Pos, end: Pos, returns_leave: bool) -> str | None:
    if jump.kind == DECLARE:
        return DECLARES
    if jump.kind == RETURN:
        return LEAVES_RETURN if returns_leave else None
    return LEAVES_LOOP if _leaves_its_loop(jump, start, end) else None


def _leaves_its_loop(jump: Jump, start: Pos, end: Pos) -> bool:
    """A ``break`` or ``continue`` of a loop that starts outside the span."""
    return jump.kind in (BREAK, CONTINUE) and (jump.loop is None or not start <= jump.loop <= end)


def _sets_a_declared_name(view: FunctionView, start: Pos, end: Pos) -> bool:
    return bool(view.declared) and any(view.stores_between(n, start, end) for n in view.declared)


def _closure_reads(view: FunctionView) -> dict[str, list[tuple[int, int]]]:
    """Names that nested definitions read, as if read where they are defined."""
    reads: dict[str, list[tuple[int, int]]] = {}
    for node in view.nested_nodes:
        where = (node.lineno, node.col_offset)
        for sub in ast.walk(node):
            if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Load):
                reads.setdefault(sub.id, []).append(where)
    return reads
