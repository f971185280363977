"""What a loop's parts become when a fix moves them into a generator or a
comprehension: its ``for`` clause, and the tests and values that may go there.

A generator has a scope of its own: ``await``, ``yield`` and ``super()`` mean
something else there (or do not parse), so a loop whose code holds one keeps its loop.
"""

from __future__ import annotations

import ast
from typing import Final

from gzguide.analysis.fixes.edits import Source
from gzguide.analysis.fixes.registry import one_line, operand

#: What the iterable of a generator's ``for`` must not be bare (it would not parse, or
#: would take the ``if`` of a conditional for a filter).
LOOSE_ITERABLE: Final = (ast.NamedExpr, ast.IfExp, ast.Lambda, ast.Tuple, ast.Yield)
#: What a generator's element or its ``if`` filter must not be bare.
LOOSE_PART: Final = (ast.NamedExpr, ast.IfExp, ast.Lambda, ast.Tuple, ast.Yield, ast.YieldFrom)


def nested_scope_breaks(*nodes: ast.AST) -> bool:
    """Whether any of ``nodes`` would mean something else inside a generator's own scope."""
    for node in (sub for root in nodes for sub in ast.walk(root)):
        match node:
            case ast.Await() | ast.Yield() | ast.YieldFrom():
                return True
            case ast.Call(func=ast.Name(id="super"), args=[]):
                return True
    return False


def for_clause(source: Source, loop: ast.For) -> str:
    """``for x in xs``: the loop's header as a generator's clause."""
    return f"for {source.segment(loop.target)} in {operand(source, loop.iter, LOOSE_ITERABLE)}"


def movable(loop: ast.For, *parts: ast.expr) -> bool:
    """Whether the loop's header and ``parts`` are each on one line and mean the same
    inside a generator."""
    return one_line(loop.target, loop.iter, *parts) and not nested_scope_breaks(*parts)
