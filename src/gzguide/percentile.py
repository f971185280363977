"""The one percentile definition of the project: nearest rank.

``gz complexity logs``, the benchmarks and the tests all report percentiles with
it, so a p95 means the same statistic everywhere: for ``n`` values sorted
ascending ``x[1] <= ... <= x[n]``, ``pP = x[ceil(P / 100 * n)]``. It is always an
observed value; over fewer than 100 values the p99 is the maximum.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Final, TypeVar

#: How summaries name the definition.
METHOD: Final = "nearest-rank"

T = TypeVar("T", int, float)


def percentile(ordered: Sequence[T], p: float) -> T:
    """The nearest-rank ``p``-th percentile (0 < p <= 100) of ascending ``ordered``."""
    if not ordered:
        raise ValueError("no values")
    if not 0 < p <= 100:
        raise ValueError("p must be in (0, 100]")
    # p * n first: for whole-number p the product is exact, and so is the rank of an
    # exact multiple of 100 (p / 100 * n rounds 7 / 100 * 100 up to 8).
    rank = math.ceil(p * len(ordered) / 100)
    return ordered[max(rank, 1) - 1]
