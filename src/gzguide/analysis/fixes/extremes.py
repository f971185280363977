"""Fixes of a loop that keeps the least (or greatest) item it has seen: the name set to
None and the loop as one call, ``best = min(xs, default=None)`` (``max``, with
``key=len`` or ``key=lambda x: x.score`` where the loop compares a key of each).

Always unsafe, for what the items may be:

* an item that is None: the loop takes it as "nothing kept yet" and starts its search
  again from the next one; ``min()`` compares it and raises;
* a key: ``min(key=f)`` computes the key of every item once, the first included,
  where the loop computed it of the item and of the kept one on every pass after the
  first: a key that has effects, or fails on the first item alone, tells them apart.

The comparison itself is the one ``min()`` makes. ``min()`` asks ``item < kept`` of
each new item (``max()``, ``item > kept``), the new one on the left, and takes it on
a true answer, so that of equal items the first stays, as the loop's strict test
keeps it. ``kept > item`` asks the same question of the other operand first (its
``__gt__`` before the item's ``__lt__``), and a class may answer the two apart: no fix
then, only where the loop's test is written as ``min()`` or ``max()`` asks it.

No fix either where the call would mean something else than the loop: the kept name
or the loop's variable is ``global``, ``nonlocal`` or seen by a nested function or
lambda (which could see the name change while the loop runs, or read the variable
after it: the move already asks that the function itself reads it only in the loop);
a ``try`` or ``with`` is around (an error partway left the loop's best so far for
the code after to see, where the call leaves none); ``min`` or ``max`` is rebound; a
comment on the lines that go; the loop's header or test spans lines; a key holds
``await``, ``yield`` or ``super()``, which mean something else in a lambda.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Final, NamedTuple

from gzguide.analysis.facts.walk import FunctionView, Stmt
from gzguide.analysis.fixes.edits import Edit, Fix, Source
from gzguide.analysis.fixes.generators import LOOSE_ITERABLE, LOOSE_PART, nested_scope_breaks
from gzguide.analysis.fixes.registry import fixer, one_line, operand, seen_elsewhere
from gzguide.analysis.moves.base import Move
from gzguide.analysis.moves.kinds import Kind
from gzguide.analysis.moves.loops import Running, extreme, key_of, running_extreme
from gzguide.analysis.moves.syntax import inside_try, inside_with


class _Extreme(NamedTuple):
    """A running minimum or maximum, as the fix needs it."""

    #: The loop, and the assignment before it that sets the kept name to None.
    stmt: Stmt
    made: ast.Assign
    running: Running
    #: ``min`` or ``max``.
    function: str
    #: What of the item the loop compares (the item itself, or a key of it).
    key: ast.expr


@fixer(Kind.MIN_MAX)
def least_or_greatest(move: Move, view: FunctionView, source: Source) -> Fix | None:
    found = _extreme_at(view, move.span[0])
    if found is None or source.has_comment(*move.span):
        return None
    if any(changes(view, found, source) for changes in _CHANGES):
        return None
    call = _call(source, found)
    edit = Edit(source.start(found.made), source.end(found.running.loop), call)
    return Fix(move.kind, f"Use {found.function}()", (edit,), safe=False)


def _extreme_at(view: FunctionView, line: int) -> _Extreme | None:
    """The running minimum or maximum whose kept name is set to None on ``line``."""
    at = next((s for s in view.statements if _loop_after(s, line)), None)
    return _extreme_of(at) if at is not None else None


def _extreme_of(stmt: Stmt) -> _Extreme | None:
    running = running_extreme(stmt)
    found = extreme(running) if running is not None else None
    made = stmt.previous_node()
    if running is None or found is None or not isinstance(made, ast.Assign):
        return None
    return _Extreme(stmt, made, running, *found)


def _loop_after(stmt: Stmt, line: int) -> bool:
    """Whether ``stmt`` is a ``for`` right after the statement on ``line``."""
    before = stmt.previous_node()
    return isinstance(stmt.node, ast.For) and before is not None and before.lineno == line


def _call(source: Source, found: _Extreme) -> str:
    """``best = min(xs, key=..., default=None)``, as written."""
    items = operand(source, found.running.loop.iter, LOOSE_ITERABLE)
    called = f"{found.function}({items}{_key(source, found)}, default=None)"
    return f"{source.segment(found.made.targets[0])} = {called}"


def _key(source: Source, found: _Extreme) -> str:
    """The ``key=`` argument, as written (none when the items themselves compare)."""
    compared = key_of(found.running.item, found.key)
    if compared is None:
        return ""
    function, is_body = compared
    text = operand(source, function, LOOSE_PART)
    return f", key=lambda {found.running.item}: {text}" if is_body else f", key={text}"


def _turned_around(view: FunctionView, found: _Extreme, source: Source) -> bool:
    """Whether the loop's test puts the kept value first, where ``min()`` and ``max()``
    ask the item first."""
    test = found.running.test
    return not (isinstance(test, ast.Compare) and test.left is found.key)


def _rebound(view: FunctionView, found: _Extreme, source: Source) -> bool:
    return source.binds(found.function)


def _seen(view: FunctionView, found: _Extreme, source: Source) -> bool:
    return seen_elsewhere(view, {found.running.kept, found.running.item})


def _guarded(view: FunctionView, found: _Extreme, source: Source) -> bool:
    return inside_try(found.stmt) or inside_with(found.stmt)


def _unwritable(view: FunctionView, found: _Extreme, source: Source) -> bool:
    """Whether the loop's parts span lines, or its key would mean something else in a
    lambda."""
    loop = found.running.loop
    return not one_line(loop.iter, found.running.test) or nested_scope_breaks(found.key)


#: What makes the call mean something else than the loop, beyond what items it meets.
_CHANGES: Final[tuple[Callable[[FunctionView, _Extreme, Source], bool], ...]] = (
    _turned_around,
    _rebound,
    _seen,
    _guarded,
    _unwritable,
)
