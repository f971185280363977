"""Copy moves: a function, or a block, that another part of the file writes again.

* ``copied_function``: a function whose body another function of the file copies
  (but for at most two values a caller can pass, or the names of its locals) gets
  one move for both: keep one, or one helper taking what differs as parameters;
* a block written twice is named where an extraction proposes it (one helper then
  serves both copies): :func:`where_copied`.

The copies themselves are found by :class:`~gzguide.analysis.facts.twins.Twins`.
"""

from __future__ import annotations

import ast
from dataclasses import replace

from gzguide.analysis.facts.astshape import code_lines
from gzguide.analysis.facts.file import FileFacts
from gzguide.analysis.facts.scopes import Scope
from gzguide.analysis.facts.twins import FunctionCopy, own_body
from gzguide.analysis.moves.base import (
    MAX_MOVE_CHARS,
    UNCLASSIFIED,
    Concern,
    Move,
    lines,
    listing,
    plural,
    snippet,
)
from gzguide.analysis.moves.kinds import Kind
from gzguide.analysis.moves.registry import rule


def where_copied(node: ast.stmt, scope: Scope, facts: FileFacts) -> str | None:
    """Where a copy of the statement ``node`` of ``scope`` is in the file, and how
    close (``"lines 9-14 (in `load`) word for word"``)."""
    twin = facts.twins.twin_of(node)
    if twin is None:
        return None
    other, differing = twin
    where = lines(other.lineno, other.end_lineno or other.lineno)
    owner = facts.function_at(other.lineno)
    if owner is not None and owner.key != scope.key:
        where += f" (in `{owner.node.name}`)"
    return where + _how_close(differing)


def _how_close(differing: int) -> str:
    if not differing:
        return " word for word"
    if differing == 1:
        return " but for one name or value"
    return f" but for {differing} names or values"


@rule(Kind.COPIED_FUNCTION, concern=Concern.SIZE, doc="copied_function")
def copied_function(scope: Scope, facts: FileFacts) -> Move | None:
    """One definition for this function and another of the file that copies it."""
    found = facts.twins.copy_of(scope)
    if found is None:
        return None
    node = scope.node
    assert not isinstance(node, ast.ClassDef)
    text = _copy_text(scope, found)
    size = code_lines(own_body(node))
    span = (scope.start_line, scope.end_line)
    other = found.other
    copy = (other.start_line, other.end_line, f"the copy: `{other.qualname}`")
    move = Move(Kind.COPIED_FUNCTION, UNCLASSIFIED, text, span, {Concern.SIZE: size}, 3)
    return replace(move, related=(copy,))


def _copy_text(scope: Scope, found: FunctionCopy) -> str:
    other = found.other
    prefix = scope.qualname.rpartition(".")[0]
    name = other.qualname.removeprefix(f"{prefix}.") if prefix else other.qualname
    where = f"`{name}` ({lines(other.start_line, other.end_line)}) is this {scope.kind}"
    if not found.differing or found.renames_only:
        return _same_text(where, scope, found)
    return _differing_text(where, found)


def _same_text(where: str, scope: Scope, found: FunctionCopy) -> str:
    """For a copy that differs in nothing a caller passes: one definition is enough."""
    same = "word for word" if not found.differing else "but for the names of its locals"
    return f"{where} {same}{_also(found.more)}: {_keep(scope, found)}."


def _keep(scope: Scope, found: FunctionCopy) -> str:
    owner = found.other.owner
    if owner is not scope.owner and owner is not None:
        return f"one definition in a class they share can serve {_both(found.more)}"
    return f"keep one and have the {'others' if found.more else 'other'} call it"


def _differing_text(where: str, found: FunctionCopy) -> str:
    """For a copy that differs in values: one helper taking them as parameters."""
    theirs = listing([snippet(b, 40) for _, b in found.differing])
    ours = ", ".join(snippet(a, 40) for a, _ in found.differing)
    tail = f"{_also(found.more)}: one helper taking {_which(found)} can serve {_both(found.more)}."
    text = f"{where} but for {theirs} (here {ours}){tail}"
    if len(text) > MAX_MOVE_CHARS:
        text = f"{where} but for {theirs}{tail}"
    return text


def _both(more: int) -> str:
    return "all" if more else "both"


def _also(more: int) -> str:
    if not more:
        return ""
    verb = "copies" if more == 1 else "copy"
    return f", and {plural(more, 'other')} {verb} it too"


def _which(found: FunctionCopy) -> str:
    if found.more:
        return "parameters for what differs"
    return "it as a parameter" if len(found.differing) == 1 else "them as parameters"
