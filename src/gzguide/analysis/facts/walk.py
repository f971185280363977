"""One walk of a function's own code: the facts every hint detector reads.

The walk covers a function's body and stops at nested ``def`` and ``class``
statements, wherever they sit (they are measured and advised on their own); only
what the enclosing function itself evaluates of them is walked (decorators,
defaults, base classes). Lambdas and comprehensions belong to the function: radon
counts their conditions for it, and the names they read are the function's.

What it records, each with its source position:

* the statement tree, with each statement's real nesting depth (``if``, ``for``,
  ``while`` and ``match`` levels; an ``elif`` continues its ``if``; ``with`` and
  ``try`` hold code without adding a level) and its decision points counted as
  radon counts them (:data:`POINT_KINDS`);
* every read and write of a local name (names bound only inside a comprehension or
  a lambda are theirs, not the function's);
* every jump: ``return``, ``yield``, ``raise``, and ``break``/``continue`` with the
  loop they leave, and ``global``/``nonlocal`` declarations;

Detectors then answer questions such as "could lines 12-20 move into a helper
unchanged, and with which inputs and outputs?" from these lists alone.
"""

from __future__ import annotations

import ast
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any, Final

from gzguide.analysis.facts.keywords import NO_KEYWORDS, KeywordLines
from gzguide.analysis.facts.scopes import FunctionNode

Pos = tuple[int, int]

_NESTED: Final = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
#: Methods that change the object they are called on (lists, dicts, sets, files).
MUTATORS: Final = frozenset(
    {
        "append",
        "extend",
        "insert",
        "remove",
        "pop",
        "popitem",
        "clear",
        "sort",
        "reverse",
        "add",
        "discard",
        "update",
        "setdefault",
        "write",
        "writelines",
    }
)
#: The nodes that continue a chain of attribute accesses and calls.
_LINKS: Final = frozenset({ast.Attribute, ast.Call, ast.Subscript})
#: The statements that add a level of real nesting.
_LEVELS: Final = (ast.If, ast.For, ast.AsyncFor, ast.While, ast.Match)

# Jump kinds.
RETURN: Final = "return"
YIELD: Final = "yield"
RAISE: Final = "raise"
BREAK: Final = "break"
CONTINUE: Final = "continue"
DECLARE: Final = "global"

#: Decision-point kinds, as radon counts them (one each unless noted).
POINT_KINDS: Final = (
    "if",  # an if or elif
    "ternary",  # a conditional expression
    "loop",  # a for or while
    "loop_else",  # the else of a for or while
    "except",  # each handler of a try
    "and",  # each extra operand of an and
    "or",  # each extra operand of an or
    "comprehension",  # each for of a comprehension
    "filter",  # each if of a comprehension
    "else",  # the else of a try (placed, like and/or, at its keyword)
    "case",  # each case of a match but a wildcard
    "assert",  # an assert, whatever it holds
)


@dataclass(eq=False, slots=True)
class Stmt:
    """A statement of the function's own code."""

    node: ast.stmt
    parent: Stmt | None
    #: if/for/while/match levels around it (0: directly in the function body).
    depth: int
    #: Its blocks (body, orelse, handlers, finalbody, cases), each a statement list.
    blocks: list[list[Stmt]] = field(default_factory=list)
    #: radon decision points of this statement and everything in it.
    points: int = 0
    #: The same, counted the way lizard counts (no loop/try else, assert or match).
    conditions: int = 0
    #: Whether this ``if`` is the ``elif`` of its parent.
    is_elif: bool = False
    #: The statement list it sits in, as the AST has it, and its index there.
    container: list[ast.stmt] = field(default_factory=list)
    index: int = 0

    def next_node(self) -> ast.stmt | None:
        """The statement right after this one in its block, if any."""
        following = self.index + 1
        return self.container[following] if following < len(self.container) else None

    def previous_node(self) -> ast.stmt | None:
        return self.container[self.index - 1] if self.index > 0 else None

    @property
    def start(self) -> Pos:
        return (self.node.lineno, self.node.col_offset)

    @property
    def end(self) -> Pos:
        node = self.node
        return (node.end_lineno or node.lineno, node.end_col_offset or 0)

    @property
    def line(self) -> int:
        return self.node.lineno

    @property
    def end_line(self) -> int:
        return self.node.end_lineno or self.node.lineno


