"""Boolean moves: an ``and``/``or`` or a returned test said with fewer decision points.

* ``membership``: ``x == a or x == b`` is ``x in (a, b)`` (and ``!=``/``and`` is
  ``not in``);
* ``isinstance_tuple``: ``isinstance(x, A) or isinstance(x, B)``;
* ``conditional``: ``a and b or c`` with ``b`` always truthy is ``b if a else c``;
* field-by-field equality (``a.x == b.x and a.y == b.y``) gets no move: reviewers found
  the ``and`` chain clear and the tuple comparison (two tuples built, no short-circuit)
  no better;
* ``bool_return``: ``if t: return True`` then ``return False`` is ``return t``;
* ``dead_or``: ``"".join(xs) or ""``: a join of nothing is that empty literal already.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator
from itertools import groupby, pairwise
from typing import Final

from gzguide.analysis.facts.walk import FunctionView, Stmt
from gzguide.analysis.moves.base import UNCLASSIFIED, Concern, Move, code, lines, plural, snippet
from gzguide.analysis.moves.kinds import Kind
from gzguide.analysis.moves.registry import function_rule, statement_rule
from gzguide.analysis.moves.rendering import render
from gzguide.analysis.moves.syntax import extent, negation, otherwise

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
    match test:
        case ast.Compare() | ast.UnaryOp(op=ast.Not()):
            return True
        case ast.BoolOp(values=values):
            return all(_is_boolean(v) for v in values)
        case ast.Call(func=ast.Name(id=name)):
            return name in _BOOL_CALLS
        case ast.Call(func=ast.Attribute(value=owner, attr=method)):
            return _is_predicate(owner, method)
    return False


def _is_predicate(owner: ast.expr, method: str) -> bool:
    """Whether ``owner.method(...)`` is an ``os.path`` or a string predicate."""
    if method in _PATH_PREDICATES:
        return render(owner) in ("os.path", "path", "posixpath", "ntpath")
    return method in _STR_PREDICATES


_Key = Callable[[ast.expr], str | None]


def runs(values: list[ast.expr], key: _Key) -> Iterator[list[ast.expr]]:
    """Maximal runs of adjacent operands sharing the same ``key(operand)`` (not None)."""
    for shared, group in groupby(values, key):
        run = list(group)
        if shared is not None and len(run) >= 2:
            yield run


def equality_subject(op: type[ast.cmpop]) -> _Key:
    def key(value: ast.expr) -> str | None:
        match value:
            case ast.Compare(
                left=left,
                ops=[compared],
                comparators=[ast.Constant() | ast.Name() | ast.Attribute()],
            ) if isinstance(compared, op):
                return ast.dump(left)
        return None

    return key


def isinstance_subject(value: ast.expr) -> str | None:
    match value:
        case ast.Call(func=ast.Name(id="isinstance"), args=[subject, _], keywords=[]):
            return ast.dump(subject)
    return None


def _ors(view: FunctionView) -> Iterator[ast.BoolOp]:
    return (b for b in view.boolops if isinstance(b.op, ast.Or))


@function_rule(
    Kind.MEMBERSHIP, concern=Concern.COMPLEXITY, doc="membership-isinstance_tuple-startswith_tuple"
)
def membership(view: FunctionView) -> Iterator[Move]:
    """``x == a or x == b`` is ``x in (a, b)``; ``x != a and x != b`` is ``not in``."""
    for boolop in view.boolops:
        is_or = isinstance(boolop.op, ast.Or)
        for run in runs(boolop.values, equality_subject(ast.Eq if is_or else ast.NotEq)):
            if not _has_choice(run):
                yield _membership_move(run, is_or)


def _has_choice(run: list[ast.expr]) -> bool:
    """Whether the tested value holds an ``and``/``or`` of its own (``(a or b) == 1``):
    its points are counted once per test, so one test removes more than the move says."""
    first = next(v for v in run if isinstance(v, ast.Compare))
    return any(isinstance(n, ast.BoolOp) for n in ast.walk(first.left))


#: How a run of ``==`` joined by ``or`` (``!=`` by ``and``) tests membership, and is joined.
_MEMBERSHIP_WORDS: Final[dict[bool, tuple[type[ast.cmpop], str]]] = {
    True: (ast.In, " or "),
    False: (ast.NotIn, " and "),
}


def _membership_move(run: list[ast.expr], is_or: bool) -> Move:
    compares = [v for v in run if isinstance(v, ast.Compare)]
    first = compares[0]
    tested, joined = _MEMBERSHIP_WORDS[is_or]
    choices = ast.Tuple([v.comparators[0] for v in compares], ast.Load())
    merged = render(ast.Compare(first.left, [tested()], [choices]))
    original = joined.join(render(v) for v in run)
    text = (
        f"{code(ast.parse(original, mode='eval').body, 56)} on line {first.lineno} is "
        f"{snippet(merged)}: {plural(len(run) - 1, 'point')} less."
    )
    gains = {Concern.COMPLEXITY: len(run) - 1}
    span = (first.lineno, extent(compares[-1])[1])
    return Move(Kind.MEMBERSHIP, UNCLASSIFIED, text, span, gains, 4)


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
    doc="membership-isinstance_tuple-startswith_tuple",
)
def isinstance_tuple(view: FunctionView) -> Iterator[Move]:
    """``isinstance(x, A) or isinstance(x, B)`` is one call with a tuple of types."""
    for boolop in _ors(view):
        for run in runs(boolop.values, isinstance_subject):
            yield _isinstance_move([v for v in run if isinstance(v, ast.Call)])


#: The string methods that take a tuple of prefixes or suffixes.
_AFFIX_METHODS: Final = frozenset({"startswith", "endswith"})


def affix_key(negated: bool) -> _Key:
    """The receiver and method of ``s.startswith(x)`` (``not s.startswith(x)`` when
    ``negated``), one positional argument and no other."""

    def key(value: ast.expr) -> str | None:
        match value:
            case ast.UnaryOp(op=ast.Not(), operand=call) if negated:
                return _affix_call(call)
            case ast.Call() if not negated:
                return _affix_call(value)
        return None

    return key


def _affix_call(node: ast.expr) -> str | None:
    match node:
        case ast.Call(func=ast.Attribute(value=receiver, attr=method), args=[arg], keywords=[]) if (
            method in _AFFIX_METHODS and not isinstance(arg, ast.Starred)
        ):
            return f"{method}:{ast.dump(receiver)}"
    return None


@function_rule(
    Kind.STARTSWITH_TUPLE,
    concern=Concern.COMPLEXITY,
    doc="membership-isinstance_tuple-startswith_tuple",
)
def startswith_tuple(view: FunctionView) -> Iterator[Move]:
    """``s.startswith(a) or s.startswith(b)`` is ``s.startswith((a, b))``; ``not
    s.startswith(a) and not s.startswith(b)`` is ``not s.startswith((a, b))``."""
    for boolop in view.boolops:
        negated = isinstance(boolop.op, ast.And)
        for run in runs(boolop.values, affix_key(negated)):
            yield _affix_move(run, negated)


def _affix_move(run: list[ast.expr], negated: bool) -> Move:
    calls = [called(v) for v in run]
    first = calls[0]
    affixes = [e for c in calls for e in affixes_in(c.args[0])]
    merged = ast.Call(first.func, [ast.Tuple(affixes, ast.Load())], [])
    shown = render(ast.UnaryOp(ast.Not(), merged) if negated else merged)
    joined = ast.BoolOp(ast.And() if negated else ast.Or(), run)
    text = (
        f"{code(joined, 60)} on line {first.lineno} is {snippet(shown, 70)}: "
        f"{plural(len(run) - 1, 'point')} less."
    )
    span = (first.lineno, extent(run[-1])[1])
    return Move(
        Kind.STARTSWITH_TUPLE, UNCLASSIFIED, text, span, {Concern.COMPLEXITY: len(run) - 1}, 4
    )


def called(value: ast.expr) -> ast.Call:
    """The call of an operand ``s.startswith(x)`` or ``not s.startswith(x)``."""
    call = value.operand if isinstance(value, ast.UnaryOp) else value
    assert isinstance(call, ast.Call)
    return call


def affixes_in(arg: ast.expr) -> list[ast.expr]:
    """The prefixes an argument names: a tuple's items, or the argument itself."""
    return list(arg.elts) if isinstance(arg, ast.Tuple) else [arg]


