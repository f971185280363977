"""radon's cyclomatic complexity for every function, method and nested function.

radon's block list stops at the top level of each function (nested functions are
kept as "closures", and functions inside classes that sit inside functions are
dropped). We run radon's own ``ComplexityVisitor`` once over the parsed module,
take every value it computed, including closures and inner classes at any depth,
and visit only the definitions it never reached on their own. No source is ever
re-parsed: everything goes through radon's ``*_ast`` entry points.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from radon.visitors import ComplexityVisitor

from gzguide.analysis.scopes import Scope


def _index_blocks(blocks: Iterable[Any], into: dict[tuple[int, int], int]) -> None:
    for block in blocks:
        if hasattr(block, "methods"):  # a radon Class
            _index_blocks(block.methods, into)
            _index_blocks(block.inner_classes, into)
        else:  # a radon Function
            into[(block.lineno, block.col_offset)] = block.complexity
            _index_blocks(block.closures, into)


def function_complexities(
    visitor: ComplexityVisitor, scopes: Iterable[Scope]
) -> dict[tuple[int, int], int]:
    """Complexity of each function scope, keyed by its (line, column).

    ``visitor`` is radon's ComplexityVisitor already run over the module (its
    module-level totals feed other metrics too, so the caller runs it once).
    """
    known: dict[tuple[int, int], int] = {}
    _index_blocks(visitor.functions, known)
    _index_blocks(visitor.classes, known)
    result: dict[tuple[int, int], int] = {}
    for scope in scopes:
        if not scope.is_function:
            continue
        value = known.get(scope.key)
        if value is None:
            value = ComplexityVisitor.from_ast(scope.node).functions[0].complexity
        result[scope.key] = value
    return result
