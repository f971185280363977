"""Lookup moves: a key looked up or made with a branch that a dict method says at once.

* ``dict_get``: ``d[k] if k in d else default``, spelled with an ``if``;
* ``setdefault``: ``if k in d: d[k].append(v) else: d[k] = [v]``, and an entry
  made when missing and then read (``d.setdefault(k, [])``).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from copy import deepcopy
from typing import Final

from gzguide.analysis.facts.walk import FunctionView, Stmt
from gzguide.analysis.moves.base import UNCLASSIFIED, Concern, Move, code, lines, snippet
from gzguide.analysis.moves.kinds import Kind
from gzguide.analysis.moves.registry import statement_rule
from gzguide.analysis.moves.rendering import render
from gzguide.analysis.moves.syntax import (
    costless,
    extent,
    otherwise,
    reads_key,
    same_tree,
    span_of,
)


@statement_rule(Kind.DICT_GET, concern=Concern.COMPLEXITY, doc="dict_get", on=(ast.If,))
def _dict_get(stmt: Stmt, view: FunctionView) -> Move | None:
    """``if k in d: return d[k]`` then ``return x``, or ``if k in d: v = d[k] else: v = x``."""
    match stmt.node:
        case ast.If(test=ast.Compare(left=key, ops=[ast.In()], comparators=[mapping])) if (
            not stmt.is_elif
        ):
            found = _get_rewrite(stmt, key, mapping)
            return None if found is None else _dict_get_move(stmt, *found)
    return None


def _get_rewrite(stmt: Stmt, key: ast.expr, mapping: ast.expr) -> tuple[str, ast.stmt] | None:
    """The ``d.get(k, x)`` statement that says what the ``if k in d`` and its fallback say,
    and the fallback's statement."""
    last: ast.stmt
    match stmt.node, otherwise(stmt):
        case ast.If(body=[ast.Return(value=found)]), ast.Return(value=default) as last:
            said = "return"
        case (
            ast.If(
                body=[ast.Assign(targets=[ast.Name(id=name) as target], value=found)],
                orelse=[ast.Assign(targets=[other], value=default) as last],
            ),
            _,
        ) if same_tree(target, other):
            said = f"{name} ="
        case _:
            return None
    if not _plain_lookup(found, key, mapping, default):
        return None
    fallback = render(default) if default is not None else "None"
    return f"{said} {render(mapping)}.get({render(key)}, {fallback})", last


def _plain_lookup(
    found: ast.expr | None, key: ast.expr, mapping: ast.expr, default: ast.expr | None
) -> bool:
    """Whether the ``if`` reads the key it tests, and its fallback costs nothing: the
    default of ``.get`` is worked out even when the key is there (a call in it would
    run every time)."""
    return reads_key(found, key, mapping) and (default is None or costless(default))


def _dict_get_move(stmt: Stmt, result: str, last: ast.stmt) -> Move:
    span = (stmt.line, extent(last)[1])
    shown = code(ast.parse(result).body[0], 80)
    text = f"{lines(*span).capitalize()} look a key up or fall back: {shown}, 1 point less."
    return Move(Kind.DICT_GET, UNCLASSIFIED, text, span, {Concern.COMPLEXITY: 1}, 4)


@statement_rule(Kind.SETDEFAULT, concern=Concern.COMPLEXITY, doc="setdefault", on=(ast.If,))
def _setdefault(stmt: Stmt, view: FunctionView) -> Move | None:
    """``if k in d: d[k].append(v) else: d[k] = [v]`` (either order of arms)."""
    arms = None if stmt.is_elif else present_or_absent(stmt.node)
    if arms is None:
        return None
    key, mapping, present, absent = arms
    item = _appended(present, key, mapping)
    if item is not None and _starts_list(absent, key, mapping, item):
        return _setdefault_move(stmt, key, mapping, item)
    return None


