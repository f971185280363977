"""Unit tests of the benchmark suite's parts: its sample order.

(Its client is the public one, tested in ``tests/e2e/test_client.py``.)"""

from __future__ import annotations

import itertools
from collections import Counter

from benchmarks.harness import shuffled


def test_arm_orders_are_fresh_each_time_and_reproducible() -> None:
    arms = ["warm", "bare", "quiet", "quiet bare"]
    first = list(itertools.islice(shuffled(arms), 400))
    assert first == list(itertools.islice(shuffled(arms), 400))
    assert all(sorted(order) == sorted(arms) for order in first)
    # Every arm runs right after every other one, about equally often (12 pairs).
    sequence = [arm for order in first for arm in order]
    pairs = Counter(itertools.pairwise(sequence))
    followed = Counter({pair: n for pair, n in pairs.items() if pair[0] != pair[1]})
    assert len(followed) == 12
    assert min(followed.values()) > 0.6 * max(followed.values())