@dataclass(frozen=True, slots=True)
class Jump:
    pos: Pos
    kind: str
    #: For break/continue: the start of the loop it leaves.
    loop: Pos | None = None


@dataclass(frozen=True, slots=True)
class Point:
    line: int
    kind: str
    weight: int


@dataclass(eq=False, slots=True)
class FunctionView:
    node: FunctionNode
    #: Parameter names, in order (``*args`` and ``**kwargs`` included).
    params: list[str]
    body: list[Stmt]
    #: Every statement, in source order (pre-order).
    statements: list[Stmt]
    points: list[Point]
    jumps: list[Jump]
    #: Nested def/class statements, and their spans.
    nested: list[tuple[Pos, Pos]]
    nested_nodes: list[ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef]
    #: name -> sorted positions where it is read / written.
    loads: dict[str, list[Pos]]
    stores: dict[str, list[Pos]]
    #: name -> positions where the object it holds is changed in place (an item or
    #: attribute set or deleted, or a method such as ``append`` called on it).
    mutations: dict[str, list[Pos]]
    #: ``"x.method"`` -> positions of ``x.method(...)`` calls on a plain name ``x``.
    method_calls: dict[str, list[Pos]]
    #: Every and/or expression of its own code.
    boolops: list[ast.BoolOp]
    #: The outermost node of every chain of attribute accesses and calls
    #: (``a.b().c``), for the message-chain detector.
    chains: list[ast.expr]
    #: The deepest real nesting of any statement (if/for/while/match levels around it).
    max_depth: int = 0
    #: Names the function declares ``global`` or ``nonlocal``.
    declared: frozenset[str] = frozenset()
    #: The lines in it (or right above it) of a comment saying it is written for speed.
    tuned: frozenset[int] = frozenset()
    #: How many times its module writes an ``else:`` after a branch that leaves.
    elses_after_leaving: int = 0
    _by_node: dict[int, Stmt] = field(default_factory=dict)
    _jump_positions: list[Pos] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._by_node = {id(s.node): s for s in self.statements}
        self._jump_positions = [j.pos for j in self.jumps]

    def is_arrowhead(self) -> bool:
        """Code four levels in, or three levels of nothing but ``if``s."""
        if self.max_depth >= 4:
            return True
        if self.max_depth < 3:
            return False
        return any(_in_ifs_only(s) for s in self.statements if s.depth == self.max_depth)

    def stmt_of(self, node: ast.stmt) -> Stmt | None:
        return self._by_node.get(id(node))

    @property
    def total_points(self) -> int:
        return sum(s.points for s in self.body)

    def jumps_within(self, start: Pos, end: Pos) -> list[Jump]:
        positions = self._jump_positions
        return self.jumps[bisect_left(positions, start) : bisect_right(positions, end)]

    def loads_between(self, name: str, start: Pos, end: Pos) -> bool:
        return _any_between(self.loads.get(name), start, end)

    def stores_between(self, name: str, start: Pos, end: Pos) -> bool:
        return _any_between(self.stores.get(name), start, end)

    def mutated_within(self, start: Pos, end: Pos) -> set[str]:
        """Names whose objects are changed in place between two positions."""
        return {n for n, ps in self.mutations.items() if _any_between(ps, start, end)}

    def names_within(self, start: Pos, end: Pos) -> tuple[set[str], set[str]]:
        """(names read, names written) between two positions, inclusive."""
        read = {n for n, ps in self.loads.items() if _any_between(ps, start, end)}
        written = {n for n, ps in self.stores.items() if _any_between(ps, start, end)}
        return read, written

    def nested_within(self, start: Pos, end: Pos) -> bool:
        return any(start <= s and e <= end for s, e in self.nested)


def _in_ifs_only(stmt: Stmt) -> bool:
    """Whether every level around ``stmt`` is an ``if``."""
    return all(isinstance(n, ast.If) for n in _levels_around(stmt))


def _levels_around(stmt: Stmt) -> Iterator[ast.stmt]:
    """The statements around ``stmt`` that each add a level (an ``elif`` adds none)."""
    parent = stmt.parent
    while parent is not None:
        if not parent.is_elif and isinstance(parent.node, _LEVELS):
            yield parent.node
        parent = parent.parent


