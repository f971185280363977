"""Unit tests of the benchmark suite's parts: its client's framing and its sample order."""

from __future__ import annotations

import itertools
import sys
from collections import Counter

from benchmarks.client import FramedProcess
from benchmarks.scenarios import shuffled

#: A child that writes three frames: the first two in one write, the third cut in
#: pieces written with pauses, then waits for its stdin to close.
WRITER = r"""
import os, sys, time
def frame(body):
    return b"Content-Length: %d\r\n\r\n%b" % (len(body), body)
os.write(1, frame(b'{"id":1}') + frame(b'{"id":2}'))
third = frame(b'{"id":3,"pad":"' + b"x" * 200_000 + b'"}')
for start in range(0, len(third), 70_001):
    os.write(1, third[start:start + 70_001])
    time.sleep(0.01)
sys.stdin.read()
"""


def test_client_takes_frames_whole_split_and_several_per_read() -> None:
    child = FramedProcess([sys.executable, "-c", WRITER], ".", stderr=2)
    try:
        assert child.receive(timeout_s=30) == b'{"id":1}'
        assert child.receive(timeout_s=30) == b'{"id":2}'
        assert child.receive(timeout_s=30) == b'{"id":3,"pad":"' + b"x" * 200_000 + b'"}'
    finally:
        child.kill()


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
