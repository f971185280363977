"""Fixes of exception moves: adjacent ``except`` clauses with the same body as one
clause with a tuple of their types (``except (KeyError, IndexError):``).

The second clause's line and body go; the first names every type of both, in order
(a tuple already written in either is spread into the new one). The same body runs
with the same name bound, and the types are matched in the same order, so the first
that matches is the one that would have matched before. What changes is when the
types are *evaluated*: the two clauses evaluated the second clause's types only when
the first clause did not match, where the tuple evaluates every type before matching
any. That is the same for every input only when evaluating a type can neither fail
nor do anything, and gives an exception class:

* a builtin exception class (``KeyError``) that the module never binds, and into which
  no ``from m import *`` may have put something else: reading it is certain, and it is
  that class. Safe.
* any other plain name bound only by a ``class`` statement or an import, or not bound
  in the module at all, or a dotted name (``socket.error``): unsafe. A read of a global
  may fail (an import that was skipped), a dotted name may run a module's
  ``__getattr__``, and an imported name may hold a tuple of classes, which an
  ``except`` accepts alone but refuses (``TypeError``) inside another tuple.
* a name the module binds some other way (assigned, a parameter, a loop variable), or
  any other expression (a call, a subscript): no fix. Such a name is often a tuple of
  classes kept for ``except`` clauses, which the tuple would break for every input; a
  call would run where it did not.

``except*`` clauses get no fix: each one that matches runs for its part of an
exception group, so two clauses run the body twice where a tuple runs it once.
Nor where a dropped line holds a comment, or a clause's types span lines.
"""

from __future__ import annotations

import ast
import builtins
from itertools import pairwise
from typing import Final

from gzguide.analysis.facts.walk import FunctionView
from gzguide.analysis.fixes.edits import Edit, Fix, Pos, Source
from gzguide.analysis.fixes.registry import fixer, one_line, operand, parenthesized
from gzguide.analysis.moves.base import Move
from gzguide.analysis.moves.exceptions import joined_types
from gzguide.analysis.moves.kinds import Kind
from gzguide.analysis.moves.syntax import extent

#: The builtin exception classes, which their names give unless the module rebinds them.
_BUILTIN_EXCEPTIONS: Final = frozenset(
    name
    for name, value in vars(builtins).items()
    if isinstance(value, type) and issubclass(value, BaseException)
)

#: How a module binds a name, where that binding can only hold a class (or a module's
#: object, for an import): other bindings may hold a tuple of classes.
_CLASS_OR_IMPORT: Final = frozenset({"class", "import"})

_Pair = tuple[ast.ExceptHandler, ast.ExceptHandler]


@fixer(Kind.SAME_HANDLERS)
def same_handlers(move: Move, view: FunctionView, source: Source) -> Fix | None:
    pair = _pair_at(view, move.span)
    if pair is None or not _editable(source, *pair):
        return None
    types = joined_types(*pair)
    safe = _safety(source, types or [])
    if types is None or safe is None:
        return None
    return Fix(move.kind, "Join the except clauses", _joined(source, pair, types), safe)


def _safety(source: Source, types: list[ast.expr]) -> bool | None:
    """Whether joining ``types`` is safe (None: no fix), as the least safe one says."""
    found = [_type_safety(source, t) for t in types]
    return None if None in found else all(found)


def _joined(source: Source, pair: _Pair, types: list[ast.expr]) -> tuple[Edit, Edit]:
    """The first clause naming every type, and the second clause's lines gone."""
    first, second = pair
    start, end = _types_place(source, first)
    header = Edit(start, end, "(" + ", ".join(operand(source, t) for t in types) + ")")
    kept, dropped = extent(first)[1], extent(second)[1]
    cut = Edit((kept, len(source.line(kept))), (dropped, len(source.line(dropped))), "")
    return header, cut


def _pair_at(view: FunctionView, span: tuple[int, int]) -> _Pair | None:
    """The two clauses of a plain ``try`` that the move on ``span`` names."""
    for stmt in view.statements:
        if isinstance(stmt.node, ast.Try):
            for first, second in pairwise(stmt.node.handlers):
                if (first.lineno, extent(second)[1]) == span:
                    return (first, second) if joined_types(first, second) else None
    return None


def _editable(source: Source, first: ast.ExceptHandler, second: ast.ExceptHandler) -> bool:
    """Whether both clauses name their types on one line, and the lines that go (the
    second clause's) hold no comment."""
    if first.type is None or second.type is None or not one_line(first.type, second.type):
        return False
    return not source.has_comment(extent(first)[1] + 1, extent(second)[1])


def _types_place(source: Source, first: ast.ExceptHandler) -> tuple[Pos, Pos]:
    """Where the first clause's types are written: a lone type with the parentheses it
    may have around it (a tuple's own are in its extent)."""
    assert first.type is not None
    start, end = source.start(first.type), source.end(first.type)
    if isinstance(first.type, ast.Tuple):
        return start, end
    return parenthesized(source, start, end) or (start, end)


def _type_safety(source: Source, node: ast.expr) -> bool | None:
    """Whether evaluating ``node`` ahead of its turn is certain to give the class it gave
    (True), probably does (False: unsafe), or may give a tuple or run code (None)."""
    match node:
        case ast.Name(id=name):
            return _name_safety(source.tree, name)
        case ast.Attribute() if _dotted(node):
            return False
    return None


def _dotted(node: ast.expr) -> bool:
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name)


def _name_safety(tree: ast.Module, name: str) -> bool | None:
    kinds = _bindings(tree, name)
    if not kinds <= _CLASS_OR_IMPORT:
        return None
    return not kinds and name in _BUILTIN_EXCEPTIONS and not _star_import(tree)


def _bindings(tree: ast.Module, name: str) -> set[str]:
    """How the module binds ``name``: by a ``class`` statement, an import, or otherwise."""
    return {kind for node in ast.walk(tree) if (kind := _binding(node, name)) is not None}


def _binding(node: ast.AST, name: str) -> str | None:
    match node:
        case ast.ClassDef(name=bound) if bound == name:
            return "class"
        case ast.alias(name=bound, asname=alias) if (alias or bound).partition(".")[0] == name:
            return "import"
    return "other" if name in _names_bound(node) else None


def _names_bound(node: ast.AST) -> tuple[str | None, ...]:
    """The names ``node`` binds other than as a class or an import."""
    match node:
        case ast.Name(id=bound, ctx=ast.Store() | ast.Del()) | ast.arg(arg=bound):
            return (bound,)
        case ast.FunctionDef(name=bound) | ast.AsyncFunctionDef(name=bound):
            return (bound,)
        case ast.ExceptHandler(name=bound) | ast.MatchAs(name=bound) | ast.MatchStar(name=bound):
            return (bound,)
        case ast.MatchMapping(rest=bound):
            return (bound,)
    return ()


def _star_import(tree: ast.Module) -> bool:
    return any(
        isinstance(node, ast.ImportFrom) and any(a.name == "*" for a in node.names)
        for node in ast.walk(tree)
    )
