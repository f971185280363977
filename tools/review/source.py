"""The definition a diagnostic sits on, and its source with line numbers."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass

from tools.review.edits import BREAK

Definition = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef


@dataclass(frozen=True)
class Enclosing:
    """A definition by its dotted name, and its lines (decorators included), 1-based."""

    name: str
    start: int
    end: int


def definitions(tree: ast.AST, prefix: str = "") -> Iterator[tuple[str, Definition]]:
    """Every def and class of ``tree`` with its dotted name (``Class.method``,
    ``outer.inner``), outermost first."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, Definition):
            name = f"{prefix}{node.name}"
            yield name, node
            yield from definitions(node, f"{name}.")
        else:
            yield from definitions(node, prefix)


def enclosing(text: str, line: int) -> Enclosing | None:
    """The innermost definition whose header is on 1-based ``line`` (a diagnostic sits on
    its definition's name), or None for a module's diagnostic."""
    found = None
    for name, node in definitions(ast.parse(text)):
        if node.lineno == line:
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            found = Enclosing(name, first, node.end_lineno or node.lineno)
    return found


def numbered(text: str, start: int, end: int) -> str:
    """Lines ``start`` to ``end`` (1-based, inclusive), each after its number."""
    lines = BREAK.split(text)[start - 1 : end]
    width = len(str(end))
    return "\n".join(f"{n:>{width}} | {line.rstrip()}" for n, line in enumerate(lines, start))
