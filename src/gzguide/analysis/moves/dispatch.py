"""If/elif chains (and ``if ...: return`` ladders, and ``match``) that choose by one value.

A chain is a dispatch when 3 or more of its arms (three quarters of them at least)
test the same subject:

* by **type** (``isinstance(x, T)``, ``type(x) is T``, class patterns) or by **tag**
  (``x.kind == "..."``, ``msg["type"] == "..."``): behaviour is chosen per case, so
  each case can be a handler in a table (``switch_on_type``);
* by a bare **code** the function was handed (a parameter compared with three or
  more literals): a primitive standing for a closed set of cases
  (``primitive_obsession``): an Enum names them, a table of handlers replaces the
  chain;
* by a bare code, with arms that do the same thing with other values: still a
  code, but the values are a table (``table_of_cases``);
* by **literal value**, with every arm only producing a value (one ``return`` or one
  assignment to the same name): the chain is a table written as code
  (``dict_lookup``).

And ``table_of_cases`` without a chain: three or more ``if`` statements in a row
whose bodies do the same thing with other values.

The gain is every decision point of the chain: its arms move into handlers or
become table entries.
"""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Iterator
from itertools import islice
from typing import Final, NamedTuple

from gzguide.analysis.facts.astshape import code_lines, shape
from gzguide.analysis.facts.twins import differences
from gzguide.analysis.facts.walk import FunctionView, Stmt
from gzguide.analysis.moves.base import UNCLASSIFIED, Concern, Move, code, lines
from gzguide.analysis.moves.kinds import Kind
from gzguide.analysis.moves.registry import function_rule
from gzguide.analysis.moves.syntax import extent, if_chain

SWITCH: Final = "switch_on_type"
PRIMITIVE: Final = "primitive_obsession"
#: Attribute or key names that hold a discriminating tag.
TAG_NAMES: Final = frozenset(
    {"type", "kind", "tag", "variant", "op", "opcode", "category", "__class__", "mode", "command"}
)
MIN_ARMS: Final = 3
#: A table of handlers pays off from this many arms, or from a chain this long.
HANDLER_ARMS: Final = 4
HANDLER_LINES: Final = 12
#: Up to so many arms of one line each read better as they are than as handlers.
ONE_LINE_ARMS: Final = 5
#: Two same-shaped ``if``s in a row make a helper when each is a block of this many
#: lines.
BLOCK_REPEAT_LINES: Final = 4


class _Test(NamedTuple):
    kind: str  # "type", "tag", "code" or "value"
    subject: str  # ast.dump of the subject expression
    shown: ast.expr


def _subject_of(test: ast.expr, params: frozenset[str]) -> _Test | None:
    match test:
        case ast.BoolOp(op=ast.Or(), values=values):
            return _common_subject(values, params)
        case ast.Call(func=ast.Name(id="isinstance" | "issubclass"), args=[subject, _]):
            return _Test("type", ast.dump(subject), subject)
        case ast.Call(
            func=ast.Attribute(value=subject, attr="startswith" | "endswith"),
            args=[ast.Constant() | ast.Tuple()],
        ):
            return _Test("value", ast.dump(subject), subject)
        case ast.Compare():
            return _compared(test, params)
    return None


def _compared(test: ast.Compare, params: frozenset[str]) -> _Test | None:
    """What a comparison tests: either side of ``==``/``is``; the left of ``in`` a literal
    collection (``x in (A, B)`` tests x; ``"key" in mapping`` asks whether a key is
    there, which is no test of one value)."""
    match test:
        case ast.Compare(left=left, ops=[ast.Eq() | ast.Is()], comparators=[right]):
            return _side_test(left, right, params) or _side_test(right, left, params)
        case ast.Compare(
            left=left, ops=[ast.In()], comparators=[ast.Tuple() | ast.List() | ast.Set() as right]
        ):
            return _side_test(left, right, params)
    return None


