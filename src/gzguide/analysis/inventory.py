"""Every metric value of a file, in or out of any band: the numbers behind the hints.

``gz complexity measure`` prints these, like ``radon cc -j`` and ``lizard --csv``
do for their own metrics; hiding a hint (no move, or a silencing comment) never
hides a value.
"""

from __future__ import annotations

import msgspec

from gzguide.analysis.engine import measure
from gzguide.analysis.facts.parsed import parse_module


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


def values_of(data: bytes) -> list[Value] | None:
    """Every value measured in ``data``; None when it is not analyzable Python."""
    module = parse_module(data)
    if module is None:
        return None
    try:
        measured = measure(module)
    except RecursionError:
        return None
    rows = [
        Value(
            metric=m.metric,
            value=m.value,
            kind=m.scope.kind if m.scope is not None else "module",
            name=m.scope.qualname if m.scope is not None else "",
            start_line=m.start_line,
            end_line=m.end_line,
        )
        for m in measured.measurements
    ]
    rows.sort(key=lambda r: (r.start_line, r.end_line, r.metric))
    return rows
