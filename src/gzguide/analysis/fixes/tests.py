"""A test as a fix writes it: as it is, or its negation, and whether it is a bool.

The negation is written the one way that means the same for every operand: ``not``
in front (in parentheses where needed), ``not x`` as ``x``, and an ``in`` or ``is``
test turned around (``a not in b`` is defined as ``not a in b``). Comparisons such as
``==`` are not turned around: a class may define ``__ne__`` apart from ``__eq__``.
"""

from __future__ import annotations

import ast
import re
from typing import Final, NamedTuple

from gzguide.analysis.fixes.edits import Source
from gzguide.analysis.fixes.registry import operand

_TURNED: Final = {"in": "not in", "not in": "in", "is": "is not", "is not": "is"}
_OPERATOR: Final = re.compile(r"\bnot\s+in\b|\bis\s+not\b|\bin\b|\bis\b")
#: The tests whose value is always a bool (unless a builtin is rebound).
_BOOL_OPS: Final[frozenset[type[ast.cmpop]]] = frozenset({ast.In, ast.NotIn, ast.Is, ast.IsNot})
#: The builtins that always return a bool.
BOOL_BUILTINS: Final = frozenset({"isinstance", "issubclass", "callable", "hasattr", "bool"})


class Test(NamedTuple):
    text: str
    #: Whether its value is True or False whatever the operands (``x in y``, ``not x``),
    #: rather than whatever an operand's method returns (``x == y``, ``x and y``).
    is_bool: bool


def as_written(source: Source, test: ast.expr) -> Test:
    return Test(operand(source, test, (ast.NamedExpr,)), _always_bool(test))


def negated(source: Source, test: ast.expr) -> Test:
    match test:
        case ast.UnaryOp(op=ast.Not(), operand=inner):
            return Test(operand(source, inner, (ast.NamedExpr,)), _always_bool(inner))
        case ast.Compare(
            ops=[ast.In() | ast.NotIn() | ast.Is() | ast.IsNot()], comparators=[right]
        ):
            middle = source.between(source.end(test.left), source.start(right))
            turned = _OPERATOR.sub(lambda m: _TURNED[" ".join(m.group().split())], middle, 1)
            start, end = source.start(test), source.end(test)
            left = source.between(start, source.end(test.left))
            return Test(left + turned + source.between(source.start(right), end), True)
    loose = (ast.NamedExpr, ast.IfExp, ast.Lambda, ast.BoolOp)
    return Test(f"not {operand(source, test, loose)}", True)


def has_plain_negation(test: ast.expr) -> bool:
    """Whether :func:`negated` writes ``test``'s negation without a ``not`` in front."""
    match test:
        case ast.UnaryOp(op=ast.Not()):
            return True
        case ast.Compare(ops=[ast.In() | ast.NotIn() | ast.Is() | ast.IsNot()]):
            return True
    return False


def _always_bool(test: ast.expr) -> bool:
    match test:
        case ast.UnaryOp(op=ast.Not()):
            return True
        case ast.Compare(ops=ops):
            return set(map(type, ops)) <= _BOOL_OPS
        case ast.Constant(value=bool()):
            return True
        case ast.BoolOp(values=values):
            return all(map(_always_bool, values))
        case ast.Call(func=ast.Name(id=name), keywords=[]):
            return name in BOOL_BUILTINS
    return False


def _tests_of(node: ast.AST) -> list[ast.expr]:
    """The expressions ``node`` asks only the truth of."""
    match node:
        case ast.If(test=test) | ast.While(test=test) | ast.IfExp(test=test):
            return [test]
        case ast.Assert(test=test) | ast.UnaryOp(op=ast.Not(), operand=test):
            return [test]
        case ast.comprehension(ifs=ifs):
            return list(ifs)
    return []


