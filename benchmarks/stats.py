"""Latency samples and their summaries: median, p95, p99 in milliseconds.

Percentiles use linear interpolation between closest ranks (numpy's default
``linear`` method), so a p99 over a few dozen samples is honestly close to the
maximum rather than pretending to more resolution than the run has.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

NS_PER_MS = 1_000_000


def percentile(sorted_values: Sequence[float], q: float) -> float:
    """The ``q``-th percentile (0-100) of already sorted values; NaN when empty."""
    if not sorted_values:
        return math.nan
    position = (len(sorted_values) - 1) * q / 100.0
    low = math.floor(position)
    high = math.ceil(position)
    if low == high:
        return float(sorted_values[low])
    fraction = position - low
    return float(sorted_values[low] + (sorted_values[high] - sorted_values[low]) * fraction)


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
        mean = sum(values) / len(values) if values else math.nan
        return Summary(
            n=len(values),
            median_ms=_finite(percentile(values, 50)),
            p95_ms=_finite(percentile(values, 95)),
            p99_ms=_finite(percentile(values, 99)),
            mean_ms=_finite(mean),
            min_ms=_finite(values[0]) if values else None,
            max_ms=_finite(values[-1]) if values else None,
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