def _common_subject(values: list[ast.expr], params: frozenset[str]) -> _Test | None:
    """The first operand's test, when every operand of an ``or`` tests the same subject."""
    found = [_subject_of(v, params) for v in values]
    first = found[0]
    if first is None or any(f is None or f.subject != first.subject for f in found):
        return None
    return first


def _side_test(subject: ast.expr, value: ast.expr, params: frozenset[str]) -> _Test | None:
    """What ``subject == value`` tests of ``subject``, when it tests it."""
    match subject:
        case ast.Call(func=ast.Name(id="type"), args=[typed]):
            return _Test("type", ast.dump(typed), typed)
    kind = _tested_as(subject, params) if _literal(value) else None
    return None if kind is None else _Test(kind, ast.dump(subject), subject)


def _tested_as(subject: ast.expr, params: frozenset[str]) -> str | None:
    """How comparing ``subject`` with a literal chooses: by its tag, as a code, or by its
    value; None when it is no subject (a literal itself, an operation)."""
    match subject:
        case ast.Attribute(attr=attr) if attr in TAG_NAMES:
            return "tag"
        case ast.Subscript(slice=ast.Constant(value=key)) if key in TAG_NAMES:
            return "tag"
        case ast.Name(id=name) if name in params or name in TAG_NAMES:
            # A bare code handed in (or named as one), standing for a closed set.
            return "code"
        case ast.Name() | ast.Attribute() | ast.Subscript() | ast.Call():
            return "value"
    return None


def _literal(node: ast.expr) -> bool:
    """A literal, or a name spelled like a constant (``ARG_POS``, ``Kind.OPEN``)."""
    match node:
        case ast.Constant(value=value):
            return value is not None and not isinstance(value, bool)
        case ast.Tuple(elts=elts) | ast.List(elts=elts) | ast.Set(elts=elts) if elts:
            return all(_literal(e) for e in elts)
        case ast.Name(id=name) | ast.Attribute(attr=name):
            return name.isupper()
    return False


#: An arm of a chain: its test, its body and its line.
Arm = tuple[ast.expr, list[ast.stmt], int]


def chain_arms(stmt: Stmt, node: ast.If) -> list[Arm]:
    """(test, body, line) of each arm: an if/elif chain, or a ladder of returning ifs."""
    chain = if_chain(node)
    if len(chain) > 1 or chain[-1].orelse:
        return [(arm.test, arm.body, arm.lineno) for arm in chain]
    return _ladder(stmt)


def _ladder(stmt: Stmt) -> list[Arm]:
    """This ``if`` and the ones right after it, each without an ``else``, as long as
    each leaves the function."""
    ladder: list[Arm] = []
    for following in islice(stmt.container, stmt.index, None):
        match following:
            case ast.If(body=[*_, ast.Return() | ast.Raise()], orelse=[]):
                ladder.append((following.test, following.body, following.lineno))
            case _:
                break
    return ladder


def value_arm(body: list[ast.stmt]) -> str | None:
    """What an arm that only produces a fixed value sets (``return`` or the name); else None."""
    match body:
        case [ast.Return(value=ast.expr() as value)] if _fixed(value):
            return "return"
        case [ast.Assign(targets=[ast.Name(id=name)], value=value)] if _fixed(value):
            return name
    return None


def _fixed(value: ast.expr) -> bool:
    """A value a table can hold: a literal, a name, a dotted name, or a tuple of those."""
    if isinstance(value, ast.Tuple):
        return all(_fixed(e) for e in value.elts)
    if isinstance(value, ast.UnaryOp) and isinstance(value.operand, ast.Constant):
        return True
    while isinstance(value, ast.Attribute):
        value = value.value
    return isinstance(value, ast.Constant | ast.Name)


class _Chain(NamedTuple):
    """A chain of arms that test one subject, most of them."""

    view: FunctionView
    stmt: Stmt
    node: ast.If
    arms: list[Arm]
    #: How most arms test the subject: "type", "tag", "code" or "value".
    kind: str
    shown: ast.expr
    #: How many arms test the subject.
    tested: int

    @property
    def bodies(self) -> list[list[ast.stmt]]:
        return [body for _, body, _ in self.arms]

    @property
    def span(self) -> tuple[int, int]:
        last = self.arms[-1][1][-1]
        return (self.arms[0][2], max(self.stmt.end_line, extent(last)[1]))

    @property
    def cases(self) -> int:
        """How many arms the chain has for whoever reads the count: a final ``else`` too."""
        return len(self.arms) + bool(_final_else(self.node))

    @property
    def points(self) -> int:
        return _chain_points(self.view, self.stmt, len(self.arms))