def truth_tested(root: ast.AST) -> frozenset[int]:
    """The ids of the expressions under ``root`` whose value only decides a truth: a
    test, the operand of ``not``, and each operand of an ``and``/``or`` that is one
    (whichever operand it gives, its truth is all that is asked of it)."""
    pending = [test for node in ast.walk(root) for test in _tests_of(node)]
    found: set[int] = set()
    while pending:
        node = pending.pop()
        found.add(id(node))
        if isinstance(node, ast.BoolOp):
            pending.extend(node.values)
    return frozenset(found)


class Negation(NamedTuple):
    """A test's plain negation as :func:`~gzguide.analysis.moves.syntax.negation` words
    it (``a != b`` for ``a == b``), as a fix writes it."""

    text: str
    #: Whether it is false exactly when the test is true, for every operand: not so
    #: for ``==`` turned into ``!=`` (a class may define ``__ne__`` apart).
    safe: bool
    #: Whether it is a negation of its own (not ``not`` put in front of the test).
    plain: bool = True


#: The comparisons a plain negation turns around, and whether that is safe.
_FLIPS: Final[dict[type[ast.cmpop], bool]] = {
    ast.In: True,
    ast.NotIn: True,
    ast.Is: True,
    ast.IsNot: True,
    ast.Eq: False,
    ast.NotEq: False,
}
_FLIPPED: Final = {**_TURNED, "==": "!=", "!=": "=="}
_ANY_OPERATOR: Final = re.compile(r"\bnot\s+in\b|\bis\s+not\b|\bin\b|\bis\b|==|!=")
#: What may not stand bare after ``not``.
_UNDER_NOT: Final = (ast.NamedExpr, ast.IfExp, ast.Lambda, ast.BoolOp)


def plain_negation(source: Source, test: ast.expr) -> Negation:
    """``not x`` as ``x``, a comparison turned around, an ``and``/``or`` of those by De
    Morgan; anything else with ``not`` in front."""
    match test:
        case ast.UnaryOp(op=ast.Not(), operand=inner):
            return Negation(operand(source, inner, (ast.NamedExpr,)), True)
        case ast.Compare(ops=[op], comparators=[right]) if type(op) in _FLIPS:
            return Negation(_flipped(source, test, right), _FLIPS[type(op)])
        case ast.BoolOp() if (turned := _de_morgan(source, test)) is not None:
            return turned
    return Negation(f"not {operand(source, test, _UNDER_NOT)}", True, plain=False)


def _flipped(source: Source, test: ast.Compare, right: ast.expr) -> str:
    middle = source.between(source.end(test.left), source.start(right))
    turned = _ANY_OPERATOR.sub(lambda m: _FLIPPED[" ".join(m.group().split())], middle, 1)
    left = source.between(source.start(test), source.end(test.left))
    return left + turned + source.between(source.start(right), source.end(test))


def _de_morgan(source: Source, test: ast.BoolOp) -> Negation | None:
    """``a != x or b != y`` for ``a == x and b == y``, when every operand has a plain
    negation; each operand that is an ``or`` put in parentheses under ``and``."""
    parts = [plain_negation(source, v) for v in test.values]
    if not all(p.plain for p in parts):
        return None
    return _joined(parts, test.values, " and " if isinstance(test.op, ast.Or) else " or ")


def _joined(parts: list[Negation], values: list[ast.expr], word: str) -> Negation:
    texts = (_grouped(p.text, v, word) for p, v in zip(parts, values, strict=True))
    return Negation(word.join(texts), all(p.safe for p in parts))


def _grouped(text: str, value: ast.expr, word: str) -> str:
    """A negated operand joined by ``word``: in parentheses when its negation is an
    ``or`` joined by ``and``."""
    return f"({text})" if word == " and " and _negates_to_or(value) else text


def _negates_to_or(value: ast.expr) -> bool:
    """Whether the plain negation of ``value`` is an ``or``: that of an ``and``, or of
    ``not`` before an ``or``."""
    match value:
        case ast.BoolOp(op=ast.And()) | ast.UnaryOp(op=ast.Not(), operand=ast.BoolOp(op=ast.Or())):
            return True
    return False
