"""Measurements: one metric value for one region of a file (a def, a class, the module)."""

from __future__ import annotations

from dataclasses import dataclass

from gzguide.analysis.facts.scopes import Scope


@dataclass(frozen=True, slots=True)
class Measurement:
    metric: str
    value: float
    start_line: int
    end_line: int
    #: The def or class measured; None for a module-level metric.
    scope: Scope | None = None

    @property
    def subject(self) -> str:
        """How advice names what was measured, e.g. ``function `parse```."""
        if self.scope is None:
            return "this module"
        return f"{self.scope.kind} `{self.scope.qualname}`"
