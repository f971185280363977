"""Which values a check lists: those at or past the boundary of its level, for its metrics."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass

import msgspec

from gzguide.analysis.facts.lines import text_lines
from gzguide.analysis.inventory import Inventory, Value
from gzguide.analysis.policy.thresholds import Level, MetricGate, Thresholds
from gzguide.gate.positions import name_position


class Finding(msgspec.Struct, frozen=True):
    """One value at or past a boundary, and where its definition's name is."""

    file_path: str
    #: The 1-based line and column of the name (1, 1 for a module value).
    line: int
    column: int
    end_line: int
    metric: str
    value: float
    #: ``warn`` or ``block``: the most severe boundary the value is at or past.
    level: Level
    #: That boundary.
    boundary: float
    #: ``function``, ``method``, ``class`` or ``module``.
    kind: str
    #: The qualified name (``Class.method``); empty for the module.
    name: str


@dataclass(frozen=True, slots=True)
class Gate:
    """The boundaries a check fails on: the active table's, at one level, for some metrics."""

    gates: Mapping[str, MetricGate]
    fail_at: Level

    @classmethod
    def of(
        cls, thresholds: Thresholds, fail_at: Level, metrics: Collection[str] | None = None
    ) -> Gate:
        """The gate of ``thresholds`` at ``fail_at``, for ``metrics`` (None: every metric)."""
        gates = thresholds.gates
        if metrics is not None:
            gates = {m: g for m, g in gates.items() if m in metrics}
        return cls(gates, fail_at)

    def reached(self, value: Value) -> tuple[Level, float] | None:
        """The level and boundary ``value`` is at or past, None when it passes."""
        gate = self.gates.get(value.metric)
        found = gate.reached(value.value) if gate is not None else None
        if found is None or (self.fail_at == "block" and found[0] != "block"):
            return None
        return found


def findings(path: str, inventory: Inventory, gate: Gate) -> list[Finding]:
    """The values of ``inventory`` (the file shown as ``path``) that ``gate`` lists."""
    lines = text_lines(inventory.module.text)
    found: list[Finding] = []
    for value, scope in inventory.entries:
        reached = gate.reached(value)
        if reached is None:
            continue
        line, column = (1, 1) if scope is None else name_position(lines, scope.node)
        level, boundary = reached
        found.append(
            Finding(
                path,
                line,
                column,
                value.end_line,
                value.metric,
                value.value,
                level,
                boundary,
                value.kind,
                value.name,
            )
        )
    return found