def _any_between(positions: list[Pos] | None, start: Pos, end: Pos) -> bool:
    if not positions:
        return False
    index = bisect_left(positions, start)
    return index < len(positions) and positions[index] <= end


def parameter_names(node: FunctionNode) -> list[str]:
    """Declared parameter names, in order, ``*args`` and ``**kwargs`` included."""
    args = node.args
    names = [a.arg for a in (*args.posonlyargs, *args.args)]
    if args.vararg:
        names.append(args.vararg.arg)
    names.extend(a.arg for a in args.kwonlyargs)
    if args.kwarg:
        names.append(args.kwarg.arg)
    return names


def _end_line(node: ast.stmt | ast.expr | ast.excepthandler) -> int:
    return node.end_lineno or node.lineno


class _Walker:
    def __init__(self, fn: FunctionNode, keywords: KeywordLines) -> None:
        self.keywords = keywords
        self.points: list[Point] = []
        self.jumps: list[Jump] = []
        self.nested: list[tuple[Pos, Pos]] = []
        self.nested_nodes: list[ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef] = []
        self.loads: dict[str, list[Pos]] = {}
        self.stores: dict[str, list[Pos]] = {}
        self.mutations: dict[str, list[Pos]] = {}
        self.method_calls: dict[str, list[Pos]] = {}
        self.boolops: list[ast.BoolOp] = []
        #: The outermost nodes of attribute/call chains of two links or more.
        self.chains: list[ast.expr] = []
        self.declared: set[str] = set()
        self._inner: set[int] = set()
        self.statements: list[Stmt] = []
        self.loops: list[Pos] = []
        self.max_depth = 0
        #: Points and lizard conditions found in the statement being walked.
        self._points = 0
        self._conditions = 0
        self._counting = True

    # -- statements ------------------------------------------------------------------

    def block(self, statements: list[ast.stmt], parent: Stmt | None, depth: int) -> list[Stmt]:
        out: list[Stmt] = []
        for index, node in enumerate(statements):
            if isinstance(node, _NESTED):
                self.nested_definition(node)
                continue
            stmt = self.statement(node, parent, depth)
            stmt.container, stmt.index = statements, index
            out.append(stmt)
        return out

    def nested_definition(
        self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
    ) -> None:
        start = (node.lineno, node.col_offset)
        self.nested.append((start, (node.end_lineno or node.lineno, node.end_col_offset or 0)))
        self.nested_nodes.append(node)
        self._uncounted(_evaluated_by_enclosing(node))  # radon scores a nested scope on its own
        self._store(node.name, start)

    def statement(self, node: ast.stmt, parent: Stmt | None, depth: int) -> Stmt:
        """Walk one statement; its points and conditions are its own and everything in it."""
        stmt = Stmt(node, parent, depth)
        self.statements.append(stmt)
        if depth > self.max_depth:
            self.max_depth = depth
        outer_points, outer_conditions = self._points, self._conditions
        self._points = self._conditions = 0
        _STATEMENT_STEPS.get(type(node), _Walker._other_statement)(self, node, stmt)
        stmt.points = self._points
        stmt.conditions = self._conditions
        self._points = outer_points + stmt.points
        self._conditions = outer_conditions + stmt.conditions
        return stmt

    def _if(self, node: ast.If, stmt: Stmt) -> None:
        self._point(node.lineno, "if", 1, 1)
        self.expression(node.test)
        depth = stmt.depth
        stmt.blocks.append(self.block(node.body, stmt, depth + 1))
        if _has_elif(node):
            elif_stmt = self.statement(node.orelse[0], stmt, depth)
            elif_stmt.is_elif = True
            elif_stmt.container = node.orelse
            stmt.blocks.append([elif_stmt])  # its points are already counted in ours
        else:
            stmt.blocks.append(self.block(node.orelse, stmt, depth + 1))

    def _for(self, node: ast.For | ast.AsyncFor, stmt: Stmt) -> None:
        self._point(node.lineno, "loop", 1, 1)
        self._loop_else(node)
        self.expression(node.iter)
        self.expression(node.target)
        self._loop_blocks(node, stmt)

    def _while(self, node: ast.While, stmt: Stmt) -> None:
        self._point(node.lineno, "loop", 1, 1)
        self._loop_else(node)
        self.expression(node.test)
        self._loop_blocks(node, stmt)

    def _loop_blocks(self, node: ast.For | ast.AsyncFor | ast.While, stmt: Stmt) -> None:
        """The body, where a break or continue leaves this loop, then the else."""
        self.loops.append(stmt.start)
        stmt.blocks.append(self.block(node.body, stmt, stmt.depth + 1))
        self.loops.pop()
        stmt.blocks.append(self.block(node.orelse, stmt, stmt.depth + 1))

    def _try(self, node: ast.Try, stmt: Stmt) -> None:
        for handler in node.handlers:
            self._point(handler.lineno, "except", 1, 0)
        if node.orelse:
            last = node.handlers[-1] if node.handlers else node.body[-1]
            line = self.keywords.else_line(_end_line(last), node.orelse[0].lineno)
            self._point(line, "else", 1, 0)
        self._try_blocks(node, stmt)

    def _try_blocks(self, node: ast.Try | ast.TryStar, stmt: Stmt) -> None:
        """What a try and a try of ``except*`` share (radon counts no ``except*``)."""
        self._conditions += len(node.handlers)
        stmt.blocks.append(self.block(node.body, stmt, stmt.depth))
        for handler in node.handlers:
            self._handler(handler, stmt)
        stmt.blocks.append(self.block(node.orelse, stmt, stmt.depth))
        stmt.blocks.append(self.block(node.finalbody, stmt, stmt.depth))

    def _handler(self, handler: ast.ExceptHandler, stmt: Stmt) -> None:
        if handler.type is not None:
            self.expression(handler.type)
        if handler.name:
            self._store(handler.name, (handler.lineno, handler.col_offset))
        stmt.blocks.append(self.block(handler.body, stmt, stmt.depth))

    def _with(self, node: ast.With | ast.AsyncWith, stmt: Stmt) -> None:
        for item in node.items:
            self.expression(item.context_expr)
            if item.optional_vars is not None:
                self.expression(item.optional_vars)
        stmt.blocks.append(self.block(node.body, stmt, stmt.depth))

    def _match(self, node: ast.Match, stmt: Stmt) -> None:
        # radon counts every case but one catch-all (``case _``, ``case name``);
        # each point sits on its case's line.
        catch_all = _catch_all(node.cases)
        for case in node.cases:
            if case is not catch_all:
                self._point(case.pattern.lineno, "case", 1, 0)
        self.expression(node.subject)
        for case in node.cases:
            self._pattern_names(case.pattern)
            if case.guard is not None:
                self.expression(case.guard)
            stmt.blocks.append(self.block(case.body, stmt, stmt.depth + 1))

    def _pattern_names(self, pattern: ast.pattern) -> None:
        for sub in ast.walk(pattern):
            if isinstance(sub, ast.pattern):
                self._pattern_part(sub)

    def _pattern_part(self, sub: ast.pattern) -> None:
        """The name one part of a pattern binds, or the value or class it reads."""
        name = getattr(sub, "name", None) or getattr(sub, "rest", None)
        if isinstance(name, str):
            self._store(name, (sub.lineno, sub.col_offset))
        elif isinstance(sub, ast.MatchValue):
            self.expression(sub.value)
        elif isinstance(sub, ast.MatchClass):
            self.expression(sub.cls)

    # -- statements that hold no statements ------------------------------------------

    def _assign(self, node: ast.Assign, stmt: Stmt) -> None:
        self.expression(node.value)
        self.expressions(node.targets)

    def _expr(self, node: ast.Expr, stmt: Stmt) -> None:
        self.expression(node.value)

    def _return(self, node: ast.Return, stmt: Stmt) -> None:
        self.jumps.append(Jump(stmt.start, RETURN))
        if node.value is not None:
            self.expression(node.value)

    def _raise(self, node: ast.Raise, stmt: Stmt) -> None:
        self.jumps.append(Jump(stmt.start, RAISE))
        self.expressions([e for e in (node.exc, node.cause) if e is not None])

    def _break(self, node: ast.Break, stmt: Stmt) -> None:
        self._leave(stmt, BREAK)

    def _continue(self, node: ast.Continue, stmt: Stmt) -> None:
        self._leave(stmt, CONTINUE)

    def _leave(self, stmt: Stmt, kind: str) -> None:
        self.jumps.append(Jump(stmt.start, kind, self.loops[-1] if self.loops else None))

    def _declare(self, node: ast.Global | ast.Nonlocal, stmt: Stmt) -> None:
        self.jumps.append(Jump(stmt.start, DECLARE))
        self.declared.update(node.names)

    def _assert(self, node: ast.Assert, stmt: Stmt) -> None:
        self._point(node.lineno, "assert", 1, 0)
        # radon counts an assert once and never looks inside it
        self._uncounted([e for e in (node.test, node.msg) if e is not None])

    def _import(self, node: ast.Import | ast.ImportFrom, stmt: Stmt) -> None:
        for alias in node.names:
            name = alias.asname or alias.name.partition(".")[0]
            if name != "*":
                self._store(name, stmt.start)

    def _aug_assign(self, node: ast.AugAssign, stmt: Stmt) -> None:
        self.expression(node.value)
        if isinstance(node.target, ast.Name):
            self._load(node.target.id, stmt.start)
        self.expression(node.target)

    def _ann_assign(self, node: ast.AnnAssign, stmt: Stmt) -> None:
        if node.value is not None:
            self.expression(node.value)
            self.expression(node.target)

    def _other_statement(self, node: ast.stmt, stmt: Stmt) -> None:
        self.expressions([c for c in ast.iter_child_nodes(node) if isinstance(c, ast.expr)])

    # -- expressions -----------------------------------------------------------------

    def expressions(self, nodes: list[ast.expr], local: frozenset[str] = frozenset()) -> None:
        for node in nodes:
            self.expression(node, local)

    def expression(self, root: ast.expr, local: frozenset[str] = frozenset()) -> None:
        """Walk one expression; ``local`` holds names a comprehension or lambda binds.

        Each kind of node that means something to a detector has its step; any other
        only hands on its parts. The stack hands parts back in reverse order of push.
        """
        stack: list[ast.AST] = [root]
        pop = stack.pop
        steps = _EXPRESSION_STEPS
        while stack:
            node = pop()
            step = steps.get(type(node))
            if step is None:
                stack.extend(children(node))
            else:
                step(self, node, stack, local)

    def _name(self, node: ast.Name, stack: list[ast.AST], local: frozenset[str]) -> None:
        if node.id not in local:
            pos = (node.lineno, node.col_offset)
            if type(node.ctx) is ast.Load:
                self._load(node.id, pos)
            else:
                self._store(node.id, pos)

    def _constant(self, node: ast.Constant, stack: list[ast.AST], local: frozenset[str]) -> None:
        """A constant holds nothing to walk."""

    def _attribute(self, node: ast.Attribute, stack: list[ast.AST], local: frozenset[str]) -> None:
        value = node.value
        if type(node.ctx) is not ast.Load:
            self._mutate(value)
        elif type(value) in _LINKS and id(node) not in self._inner:
            self._chain(node)
        stack.append(value)

    def _call(self, node: ast.Call, stack: list[ast.AST], local: frozenset[str]) -> None:
        func = node.func
        if type(func) is ast.Attribute:
            self._method_call(node, func)
        stack.append(func)
        stack.extend(node.args)
        stack.extend(k.value for k in node.keywords)

    def _method_call(self, node: ast.Call, func: ast.Attribute) -> None:
        """``x.method(...)``: what it may change, and which call of which name it is."""
        if func.attr in MUTATORS:
            self._mutate(func.value)
        if type(func.value) is ast.Name:
            key = f"{func.value.id}.{func.attr}"
            self.method_calls.setdefault(key, []).append((node.lineno, node.col_offset))
        if type(func.value) in _LINKS and id(node) not in self._inner:
            self._chain(node)

    def _compare(self, node: ast.Compare, stack: list[ast.AST], local: frozenset[str]) -> None:
        stack.append(node.left)
        stack.extend(node.comparators)

    def _binop(self, node: ast.BinOp, stack: list[ast.AST], local: frozenset[str]) -> None:
        stack.append(node.left)
        stack.append(node.right)

    def _subscript(self, node: ast.Subscript, stack: list[ast.AST], local: frozenset[str]) -> None:
        if type(node.ctx) is not ast.Load:
            self._mutate(node.value)
        stack.append(node.value)
        stack.append(node.slice)

    def _boolop(self, node: ast.BoolOp, stack: list[ast.AST], local: frozenset[str]) -> None:
        word = "and" if isinstance(node.op, ast.And) else "or"
        for left, right in pairwise(node.values):  # each at its keyword
            line = self.keywords.boolop_line(word, _end_line(left), right.lineno)
            self._point(line, word, 1, 1)
        if self._counting:  # an and/or radon does not count is not ours to rewrite
            self.boolops.append(node)
        stack.extend(node.values)

    def _ifexp(self, node: ast.IfExp, stack: list[ast.AST], local: frozenset[str]) -> None:
        self._point(node.lineno, "ternary", 1, 1)
        stack.extend((node.test, node.body, node.orelse))

    def _lambda(self, node: ast.Lambda, stack: list[ast.AST], local: frozenset[str]) -> None:
        args = node.args
        stack.extend(d for d in (*args.defaults, *args.kw_defaults) if d)
        self.expression(node.body, local | frozenset(parameter_names_of(args)))

    def _yield(
        self, node: ast.Yield | ast.YieldFrom, stack: list[ast.AST], local: frozenset[str]
    ) -> None:
        self.jumps.append(Jump((node.lineno, node.col_offset), YIELD))
        if node.value is not None:
            stack.append(node.value)

    def _named(self, node: ast.NamedExpr, stack: list[ast.AST], local: frozenset[str]) -> None:
        stack.append(node.value)
        target = node.target
        self._store(target.id, (target.lineno, target.col_offset))

    def _comprehension(
        self,
        node: ast.ListComp | ast.SetComp | ast.DictComp | ast.GeneratorExp,
        stack: list[ast.AST],
        local: frozenset[str],
    ) -> None:
        inner = self._comprehension_points(node, local)
        # The first iterable is evaluated in the enclosing scope, the rest in the
        # comprehension's own.
        generators = node.generators
        self.expression(generators[0].iter, local)
        for generator in generators:
            if generator is not generators[0]:
                self.expression(generator.iter, inner)
            self.expressions(generator.ifs, inner)
        if isinstance(node, ast.DictComp):
            self.expression(node.key, inner)
            self.expression(node.value, inner)
        else:
            self.expression(node.elt, inner)

    def _comprehension_points(
        self,
        node: ast.ListComp | ast.SetComp | ast.DictComp | ast.GeneratorExp,
        local: frozenset[str],
    ) -> frozenset[str]:
        """Count each ``for`` and ``if``; the names the comprehension binds, with ``local``."""
        bound = set(local)
        for generator in node.generators:
            line = getattr(generator.iter, "lineno", node.lineno)
            self._point(line, "comprehension", 1, 1)
            for test in generator.ifs:
                self._point(test.lineno, "filter", 1, 1)
            bound.update(target_names(generator.target))
        return frozenset(bound)

    # -- recording -------------------------------------------------------------------

    def _uncounted(self, nodes: list[ast.expr]) -> None:
        """Walk ``nodes`` for names and jumps, leaving their decision points uncounted."""
        self._counting = False
        try:
            self.expressions(nodes)
        finally:
            self._counting = True

    def _loop_else(self, node: ast.For | ast.AsyncFor | ast.While) -> None:
        if node.orelse:
            line = self.keywords.else_line(_end_line(node.body[-1]), node.orelse[0].lineno)
            self._point(line, "loop_else", 1, 0)

    def _point(self, line: int, kind: str, weight: int, conditions: int) -> None:
        if not self._counting:
            return
        if weight > 0:
            self.points.append(Point(line, kind, weight))
            self._points += weight
        self._conditions += conditions

    def _chain(self, head: ast.expr) -> None:
        """Record the outermost node of an attribute/call chain (its inner links are not)."""
        self.chains.append(head)
        inner = self._inner
        part: ast.expr = head
        while type(part) in _LINKS:
            part = part.func if type(part) is ast.Call else part.value  # type: ignore[attr-defined]
            inner.add(id(part))

    def _mutate(self, target: ast.expr) -> None:
        """``target`` (an object a local name holds) is changed in place here."""
        if type(target) is ast.Name:
            assert isinstance(target, ast.Name)
            self.mutations.setdefault(target.id, []).append((target.lineno, target.col_offset))

    def _load(self, name: str, pos: Pos) -> None:
        self.loads.setdefault(name, []).append(pos)

    def _store(self, name: str, pos: Pos) -> None:
        self.stores.setdefault(name, []).append(pos)


