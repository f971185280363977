"""Fixes of a loop that only fills the empty collection made right before it: the two
as one comprehension (``xs = [f(x) for x in items if t]``, ``{k: v for ...}``).

A list or set comprehension is safe: it adds the same items, in the same order, to a
fresh list or set. A dict comprehension evaluates each key before its value where
``d[k] = v`` evaluated the value first: safe when either is a name or a constant
(nothing to run between them), unsafe otherwise. No fix where the comprehension
would mean something else:

* the loop's variable is read after the loop (a comprehension's is its own);
* a ``with`` around may swallow an error partway, and the code after would see the
  partly filled collection where the comprehension leaves none (the move is not made
  in a ``try``, for the same reason);
* the collection is ``global``, ``nonlocal`` or used in a nested function (which could
  see it partly filled);
* ``list()``, ``set()`` or ``dict()`` is rebound (the loop filled whatever it makes).

A loop that only copies (``list(xs)``, ``dict(d)``) is left for a person: that call
takes the loop's radon point away, which the move does not count.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Final, NamedTuple

from gzguide.analysis.facts.walk import FunctionView, Stmt, target_names
from gzguide.analysis.fixes.edits import Edit, Fix, Source
from gzguide.analysis.fixes.generators import LOOSE_PART, for_clause, movable
from gzguide.analysis.fixes.registry import fixer, operand, seen_elsewhere, statement_at
from gzguide.analysis.moves.base import Move
from gzguide.analysis.moves.kinds import Kind
from gzguide.analysis.moves.loops import empty_kind
from gzguide.analysis.moves.rendering import render
from gzguide.analysis.moves.syntax import inside_with, read_outside_its_loops

#: What an item, key or value of a comprehension must not be bare.
_LOOSE_ITEM: Final = (ast.NamedExpr, ast.Lambda, ast.Tuple, ast.Yield, ast.YieldFrom)
_BRACKETS: Final = {"list": ("[", "]"), "set": ("{", "}"), "dict": ("{", "}")}


class _Fill(NamedTuple):
    """The parts of a loop that fills: what it makes, how, and the parts it adds."""

    #: The statement that makes the collection, and it as the tree has it.
    stmt: Stmt
    made: ast.Assign
    loop: ast.For
    test: ast.expr | None
    #: The item (a list's or set's), or the key and value (a dict's).
    parts: tuple[ast.expr, ...]
    kind: str

    @property
    def name(self) -> str:
        target = self.made.targets[0]
        return target.id if isinstance(target, ast.Name) else ""

    @property
    def moved(self) -> list[ast.expr]:
        """The parts that move into the comprehension."""
        return [*self.parts, *([self.test] if self.test is not None else [])]


@fixer(Kind.COMPREHENSION)
def comprehension(move: Move, view: FunctionView, source: Source) -> Fix | None:
    found = statement_at(view, move.span[0], ast.Assign)
    fill = _fill_of(found[0]) if found is not None else None
    if fill is None or source.has_comment(*move.span):
        return None
    if any(changes(view, fill, source) for changes in _CHANGES):
        return None
    edit = Edit(source.start(fill.made), source.end(fill.loop), _built(source, fill))
    return Fix(move.kind, "Use a comprehension", (edit,), _in_order(fill))


def _built(source: Source, fill: _Fill) -> str:
    """``xs = [item for x in items if test]``, as written."""
    opening, closing = _BRACKETS[fill.kind]
    element = ": ".join(operand(source, p, _LOOSE_ITEM) for p in fill.parts)
    test = f" if {operand(source, fill.test, LOOSE_PART)}" if fill.test is not None else ""
    built = f"{opening}{element} {for_clause(source, fill.loop)}{test}{closing}"
    return f"{source.segment(fill.made.targets[0])} = {built}"


def _fill_of(stmt: Stmt) -> _Fill | None:
    match stmt.node, stmt.next_node():
        case ast.Assign(targets=[ast.Name(id=name)], value=value) as made, ast.For() as loop:
            kind = empty_kind(value)
            test, add = _filled_by(loop)
            parts = _added(add, name, kind) if kind is not None and add is not None else None
            return _Fill(stmt, made, loop, test, parts, kind) if parts and kind else None
    return None


def _filled_by(loop: ast.For) -> tuple[ast.expr | None, ast.stmt | None]:
    """The loop's filter and the one statement that adds."""
    match loop.body:
        case [ast.If(test=test, body=[add], orelse=[])]:
            return test, add
        case [add]:
            return None, add
    return None, None


def _added(statement: ast.stmt, name: str, kind: str) -> tuple[ast.expr, ...] | None:
    """What ``statement`` adds to the collection ``name``: ``name.append(item)``,
    ``name.add(item)``, ``name[key] = value``."""
    method = {"list": "append", "set": "add"}.get(kind)
    match statement:
        case ast.Expr(
            value=ast.Call(func=ast.Attribute(value=ast.Name(id=filled), attr=called), args=[item])
        ) if (filled, called) == (name, method):
            return (item,)
        case ast.Assign(
            targets=[ast.Subscript(value=ast.Name(id=filled), slice=key)], value=value
        ) if filled == name and kind == "dict":
            return (key, value)
    return None


def _copies(view: FunctionView, fill: _Fill, source: Source) -> bool:
    """Whether the loop only copies (the move says ``list(xs)`` or ``dict(d)``)."""
    if fill.test is not None:
        return False
    match fill.loop.target, fill.parts:
        case ast.Tuple(elts=[key, value]), (added_key, added_value):
            return render(key) == render(added_key) and render(value) == render(added_value)
        case target, (item,):
            return render(target) == render(item)
    return False


def _moves_badly(view: FunctionView, fill: _Fill, source: Source) -> bool:
    return not movable(fill.loop, *fill.moved)


def _target_read_after(view: FunctionView, fill: _Fill, source: Source) -> bool:
    targets = target_names(fill.loop.target)
    return any(read_outside_its_loops(view, t) for t in targets)


def _seen_elsewhere(view: FunctionView, fill: _Fill, source: Source) -> bool:
    """Whether the collection is ``global`` or ``nonlocal``, or a nested function or
    lambda mentions it."""
    return seen_elsewhere(view, {fill.name})


def _rebuilt(view: FunctionView, fill: _Fill, source: Source) -> bool:
    """Whether the collection is made by a call to a builtin the module rebinds."""
    return isinstance(fill.made.value, ast.Call) and source.binds(fill.kind)


def _in_a_with(view: FunctionView, fill: _Fill, source: Source) -> bool:
    return inside_with(fill.stmt)


#: What would make the comprehension mean something else than the loop (or, for a
#: copy, not what the move says).
_CHANGES: Final[tuple[Callable[[FunctionView, _Fill, Source], bool], ...]] = (
    _copies,
    _moves_badly,
    _target_read_after,
    _seen_elsewhere,
    _rebuilt,
    _in_a_with,
)


def _in_order(fill: _Fill) -> bool:
    """Whether the comprehension evaluates what the loop did in the same order: a dict
    comprehension asks the key first, ``d[k] = v`` the value."""
    if fill.kind != "dict":
        return True
    return any(isinstance(p, ast.Name | ast.Constant) for p in fill.parts)
