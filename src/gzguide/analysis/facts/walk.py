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
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Final

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
#: Statements that hold no statements.
_SIMPLE: Final = frozenset(
    {
        ast.Expr,
        ast.Assign,
        ast.AugAssign,
        ast.AnnAssign,
        ast.Return,
        ast.Raise,
        ast.Pass,
        ast.Break,
        ast.Continue,
        ast.Import,
        ast.ImportFrom,
        ast.Global,
        ast.Nonlocal,
        ast.Assert,
        ast.Delete,
    }
)
#: The statements that add a level of real nesting.
_LEVELS: Final = (ast.If, ast.For, ast.AsyncFor, ast.While, ast.Match)
_COMPREHENSIONS: Final = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)

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
        for stmt in self.statements:
            if stmt.depth == self.max_depth:
                enclosing = []
                parent = stmt.parent
                while parent is not None:
                    if not parent.is_elif and isinstance(parent.node, _LEVELS):
                        enclosing.append(parent.node)
                    parent = parent.parent
                if all(isinstance(n, ast.If) for n in enclosing):
                    return True
        return False

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
        # What the enclosing function evaluates: decorators, defaults, bases.
        outer: list[ast.expr] = list(node.decorator_list)
        if isinstance(node, ast.ClassDef):
            outer.extend(node.bases)
            outer.extend(k.value for k in node.keywords)
        else:
            outer.extend(node.args.defaults)
            outer.extend(d for d in node.args.kw_defaults if d is not None)
        self._uncounted(outer)  # radon scores a nested scope on its own
        self._store(node.name, start)

    def statement(self, node: ast.stmt, parent: Stmt | None, depth: int) -> Stmt:
        stmt = Stmt(node, parent, depth)
        self.statements.append(stmt)
        if depth > self.max_depth:
            self.max_depth = depth
        if type(node) in _SIMPLE:
            # No blocks: its points (an assert, or expressions') are its own.
            outer_points, outer_conditions = self._points, self._conditions
            self._points = self._conditions = 0
            self.simple(node, (node.lineno, node.col_offset))
            stmt.points, stmt.conditions = self._points, self._conditions
            self._points += outer_points
            self._conditions += outer_conditions
            return stmt
        outer_points, outer_conditions = self._points, self._conditions
        self._points = self._conditions = 0
        pos = (node.lineno, node.col_offset)
        if isinstance(node, ast.If):
            self._point(node.lineno, "if", 1, 1)
            self.expression(node.test)
            stmt.blocks.append(self.block(node.body, stmt, depth + 1))
            orelse = node.orelse
            if (
                len(orelse) == 1
                and isinstance(orelse[0], ast.If)
                and (orelse[0].col_offset == node.col_offset and orelse[0].lineno > node.lineno)
            ):
                elif_stmt = self.statement(orelse[0], stmt, depth)
                elif_stmt.is_elif = True
                elif_stmt.container = orelse
                stmt.blocks.append([elif_stmt])  # its points are already counted in ours
            else:
                stmt.blocks.append(self.block(orelse, stmt, depth + 1))
        elif isinstance(node, ast.For | ast.AsyncFor):
            self._point(node.lineno, "loop", 1, 1)
            self._loop_else(node)
            self.expression(node.iter)
            self.expression(node.target)
            self.loops.append(pos)
            stmt.blocks.append(self.block(node.body, stmt, depth + 1))
            self.loops.pop()
            stmt.blocks.append(self.block(node.orelse, stmt, depth + 1))
        elif isinstance(node, ast.While):
            self._point(node.lineno, "loop", 1, 1)
            self._loop_else(node)
            self.expression(node.test)
            self.loops.append(pos)
            stmt.blocks.append(self.block(node.body, stmt, depth + 1))
            self.loops.pop()
            stmt.blocks.append(self.block(node.orelse, stmt, depth + 1))
        elif isinstance(node, ast.Try | ast.TryStar):
            if isinstance(node, ast.Try):  # radon does not count except* (TryStar)
                for handler in node.handlers:
                    self._point(handler.lineno, "except", 1, 0)
                if node.orelse:
                    last = node.handlers[-1] if node.handlers else node.body[-1]
                    line = self.keywords.else_line(_end_line(last), node.orelse[0].lineno)
                    self._point(line, "else", 1, 0)
            self._conditions += len(node.handlers)
            stmt.blocks.append(self.block(node.body, stmt, depth))
            for handler in node.handlers:
                if handler.type is not None:
                    self.expression(handler.type)
                if handler.name:
                    self._store(handler.name, (handler.lineno, handler.col_offset))
                stmt.blocks.append(self.block(handler.body, stmt, depth))
            stmt.blocks.append(self.block(node.orelse, stmt, depth))
            stmt.blocks.append(self.block(node.finalbody, stmt, depth))
        elif isinstance(node, ast.With | ast.AsyncWith):
            for item in node.items:
                self.expression(item.context_expr)
                if item.optional_vars is not None:
                    self.expression(item.optional_vars)
            stmt.blocks.append(self.block(node.body, stmt, depth))
        elif isinstance(node, ast.Match):
            # radon counts every case but one catch-all (``case _``, ``case name``);
            # each point sits on its case's line.
            catch_all = next(
                (
                    c
                    for c in node.cases
                    if isinstance(c.pattern, ast.MatchAs) and c.pattern.pattern is None
                ),
                None,
            )
            for case in node.cases:
                if case is not catch_all:
                    self._point(case.pattern.lineno, "case", 1, 0)
            self.expression(node.subject)
            for case in node.cases:
                self._pattern_names(case.pattern)
                if case.guard is not None:
                    self.expression(case.guard)
                stmt.blocks.append(self.block(case.body, stmt, depth + 1))
        else:
            self.simple(node, pos)
        stmt.points = self._points
        stmt.conditions = self._conditions
        self._points = outer_points + stmt.points
        self._conditions = outer_conditions + stmt.conditions
        return stmt

    def simple(self, node: ast.stmt, pos: Pos) -> None:
        kind = type(node)
        if kind is ast.Assign:
            assert isinstance(node, ast.Assign)
            self.expression(node.value)
            self.expressions(node.targets)
        elif kind is ast.Expr:
            assert isinstance(node, ast.Expr)
            self.expression(node.value)
        elif isinstance(node, ast.Return):
            self.jumps.append(Jump(pos, RETURN))
            if node.value is not None:
                self.expression(node.value)
        elif isinstance(node, ast.Raise):
            self.jumps.append(Jump(pos, RAISE))
            self.expressions([e for e in (node.exc, node.cause) if e is not None])
        elif isinstance(node, ast.Break | ast.Continue):
            leaves = BREAK if isinstance(node, ast.Break) else CONTINUE
            self.jumps.append(Jump(pos, leaves, self.loops[-1] if self.loops else None))
        elif isinstance(node, ast.Global | ast.Nonlocal):
            self.jumps.append(Jump(pos, DECLARE))
            self.declared.update(node.names)
        elif isinstance(node, ast.Assert):
            self._point(node.lineno, "assert", 1, 0)
            # radon counts an assert once and never looks inside it
            self._uncounted([e for e in (node.test, node.msg) if e is not None])
        elif isinstance(node, ast.Import | ast.ImportFrom):
            for alias in node.names:
                name = alias.asname or alias.name.partition(".")[0]
                if name != "*":
                    self._store(name, pos)
        elif isinstance(node, ast.AugAssign):
            self.expression(node.value)
            if isinstance(node.target, ast.Name):
                self._load(node.target.id, pos)
            self.expression(node.target)
        elif isinstance(node, ast.AnnAssign):
            if node.value is not None:
                self.expression(node.value)
                self.expression(node.target)
        else:
            self.expressions([c for c in ast.iter_child_nodes(node) if isinstance(c, ast.expr)])

    def _pattern_names(self, pattern: ast.pattern) -> None:
        for sub in ast.walk(pattern):
            name = getattr(sub, "name", None) or getattr(sub, "rest", None)
            if isinstance(name, str) and isinstance(sub, ast.pattern):
                self._store(name, (sub.lineno, sub.col_offset))
            elif isinstance(sub, ast.MatchValue | ast.MatchClass):
                self.expression(sub.value if isinstance(sub, ast.MatchValue) else sub.cls)

    # -- expressions -----------------------------------------------------------------

    def expressions(self, nodes: list[ast.expr]) -> None:
        for node in nodes:
            self.expression(node)

    def expression(self, root: ast.expr, local: frozenset[str] = frozenset()) -> None:
        """Walk one expression; ``local`` holds names a comprehension or lambda binds."""
        stack: list[ast.AST] = [root]
        pop, push, extend = stack.pop, stack.append, stack.extend
        while stack:
            node = pop()
            kind = type(node)
            if kind is ast.Name:
                assert isinstance(node, ast.Name)
                if node.id not in local:
                    pos = (node.lineno, node.col_offset)
                    if type(node.ctx) is ast.Load:
                        self._load(node.id, pos)
                    else:
                        self._store(node.id, pos)
            elif kind is ast.Constant:
                pass
            elif kind is ast.Attribute:
                assert isinstance(node, ast.Attribute)
                value = node.value
                if type(node.ctx) is not ast.Load:
                    self._mutate(value)
                elif type(value) in _LINKS and id(node) not in self._inner:
                    self._chain(node)
                push(value)
            elif kind is ast.Call:
                assert isinstance(node, ast.Call)
                func = node.func
                if type(func) is ast.Attribute:
                    if func.attr in MUTATORS:
                        self._mutate(func.value)
                    if type(func.value) is ast.Name:
                        key = f"{func.value.id}.{func.attr}"
                        calls = self.method_calls.setdefault(key, [])
                        calls.append((node.lineno, node.col_offset))
                    if type(func.value) in _LINKS and id(node) not in self._inner:
                        self._chain(node)
                push(func)
                extend(node.args)
                extend(k.value for k in node.keywords)
            elif kind is ast.Compare:
                assert isinstance(node, ast.Compare)
                push(node.left)
                extend(node.comparators)
            elif kind is ast.BinOp:
                assert isinstance(node, ast.BinOp)
                push(node.left)
                push(node.right)
            elif kind is ast.Subscript:
                assert isinstance(node, ast.Subscript)
                if type(node.ctx) is not ast.Load:
                    self._mutate(node.value)
                push(node.value)
                push(node.slice)
            elif kind is ast.BoolOp:
                assert isinstance(node, ast.BoolOp)
                word = "and" if isinstance(node.op, ast.And) else "or"
                for left, right in pairwise(node.values):  # each at its keyword
                    line = self.keywords.boolop_line(word, _end_line(left), right.lineno)
                    self._point(line, word, 1, 1)
                if self._counting:  # an and/or radon does not count is not ours to rewrite
                    self.boolops.append(node)
                extend(node.values)
            elif kind is ast.IfExp:
                assert isinstance(node, ast.IfExp)
                self._point(node.lineno, "ternary", 1, 1)
                extend((node.test, node.body, node.orelse))
            elif kind in _COMPREHENSIONS:
                assert isinstance(
                    node, ast.ListComp | ast.SetComp | ast.DictComp | ast.GeneratorExp
                )
                self._comprehension(node, local)
            elif kind is ast.Lambda:
                assert isinstance(node, ast.Lambda)
                args = node.args
                extend(d for d in (*args.defaults, *args.kw_defaults) if d)
                self.expression(node.body, local | frozenset(parameter_names_of(args)))
            elif kind is ast.Yield or kind is ast.YieldFrom:
                assert isinstance(node, ast.Yield | ast.YieldFrom)
                self.jumps.append(Jump((node.lineno, node.col_offset), YIELD))
                if node.value is not None:
                    push(node.value)
            elif kind is ast.NamedExpr:
                assert isinstance(node, ast.NamedExpr)
                push(node.value)
                target = node.target
                self._store(target.id, (target.lineno, target.col_offset))
            else:
                extend(children(node))

    def _comprehension(
        self,
        node: ast.ListComp | ast.SetComp | ast.DictComp | ast.GeneratorExp,
        local: frozenset[str],
    ) -> None:
        bound = set(local)
        for generator in node.generators:
            line = getattr(generator.iter, "lineno", node.lineno)
            self._point(line, "comprehension", 1, 1)
            for test in generator.ifs:
                self._point(test.lineno, "filter", 1, 1)
            bound.update(_target_names(generator.target))
        # The first iterable is evaluated in the enclosing scope, the rest in the
        # comprehension's own.
        self.expression(node.generators[0].iter, local)
        inner = frozenset(bound)
        for generator in node.generators:
            if generator is not node.generators[0]:
                self.expression(generator.iter, inner)
            for test in generator.ifs:
                self.expression(test, inner)
        if isinstance(node, ast.DictComp):
            self.expression(node.key, inner)
            self.expression(node.value, inner)
        else:
            self.expression(node.elt, inner)

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


