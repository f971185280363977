"""Every metric value of a file, in or out of any band: the numbers behind the hints.

``gz complexity measure`` prints these, like ``radon cc -j`` and ``lizard --csv``
do for their own metrics; hiding a hint (no move, or a silencing comment) never
hides a value. ``gz complexity check`` reads the same values, with the parse and
the definition behind each (where a value's name is, whether it changed).
"""

from __future__ import annotations

from dataclasses import dataclass

import msgspec

from gzguide.analysis.engine import measure
from gzguide.analysis.facts.parsed import ParsedModule, parse_module
from gzguide.analysis.facts.scopes import Scope


class Value(msgspec.Struct, frozen=True):
    """One metric's value for one function, class or module."""

    metric: str
    value: float
    #: ``function``, ``method``, ``class`` or ``module``.
    kind: str
    #: The qualified name (``Class.method``); empty for the module.
    name: str
    start_line: int
    end_line: int


@dataclass(frozen=True, slots=True)
class Inventory:
    """A file's values, each with the definition it measures (None for the module)."""

    module: ParsedModule
    scopes: list[Scope]
    entries: list[tuple[Value, Scope | None]]

    @property
    def values(self) -> list[Value]:
        return [value for value, _ in self.entries]


def inventory_of(data: bytes) -> Inventory | None:
    """Every value measured in ``data``, in line order; None when it is not analyzable Python."""
    module = parse_module(data)
    if module is None:
        return None
    try:
        measured = measure(module)
    except RecursionError:
        return None
    entries = [
        (
            Value(
                metric=m.metric,
                value=m.value,
                kind=m.scope.kind if m.scope is not None else "module",
                name=m.scope.qualname if m.scope is not None else "",
                start_line=m.start_line,
                end_line=m.end_line,
            ),
            m.scope,
        )
        for m in measured.measurements
    ]
    entries.sort(key=lambda e: (e[0].start_line, e[0].end_line, e[0].metric))
    return Inventory(module, measured.scopes, entries)


def values_of(data: bytes) -> list[Value] | None:
    """Every value measured in ``data``; None when it is not analyzable Python."""
    found = inventory_of(data)
    return None if found is None else found.values
