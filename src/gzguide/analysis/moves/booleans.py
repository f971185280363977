"""Boolean moves: an ``and``/``or`` or a returned test said with fewer decision points.

* ``membership``: ``x == a or x == b`` is ``x in (a, b)`` (and ``!=``/``and`` is
  ``not in``);
* ``isinstance_tuple``: ``isinstance(x, A) or isinstance(x, B)``;
* ``conditional``: ``a and b or c`` with ``b`` always truthy is ``b if a else c``;
* ``tuple_compare``: ``a.x == b.x and a.y == b.y and ...`` is one tuple comparison;
* ``bool_return``: ``if t: return True`` then ``return False`` is ``return t``.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from typing import Final

from gzguide.analysis.facts.walk import FunctionView, Stmt
from gzguide.analysis.moves.base import UNCLASSIFIED, Concern, Move, code, lines, plural, snippet
from gzguide.analysis.moves.kinds import Kind
from gzguide.analysis.moves.registry import function_rule, statement_rule
from gzguide.analysis.moves.rendering import render
from gzguide.analysis.moves.syntax import (
    is_const,
    negation,
)

_BOOL_CALLS: Final = frozenset({"isinstance", "issubclass", "callable", "hasattr", "bool"})


#: ``os.path`` predicates, and ``str``/``bytes`` predicates (which user classes
#: rarely redefine): calls that return a bool, needing no ``bool()`` around them.
_PATH_PREDICATES: Final = frozenset({"isfile", "isdir", "islink", "isabs", "ismount", "exists"})


_STR_PREDICATES: Final = frozenset(
    {
        "startswith",
        "endswith",
        "isdigit",
        "isdecimal",
        "isnumeric",
        "isalpha",
        "isalnum",
        "isspace",
        "isidentifier",
        "islower",
        "isupper",
        "istitle",
        "isascii",
    }
)


def _is_boolean(test: ast.expr) -> bool:
    if isinstance(test, ast.Compare):
        return True
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return True
    if isinstance(test, ast.BoolOp):
        return all(_is_boolean(v) for v in test.values)
    if not isinstance(test, ast.Call):
        return False
    func = test.func
    if isinstance(func, ast.Name):
        return func.id in _BOOL_CALLS
    if not isinstance(func, ast.Attribute):
        return False
    if func.attr in _PATH_PREDICATES:
        return render(func.value) in ("os.path", "path", "posixpath", "ntpath")
    return func.attr in _STR_PREDICATES


def _runs(values: list[ast.expr], key: object) -> Iterator[list[ast.expr]]:
    """Maximal runs of adjacent operands sharing the same ``key(operand)`` (not None)."""
    assert callable(key)
    run: list[ast.expr] = []
    run_key: str | None = None
    for value in values:
        k = key(value)
        if k is not None and k == run_key:
            run.append(value)
            continue
        if len(run) >= 2:
            yield run
        run, run_key = ([value], k) if k is not None else ([], None)
    if len(run) >= 2:
        yield run


def _equality_subject(op: type[ast.cmpop]) -> object:
    def key(value: ast.expr) -> str | None:
        if (
            isinstance(value, ast.Compare)
            and len(value.ops) == 1
            and isinstance(value.ops[0], op)
            and isinstance(value.comparators[0], ast.Constant | ast.Name | ast.Attribute)
        ):
            return ast.dump(value.left)
        return None

    return key


def _isinstance_subject(value: ast.expr) -> str | None:
    if (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Name)
        and value.func.id == "isinstance"
        and len(value.args) == 2
        and not value.keywords
    ):
        return ast.dump(value.args[0])
    return None


def _ors(view: FunctionView) -> Iterator[ast.BoolOp]:
    return (b for b in view.boolops if isinstance(b.op, ast.Or))


@function_rule(
    Kind.MEMBERSHIP, concern=Concern.COMPLEXITY, doc="membership-isinstance_tuple-tuple_compare"
)
def membership(view: FunctionView) -> Iterator[Move]:
    """``x == a or x == b`` is ``x in (a, b)``; ``x != a and x != b`` is ``not in``."""
    for boolop in view.boolops:
        is_or = isinstance(boolop.op, ast.Or)
        for run in _runs(boolop.values, _equality_subject(ast.Eq if is_or else ast.NotEq)):
            yield _membership_move(run, is_or)


def _membership_move(run: list[ast.expr], is_or: bool) -> Move:
    first = run[0]
    assert isinstance(first, ast.Compare)
    choices = ", ".join(render(v.comparators[0]) for v in run)  # type: ignore[attr-defined]
    merged = f"{render(first.left)} {'in' if is_or else 'not in'} ({choices})"
    original = (" or " if is_or else " and ").join(render(v) for v in run)
    text = (
        f"{code(ast.parse(original, mode='eval').body, 56)} on line {first.lineno} is "
        f"{snippet(merged)}: {plural(len(run) - 1, 'point')} less."
    )
    span = (first.lineno, first.end_lineno or first.lineno)
    return Move(Kind.MEMBERSHIP, UNCLASSIFIED, text, span, {Concern.COMPLEXITY: len(run) - 1}, 4)


@function_rule(Kind.CONDITIONAL, concern=Concern.COMPLEXITY, doc="conditional")
def conditional(view: FunctionView) -> Iterator[Move]:
    """``a and b or c`` with ``b`` always truthy."""
    for boolop in _ors(view):
        move = _and_or(boolop)
        if move is not None:
            yield move


@function_rule(
    Kind.ISINSTANCE_TUPLE,
    concern=Concern.COMPLEXITY,
    doc="membership-isinstance_tuple-tuple_compare",
)
def isinstance_tuple(view: FunctionView) -> Iterator[Move]:
    """``isinstance(x, A) or isinstance(x, B)`` is one call with a tuple of types."""
    for boolop in _ors(view):
        for run in _runs(boolop.values, _isinstance_subject):
            calls = [v for v in run if isinstance(v, ast.Call)]
            subject = render(calls[0].args[0])
            types = ", ".join(render(c.args[1]) for c in calls)
            text = (
                f"The {len(calls)} `isinstance({subject}, …)` tests on line {calls[0].lineno} "
                f"are one: `isinstance({subject}, ({types}))`, "
                f"{plural(len(calls) - 1, 'point')} less."
            )
            span = (calls[0].lineno, calls[-1].end_lineno or calls[-1].lineno)
            gains = {Concern.COMPLEXITY: len(calls) - 1}
            yield Move(Kind.ISINSTANCE_TUPLE, UNCLASSIFIED, text, span, gains, 4)


@function_rule(
    Kind.TUPLE_COMPARE, concern=Concern.COMPLEXITY, doc="membership-isinstance_tuple-tuple_compare"
)
def tuple_compare(view: FunctionView) -> Iterator[Move]:
    """Three or more ``a.f == b.f`` joined by ``and`` are one tuple comparison."""
    for boolop in view.boolops:
        if isinstance(boolop.op, ast.And):
            move = _tuple_compare(boolop)
            if move is not None:
                yield move


def _surely_true(node: ast.expr) -> bool:
    """A value that is always truthy: a non-empty literal, or a string built on one."""
    if isinstance(node, ast.Constant):
        return bool(node.value) and node.value is not Ellipsis
    if isinstance(node, ast.Tuple | ast.List | ast.Set) and node.elts:
        return True
    if isinstance(node, ast.Dict) and node.keys:
        return True
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return any(
            isinstance(side, ast.Constant) and isinstance(side.value, str) and side.value
            for side in (node.left, node.right)
        )
    return False


def _and_or(boolop: ast.BoolOp) -> Move | None:
    """``a and b or c`` with ``b`` always truthy is ``b if a else c``."""
    if len(boolop.values) != 2:
        return None
    first, other = boolop.values
    if not (isinstance(first, ast.BoolOp) and isinstance(first.op, ast.And)):
        return None
    if len(first.values) != 2 or not _surely_true(first.values[1]):
        return None
    test, value = first.values
    rewrite = ast.IfExp(test, value, other)
    text = (
        f"{code(boolop, 56)} on line {boolop.lineno} is a conditional expression: "
        f"{code(rewrite, 70)}, 1 point less."
    )
    span = (boolop.lineno, boolop.end_lineno or boolop.lineno)
    return Move(Kind.CONDITIONAL, UNCLASSIFIED, text, span, {Concern.COMPLEXITY: 1}, 4)


def _field_pair(value: ast.expr) -> tuple[str, str, str] | None:
    if (
        isinstance(value, ast.Compare)
        and len(value.ops) == 1
        and isinstance(value.ops[0], ast.Eq)
        and isinstance(value.left, ast.Attribute)
        and isinstance(value.comparators[0], ast.Attribute)
        and isinstance(value.left.value, ast.Name)
        and isinstance(value.comparators[0].value, ast.Name)
        and value.left.attr == value.comparators[0].attr
    ):
        return value.left.value.id, value.comparators[0].value.id, value.left.attr
    return None


def _tuple_compare(boolop: ast.BoolOp) -> Move | None:
    pairs = [_field_pair(v) for v in boolop.values]
    if len(pairs) < 3 or any(p is None for p in pairs):
        return None
    known = [p for p in pairs if p is not None]
    if len({(a, b) for a, b, _ in known}) != 1:
        return None
    a, b, _ = known[0]
    fields = [f for _, _, f in known]
    left = ", ".join(f"{a}.{f}" for f in fields)
    right = ", ".join(f"{b}.{f}" for f in fields)
    text = (
        f"The `and` of {len(fields)} field comparisons on line {boolop.lineno} is one "
        f"tuple comparison: `({left}) == ({right})`"
    )
    if len(text) > 200:
        text = (
            f"The `and` of {len(fields)} `{a}.f == {b}.f` comparisons on line {boolop.lineno} "
            "is one tuple comparison"
        )
    text += f", {plural(len(fields) - 1, 'point')} less."
    span = (boolop.lineno, boolop.end_lineno or boolop.lineno)
    return Move(
        Kind.TUPLE_COMPARE, UNCLASSIFIED, text, span, {Concern.COMPLEXITY: len(fields) - 1}, 4
    )


@statement_rule(Kind.BOOL_RETURN, concern=Concern.COMPLEXITY, doc="bool_return", on=(ast.If,))
def _bool_return(stmt: Stmt, view: FunctionView) -> Move | None:
    node = stmt.node
    if not isinstance(node, ast.If) or stmt.is_elif or len(node.body) != 1:
        return None
    first = node.body[0]
    second: ast.stmt | None
    if node.orelse:
        if len(node.orelse) != 1:
            return None
        second = node.orelse[0]
    else:
        second = stmt.next_node()
    if not isinstance(first, ast.Return) or not isinstance(second, ast.Return):
        return None
    test = node.test
    if is_const(first.value, True) and is_const(second.value, False):
        result = test
    elif is_const(first.value, False) and is_const(second.value, True):
        result = negation(test)
    else:
        return None
    shown = render(result) if _is_boolean(result) else f"bool({render(result)})"
    span = (node.lineno, second.end_lineno or second.lineno)
    text = (
        f"{lines(*span).capitalize()} turn a test into True or False: "
        f"{snippet('return ' + shown, 76)} says it directly, 1 point less."
    )
    return Move(Kind.BOOL_RETURN, UNCLASSIFIED, text, span, {Concern.COMPLEXITY: 1}, 4)
