"""A census of a function's decision points: what makes its complexity, and where.

Counts follow radon's rules (an ``if``/``elif`` or ternary is one, a loop is one
plus one for its ``else``, each ``except`` is one and a ``try``'s ``else`` another,
a boolean operator is one per extra operand, a comprehension is one plus one per
``if``, a ``match`` is one per case except a wildcard, an ``assert`` is one, whatever
it holds) and
stop at nested functions and classes, which radon scores on their own.
"""

from __future__ import annotations

import ast
from collections import Counter
from dataclasses import dataclass, field

#: Scored on their own by radon; a lambda is not: its conditions count for the function.
_NESTED_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


@dataclass(slots=True)
class Census:
    counts: Counter[str] = field(default_factory=Counter)
    lines: dict[str, list[int]] = field(default_factory=dict)

    def add(self, kind: str, line: int, weight: int = 1) -> None:
        if weight <= 0:
            return
        self.counts[kind] += weight
        self.lines.setdefault(kind, []).append(line)

    @property
    def total(self) -> int:
        return sum(self.counts.values())


def _weigh(node: ast.AST, census: Census) -> None:
    line = getattr(node, "lineno", 0)
    if isinstance(node, ast.If):
        census.add("if/elif branch", line)
    elif isinstance(node, ast.IfExp):
        census.add("conditional expression", line)
    elif isinstance(node, ast.For | ast.AsyncFor | ast.While):
        census.add("loop", line, 1 + bool(node.orelse))
    elif isinstance(node, ast.Try):  # radon does not count ``except*`` (TryStar)
        census.add("except handler", line, len(node.handlers) + bool(node.orelse))
    elif isinstance(node, ast.BoolOp):
        census.add("boolean operator", line, len(node.values) - 1)
    elif isinstance(node, ast.comprehension):
        census.add("comprehension", getattr(node.iter, "lineno", line), 1 + len(node.ifs))
    elif isinstance(node, ast.Match):
        wildcard = any(
            isinstance(case.pattern, ast.MatchAs) and case.pattern.pattern is None
            for case in node.cases
        )
        census.add("match case", line, len(node.cases) - wildcard)
    elif isinstance(node, ast.Assert):
        census.add("assert", line)


def census_of(nodes: list[ast.stmt]) -> Census:
    """The decision points in ``nodes``, not descending into nested scopes."""
    census = Census()
    stack: list[ast.AST] = list(reversed(nodes))
    while stack:
        node = stack.pop()
        _weigh(node, census)
        if isinstance(node, ast.Assert):
            continue  # radon counts an assert once and never looks inside it
        stack.extend(
            child for child in ast.iter_child_nodes(node) if not isinstance(child, _NESTED_SCOPES)
        )
    return census


@dataclass(frozen=True, slots=True)
class Hotspot:
    """The statement of a function body that holds most of its decision points."""

    node: ast.stmt
    points: int

    @property
    def start_line(self) -> int:
        return self.node.lineno

    @property
    def end_line(self) -> int:
        return self.node.end_lineno or self.node.lineno


def census_and_hotspot(body: list[ast.stmt]) -> tuple[Census, Hotspot | None]:
    """The body's census, and the top-level statement holding most of it (two or more).

    One walk: each top-level statement is counted once, and the body's census is
    the sum of theirs.
    """
    total = Census()
    best: Hotspot | None = None
    for statement in body:
        if isinstance(statement, _NESTED_SCOPES):
            continue
        part = census_of([statement])
        for kind, count in part.counts.items():
            total.counts[kind] += count
            total.lines.setdefault(kind, []).extend(part.lines[kind])
        points = part.total
        if points >= 2 and (best is None or points > best.points):
            best = Hotspot(statement, points)
    return total, best
