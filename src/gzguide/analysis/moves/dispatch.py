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
from dataclasses import dataclass
from typing import Final

from gzguide.analysis.facts.astshape import code_lines, shape
from gzguide.analysis.facts.twins import differences
from gzguide.analysis.facts.walk import FunctionView, Stmt
from gzguide.analysis.moves.base import UNCLASSIFIED, Concern, Move, code, lines
from gzguide.analysis.moves.kinds import Kind
from gzguide.analysis.moves.registry import function_rule

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
#: So many same-shaped ``if``s in a row make a table; two suffice when each is a
#: block of this many lines.
REPEATS: Final = 3


BLOCK_REPEAT_LINES: Final = 4


@dataclass(frozen=True, slots=True)
class _Test:
    kind: str  # "type", "tag" or "value"
    subject: str  # ast.dump of the subject expression
    shown: ast.expr


def _subject_of(test: ast.expr, params: frozenset[str]) -> _Test | None:
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or):
        found = [_subject_of(v, params) for v in test.values]
        if found and all(f is not None for f in found):
            first = found[0]
            assert first is not None
            if all(f is not None and f.subject == first.subject for f in found):
                return first
        return None
    if isinstance(test, ast.Call) and isinstance(test.func, ast.Name):
        if test.func.id in ("isinstance", "issubclass") and len(test.args) == 2:
            return _Test("type", ast.dump(test.args[0]), test.args[0])
        return None
    if (
        isinstance(test, ast.Call)
        and isinstance(test.func, ast.Attribute)
        and test.func.attr in ("startswith", "endswith")
        and len(test.args) == 1
        and isinstance(test.args[0], ast.Constant | ast.Tuple)
    ):
        return _Test("value", ast.dump(test.func.value), test.func.value)
    if not isinstance(test, ast.Compare) or len(test.ops) != 1:
        return None
    if not isinstance(test.ops[0], ast.Eq | ast.Is | ast.In):
        return None
    left, right = test.left, test.comparators[0]
    for subject, value in ((left, right), (right, left)):
        if (
            isinstance(subject, ast.Call)
            and isinstance(subject.func, ast.Name)
            and subject.func.id == "type"
            and len(subject.args) == 1
        ):
            return _Test("type", ast.dump(subject.args[0]), subject.args[0])
        if not _literal(value):
            continue
        if isinstance(subject, ast.Attribute) and subject.attr in TAG_NAMES:
            return _Test("tag", ast.dump(subject), subject)
        if (
            isinstance(subject, ast.Subscript)
            and isinstance(subject.slice, ast.Constant)
            and subject.slice.value in TAG_NAMES
        ):
            return _Test("tag", ast.dump(subject), subject)
        if isinstance(subject, ast.Name | ast.Attribute | ast.Subscript | ast.Call):
            if isinstance(subject, ast.Name) and (subject.id in params or subject.id in TAG_NAMES):
                # A bare code handed in (or named as one), standing for a closed set.
                return _Test("code", ast.dump(subject), subject)
            return _Test("value", ast.dump(subject), subject)
    return None


def _literal(node: ast.expr) -> bool:
    """A literal, or a name spelled like a constant (``ARG_POS``, ``Kind.OPEN``)."""
    if isinstance(node, ast.Constant):
        return node.value is not None and not isinstance(node.value, bool)
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return bool(node.elts) and all(_literal(e) for e in node.elts)
    if isinstance(node, ast.Name):
        return node.id.isupper()
    return isinstance(node, ast.Attribute) and node.attr.isupper()


def _arms(stmt: Stmt) -> list[tuple[ast.expr, list[ast.stmt], int]]:
    """(test, body, line) of each arm: an if/elif chain, or a ladder of returning ifs."""
    node = stmt.node
    assert isinstance(node, ast.If)
    arms = [(node.test, node.body, node.lineno)]
    current = node
    while len(current.orelse) == 1 and isinstance(current.orelse[0], ast.If):
        current = current.orelse[0]
        arms.append((current.test, current.body, current.lineno))
    if len(arms) > 1 or current.orelse:
        return arms
    # A ladder: this if and the ifs right after it, each leaving the function.
    ladder = arms
    index = stmt.index + 1
    while _leaves(ladder[-1][1]) and index < len(stmt.container):
        following = stmt.container[index]
        if not isinstance(following, ast.If) or following.orelse:
            break
        ladder.append((following.test, following.body, following.lineno))
        index += 1
    if not _leaves(ladder[-1][1]):
        ladder.pop()
    return ladder


def _final_else(node: ast.If) -> list[ast.stmt]:
    while len(node.orelse) == 1 and isinstance(node.orelse[0], ast.If):
        node = node.orelse[0]
    return node.orelse


def _leaves(body: list[ast.stmt]) -> bool:
    return bool(body) and isinstance(body[-1], ast.Return | ast.Raise)