#: How the walker takes each kind of statement (any other: the expressions it holds).
_STATEMENT_STEPS: Final[dict[type[ast.stmt], Callable[[_Walker, Any, Stmt], None]]] = {
    ast.If: _Walker._if,
    ast.For: _Walker._for,
    ast.AsyncFor: _Walker._for,
    ast.While: _Walker._while,
    ast.Try: _Walker._try,
    ast.TryStar: _Walker._try_blocks,
    ast.With: _Walker._with,
    ast.AsyncWith: _Walker._with,
    ast.Match: _Walker._match,
    ast.Assign: _Walker._assign,
    ast.Expr: _Walker._expr,
    ast.Return: _Walker._return,
    ast.Raise: _Walker._raise,
    ast.Break: _Walker._break,
    ast.Continue: _Walker._continue,
    ast.Global: _Walker._declare,
    ast.Nonlocal: _Walker._declare,
    ast.Assert: _Walker._assert,
    ast.Import: _Walker._import,
    ast.ImportFrom: _Walker._import,
    ast.AugAssign: _Walker._aug_assign,
    ast.AnnAssign: _Walker._ann_assign,
}
#: How the walker takes each kind of expression node that means something to a
#: detector (any other: its parts, found by :func:`children`).
_EXPRESSION_STEPS: Final[
    dict[type[ast.AST], Callable[[_Walker, Any, list[ast.AST], frozenset[str]], None]]
] = {
    ast.Name: _Walker._name,
    ast.Constant: _Walker._constant,
    ast.Attribute: _Walker._attribute,
    ast.Call: _Walker._call,
    ast.Compare: _Walker._compare,
    ast.BinOp: _Walker._binop,
    ast.Subscript: _Walker._subscript,
    ast.BoolOp: _Walker._boolop,
    ast.IfExp: _Walker._ifexp,
    ast.ListComp: _Walker._comprehension,
    ast.SetComp: _Walker._comprehension,
    ast.DictComp: _Walker._comprehension,
    ast.GeneratorExp: _Walker._comprehension,
    ast.Lambda: _Walker._lambda,
    ast.Yield: _Walker._yield,
    ast.YieldFrom: _Walker._yield,
    ast.NamedExpr: _Walker._named,
}


