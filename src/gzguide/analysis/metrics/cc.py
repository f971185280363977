"""radon's cyclomatic complexity for every function, method and nested function, and
radon's total complexity of the module (an input of the maintainability index).

radon's ``ComplexityVisitor`` is a generic ``NodeVisitor``; counting the same
decision points with one plain walk per function costs a fraction of it, so this
module counts them itself, by radon's rules (checked against radon on every
function of the test corpus):

* a function's complexity is 1 plus the decision points of its body: one per
  ``if``/``elif`` and conditional expression; one per loop plus one for its
  ``else``; one per ``except`` of a ``try`` plus one for its ``else`` (``except*``
  is not counted); one per extra operand of an ``and``/``or``; one per comprehension
  ``for`` plus one per its ``if``; one per ``case`` of a ``match`` but a wildcard;
  one per ``assert``, whatever it holds. Nested functions and classes are scored on
  their own and add nothing; lambdas are part of the function. Decorators and
  default values are not counted;
* the module's total is 1 plus the decision points of its top-level code, plus
  each top-level function's complexity and each top-level class's, less one each.
  A class's complexity is 1 plus its body's own decision points plus its methods'
  complexities (classes nested in a class or a function, and functions nested in a
  function, are not part of any total: radon keeps them aside).

"Top level" means not inside another ``def`` or ``class``: a ``def`` under a
module-level ``if`` is a top-level function, as it is for radon.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Final

from gzguide.analysis.facts.scopes import FunctionNode, Scope
from gzguide.analysis.facts.walk import children

_NESTED: Final = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def decision_points(statements: Iterable[ast.AST]) -> int:
    """radon's decision points in ``statements``, nested defs and classes left out."""
    total = 0
    stack: list[ast.AST] = list(statements)
    pop, extend = stack.pop, stack.extend
    points = _POINTS
    while stack:
        node = pop()
        kind = type(node)
        count = points.get(kind)
        if count is not None:
            total += count(node)
        if kind not in _SEALED:
            extend(children(node))
    return total


def _one(node: ast.AST) -> int:
    return 1


def _extra_operands(node: ast.BoolOp) -> int:
    return len(node.values) - 1


def _loop(node: ast.For | ast.AsyncFor | ast.While) -> int:
    return 1 + bool(node.orelse)


def _try(node: ast.Try) -> int:
    return len(node.handlers) + bool(node.orelse)


def _comprehension(node: ast.comprehension) -> int:
    return 1 + len(node.ifs)


def _cases(node: ast.Match) -> int:
    wildcard = any(getattr(c.pattern, "pattern", False) is None for c in node.cases)
    return max(0, len(node.cases) - wildcard)


#: The decision points of each kind of node that has any, as radon counts them
#: (``except*`` has none).
_POINTS: Final[dict[type[ast.AST], Callable[[Any], int]]] = {
    ast.If: _one,
    ast.IfExp: _one,
    ast.Assert: _one,
    ast.BoolOp: _extra_operands,
    ast.For: _loop,
    ast.AsyncFor: _loop,
    ast.While: _loop,
    ast.Try: _try,
    ast.comprehension: _comprehension,
    ast.Match: _cases,
}
#: Nodes whose parts add nothing: names and constants hold no decision point, nested
#: scopes are scored on their own, and radon counts an assert once and never looks
#: inside it.
_SEALED: Final = frozenset({ast.Name, ast.Constant, ast.Assert, *_NESTED})


def complexity(node: FunctionNode) -> int:
    """radon's cyclomatic complexity of one function."""
    return 1 + decision_points(node.body)


def function_complexities(scopes: Iterable[Scope]) -> dict[tuple[int, int], int]:
    """Complexity of each function scope, keyed by its (line, column)."""
    found: dict[tuple[int, int], int] = {}
    for scope in scopes:
        node = scope.node
        if not isinstance(node, ast.ClassDef):
            found[scope.key] = complexity(node)
    return found


def _definitions(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """The defs and classes of ``body``, looking into compound statements, not into defs
    (in no particular order: only their sum is wanted)."""
    stack = list(body)
    while stack:
        node = stack.pop()
        if isinstance(node, _NESTED):
            yield node
        else:
            stack.extend(_held(node))


def _held(node: ast.stmt) -> Iterator[ast.stmt]:
    """The statements a compound statement holds, in its blocks, handlers and cases."""
    for name in ("body", "orelse", "finalbody"):
        yield from getattr(node, name, ())
    for part in (*getattr(node, "handlers", ()), *getattr(node, "cases", ())):
        yield from part.body


def total_complexity(tree: ast.Module, known: dict[tuple[int, int], int]) -> int:
    """radon's ``total_complexity`` of the module; ``known`` holds function complexities."""
    top = _definitions(tree.body)
    return 1 + decision_points(tree.body) + sum(_complexity_of(d, known) - 1 for d in top)


def _complexity_of(node: ast.stmt, known: dict[tuple[int, int], int]) -> int:
    if isinstance(node, ast.ClassDef):
        return _class_complexity(node, known)
    assert isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    key = (node.lineno, node.col_offset)
    return known[key] if key in known else complexity(node)


def _class_complexity(node: ast.ClassDef, known: dict[tuple[int, int], int]) -> int:
    """1, the points of the class's own code, and its methods' complexities."""
    methods = [m for m in _definitions(node.body) if not isinstance(m, ast.ClassDef)]
    return 1 + decision_points(node.body) + sum(_complexity_of(m, known) for m in methods)
