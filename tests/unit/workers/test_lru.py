"""The one bounded LRU: uses refresh, stores evict the oldest, weights bound it too."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from gzguide.lru import Lru


def test_a_get_counts_as_a_use_and_a_peek_does_not() -> None:
    lru: Lru[str, int] = Lru(2)
    lru.put("a", 1)
    lru.put("b", 2)
    assert lru.peek("a") == 1
    lru.put("c", 3)
    assert list(lru) == ["b", "c"]
    assert lru.get("b") == 2
    lru.put("d", 4)
    assert list(lru) == ["b", "d"]


def test_touch_refreshes_what_was_peeked() -> None:
    lru: Lru[str, int] = Lru(2)
    lru.put("a", 1)
    lru.put("b", 2)
    lru.touch("a")
    lru.put("c", 3)
    assert list(lru) == ["a", "c"]


def test_eviction_is_told_and_pop_and_replacement_are_not() -> None:
    evicted: list[tuple[str, int]] = []
    lru: Lru[str, int] = Lru(2, on_evict=lambda k, v: evicted.append((k, v)))
    lru.put("a", 1)
    lru.put("a", 10)
    lru.put("b", 2)
    assert lru.pop("b") == 2 and lru.pop("b") is None
    lru.put("c", 3)
    lru.put("d", 4)
    assert evicted == [("a", 10)] and list(lru) == ["c", "d"] and "a" not in lru


def test_weights_bound_it_and_are_accounted_on_every_exit() -> None:
    lru: Lru[str, int] = Lru(10, max_weight=10, weigh=lambda v: v)
    lru.put("a", 4)
    lru.put("b", 4)
    lru.put("c", 4)
    assert list(lru) == ["b", "c"] and lru.weight == 8
    lru.put("b", 1)
    assert lru.weight == 5
    lru.pop("c")
    assert lru.weight == 1
    lru.put("huge", 11)  # heavier than the bound: nothing can stay
    assert len(lru) == 0 and lru.weight == 0


def test_a_bound_of_zero_keeps_nothing() -> None:
    lru: Lru[str, int] = Lru(0)
    lru.put("a", 1)
    assert lru.get("a") is None and len(lru) == 0


@given(st.lists(st.tuples(st.integers(0, 5), st.booleans()), max_size=60), st.integers(0, 4))
def test_it_is_a_list_in_order_of_use_cut_at_its_bound(
    ops: list[tuple[int, bool]], bound: int
) -> None:
    lru: Lru[int, int] = Lru(bound)
    model: list[int] = []  # keys, least recently used first
    for key, store in ops:
        if store:
            lru.put(key, key)
            model = [k for k in model if k != key] + [key]
            model = model[-bound:] if bound else []
        elif lru.get(key) is not None:
            model = [k for k in model if k != key] + [key]
        assert list(lru) == model