def _evaluated_by_enclosing(
    node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef,
) -> list[ast.expr]:
    """What the enclosing function evaluates of a nested definition: decorators,
    defaults, bases."""
    outer: list[ast.expr] = list(node.decorator_list)
    if isinstance(node, ast.ClassDef):
        outer.extend(node.bases)
        outer.extend(k.value for k in node.keywords)
    else:
        outer.extend(node.args.defaults)
        outer.extend(d for d in node.args.kw_defaults if d is not None)
    return outer


def _has_elif(node: ast.If) -> bool:
    """Whether the ``else`` of ``node`` is an ``elif`` (an ``if`` on a later line at the
    same column), not an ``else`` holding an ``if``."""
    orelse = node.orelse
    return (
        len(orelse) == 1
        and isinstance(orelse[0], ast.If)
        and orelse[0].col_offset == node.col_offset
        and orelse[0].lineno > node.lineno
    )


def _catch_all(cases: list[ast.match_case]) -> ast.match_case | None:
    """The first case that matches anything (``case _``, ``case name``), if any."""
    return next(
        (c for c in cases if isinstance(c.pattern, ast.MatchAs) and c.pattern.pattern is None),
        None,
    )


_LEAF_FIELDS: Final = frozenset({"ctx", "op", "ops", "type_comment", "kind", "conversion"})


