"""Copies: a compound statement that appears again elsewhere in the file, the same
but for a few names and values.

A block written twice is the strongest case for a helper: one definition serves
both places, and a fix made in one can no longer miss the other. Only near-exact
copies count (at most :data:`MAX_DIFFERENCES` distinct names or values differ, each
one a parameter of the helper), and only blocks long enough to be worth one.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Final

from gzguide.analysis.astshape import code_lines

#: A copy may differ in at most this many distinct names or values.
MAX_DIFFERENCES: Final = 2
#: A block shorter than this many lines of code is not worth a shared helper.
MIN_LINES: Final = 4

_COMPOUND: Final = (ast.If, ast.For, ast.AsyncFor, ast.While, ast.Try, ast.With, ast.AsyncWith)
_LEAVES: Final = (ast.Name, ast.Constant, ast.Attribute)
_SKIPPED: Final = frozenset(
    {"ctx", "type_comment", "lineno", "col_offset", "end_lineno", "end_col_offset"}
)


def _key(node: ast.stmt) -> tuple[str, int, int]:
    """Cheap to compute and the same for copies: what the index is keyed by."""
    body = getattr(node, "body", ())
    return (type(node).__name__, (node.end_lineno or node.lineno) - node.lineno, len(body))


@dataclass(eq=False)
class Twins:
    """The compound statements of one module, indexed for finding copies."""

    tree: ast.Module
    _index: dict[tuple[str, int, int], list[ast.stmt]] | None = field(default=None)

    def twin_of(self, node: ast.stmt) -> tuple[ast.stmt, int] | None:
        """Another statement of the file that copies ``node`` (the first one found),
        with how many names and values differ."""
        if not isinstance(node, _COMPOUND) or code_lines([node]) < MIN_LINES:
            return None
        if self._index is None:
            self._index = _index(self.tree)
        end = node.end_lineno or node.lineno
        for other in self._index.get(_key(node), ()):
            other_end = other.end_lineno or other.lineno
            if other is node or (other.lineno <= end and node.lineno <= other_end):
                continue  # itself, or a statement around or inside it
            found = differences(node, other)
            if found is not None:
                return other, len(found)
        return None


def _index(tree: ast.Module) -> dict[tuple[str, int, int], list[ast.stmt]]:
    index: dict[tuple[str, int, int], list[ast.stmt]] = {}
    pending: list[ast.stmt] = list(tree.body)
    while pending:
        node = pending.pop()
        if isinstance(node, _COMPOUND) and (node.end_lineno or node.lineno) - node.lineno >= 2:
            index.setdefault(_key(node), []).append(node)
        for name in ("body", "orelse", "finalbody"):
            pending.extend(getattr(node, name, ()))
        for handler in getattr(node, "handlers", ()):
            pending.extend(handler.body)
        for case in getattr(node, "cases", ()):
            pending.extend(case.body)
    return index


def differences(a: ast.AST, b: ast.AST) -> set[tuple[str, str]] | None:
    """The distinct (name or value in ``a``, its counterpart in ``b``) pairs where two
    trees of the same structure differ; None when the structures differ or when more
    than :data:`MAX_DIFFERENCES` pairs do."""
    found: set[tuple[str, str]] = set()
    pending: list[tuple[object, object]] = [(a, b)]
    while pending:
        x, y = pending.pop()
        if isinstance(x, _LEAVES) and isinstance(y, _LEAVES):
            left, right = ast.unparse(x), ast.unparse(y)
            if left != right:
                found.add((left, right))
                if len(found) > MAX_DIFFERENCES:
                    return None
            continue
        if isinstance(x, list) and isinstance(y, list):
            if len(x) != len(y):
                return None
            pending.extend(zip(x, y, strict=True))
            continue
        if isinstance(x, ast.AST) and isinstance(y, ast.AST):
            if type(x) is not type(y):
                return None
            pending.extend(
                (getattr(x, f, None), getattr(y, f, None)) for f in x._fields if f not in _SKIPPED
            )
            continue
        if x != y:
            return None
    return found