def _isinstance_move(calls: list[ast.Call]) -> Move:
    subject = render(calls[0].args[0])
    types = ", ".join(render(c.args[1]) for c in calls)
    text = (
        f"The {len(calls)} `isinstance({subject}, …)` tests on line {calls[0].lineno} "
        f"are one: `isinstance({subject}, ({types}))`, "
        f"{plural(len(calls) - 1, 'point')} less."
    )
    span = (calls[0].lineno, extent(calls[-1])[1])
    gains = {Concern.COMPLEXITY: len(calls) - 1}
    return Move(Kind.ISINSTANCE_TUPLE, UNCLASSIFIED, text, span, gains, 4)


def _surely_true(node: ast.expr) -> bool:
    """A value that is always truthy: a non-empty literal, or a string built on one."""
    match node:
        case ast.Constant(value=value):
            return bool(value) and value is not Ellipsis
        case (
            ast.Tuple(elts=[_, *_])
            | ast.List(elts=[_, *_])
            | ast.Set(elts=[_, *_])
            | ast.Dict(keys=[_, *_])
        ):
            return True
        case ast.BinOp(op=ast.Add(), left=left, right=right):
            return _nonempty_text(left) or _nonempty_text(right)
    return False


def _nonempty_text(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str) and bool(node.value)


