"""A bounded, stat-validated cache of parsed file versions.

Entries are keyed by path and validated by the file's identity, under the racy
rule of :mod:`gzguide.freshness`: an entry still inside the racy window is not
trusted on identity alone, its content is read again and compared by hash. Once
verified, the entry is re-stamped; when the window has passed, a plain stat
suffices again.

The cache is bounded by entry count and by an estimate of the bytes it holds,
least recently used out.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Final, Generic, TypeVar

from gzguide.freshness import Identity, is_racy

#: The memory all analysis caches of one server may hold together, by their
#: weights (see ``analyst.AST_WEIGHT_FACTOR``). The pool divides it among its
#: workers, so the total does not grow with the CPU count. A process's resident
#: size grows by more than the weight it caches (the allocator cannot hand back
#: memory that freed trees leave scattered), so the figure is set from the
#: benchmark's memory run, whose process-tree RSS after 3,000 distinct files must
#: stay under its limit (``benchmarks/README.md``, "Where the constants come from").
TOTAL_CACHE_BYTES: Final = 96 * 1024 * 1024

V = TypeVar("V")


@dataclass(eq=False, slots=True)
class Entry(Generic[V]):
    identity: Identity
    digest: bytes
    #: Wall-clock time (ns) just before the cached bytes were read or verified.
    read_at_ns: int
    weight: int
    value: V
    #: Derived results keyed by whatever they depend on (e.g. a thresholds fingerprint).
    derived: dict[str, object] = field(default_factory=dict)

    def is_racy(self) -> bool:
        return is_racy(self.identity, self.read_at_ns)


class FileCache(Generic[V]):
    """LRU of file versions, bounded by ``max_entries`` and ``max_weight``."""

    def __init__(self, max_entries: int, max_weight: int) -> None:
        self.max_entries = max_entries
        self.max_weight = max_weight
        self.weight = 0
        self._entries: OrderedDict[str, Entry[V]] = OrderedDict()

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, path: str) -> Entry[V] | None:
        entry = self._entries.get(path)
        if entry is not None:
            self._entries.move_to_end(path)
        return entry

    def put(self, path: str, entry: Entry[V]) -> None:
        self.discard(path)
        if entry.weight > self.max_weight:
            return
        self._entries[path] = entry
        self.weight += entry.weight
        while len(self._entries) > self.max_entries or self.weight > self.max_weight:
            _, evicted = self._entries.popitem(last=False)
            self.weight -= evicted.weight

    def discard(self, path: str) -> None:
        old = self._entries.pop(path, None)
        if old is not None:
            self.weight -= old.weight
