"""The census: what a complexity hint says when no move lowers the count.

It is a budget, not advice: how many more decision points the function can take
while it stays under the gate that closes its band (``2 more decision points stay
under warn at 7``), and where the ones it has are, by kind in the order they first
appear (```if` (lines 4 and 9), loop (line 7), `and` (line 9).``). One line, at most
:data:`MAX_CENSUS_CHARS` characters: an editor shows it beside the function being
written, where the budget is what the author is spending.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Final

from gzguide.analysis.facts.walk import FunctionView
from gzguide.analysis.moves.base import Related, line_list
from gzguide.analysis.policy.thresholds import MetricBand

#: The longest census: it fits an editor's line beside the code.
MAX_CENSUS_CHARS: Final = 160

_KIND_WORDS: Final = {
    "if": ("`if`", "`if`s"),
    "ternary": ("conditional expression", "conditional expressions"),
    "loop": ("loop", "loops"),
    "loop_else": ("loop `else`", "loop `else`s"),
    "except": ("`except`", "`except`s"),
    "else": ("`try` `else`", "`try` `else`s"),
    "filter": ("comprehension `if`", "comprehension `if`s"),
    "and": ("`and`", "`and`s"),
    "or": ("`or`", "`or`s"),
    "comprehension": ("comprehension `for`", "comprehension `for`s"),
    "case": ("`case`", "`case`s"),
    "assert": ("`assert`", "`assert`s"),
}


def census(view: FunctionView, value: float, band: MetricBand) -> str:
    """The budget left under the band's gate, then where the decision points are."""
    head = f"{_budget(value, band.gate, band.gate_is_warn)}; now: "
    if band.gate is None:  # a table with no gate: no budget to speak of
        head = f"Its {view.total_points} decision points: "
    return f"{head}{_fitting(head, _by_kind(view))}."


def decision_points(view: FunctionView) -> tuple[Related, ...]:
    """Each decision point as a place: its line and what it is (```and``` is one)."""
    return tuple(
        (p.line, p.line, f"decision point: {_KIND_WORDS[p.kind][0]}")
        for p in sorted(view.points, key=lambda p: p.line)
    )


def _budget(value: float, gate: float | None, is_warn: bool) -> str:
    """How many more points stay under the gate (``warn - 1 - value`` for a gate at warn)."""
    if gate is None:
        return ""
    left = int(gate - 1 - value)
    at = f"{'warn' if is_warn else 'block'} at {gate:g}"
    if left <= 0:
        return f"One more decision point reaches {at}"
    if left == 1:
        return f"1 more decision point stays under {at}"
    return f"{left} more decision points stay under {at}"


def _by_kind(view: FunctionView) -> list[str]:
    """The points by kind, in the order each kind first appears."""
    by_kind: dict[str, list[int]] = defaultdict(list)
    weight: dict[str, int] = defaultdict(int)
    for point in view.points:
        by_kind[point.kind].append(point.line)
        weight[point.kind] += point.weight
    ordered = sorted(by_kind.items(), key=lambda item: min(item[1]))
    return [_kind_part(kind, at, weight[kind]) for kind, at in ordered]


def _kind_part(kind: str, at: list[int], weight: int) -> str:
    one, many = _KIND_WORDS[kind]
    word = one if weight == 1 else f"{weight} {many}"
    return f"{word} ({'line' if len(set(at)) == 1 else 'lines'} {line_list(at, 3)})"


def _fitting(head: str, parts: list[str]) -> str:
    """As many kinds as fit after ``head``, and how many more kinds there are."""
    for shown in range(len(parts), 0, -1):
        text = ", ".join(parts[:shown]) + _more_kinds(len(parts) - shown)
        if len(head) + len(text) + 1 <= MAX_CENSUS_CHARS:
            return text
    return f"{len(parts)} kinds"


def _more_kinds(more: int) -> str:
    if not more:
        return ""
    return f" and {more} more kind" if more == 1 else f" and {more} more kinds"