def _final_else(node: ast.If) -> list[ast.stmt]:
    return if_chain(node)[-1].orelse


def _one_subject(
    view: FunctionView, stmt: Stmt, node: ast.If, params: frozenset[str]
) -> _Chain | None:
    """The chain that starts at ``node``, when it has :data:`MIN_ARMS` arms that test one
    subject, and three quarters of its arms do."""
    arms = chain_arms(stmt, node)
    if len(arms) < MIN_ARMS:
        return None
    tests = [t for test, _, _ in arms if (t := _subject_of(test, params)) is not None]
    matching = _most_tested(tests, len(arms))
    if matching is None:
        return None
    return _Chain(view, stmt, node, arms, _kind_of(matching), matching[0].shown, len(matching))


def _most_tested(tests: list[_Test], arms: int) -> list[_Test] | None:
    """The tests of the subject tested most, when they are :data:`MIN_ARMS` and three
    quarters of a chain of ``arms`` arms at least."""
    match Counter(t.subject for t in tests).most_common(1):
        case [(subject, hits)] if hits >= MIN_ARMS and hits * 4 >= arms * 3:
            return [t for t in tests if t.subject == subject]
    return None


def _kind_of(tests: list[_Test]) -> str:
    """How a chain chooses: by type if any arm tests the type, else as its first arm does."""
    return "type" if any(t.kind == "type" for t in tests) else tests[0].kind


def _chain_move(
    view: FunctionView, stmt: Stmt, node: ast.If, params: frozenset[str]
) -> Move | None:
    chain = _one_subject(view, stmt, node, params)
    if chain is None or _tests_local_imports(chain):
        return None
    return _move_for(chain)


def _tests_local_imports(chain: _Chain) -> bool:
    """Whether a type chain tests a class of a module the function imports itself
    (``import tables`` inside it, an optional dependency): handlers registered on that
    type would need the import at module level (a fresh review's petl
    ``_get_hdf5_table``, judged wrong)."""
    if chain.kind != "type":
        return False
    local = _imported_names(chain.view)
    return any(name in local for test, _, _ in chain.arms for name in _names_in(test))


def _imported_names(view: FunctionView) -> set[str]:
    found: set[str] = set()
    for stmt in view.statements:
        if isinstance(stmt.node, ast.Import | ast.ImportFrom):
            found.update((a.asname or a.name).partition(".")[0] for a in stmt.node.names)
    return found


def _names_in(test: ast.expr) -> set[str]:
    return {n.id for n in ast.walk(test) if isinstance(n, ast.Name)}


def _move_for(chain: _Chain) -> Move | None:
    """The move a chain on one subject calls for."""
    if _maps_values(chain):
        return _lookup_move(chain)
    if chain.kind == "value" or _mixed_type_chain(chain):
        return None  # choosing behaviour by a plain local's value: a parser's job, often
    if chain.kind == "code" and _one_thing(chain):
        return _table_move(chain)
    return _handlers_move(chain)


def _mixed_type_chain(chain: _Chain) -> bool:
    """A chain on a type with an arm that tests something else: that arm must win where
    it does, whatever the type, which dispatching on the type cannot say."""
    return chain.kind == "type" and chain.tested < len(chain.arms)


def _maps_values(chain: _Chain) -> bool:
    """Whether every arm only produces a fixed value, on a subject other than a type (a
    dict keyed by type would miss the subclasses the ``isinstance`` tests accept)."""
    return chain.kind != "type" and all(value_arm(body) for body in chain.bodies)


def _one_thing(chain: _Chain) -> bool:
    """Whether every arm does the same thing with other values, to the same names."""
    return _same_shapes(chain) and _same_targets(chain)