def present_or_absent(node: ast.stmt) -> tuple[ast.expr, ast.expr, ast.stmt, ast.stmt] | None:
    """The key, the mapping and the one statement of each arm (for the key there, for
    it missing) of ``if k in d: ... else: ...``, or of the ``not in`` test with the
    arms the other way round."""
    match node:
        case (
            ast.If(
                test=ast.Compare(left=key, ops=[ast.In()], comparators=[mapping]),
                body=[present],
                orelse=[absent],
            )
            | ast.If(
                test=ast.Compare(left=key, ops=[ast.NotIn()], comparators=[mapping]),
                body=[absent],
                orelse=[present],
            )
        ):
            return key, mapping, present, absent
    return None


def _appended(statement: ast.stmt, key: ast.expr, mapping: ast.expr) -> ast.expr | None:
    """The item when ``statement`` is ``mapping[key].append(item)``."""
    match statement:
        case ast.Expr(
            value=ast.Call(func=ast.Attribute(value=extended, attr="append"), args=[item])
        ) if reads_key(extended, key, mapping):
            return item
    return None


def _starts_list(statement: ast.stmt, key: ast.expr, mapping: ast.expr, item: ast.expr) -> bool:
    """Whether ``statement`` is ``mapping[key] = [item]``, of the item the other arm
    appends (a list started with another one is not what ``setdefault`` would make)."""
    match statement:
        case ast.Assign(targets=[started], value=ast.List(elts=[first])):
            return reads_key(started, key, mapping) and same_tree(first, item)
    return False


def _setdefault_move(stmt: Stmt, key: ast.expr, mapping: ast.expr, item: ast.expr) -> Move:
    rewrite = f"{render(mapping)}.setdefault({render(key)}, []).append({render(item)})"
    text = (
        f"The `if`/`else` at {lines(*span_of(stmt))} starts or extends a list: "
        f"{snippet(rewrite, 70)} (or a `defaultdict(list)`) does both."
    )
    gains = {Concern.COMPLEXITY: 1, Concern.NESTING: 1, Concern.SIZE: 3}
    return Move(Kind.SETDEFAULT, UNCLASSIFIED, text, span_of(stmt), gains, 4)


@statement_rule(Kind.SETDEFAULT, concern=Concern.COMPLEXITY, doc="setdefault", on=(ast.If,))
def _make_then_use(stmt: Stmt, view: FunctionView) -> Move | None:
    """``if k not in d: d[k] = []`` then a statement using ``d[k]`` once: that
    statement with ``d.setdefault(k, [])`` in its place; followed by anything else,
    the ``if`` alone is ``d.setdefault(k, [])``."""
    match stmt.node:
        case ast.If(
            test=ast.Compare(left=key, ops=[ast.NotIn()], comparators=[mapping]),
            body=[ast.Assign(targets=[made], value=default)],
            orelse=[],
        ) if reads_key(made, key, mapping) and _plain_default(default):
            call = ast.Call(
                ast.Attribute(mapping, "setdefault", ast.Load()), [key, default], keywords=[]
            )
            rewrite = _in_place_of(stmt.next_node(), key, mapping, call)
            if rewrite is None:
                return _make_move(stmt, call)
            return _make_and_use_move(stmt, rewrite)
    return None


def _make_move(stmt: Stmt, call: ast.Call) -> Move:
    """The ``if`` alone is ``d.setdefault(k, default)``."""
    start, end = span_of(stmt)
    makes = f"Line {start} makes" if start == end else f"Lines {start}-{end} make"
    text = (
        f"{makes} the entry when it is missing: "
        f"{snippet(render(call), 70)} does the same in one statement, 1 point less."
    )
    gains = {Concern.COMPLEXITY: 1, Concern.NESTING: 1, Concern.SIZE: 1}
    return Move(Kind.SETDEFAULT, UNCLASSIFIED, text, (start, end), gains, 4)