#: The fields of each node type that can hold other expressions (``ctx`` and the
#: like left out), found on first sight of the type.
_EXPRESSION_FIELDS: dict[type, tuple[str, ...]] = {}
_LEAF_FIELDS: Final = frozenset({"ctx", "op", "ops", "type_comment", "kind", "conversion"})


def children(node: ast.AST) -> list[ast.AST]:
    """The nodes under ``node`` that can hold expressions or statements (no ``ctx``)."""
    fields = _EXPRESSION_FIELDS.get(type(node))
    if fields is None:
        fields = tuple(f for f in node._fields if f not in _LEAF_FIELDS)
        _EXPRESSION_FIELDS[type(node)] = fields
    out: list[ast.AST] = []
    for name in fields:
        value = getattr(node, name, None)
        if type(value) is list:
            out.extend(v for v in value if isinstance(v, ast.AST))
        elif isinstance(value, ast.AST):
            out.append(value)
    return out


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
            if isinstance(node, ast.If):
                stack.append((node.body, depth + 1))
                orelse = node.orelse
                is_elif = (
                    len(orelse) == 1
                    and isinstance(orelse[0], ast.If)
                    and orelse[0].col_offset == node.col_offset
                    and orelse[0].lineno > node.lineno
                )
                stack.append((orelse, depth if is_elif else depth + 1))
            elif isinstance(node, ast.For | ast.AsyncFor | ast.While):
                stack.append((node.body, depth + 1))
                stack.append((node.orelse, depth + 1))
            elif isinstance(node, ast.Match):
                stack.extend((c.body, depth + 1) for c in node.cases)
            elif isinstance(node, ast.With | ast.AsyncWith):
                stack.append((node.body, depth))
            elif isinstance(node, ast.Try | ast.TryStar):
                stack.append((node.body, depth))
                stack.extend((h.body, depth) for h in node.handlers)
                stack.append((node.orelse, depth))
                stack.append((node.finalbody, depth))
    return deepest


def parameter_names_of(args: ast.arguments) -> list[str]:
    names = [a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)]
    if args.vararg:
        names.append(args.vararg.arg)
    if args.kwarg:
        names.append(args.kwarg.arg)
    return names


def _target_names(target: ast.expr) -> list[str]:
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
    )
