"""The definitions of a module: every function, method, nested function and class.

One walk over the AST records each ``def`` and ``class`` with its qualified name
and enclosing scope, so metrics and advice can name what they talk about.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

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

    def visit(node: ast.AST, prefix: str, owner: ast.ClassDef | None) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                scope = Scope(child, f"{prefix}{child.name}", owner)
                found.append(scope)
                inner_owner = child if isinstance(child, ast.ClassDef) else None
                visit(child, f"{scope.qualname}.", inner_owner)
            elif isinstance(child, ast.stmt | ast.excepthandler | ast.match_case):
                # Definitions inside if/for/try/with/match blocks belong to the same scope.
                visit(child, prefix, owner)

    visit(tree, "", None)
    return found
