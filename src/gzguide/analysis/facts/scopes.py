"""The definitions of a module: every function, method, nested function and class.

One walk over the AST records each ``def`` and ``class`` with its qualified name
and enclosing scope, so metrics and advice can name what they talk about.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef


@dataclass(eq=False, slots=True)
class Scope:
    """A function, method or class definition."""

    node: FunctionNode | ast.ClassDef
    qualname: str
    #: The class this is a method of (directly in the class body), if any.
    owner: ast.ClassDef | None = None

    @property
    def key(self) -> tuple[int, int]:
        """The (line, column) of the definition: unique within one file."""
        return (self.node.lineno, self.node.col_offset)

    @property
    def is_function(self) -> bool:
        return not isinstance(self.node, ast.ClassDef)

    @property
    def kind(self) -> str:
        if isinstance(self.node, ast.ClassDef):
            return "class"
        return "method" if self.owner is not None else "function"

    @property
    def start_line(self) -> int:
        return self.node.lineno

    @property
    def end_line(self) -> int:
        return self.node.end_lineno or self.node.lineno


def collect_scopes(tree: ast.Module) -> list[Scope]:
    """Every def and class in source order (pre-order), nested ones included."""
    found: list[Scope] = []

    def visit(body: list[ast.stmt], prefix: str, owner: ast.ClassDef | None) -> None:
        for child in body:
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                scope = Scope(child, f"{prefix}{child.name}", owner)
                found.append(scope)
                inner_owner = child if isinstance(child, ast.ClassDef) else None
                visit(child.body, f"{scope.qualname}.", inner_owner)
            else:
                # Definitions inside if/for/try/with/match blocks belong to the same scope.
                for block in _blocks(child):
                    visit(block, prefix, owner)

    visit(tree.body, "", None)
    return found


def _blocks(node: ast.stmt) -> list[list[ast.stmt]]:
    """The statement lists directly inside a compound statement (none for a simple one)."""
    held = _HELD.get(type(node))
    return held(node) if held is not None else []


def _body_and_else(node: ast.If | ast.For | ast.AsyncFor | ast.While) -> list[list[ast.stmt]]:
    return [node.body, node.orelse]


def _body(node: ast.With | ast.AsyncWith) -> list[list[ast.stmt]]:
    return [node.body]


def _try_blocks(node: ast.Try | ast.TryStar) -> list[list[ast.stmt]]:
    return [node.body, *(h.body for h in node.handlers), node.orelse, node.finalbody]


def _cases(node: ast.Match) -> list[list[ast.stmt]]:
    return [c.body for c in node.cases]


#: The statement lists each kind of compound statement holds, in source order.
_HELD: Final[dict[type[ast.stmt], Callable[[Any], list[list[ast.stmt]]]]] = {
    ast.If: _body_and_else,
    ast.For: _body_and_else,
    ast.AsyncFor: _body_and_else,
    ast.While: _body_and_else,
    ast.With: _body,
    ast.AsyncWith: _body,
    ast.Try: _try_blocks,
    ast.TryStar: _try_blocks,
    ast.Match: _cases,
}
