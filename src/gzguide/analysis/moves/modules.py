"""Module moves: a module that holds unrelated groups, and expressions computed again and again.

* ``split_module``: the module's top-level functions and classes, linked whenever
  one names another, fall into two or more groups that each make up a large part
  of the module (:data:`MIN_GROUP_SHARE` of its definitions' lines and at least
  :data:`MIN_GROUP_LINES` lines). A module of many small unrelated helpers is not
  such a case: none of its groups is large. One group can move into a module of
  its own. It lowers every module measure that grows with the code (size,
  Halstead volume and effort) and raises the maintainability index of both parts,
  so it is the move for those; Halstead difficulty, a ratio, gets no hint.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from gzguide.analysis.facts.toplevel import TopLevel
from gzguide.analysis.moves.base import UNCLASSIFIED, Concern, Move, names
from gzguide.analysis.moves.kinds import Kind
from gzguide.analysis.moves.registry import rule

MIN_GROUP_SHARE: Final = 0.3
MIN_GROUP_LINES: Final = 100


@dataclass(frozen=True, slots=True)
class _Group:
    definitions: list[str]
    lines: int
    start: int
    end: int


def _groups(definitions: tuple[TopLevel, ...]) -> list[_Group]:
    by_name = {d.name for d in definitions}
    parent = {d.name: d.name for d in definitions}

    def find(name: str) -> str:
        while parent[name] != name:
            parent[name] = parent[parent[name]]
            name = parent[name]
        return name

    # A name some definition declares `global` is state: every definition mentioning
    # it is linked to that one (moving either away would break the other).
    state: dict[str, str] = {}
    for definition in definitions:
        for name in definition.declares:
            state.setdefault(name, definition.name)
    for definition in definitions:
        for other in definition.mentions & by_name:
            if other != definition.name:
                parent[find(other)] = find(definition.name)
        for name in definition.mentions & state.keys():
            parent[find(state[name])] = find(definition.name)
    members: dict[str, list[TopLevel]] = {}
    for definition in definitions:
        members.setdefault(find(definition.name), []).append(definition)
    groups = [
        _Group(
            [d.name for d in group],
            sum(d.end - d.start + 1 for d in group),
            min(d.start for d in group),
            max(d.end for d in group),
        )
        for group in members.values()
    ]
    return sorted(groups, key=lambda g: -g.lines)


@rule(Kind.SPLIT_MODULE, concern=Concern.MODULE_SIZE, doc="module-metrics")
def split_move(definitions: tuple[TopLevel, ...]) -> Move | None:
    groups = _groups(definitions)
    total = sum(g.lines for g in groups)
    large = [g for g in groups if g.lines >= MIN_GROUP_LINES and g.lines >= total * MIN_GROUP_SHARE]
    if len(large) < 2:
        return None
    parts = [f"{names(g.definitions, 3)} (lines {g.start}-{g.end})" for g in large[:2]]
    text = (
        f"Its definitions form groups that never refer to each other: {parts[0]}, and "
        f"{parts[1]}. One group can move into a module of its own."
    )
    last = max(g.end for g in large)
    gains = {Concern.MODULE_SIZE: large[-1].lines, Concern.HALSTEAD: 1, Concern.MAINTAINABILITY: 1}
    return Move(
        Kind.SPLIT_MODULE, UNCLASSIFIED, text, (min(g.start for g in large), last), gains, 1
    )