def _and_or(boolop: ast.BoolOp) -> Move | None:
    """``a and b or c`` with ``b`` always truthy is ``b if a else c``."""
    match boolop.values:
        case [ast.BoolOp(op=ast.And(), values=[test, value]), other] if _surely_true(value):
            rewrite = ast.IfExp(test, value, other)
            text = (
                f"{code(boolop, 56)} on line {boolop.lineno} is a conditional expression: "
                f"{code(rewrite, 70)}, 1 point less."
            )
            return Move(
                Kind.CONDITIONAL, UNCLASSIFIED, text, extent(boolop), {Concern.COMPLEXITY: 1}, 4
            )
    return None


@statement_rule(Kind.BOOL_RETURN, concern=Concern.COMPLEXITY, doc="bool_return", on=(ast.If,))
def _bool_return(stmt: Stmt, view: FunctionView) -> Move | None:
    """``if t: return True`` then (or else) ``return False``: ``return t``."""
    match stmt.node, otherwise(stmt):
        case (
            ast.If(test=test, body=[ast.Return(value=first)]),
            ast.Return(value=second) as last,
        ) if not stmt.is_elif and not _ends_a_ladder(stmt):
            result = _returned(test, first, second)
            return None if result is None else _bool_return_move(stmt, last, result)
    return None


def _ends_a_ladder(stmt: Stmt) -> bool:
    """Whether the ``if`` right before this one also returns: the two are cases of a
    list, which reads as one (the eighth fresh review's pip ``_should_fetch`` and
    ``is_installable_dir``: folding the last case into the return breaks the list)."""
    if stmt.index == 0:
        return False
    match stmt.container[stmt.index - 1]:
        case ast.If(body=[*_, ast.Return()], orelse=[]):
            return True
    return False


def _returned(test: ast.expr, first: ast.expr | None, second: ast.expr | None) -> ast.expr | None:
    """What an ``if`` returning ``first``, else ``second``, returns: ``test`` or its negation."""
    match first, second:
        case ast.Constant(value=True), ast.Constant(value=False):
            return test
        case ast.Constant(value=False), ast.Constant(value=True) if not isinstance(
            test, ast.BoolOp
        ):
            # ``not (a and b)`` reads worse than the case it ends: one more
            # ``if ...: return False`` of a list of them, as a reviewer put it.
            return negation(test)
    return None


def _bool_return_move(stmt: Stmt, last: ast.Return, result: ast.expr) -> Move:
    shown = render(result) if _is_boolean(result) else f"bool({render(result)})"
    span = (stmt.line, extent(last)[1])
    text = (
        f"{lines(*span).capitalize()} turn a test into True or False: "
        f"{snippet('return ' + shown, 76)} says it directly, 1 point less."
    )
    return Move(Kind.BOOL_RETURN, UNCLASSIFIED, text, span, {Concern.COMPLEXITY: 1}, 4)


@function_rule(Kind.DEAD_OR, concern=Concern.COMPLEXITY, doc="dead_or")
def dead_or(view: FunctionView) -> Iterator[Move]:
    """``sep.join(xs) or ""`` with a literal ``sep``: the ``or`` never changes the value."""
    for boolop in _ors(view):
        for left, right in pairwise(boolop.values):
            if empty_join(left, right):
                yield _dead_or_move(left, right)


def empty_join(left: ast.expr, right: ast.expr) -> bool:
    """Whether ``left`` joins on a literal separator and ``right`` is the empty literal
    of the same type: a join gives exactly that when there is nothing to join (unlike
    ``str(x)``, which may give a falsy subclass of ``str``)."""
    match left, right:
        case (
            ast.Call(
                func=ast.Attribute(value=ast.Constant(value=str() | bytes() as sep), attr="join"),
                args=[ast.expr()],
                keywords=[],
            ),
            ast.Constant(value=empty),
        ):
            return type(empty) is type(sep) and not empty
    return False


def _dead_or_move(left: ast.expr, right: ast.expr) -> Move:
    pair = ast.BoolOp(ast.Or(), [left, right])
    text = (
        f"{code(pair, 60)} on line {left.lineno}: a join of nothing is {code(right)} already, "
        "so the `or` changes nothing: drop it, 1 point less."
    )
    span = (left.lineno, extent(right)[1])
    return Move(Kind.DEAD_OR, UNCLASSIFIED, text, span, {Concern.COMPLEXITY: 1}, 4)