def _same_targets(chain: _Chain) -> bool:
    """Whether every arm sets the same names: arms that each set another variable
    (``headers = ...``, ``uri = ...``, ``body = ...``) do no one thing a table of
    values could say (a fresh review's oauthlib ``_add_bearer_token``, judged wrong)."""
    return len({frozenset(_stored(body)) for body in chain.bodies}) == 1


def _stored(body: list[ast.stmt]) -> set[str]:
    return {
        n.id
        for stmt in body
        for n in ast.walk(stmt)
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
    }


def _same_shapes(chain: _Chain) -> bool:
    """Whether every arm does the same thing with other values."""
    return len({_body_shape(body) for body in chain.bodies}) == 1


def _lookup_move(chain: _Chain) -> Move | None:
    """Every arm only produces a value, the same name each: a dict lookup."""
    if len({value_arm(body) for body in chain.bodies}) != 1:
        return None
    span = chain.span
    text = (
        f"The chain at {lines(*span)} maps {len(chain.arms)} values of {code(chain.shown, 40)} "
        "to results: a dict lookup (or a table of prefixes) replaces it."
    )
    size = max(0, span[1] - span[0] + 1 - len(chain.arms) - 1)
    gains = {Concern.COMPLEXITY: chain.points, Concern.SIZE: size}
    return Move(Kind.DICT_LOOKUP, UNCLASSIFIED, text, span, gains, priority=5)


def _table_move(chain: _Chain) -> Move:
    """Arms that do the same thing with other values: the values are a table."""
    span, arms = chain.span, len(chain.arms)
    text = (
        f"The {arms} arms of the chain at {lines(*span)} do the same thing with other "
        f"values: a table from {code(chain.shown, 30)} to those values and one arm say it once."
    )
    gains = {
        Concern.COMPLEXITY: chain.points,
        Concern.SIZE: max(0, span[1] - span[0] + 1 - 2 * arms),
    }
    return Move(Kind.TABLE_OF_CASES, PRIMITIVE, text, span, gains, priority=5)


#: What replaces a long chain that picks behaviour, by how it picks.
_REMEDIES: Final = {
    # singledispatch follows the class hierarchy; a dict keyed by type() would miss
    # every subclass the isinstance tests accept.
    "type": (
        "`functools.singledispatch` or a method on each type replaces it "
        "(where types overlap, the most specific wins, not the first tested)."
    ),
    "tag": "a dict from each tag to a handler function replaces it.",
    "code": "an Enum of the codes and a dict from each to a handler replace it.",
    "named code": "a dict from each code to a handler replaces it.",
}


def _remedy(chain: _Chain) -> str:
    """What replaces the chain; codes that already have names need no Enum."""
    named = chain.kind == "code" and all(_compares_with_a_name(test) for test, _, _ in chain.arms)
    return _REMEDIES["named code" if named else chain.kind]


def _compares_with_a_name(test: ast.expr) -> bool:
    match test:
        case ast.Compare(comparators=[ast.Name() | ast.Attribute()]):
            return True
    return False


def _handlers_move(chain: _Chain) -> Move:
    """A chain that picks behaviour by type, tag or code: a table of handlers, once it
    is long enough to pay off."""
    archetype = SWITCH if chain.kind in ("type", "tag") else PRIMITIVE
    if _short(chain):
        return _short_switch_move(chain, archetype)
    span = chain.span
    text = (
        f"The chain at {lines(*span)} picks behaviour by the {chain.kind} of "
        f"{code(chain.shown, 40)} in {chain.cases} arms: {_remedy(chain)}"
    )
    return Move(Kind.DISPATCH_TABLE, archetype, text, span, {Concern.COMPLEXITY: chain.points}, 6)


def _short(chain: _Chain) -> bool:
    """A short chain reads better than a table of three handlers, or of a few one-line
    handlers (whatever its ``else`` holds)."""
    if len(chain.arms) <= ONE_LINE_ARMS and all(code_lines(b) == 1 for b in chain.bodies):
        return True
    return code_lines([chain.node]) < HANDLER_LINES and len(chain.arms) < HANDLER_ARMS