#: The fields of each node type that can hold other expressions (``ctx`` and the
#: like left out). Every node type the parser makes is one of the ``ast`` module's;
#: a plain dict keeps the lookup on the interpreter's fast path.
_EXPRESSION_FIELDS: Final[dict[type, tuple[str, ...]]] = {
    kind: tuple(f for f in kind._fields if f not in _LEAF_FIELDS)
    for kind in vars(ast).values()
    if isinstance(kind, type) and issubclass(kind, ast.AST)
}


def children(node: ast.AST) -> list[ast.AST]:
    """The nodes under ``node`` that can hold expressions or statements (no ``ctx``)."""
    out: list[ast.AST] = []
    for name in _EXPRESSION_FIELDS[type(node)]:
        value = getattr(node, name, None)
        if type(value) is list:
            out.extend(v for v in value if isinstance(v, ast.AST))
        elif isinstance(value, ast.AST):
            out.append(value)
    return out


def _if_blocks(node: ast.If, depth: int) -> list[tuple[list[ast.stmt], int]]:
    return [(node.body, depth + 1), (node.orelse, depth if _has_elif(node) else depth + 1)]


def _loop_blocks(
    node: ast.For | ast.AsyncFor | ast.While, depth: int
) -> list[tuple[list[ast.stmt], int]]:
    return [(node.body, depth + 1), (node.orelse, depth + 1)]


