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
from collections.abc import Iterable, Iterator
from typing import Final

from gzguide.analysis.facts.scopes import FunctionNode, Scope

_NESTED: Final = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def decision_points(statements: Iterable[ast.AST]) -> int:
    """radon's decision points in ``statements``, nested defs and classes left out."""
    total = 0
    # Lists of nodes may hold None (a dict's ``**`` key) or strings (a ``global``'s
    # names), so the stack holds whatever the fields hold.
    stack: list[object] = list(statements)
    pop, push, extend = stack.pop, stack.append, stack.extend
    while stack:
        node = pop()
        kind = type(node)
        if kind is ast.Name or kind is ast.Constant or kind is str or node is None:
            continue
        if kind is ast.If or kind is ast.IfExp:
            total += 1
        elif kind is ast.BoolOp:
            total += len(node.values) - 1  # type: ignore[attr-defined]
        elif kind is ast.For or kind is ast.While or kind is ast.AsyncFor:
            total += 1 + bool(node.orelse)  # type: ignore[attr-defined]
        elif kind is ast.Try:
            total += len(node.handlers) + bool(node.orelse)  # type: ignore[attr-defined]
        elif kind is ast.comprehension:
            total += 1 + len(node.ifs)  # type: ignore[attr-defined]
        elif kind is ast.Match:
            assert isinstance(node, ast.Match)
            wildcard = any(getattr(c.pattern, "pattern", False) is None for c in node.cases)
            total += max(0, len(node.cases) - wildcard)
        elif kind is ast.Assert:
            total += 1
            continue  # radon counts an assert once and never looks inside it
        elif kind in _NESTED:
            continue
        assert isinstance(node, ast.AST)
        for name in node._fields:
            value = getattr(node, name, None)
            if type(value) is list:
                extend(value)
            elif isinstance(value, ast.AST):
                push(value)
    return total


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
    """The defs and classes of ``body``, looking into compound statements, not into defs."""
    stack = list(reversed(body))
    while stack:
        node = stack.pop()
        if isinstance(node, _NESTED):
            yield node
            continue
        for name in ("body", "orelse", "finalbody"):
            block = getattr(node, name, None)
            if block:
                stack.extend(reversed(block))
        if isinstance(node, ast.Try | ast.TryStar):
            for handler in reversed(node.handlers):
                stack.extend(reversed(handler.body))
        elif isinstance(node, ast.Match):
            for case in reversed(node.cases):
                stack.extend(reversed(case.body))


def total_complexity(tree: ast.Module, known: dict[tuple[int, int], int]) -> int:
    """radon's ``total_complexity`` of the module; ``known`` holds function complexities."""

    def of(node: ast.stmt) -> int:
        key = (node.lineno, node.col_offset)
        if isinstance(node, ast.ClassDef):
            methods = [m for m in _definitions(node.body) if not isinstance(m, ast.ClassDef)]
            return 1 + decision_points(node.body) + sum(of(m) for m in methods)
        assert isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        return known[key] if key in known else complexity(node)

    return 1 + decision_points(tree.body) + sum(of(d) - 1 for d in _definitions(tree.body))