def _value_arm(body: list[ast.stmt]) -> str | None:
    """What an arm that only produces a fixed value sets (``return`` or the name); else None."""
    if len(body) != 1:
        return None
    only = body[0]
    if isinstance(only, ast.Return) and only.value is not None and _fixed(only.value):
        return "return"
    if (
        isinstance(only, ast.Assign)
        and len(only.targets) == 1
        and isinstance(only.targets[0], ast.Name)
        and _fixed(only.value)
    ):
        return only.targets[0].id
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


def _chain_move(view: FunctionView, stmt: Stmt, params: frozenset[str]) -> Move | None:
    arms = _arms(stmt)
    if len(arms) < MIN_ARMS:
        return None
    tests = [_subject_of(test, params) for test, _, _ in arms]
    counts = Counter(t.subject for t in tests if t is not None)
    if not counts:
        return None
    subject, hits = counts.most_common(1)[0]
    if hits < MIN_ARMS or hits * 4 < len(arms) * 3:
        return None
    matching = [t for t in tests if t is not None and t.subject == subject]
    kind = "type" if any(t.kind == "type" for t in matching) else matching[0].kind
    shown = matching[0].shown
    first_line = arms[0][2]
    last = arms[-1][1][-1]
    # A final else is an arm too, for whoever reads the count.
    cases = len(arms) + bool(isinstance(stmt.node, ast.If) and _final_else(stmt.node))
    span = (first_line, max(stmt.end_line, last.end_lineno or last.lineno))
    chain_points = _chain_points(view, stmt, len(arms))
    gains = {Concern.COMPLEXITY: chain_points}
    where = lines(*span)
    if kind != "type" and all(_value_arm(body) for _, body, _ in arms):
        produced = {_value_arm(body) for _, body, _ in arms}
        if len(produced) != 1:
            return None
        text = (
            f"The chain at {where} maps {len(arms)} values of {code(shown, 40)} to results: "
            "a dict lookup (or a table of prefixes) replaces it."
        )
        gains[Concern.SIZE] = max(0, span[1] - span[0] + 1 - len(arms) - 1)
        return Move(Kind.DICT_LOOKUP, UNCLASSIFIED, text, span, gains, priority=5)
    if kind == "value":
        return None  # choosing behaviour by a plain local's value: a parser's job, often
    bodies = [body for _, body, _ in arms]
    if kind == "code" and len({_body_shape(b) for b in bodies}) == 1:
        # Arms that do the same thing with other values: the values are a table.
        text = (
            f"The {len(arms)} arms of the chain at {where} do the same thing with other "
            f"values: a table from {code(shown, 30)} to those values and one arm say it once."
        )
        gains[Concern.SIZE] = max(0, span[1] - span[0] + 1 - 2 * len(arms))
        return Move(Kind.TABLE_OF_CASES, PRIMITIVE, text, span, gains, priority=5)
    archetype = SWITCH if kind in ("type", "tag") else PRIMITIVE
    by = {"type": "type", "tag": "tag", "code": "code"}[kind]
    one_liners = all(code_lines(body) == 1 for _, body, _ in arms)
    if code_lines([stmt.node]) < HANDLER_LINES and (len(arms) < HANDLER_ARMS or one_liners):
        # A short chain reads better than a table of three handlers, or of one-line
        # handlers; it is still the function's shape, and the place a table goes once
        # more cases join.
        # A type chain is left as it is: tested in order, it may rely on subclasses
        # reaching the first arm that fits, which a table keyed by type would not do.
        later = (
            "" if kind == "type" else ", and the place for a table of handlers once more cases join"
        )
        text = (
            f"The chain at {where} picks behaviour by the {by} of {code(shown, 40)} in "
            f"{cases} short arms: clear as it is{later}."
        )
        return Move(Kind.SHORT_SWITCH, archetype, text, span, {}, priority=0)
    if kind == "type":
        # singledispatch follows the class hierarchy; a dict keyed by type() would miss
        # every subclass the isinstance tests accept.
        remedy = (
            "`functools.singledispatch` or a method on each type replaces it "
            "(where types overlap, the most specific wins, not the first tested)."
        )
    elif kind == "tag":
        remedy = "a dict from each tag to a handler function replaces it."
    else:
        remedy = "an Enum of the codes and a dict from each to a handler replace it."
    text = (
        f"The chain at {where} picks behaviour by the {by} of {code(shown, 40)} "
        f"in {cases} arms: {remedy}"
    )
    return Move(Kind.DISPATCH_TABLE, archetype, text, span, gains, priority=6)


def _body_shape(body: list[ast.stmt]) -> object:
    return tuple(shape(s) for s in body)


def _chain_points(view: FunctionView, stmt: Stmt, arms: int) -> int:
    """Every point of the chain: the if/elif statement, or the ladder's ifs."""
    node = stmt.node
    if isinstance(node, ast.If) and node.orelse:
        return stmt.points
    ladder = stmt.container[stmt.index : stmt.index + arms]
    return sum(s.points for n in ladder if (s := view.stmt_of(n)) is not None)