def _make_and_use_move(stmt: Stmt, rewrite: ast.stmt) -> Move:
    """The ``if`` and the statement after it are that statement with the call in it
    (``rewrite``, a copy of it, placed where it is)."""
    span = (stmt.line, extent(rewrite)[1])
    text = (
        f"{lines(*span).capitalize()} make the entry when it is missing, then use it: "
        f"{snippet(render(rewrite), 70)} does both, 1 point less."
    )
    gains = {Concern.COMPLEXITY: 1, Concern.NESTING: 1, Concern.SIZE: 2}
    return Move(Kind.SETDEFAULT, UNCLASSIFIED, text, span, gains, 4)


def _plain_default(node: ast.expr | None) -> bool:
    """A default that ``setdefault`` may build on every call: a constant, an empty
    container, or a literal of constants. Not a container of containers: built on
    every call, even when the key is there, it costs what the ``if`` saved (the eighth
    fresh review's tomli ``Flags.set``, judged a slowdown)."""
    match node:
        case (
            ast.List(elts=[_, *_] as parts)
            | ast.Tuple(elts=[_, *_] as parts)
            | ast.Set(elts=[_, *_] as parts)
        ):
            return all(isinstance(p, ast.Constant) for p in parts)
        case ast.Dict(values=[_, *_] as values, keys=keys):
            return all(isinstance(p, ast.Constant) for p in [*keys, *values])
    return _cheap_part(node)


def _cheap_part(node: ast.expr | None) -> bool:
    """A constant, or an empty container (a literal or ``list()``/``set()``/...)."""
    match node:
        case (
            ast.Constant()
            | ast.List(elts=[])
            | ast.Tuple(elts=[])
            | ast.Dict(keys=[])
            | ast.Call(
                func=ast.Name(id="list" | "set" | "dict" | "tuple" | "frozenset"),
                args=[],
                keywords=[],
            )
        ):
            return True
    return False


#: Where a part of an expression may not be evaluated (or is evaluated later, or
#: many times): ``d.setdefault`` there would not make the entry exactly once.
_LAZY: Final = (
    ast.BoolOp,
    ast.IfExp,
    ast.Lambda,
    ast.ListComp,
    ast.SetComp,
    ast.DictComp,
    ast.GeneratorExp,
)

#: Where an expression sits in its parent: the field, and the index in it if a list.
_Place = tuple[ast.AST, str, int | None]


def _in_place_of(
    used: ast.stmt | None, key: ast.expr, mapping: ast.expr, call: ast.Call
) -> ast.stmt | None:
    """``used`` with its one read of ``mapping[key]`` replaced by ``call``; None when it
    reads it more or less than once, writes it, is a compound statement, or reads it
    where it may not run."""
    if not isinstance(used, ast.Assign | ast.AugAssign | ast.AnnAssign | ast.Expr | ast.Return):
        return None
    rewritten = deepcopy(used)
    match list(_key_reads(rewritten, key, mapping, lazy=False)):
        case [((parent, field_name, None), False)]:
            setattr(parent, field_name, call)
        case [((parent, field_name, int() as index), False)]:
            getattr(parent, field_name)[index] = call
        case _:
            return None
    return rewritten


def _key_reads(
    parent: ast.AST, key: ast.expr, mapping: ast.expr, lazy: bool
) -> Iterator[tuple[_Place, bool]]:
    """Where the expressions under ``parent`` use ``mapping[key]``, each with whether it
    is no plain read there (a write, or a read that may not run)."""
    for child, place in _expressions_in(parent):
        if reads_key(child, key, mapping):
            yield place, lazy or not isinstance(child.ctx, ast.Load)
        else:
            yield from _key_reads(child, key, mapping, lazy or isinstance(child, _LAZY))


def _expressions_in(parent: ast.AST) -> Iterator[tuple[ast.expr, _Place]]:
    """The expressions ``parent`` holds directly, each with its place."""
    for field_name, value in ast.iter_fields(parent):
        if isinstance(value, list):
            for index, child in enumerate(value):
                if isinstance(child, ast.expr):
                    yield child, (parent, field_name, index)
        elif isinstance(value, ast.expr):
            yield value, (parent, field_name, None)
