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