def _short_switch_move(chain: _Chain, archetype: str) -> Move:
    """A short chain is still the function's shape, and the place a table goes once more
    cases join. A type chain is left as it is: tested in order, it may rely on subclasses
    reaching the first arm that fits, which a table keyed by type would not do."""
    later = (
        ""
        if chain.kind == "type"
        else ", and the place for a table of handlers once more cases join"
    )
    span = chain.span
    text = (
        f"The chain at {lines(*span)} picks behaviour by the {chain.kind} of "
        f"{code(chain.shown, 40)} in {chain.cases} short arms: clear as it is{later}."
    )
    return Move(Kind.SHORT_SWITCH, archetype, text, span, {}, priority=0)


def _body_shape(body: list[ast.stmt]) -> object:
    return tuple(shape(s) for s in body)


def _chain_points(view: FunctionView, stmt: Stmt, arms: int) -> int:
    """Every point of the chain: the if/elif statement, or the ladder's ifs."""
    node = stmt.node
    if isinstance(node, ast.If) and node.orelse:
        return stmt.points
    ladder = stmt.container[stmt.index : stmt.index + arms]
    return sum(s.points for n in ladder if (s := view.stmt_of(n)) is not None)


def _match_move(stmt: Stmt, node: ast.Match) -> Move | None:
    classes = sum(isinstance(c.pattern, ast.MatchClass) for c in node.cases)
    arms = _match_arms(node, classes)
    span = extent(node)
    if arms < MIN_ARMS or _short_cases(node, arms, span):
        return None
    by = "type" if classes else "value"
    text = (
        f"The `match` at {lines(*span)} picks behaviour by the {by} of "
        f"{code(node.subject, 40)} in {arms} cases: {_MATCH_REMEDIES[by]}"
    )
    return Move(Kind.DISPATCH_TABLE, SWITCH, text, span, {Concern.COMPLEXITY: stmt.points}, 6)


#: What replaces a long ``match``, by what its cases test.
_MATCH_REMEDIES: Final = {
    "type": "a method on each type, or `functools.singledispatch`, replaces it.",
    "value": "a dict from each value to a handler replaces it.",
}


def _short_cases(node: ast.Match, arms: int, span: tuple[int, int]) -> bool:
    """A ``match`` that reads better than handlers: few cases in few lines, or up to
    five cases of a line or two each."""
    if arms < HANDLER_ARMS and span[1] - span[0] + 1 < HANDLER_LINES:
        return True
    return arms <= ONE_LINE_ARMS and all(code_lines(c.body) <= 2 for c in node.cases)


def _match_arms(node: ast.Match, classes: int) -> int:
    """The cases of a ``match`` that choose by type (its class patterns), when there are
    enough; all its cases when its subject is a tag; else none."""
    if classes >= MIN_ARMS:
        return classes
    match node.subject:
        case ast.Attribute(attr=attr) if attr in TAG_NAMES:
            return len(node.cases)
    return 0


def _codes_handed_in(view: FunctionView) -> frozenset[str]:
    """The parameters a chain's arms may test as codes. A special method's are set by the
    protocol that calls it (the name ``__getattr__`` is asked for is any string), so they
    are no code to replace."""
    name = view.node.name
    dunder = name.startswith("__") and name.endswith("__")
    return frozenset() if dunder else frozenset(view.params)


@function_rule(
    Kind.DISPATCH_TABLE,
    Kind.SHORT_SWITCH,
    Kind.DICT_LOOKUP,
    Kind.TABLE_OF_CASES,
    concern=Concern.COMPLEXITY,
    doc="switch_on_type",
)
def dispatch_moves(view: FunctionView) -> list[Move]:
    params = _codes_handed_in(view)
    found: list[Move] = []
    taken: set[int] = set()
    for stmt in view.statements:
        move = _dispatch_move(view, stmt, params, taken)
        if move is not None:
            found.append(move)
    return found