def _match_blocks(node: ast.Match, depth: int) -> list[tuple[list[ast.stmt], int]]:
    return [(c.body, depth + 1) for c in node.cases]


def _with_blocks(node: ast.With | ast.AsyncWith, depth: int) -> list[tuple[list[ast.stmt], int]]:
    return [(node.body, depth)]


def _try_blocks(node: ast.Try | ast.TryStar, depth: int) -> list[tuple[list[ast.stmt], int]]:
    held = [node.body, *(h.body for h in node.handlers), node.orelse, node.finalbody]
    return [(block, depth) for block in held]


#: The statement lists each compound statement holds, each with its depth.
_BLOCKS: Final[dict[type[ast.stmt], Callable[[Any, int], list[tuple[list[ast.stmt], int]]]]] = {
    ast.If: _if_blocks,
    ast.For: _loop_blocks,
    ast.AsyncFor: _loop_blocks,
    ast.While: _loop_blocks,
    ast.Match: _match_blocks,
    ast.With: _with_blocks,
    ast.AsyncWith: _with_blocks,
    ast.Try: _try_blocks,
    ast.TryStar: _try_blocks,
}


def real_depth(body: list[ast.stmt]) -> int:
    """How many if/for/while/match levels the deepest statement of ``body`` sits in.

    The same figure as :attr:`FunctionView.max_depth`, from the statements alone.
    """
    deepest = 0
    stack: list[tuple[list[ast.stmt], int]] = [(body, 0)]
    while stack:
        statements, depth = stack.pop()
        for node in statements:
            if isinstance(node, _NESTED):
                continue
            deepest = max(deepest, depth)
            blocks = _BLOCKS.get(type(node))
            if blocks is not None:
                stack.extend(blocks(node, depth))
    return deepest