def _match_move(stmt: Stmt) -> Move | None:
    node = stmt.node
    if not isinstance(node, ast.Match):
        return None
    classes = [c for c in node.cases if isinstance(c.pattern, ast.MatchClass)]
    tagged = isinstance(node.subject, ast.Attribute) and node.subject.attr in TAG_NAMES
    arms = len(classes) if len(classes) >= MIN_ARMS else (len(node.cases) if tagged else 0)
    size = (node.end_lineno or node.lineno) - node.lineno + 1
    if arms < MIN_ARMS or (arms < HANDLER_ARMS and size < HANDLER_LINES):
        return None
    span = (node.lineno, node.end_lineno or node.lineno)
    by = "type" if classes else "value"
    text = (
        f"The `match` at {lines(*span)} picks behaviour by the {by} of "
        f"{code(node.subject, 40)} in {arms} cases: a handler per case "
        "(a dict, methods on the types, or `functools.singledispatch`) replaces it."
    )
    return Move(Kind.DISPATCH_TABLE, SWITCH, text, span, {Concern.COMPLEXITY: stmt.points}, 6)


@function_rule(
    Kind.DISPATCH_TABLE,
    Kind.SHORT_SWITCH,
    Kind.DICT_LOOKUP,
    Kind.TABLE_OF_CASES,
    concern=Concern.COMPLEXITY,
    doc="switch_on_type",
)
def dispatch_moves(view: FunctionView) -> list[Move]:
    name = view.node.name
    # A special method's parameters are set by the protocol that calls it (the name
    # `__getattr__` is asked for is any string), so they are no code to replace.
    dunder = name.startswith("__") and name.endswith("__")
    params = frozenset() if dunder else frozenset(view.params)
    found: list[Move] = []
    taken: set[int] = set()
    for stmt in view.statements:
        if isinstance(stmt.node, ast.If) and not stmt.is_elif and stmt.line not in taken:
            move = _chain_move(view, stmt, params)
            if move is not None:
                found.append(move)
                taken.update(range(move.span[0], move.span[1] + 1))
        elif isinstance(stmt.node, ast.Match):
            move = _match_move(stmt)
            if move is not None:
                found.append(move)
    return found


def _case_shape(node: ast.If) -> object:
    """An ``if`` of a run of cases: its test and body, values left out."""
    return (shape(node.test), tuple(shape(s) for s in node.body))


@function_rule(Kind.TABLE_OF_CASES, concern=Concern.SIZE, doc="table_of_cases")
def repeated_ifs(view: FunctionView) -> Iterator[Move]:
    """Three or more ``if`` statements in a row whose bodies do the same thing with
    other values (a message, a key, a type): a table of those values and one ``if``
    in a loop say it once."""
    for block in _blocks_of(view):
        run: list[ast.If] = []
        for node in [*block, None]:
            case = _small_if(node)
            if case is not None and (not run or _case_shape(case) == _case_shape(run[0])):
                run.append(case)
                continue
            lengths = [(c.end_lineno or c.lineno) - c.lineno + 1 for c in run]
            # Two cases make a helper only when they are near copies (the helper's
            # parameters are what differs); three or more make a table anyway.
            pair = (
                len(run) == 2
                and min(lengths) >= BLOCK_REPEAT_LINES
                and differences(run[0], run[1]) is not None
            )
            if len(run) >= REPEATS or pair:
                first, last = run[0], run[-1]
                span = (first.lineno, last.end_lineno or last.lineno)
                if len(run) == 2:
                    text = (
                        f"The `if`s at {lines(first.lineno, first.end_lineno or 0)} and "
                        f"{lines(last.lineno, span[1])} do the same thing with other values: "
                        "one helper, called for each, says it once."
                    )
                else:
                    text = (
                        f"The {len(run)} `if`s at {lines(*span)} do the same thing with other "
                        "values: a table of those values and one `if` in a loop say it once."
                    )
                archetype = SWITCH if _one_subject_by_type(run) else UNCLASSIFIED
                gains = {Concern.SIZE: span[1] - span[0] + 1 - len(run) - 3}
                yield Move(Kind.TABLE_OF_CASES, archetype, text, span, gains, 3)
            run = [case] if case is not None else []


def _one_subject_by_type(run: list[ast.If]) -> bool:
    """Whether every test is ``isinstance`` of the same subject."""
    subjects = set()
    for case in run:
        test = case.test
        if not (
            isinstance(test, ast.Call)
            and isinstance(test.func, ast.Name)
            and test.func.id == "isinstance"
            and len(test.args) == 2
        ):
            return False
        subjects.add(ast.dump(test.args[0]))
    return len(subjects) == 1


def _small_if(node: ast.stmt | None) -> ast.If | None:
    """An ``if`` without ``else`` of one or two statements: a case a table can hold."""
    if isinstance(node, ast.If) and not node.orelse and len(node.body) <= 2:
        return node
    return None


def _blocks_of(view: FunctionView) -> Iterator[list[ast.stmt]]:
    yield view.node.body
    seen: set[int] = set()
    for stmt in view.statements:
        if id(stmt.container) not in seen:
            seen.add(id(stmt.container))
            if stmt.container is not view.node.body:
                yield stmt.container