def _dispatch_move(
    view: FunctionView, stmt: Stmt, params: frozenset[str], taken: set[int]
) -> Move | None:
    """The move of the chain that starts at ``stmt``, unless it lies on the ``taken``
    lines of a chain found before (which then takes its lines too), or of a ``match``."""
    match stmt.node:
        case ast.If() as node if not stmt.is_elif and stmt.line not in taken:
            move = _chain_move(view, stmt, node, params)
            if move is not None:
                taken.update(range(move.span[0], move.span[1] + 1))
            return move
        case ast.Match() as node:
            return _match_move(stmt, node)
    return None


def _case_shape(node: ast.If) -> object:
    """An ``if`` of a run of cases: its test and body, values left out."""
    return (shape(node.test), tuple(shape(s) for s in node.body))


@function_rule(Kind.TABLE_OF_CASES, concern=Concern.SIZE, doc="table_of_cases")
def repeated_ifs(view: FunctionView) -> Iterator[Move]:
    """Two ``if`` statements in a row, each a block, whose bodies do the same thing
    with other values: one helper, called for each, says it once."""
    for block in _blocks_of(view):
        for run in _case_runs(block):
            # Three or more same-shaped ifs make no table: reviewers judged such tables
            # not worth making (hot paths unrolled on purpose, checks each with its own
            # message); two near copies still make a helper.
            if _near_copies(run):
                yield _run_move(run)


def _case_runs(block: list[ast.stmt]) -> Iterator[list[ast.If]]:
    """The runs of adjacent small ``if``s of one shape in ``block`` (runs of one too)."""
    run: list[ast.If] = []
    for node in block:
        case = _small_if(node)
        if case is not None and (not run or _case_shape(case) == _case_shape(run[0])):
            run.append(case)
            continue
        yield run
        run = [case] if case is not None else []
    yield run


def _near_copies(run: list[ast.If]) -> bool:
    """Two cases make a helper only when they are near copies (the helper's parameters
    are what differs); three or more make a table anyway."""
    return (
        len(run) == 2
        and min(extent(c)[1] - c.lineno + 1 for c in run) >= BLOCK_REPEAT_LINES
        and differences(run[0], run[1]) is not None
    )


def _run_move(run: list[ast.If]) -> Move:
    first, last = run[0], run[-1]
    span = (first.lineno, extent(last)[1])
    text = (
        f"The `if`s at {lines(first.lineno, first.end_lineno or 0)} and "
        f"{lines(last.lineno, span[1])} do the same thing with other values: "
        "one helper, called for each, says it once."
    )
    archetype = SWITCH if _one_subject_by_type(run) else UNCLASSIFIED
    gains = {Concern.SIZE: span[1] - span[0] + 1 - len(run) - 3}
    return Move(Kind.TABLE_OF_CASES, archetype, text, span, gains, 3)


def _one_subject_by_type(run: list[ast.If]) -> bool:
    """Whether every test is ``isinstance`` of the same subject."""
    subjects = set()
    for case in run:
        match case.test:
            case ast.Call(func=ast.Name(id="isinstance"), args=[subject, _]):
                subjects.add(ast.dump(subject))
            case _:
                return False
    return len(subjects) == 1


def _small_if(node: ast.stmt | None) -> ast.If | None:
    """An ``if`` without ``else`` of one or two statements that does not leave: a case a
    helper can take (a helper cannot return, or stop a loop, for its caller; a raise
    goes through it)."""
    match node:
        case ast.If(body=[_] | [_, _] as body, orelse=[]) if not isinstance(body[-1], _LEAVING):
            return node
    return None


#: The statements that leave the function, or the loop, they are in.
_LEAVING: Final = (ast.Return, ast.Continue, ast.Break)


def _blocks_of(view: FunctionView) -> Iterator[list[ast.stmt]]:
    yield view.node.body
    seen: set[int] = set()
    for stmt in view.statements:
        if id(stmt.container) not in seen:
            seen.add(id(stmt.container))
            if stmt.container is not view.node.body:
                yield stmt.container