def parameter_names_of(args: ast.arguments) -> list[str]:
    names = [a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)]
    if args.vararg:
        names.append(args.vararg.arg)
    if args.kwarg:
        names.append(args.kwarg.arg)
    return names


def target_names(target: ast.expr) -> list[str]:
    """The names an assignment or loop target binds (each of those it unpacks to)."""
    return [n.id for n in ast.walk(target) if isinstance(n, ast.Name)]


def view_of(fn: FunctionNode, keywords: KeywordLines = NO_KEYWORDS) -> FunctionView:
    """Walk ``fn`` once (its own code only) and gather what detectors read;
    ``keywords`` places the keywords the tree does not (else the operand's line)."""
    walker = _Walker(fn, keywords)
    params = parameter_names(fn)
    start = (fn.lineno, fn.col_offset)
    for name in params:
        walker._store(name, start)
    body = walker.block(fn.body, None, 0)
    walker.jumps.sort(key=lambda j: j.pos)
    for positions in (*walker.loads.values(), *walker.stores.values(), *walker.mutations.values()):
        positions.sort()
    return FunctionView(
        node=fn,
        params=params,
        body=body,
        statements=walker.statements,
        points=walker.points,
        jumps=walker.jumps,
        nested=walker.nested,
        nested_nodes=walker.nested_nodes,
        loads=walker.loads,
        stores=walker.stores,
        mutations=walker.mutations,
        method_calls=walker.method_calls,
        boolops=walker.boolops,
        chains=walker.chains,
        max_depth=walker.max_depth,
        declared=frozenset(walker.declared),
        tuned=frozenset(n for n in keywords.tuned if fn.lineno - 1 <= n <= _end_line(fn)),
        elses_after_leaving=keywords.elses_after_leaving,
    )
