"""Whether a fix does what its move promised, and nothing else, measured again.

The edited text must parse; the edited function's ``radon_cc`` must be its value less
the move's gain in points, and the metric of the hint must fall where the move
promises it a gain (and never rise); every other definition keeps every value it had.
Definitions are matched by qualified name and order, since a fix moves the lines of
the code after it.

A copied function's fix changes two definitions and may add one, so it keeps a
promise of its own (:class:`CopyPromise`).
"""

from __future__ import annotations

import ast
from collections import defaultdict
from dataclasses import dataclass
from typing import Final

from gzguide.analysis.engine import Measured, measure
from gzguide.analysis.facts.parsed import parse_module
from gzguide.analysis.facts.scopes import Scope
from gzguide.analysis.facts.twins import MAX_DIFFERENCES
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

    def holds(self, before: Values, after: Values) -> bool:
        if not _others_kept(before, after, self.where):
            return False
        return self.kept(before[self.where], after[self.where])

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


#: What a helper holding a copy's body keeps of it (its lines and parameters change).
_BODY_VALUES: Final = ("radon_cc", "lizard_ccn", "lizard_nesting_depth", REAL_DEPTH)


@dataclass(frozen=True, slots=True)
class CopyPromise:
    """What a fix of two copies of a function must give: the second (``where``, the
    one every such fix changes) becomes one call, radon_cc 1 with the parameters it
    had; the first stays as it was, or, where a new helper holds their body, becomes a
    call too, the helper (beside them, a name of its own) having the first's
    complexity and nesting and one parameter more for each value that differed; the
    class holding them (its methods linked through the helper now) may only grow more
    cohesive; every other definition keeps every value."""

    first: DefKey
    where: DefKey
    owner: DefKey | None

    def holds(self, before: Values, after: Values) -> bool:
        added = after.keys() - before.keys()
        if len(added) > 1 or not before.keys() <= after.keys():
            return False
        if not self._others_kept(before, after):
            return False
        if not _a_call(before[self.where], after[self.where]):
            return False
        if not added:
            return before[self.first] == after[self.first]
        return self._helped(before, after, added.pop())

    def _others_kept(self, before: Values, after: Values) -> bool:
        involved = {self.first, self.where, self.owner}
        kept = all(before[key] == after[key] for key in before if key not in involved)
        return kept and (self.owner is None or _cohesive(before[self.owner], after[self.owner]))

    def _helped(self, before: Values, after: Values, helper: DefKey) -> bool:
        """Whether ``helper``, next to the copies, holds the first's body."""
        was, now = before[self.first], after[helper]
        extra = now.get("lizard_param_count", 0) - was.get("lizard_param_count", 0)
        same = all(now.get(m) == was.get(m) for m in _BODY_VALUES)
        beside = helper[0].rpartition(".")[0] == self.first[0].rpartition(".")[0]
        return same and beside and 0 < extra <= MAX_DIFFERENCES and _a_call(was, after[self.first])


def _a_call(before: dict[str, float], after: dict[str, float]) -> bool:
    """Whether a function became one call, taking the parameters it took."""
    params = after.get("lizard_param_count") == before.get("lizard_param_count")
    return params and after.get("radon_cc") == 1


def _cohesive(before: dict[str, float], after: dict[str, float]) -> bool:
    """Whether a class kept its values, but for a cohesion that may have risen (LCOM4
    fallen)."""
    metric = "cohesion_lcom4"
    kept = _without(before, metric) == _without(after, metric)
    return kept and after.get(metric, 0) <= before.get(metric, 0)


def _without(values: dict[str, float], metric: str) -> dict[str, float]:
    return {k: v for k, v in values.items() if k != metric}


def copy_promise(
    keys: dict[tuple[int, int], DefKey], scopes: list[Scope], scope: Scope, move: Move
) -> CopyPromise | None:
    """The promise of a fix of ``move``, a copied function (``scope``) and its copy."""
    other = _function_at(scopes, move.related[0][:2]) if move.related else None
    if other is None:
        return None
    first, second = sorted((scope, other), key=lambda s: s.start_line)
    owner = next((keys[s.key] for s in scopes if s.node is scope.owner), None)
    return CopyPromise(keys[first.key], keys[second.key], owner)


def _function_at(scopes: list[Scope], span: tuple[int, int]) -> Scope | None:
    return next((s for s in scopes if s.is_function and (s.start_line, s.end_line) == span), None)


def _values_of(text: str) -> Values | None:
    module = parse_module(text.encode())
    if module is None:
        return None
    try:
        return definition_values(measure(module))
    except RecursionError:
        return None


def verify(before: Values, edited: str, promise: Promise | CopyPromise) -> Values | None:
    """The values of ``edited`` when the fix keeps ``promise``; None when it does not."""
    after = _values_of(edited)
    return after if after is not None and promise.holds(before, after) else None


def _others_kept(before: Values, after: Values, edited: DefKey) -> bool:
    """Whether the same definitions are there, each but ``edited`` with its values."""
    if after.keys() != before.keys():
        return False
    return all(before[key] == after[key] for key in before if key != edited)
