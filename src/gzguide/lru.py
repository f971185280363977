"""One bounded mapping, least recently used out: every cache and memo of the server.

Each holder of remembered results (the memo, the workers' cache of parsed
versions, the encoded answers, the buffers a worker keeps parsed) needs the same
three things: a look-up that counts as a use, a store that lets the oldest go
once a bound is passed, and, for some, a word when an entry is let go. They are
here once, so the eviction rule has one place to be right in.

A bound is a number of entries and, optionally, a total weight: with ``weigh``,
each value weighs what it returns and the weights held may not pass
``max_weight``. An entry is let go only by eviction (``on_evict`` is told) or by
:meth:`Lru.pop` (the caller knows already); a value replaced under its key is not
an eviction.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


def _weightless(_value: object) -> int:
    return 0


class Lru(Generic[K, V]):
    """At most ``max_entries`` entries (and ``max_weight`` of weight), oldest use first out."""

    __slots__ = ("_entries", "_on_evict", "_weigh", "max_entries", "max_weight", "weight")

    def __init__(
        self,
        max_entries: int,
        *,
        max_weight: int | None = None,
        weigh: Callable[[V], int] = _weightless,
        on_evict: Callable[[K, V], None] | None = None,
    ) -> None:
        self.max_entries = max_entries
        self.max_weight = max_weight
        #: The total weight of the values held.
        self.weight = 0
        self._weigh = weigh
        self._on_evict = on_evict
        self._entries: OrderedDict[K, V] = OrderedDict()

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, key: object) -> bool:
        return key in self._entries

    def __iter__(self) -> Iterator[K]:
        """The keys, least recently used first."""
        return iter(self._entries)

    def get(self, key: K) -> V | None:
        """The value under ``key``, which becomes the most recently used; None if absent."""
        value = self._entries.get(key)
        if value is not None:
            self._entries.move_to_end(key)
        return value

    def touch(self, key: K) -> None:
        """Count the entry under ``key`` (which must be held) as used now: for a holder that
        uses what it peeked at only when the value proves current."""
        self._entries.move_to_end(key)

    def peek(self, key: K) -> V | None:
        """The value under ``key`` without counting as a use; None if absent."""
        return self._entries.get(key)

    def put(self, key: K, value: V) -> None:
        """Hold ``value`` under ``key`` as the most recent, then let the oldest go while a
        bound is passed."""
        self.pop(key)
        self._entries[key] = value
        self.weight += self._weigh(value)
        self._evict()

    def pop(self, key: K) -> V | None:
        """Let go of the entry under ``key`` (not an eviction); its value, or None."""
        if key not in self._entries:
            return None
        value = self._entries.pop(key)
        self.weight -= self._weigh(value)
        return value

    def _over(self) -> bool:
        """Whether more is held than the bounds allow."""
        heavy = self.max_weight is not None and self.weight > self.max_weight
        return heavy or len(self._entries) > self.max_entries

    def _evict(self) -> None:
        """Let the least recently used entries go until the bounds hold, telling ``on_evict``."""
        while self._entries and self._over():
            key, value = self._entries.popitem(last=False)
            self.weight -= self._weigh(value)
            if self._on_evict is not None:
                self._on_evict(key, value)
