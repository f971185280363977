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
from gzguide.analysis.moves.partition import Partition
from gzguide.analysis.moves.registry import rule

MIN_GROUP_SHARE: Final = 0.3
MIN_GROUP_LINES: Final = 100
#: A module whose definitions hold fewer lines is a size a reader takes in whole: two
#: groups in it are no reason for two files.
MIN_SPLIT_LINES: Final = 500


@dataclass(frozen=True, slots=True)
class _Group:
    definitions: list[str]
    lines: int
    start: int
    end: int


def _groups(definitions: tuple[TopLevel, ...]) -> list[_Group]:
    links = Partition(d.name for d in definitions)
    _link_mentions(links, definitions)
    groups = [_group(members) for members in links.groups(definitions, _name)]
    return sorted(groups, key=lambda g: -g.lines)


def _name(definition: TopLevel) -> str:
    return definition.name


def _link_mentions(links: Partition, definitions: tuple[TopLevel, ...]) -> None:
    """Each definition joined to the definitions it names, and to the state it shares."""
    by_name = {d.name for d in definitions}
    state = _state(definitions)
    for definition in definitions:
        for other in definition.mentions & by_name:
            if other != definition.name:
                links.join(other, definition.name)
        for name in definition.mentions & state.keys():
            links.join(state[name], definition.name)


def _state(definitions: tuple[TopLevel, ...]) -> dict[str, str]:
    """A name some definition declares `global` is state: every definition mentioning
    it is linked to the first that declares it (moving either away would break the other)."""
    state: dict[str, str] = {}
    for definition in definitions:
        for name in definition.declares:
            state.setdefault(name, definition.name)
    return state


def _group(members: list[TopLevel]) -> _Group:
    return _Group(
        [d.name for d in members],
        sum(d.end - d.start + 1 for d in members),
        min(d.start for d in members),
        max(d.end for d in members),
    )


def _large(groups: list[_Group]) -> list[_Group]:
    """The groups that each make up a large part of the module."""
    total = sum(g.lines for g in groups)
    if total < MIN_SPLIT_LINES:
        return []
    return [g for g in groups if g.lines >= MIN_GROUP_LINES and g.lines >= total * MIN_GROUP_SHARE]


@rule(Kind.SPLIT_MODULE, concern=Concern.MODULE_SIZE, doc="module-metrics")
def split_move(definitions: tuple[TopLevel, ...]) -> Move | None:
    large = _large(_groups(definitions))
    if len(large) < 2:
        return None
    parts = [f"{names(g.definitions, 3)} (lines {g.start}-{g.end})" for g in large[:2]]
    text = (
        f"Its definitions form groups that never refer to each other: {parts[0]}, and "
        f"{parts[1]}. One group can move into a module of its own."
    )
    span = (min(g.start for g in large), max(g.end for g in large))
    gains = {Concern.MODULE_SIZE: large[-1].lines, Concern.HALSTEAD: 1, Concern.MAINTAINABILITY: 1}
    return Move(Kind.SPLIT_MODULE, UNCLASSIFIED, text, span, gains, 1)
