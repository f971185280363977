"""Whether a fix does what its move promised, and nothing else, measured again.

The edited text must parse; the edited function's ``radon_cc`` must be its value less
the move's gain in points, and the metric of the hint must fall where the move
promises it a gain (and never rise); every other definition keeps every value it had.
Definitions are matched by qualified name and order, since a fix moves the lines of
the code after it.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from dataclasses import dataclass
from typing import Final

from gzguide.analysis.engine import Measured, measure
from gzguide.analysis.facts.parsed import parse_module
from gzguide.analysis.facts.walk import real_depth
from gzguide.analysis.moves.base import CONCERNS, Concern, Move

#: A definition as the versions of a file share it: qualified name, and which of the
#: definitions of that name it is.
DefKey = tuple[str, int]
Values = dict[DefKey, dict[str, float]]

#: The value, beside the metrics, of how many levels a function's code really nests
#: (the unit of a move's nesting gain).
REAL_DEPTH: Final = "real_depth"


def definition_values(measured: Measured) -> Values:
    """Every value of every def and class, by definition."""
    seen: dict[str, int] = defaultdict(int)
    keys: dict[tuple[int, int], DefKey] = {}
    for scope in measured.scopes:
        keys[scope.key] = (scope.qualname, seen[scope.qualname])
        seen[scope.qualname] += 1
    values: Values = defaultdict(dict)
    for m in measured.measurements:
        if m.scope is not None:
            values[keys[m.scope.key]][m.metric] = m.value
    for scope in measured.scopes:
        if not isinstance(scope.node, ast.ClassDef):
            values[keys[scope.key]][REAL_DEPTH] = real_depth(scope.node.body)
    return dict(values)


@dataclass(frozen=True, slots=True)
class Promise:
    """What a fix of ``move`` in definition ``where`` must give."""

    where: DefKey
    metric: str
    move: Move

    def kept(self, before: dict[str, float], after: dict[str, float]) -> bool:
        points = self.move.gain(Concern.COMPLEXITY)
        if after.get("radon_cc") != before["radon_cc"] - points:
            return False
        was, now = before.get(self.metric), after.get(self.metric)
        if was is None or now is None or now > was:
            return False
        return self._lowered(before, after) if self.metric != "radon_cc" else True

    def _lowered(self, before: dict[str, float], after: dict[str, float]) -> bool:
        """Whether the hint's metric fell as the move's gain for its concern says."""
        concern = CONCERNS[self.metric]
        gain = self.move.gain(concern)
        if concern is Concern.NESTING:
            # The move's levels are real ones (lizard's depth rises at every branch).
            return after[REAL_DEPTH] == before[REAL_DEPTH] - gain
        return gain == 0 or after[self.metric] < before[self.metric]


def _values_of(text: str) -> Values | None:
    module = parse_module(text.encode())
    if module is None:
        return None
    try:
        return definition_values(measure(module))
    except RecursionError:
        return None


def verify(before: Values, edited: str, promise: Promise) -> Values | None:
    """The values of ``edited`` when the fix keeps ``promise``; None when it does not."""
    after = _values_of(edited)
    if after is None or not _others_kept(before, after, promise.where):
        return None
    return after if promise.kept(before[promise.where], after[promise.where]) else None


def _others_kept(before: Values, after: Values, edited: DefKey) -> bool:
    """Whether the same definitions are there, each but ``edited`` with its values."""
    if after.keys() != before.keys():
        return False
    return all(before[key] == after[key] for key in before if key != edited)
