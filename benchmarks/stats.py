"""Latency samples and their summaries: median, p95, p99 in milliseconds.

Percentiles are the project's one definition, nearest rank
(:mod:`gzguide.percentile`): always an observed sample, the same statistic that
``gz complexity logs`` reports. The median is the p50 by that definition.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from gzguide.percentile import percentile

NS_PER_MS = 1_000_000


def _finite(value: float) -> float | None:
    return None if math.isnan(value) else round(value, 4)


@dataclass(frozen=True, slots=True)
class Summary:
    """A series' summary in milliseconds; ``None`` fields when it has no samples."""

    n: int
    median_ms: float | None
    p95_ms: float | None
    p99_ms: float | None
    mean_ms: float | None
    min_ms: float | None
    max_ms: float | None

    def to_json(self) -> dict[str, Any]:
        return {
            "n": self.n,
            "median_ms": self.median_ms,
            "p95_ms": self.p95_ms,
            "p99_ms": self.p99_ms,
            "mean_ms": self.mean_ms,
            "min_ms": self.min_ms,
            "max_ms": self.max_ms,
        }


@dataclass(slots=True)
class Series:
    """The latency samples of one thing measured (a scenario or one of its baselines)."""

    key: str
    label: str
    description: str = ""
    samples_ns: list[int] = field(default_factory=list)

    def add(self, elapsed_ns: int) -> None:
        self.samples_ns.append(elapsed_ns)

    def ms(self) -> list[float]:
        return [s / NS_PER_MS for s in self.samples_ns]

    def summary(self) -> Summary:
        values = sorted(self.ms())
        if not values:
            return Summary(0, None, None, None, None, None, None)
        mean = sum(values) / len(values)
        return Summary(
            n=len(values),
            median_ms=_finite(percentile(values, 50)),
            p95_ms=_finite(percentile(values, 95)),
            p99_ms=_finite(percentile(values, 99)),
            mean_ms=_finite(mean),
            min_ms=_finite(values[0]),
            max_ms=_finite(values[-1]),
        )

    @property
    def median_ms(self) -> float | None:
        return self.summary().median_ms


def ratio(numerator: float | None, denominator: float | None) -> float | None:
    """``numerator / denominator`` rounded to 4 significant digits; None if undefined."""
    if numerator is None or denominator is None or denominator <= 0:
        return None
    value = numerator / denominator
    if value == 0:
        return 0.0
    digits = 3 - math.floor(math.log10(abs(value)))
    return round(value, max(digits, 0))
