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

A loop that only copies is its constructor: ``xs = list(items)``, ``set(items)``, and
``dict(d)`` for a loop over ``d.items()`` that sets ``out[k] = v`` (``dict(pairs)`` over
anything else); the call takes the loop's radon point too, which the move counts. The
same items go into a fresh collection, but the constructor reads them its own way:

* ``list()`` first asks the length (``__len__`` or ``__length_hint__``, an error of
  which but TypeError it raises), which the loop never asked;
* ``set()`` of a set or a dict copies its table without adding item by item, so the
  new set's order need not be the one the loop's adds gave (and a set subclass's
  ``__iter__`` is skipped);
* ``dict()`` of a mapping that is not a dict reads ``keys()`` and ``__getitem__``,
  not its ``items()``; of anything else it takes pairs, where the loop unpacked them
  (a mapping's keys, say).

So a copy is unsafe, unless the code shows what the items are made as: a display or
comprehension (``[...]``, ``(...)``, ``{...}``, a generator), in the loop's header or
as the one value a name is ever given in the function. Then ``list()`` of any of them
is safe (a builtin's length has no effects), ``set()`` of a list, tuple or generator,
and ``dict(d)`` of a dict: its pairs are the ones ``items()`` gives, in order (the loop
hashed each key again, ``dict()`` keeps the hash the dict holds, which a key's hash
must stay the same as while it is in one). No copy fix either where ``list``, ``set``
or ``dict`` is rebound, or the loop adds anything but its own names as they are.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Final, NamedTuple

from gzguide.analysis.facts.walk import FunctionView, Stmt, target_names
from gzguide.analysis.fixes.edits import Edit, Fix, Source
from gzguide.analysis.fixes.generators import LOOSE_ITERABLE, LOOSE_PART, for_clause, movable
from gzguide.analysis.fixes.registry import fixer, operand, seen_elsewhere, statement_at
from gzguide.analysis.moves.base import Concern, Move
from gzguide.analysis.moves.kinds import Kind
from gzguide.analysis.moves.loops import empty_kind
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
    if _changed(view, fill, source):
        return None
    # A copy's move counts the loop's point, which only the constructor takes.
    copies = move.gain(Concern.COMPLEXITY) > 0
    return _copy(move, view, source, fill) if copies else _comprehended(move, source, fill)


def _comprehended(move: Move, source: Source, fill: _Fill) -> Fix:
    edit = Edit(source.start(fill.made), source.end(fill.loop), _built(source, fill))
    return Fix(move.kind, "Use a comprehension", (edit,), _in_order(fill))


def _copy(move: Move, view: FunctionView, source: Source, fill: _Fill) -> Fix | None:
    """``xs = list(items)`` (``set(items)``, ``dict(d)``) for a loop that only copies."""
    items = _copied(fill)
    if items is None or source.binds(fill.kind):
        return None  # not a plain copy; or the constructor is not the builtin
    called = f"{fill.kind}({operand(source, items, LOOSE_ITERABLE)})"
    built = f"{source.segment(fill.made.targets[0])} = {called}"
    edit = Edit(source.start(fill.made), source.end(fill.loop), built)
    safe = _made_as(view, items) in _SAFE_FROM[fill.kind] and _of_items(fill, items)
    return Fix(move.kind, f"Use {fill.kind}()", (edit,), safe)


def _copied(fill: _Fill) -> ast.expr | None:
    """What the constructor copies: the loop's items, or for a loop over ``d.items()``
    that sets ``out[k] = v``, ``d``; None unless the loop adds its own names as they are."""
    match fill.loop.target, fill.parts:
        case ast.Name(id=each), (ast.Name(id=added),) if each == added:
            return fill.loop.iter
        case ast.Tuple(elts=[ast.Name(id=k), ast.Name(id=v)]), (
            ast.Name(id=key),
            ast.Name(id=value),
        ) if (k, v) == (key, value) and k != v:
            return _items_of(fill.loop.iter) or fill.loop.iter
    return None


def _items_of(node: ast.expr) -> ast.expr | None:
    """``d`` when ``node`` is ``d.items()``."""
    match node:
        case ast.Call(func=ast.Attribute(value=mapping, attr="items"), args=[], keywords=[]):
            return mapping
    return None


def _of_items(fill: _Fill, items: ast.expr) -> bool:
    """Whether a dict is copied from ``d.items()`` (the pairs of anything else may be a
    mapping's keys, which ``dict()`` would not take as pairs); any list or set is."""
    return fill.kind != "dict" or items is not fill.loop.iter


#: What each collection is made from by a display or comprehension of the code.
_DISPLAYS: Final[dict[type[ast.expr], str]] = {
    ast.List: "list",
    ast.ListComp: "list",
    ast.Tuple: "tuple",
    ast.Set: "set",
    ast.SetComp: "set",
    ast.Dict: "dict",
    ast.DictComp: "dict",
    ast.GeneratorExp: "generator",
}

#: What each constructor copies as the loop did, by what the items are made as (the
#: module's docstring says why).
_SAFE_FROM: Final = {
    "list": frozenset(_DISPLAYS.values()),
    "set": frozenset({"list", "tuple", "generator"}),
    "dict": frozenset({"dict"}),
}


def _made_as(view: FunctionView, node: ast.expr) -> str | None:
    """What ``node`` is made as where the code shows it: a display or comprehension, or a
    name the function binds once, to one, and nothing else rebinds."""
    if isinstance(node, ast.Name):
        value = _only_value(view, node.id)
        return _DISPLAYS.get(type(value)) if value is not None else None
    return _DISPLAYS.get(type(node))


def _only_value(view: FunctionView, name: str) -> ast.expr | None:
    """The value of the one assignment that binds ``name``, when nothing else binds it."""
    stores = view.stores.get(name, [])
    if len(stores) != 1 or seen_elsewhere(view, {name}):
        return None
    return next((v for s in view.statements if (v := _assigned(s.node, name, stores[0]))), None)


def _assigned(node: ast.stmt, name: str, at: tuple[int, int]) -> ast.expr | None:
    """The value ``node`` assigns to ``name`` at ``at``, if it is ``name = value``."""
    match node:
        case ast.Assign(targets=[ast.Name(id=bound) as target], value=value) if bound == name:
            return value if (target.lineno, target.col_offset) == at else None
    return None


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


#: What would make the comprehension (or the constructor) mean something else than the
#: loop.
_CHANGES: Final[tuple[Callable[[FunctionView, _Fill, Source], bool], ...]] = (
    _moves_badly,
    _target_read_after,
    _seen_elsewhere,
    _rebuilt,
    _in_a_with,
)


def _changed(view: FunctionView, fill: _Fill, source: Source) -> bool:
    return any(changes(view, fill, source) for changes in _CHANGES)


def _in_order(fill: _Fill) -> bool:
    """Whether the comprehension evaluates what the loop did in the same order: a dict
    comprehension asks the key first, ``d[k] = v`` the value."""
    if fill.kind != "dict":
        return True
    return any(isinstance(p, ast.Name | ast.Constant) for p in fill.parts)
