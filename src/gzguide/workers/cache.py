"""A bounded, stat-validated cache of parsed file versions, findable by content too.

File entries are keyed by path and validated by the file's identity, under the
racy rule of :mod:`gzguide.freshness`: an entry still inside the racy window is
not trusted on identity alone, its content is read again and compared by hash.
Once verified, the entry is re-stamped; when the window has passed, a plain stat
suffices again.

A buffer's text has no identity, only its content digest. Its entry is keyed by
:func:`text_key` of its file's path, so a file holds at most one buffer version
at a time (an editor sends a new one with each edit; only the latest is worth
keeping), and every entry, of a file or of a text, can also be found by its
digest (:meth:`FileCache.by_digest`): bytes already parsed for one are not
parsed again for the other.

The cache is bounded by entry count and by an estimate of the bytes it holds,
least recently used out.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final, Generic, TypeVar

from gzguide.freshness import Identity, is_racy
from gzguide.lru import Lru

#: The memory all analysis caches of one server may hold together, by their
#: weights (see ``analyst.AST_WEIGHT_FACTOR``). The pool divides it among its
#: workers, so the total does not grow with the CPU count. A process's resident
#: size grows by more than the weight it caches (the allocator cannot hand back
#: memory that freed trees leave scattered), so the figure is set from the
#: benchmark's memory run, whose process-tree RSS after 3,000 distinct files must
#: stay under its limit (``benchmarks/README.md``, "Where the constants come from").
TOTAL_CACHE_BYTES: Final = 96 * 1024 * 1024

V = TypeVar("V")

#: A file entry's key is its path; a text entry's is :func:`text_key` of its file's path.
Key = str | tuple[str, str]


def text_key(path: str) -> Key:
    """The key of the text entry of the buffer of ``path`` (never a file entry's key)."""
    return ("text", path)


@dataclass(eq=False, slots=True)
class Entry(Generic[V]):
    #: The file version's identity; None for a text, which has only its digest.
    identity: Identity | None
    digest: bytes
    #: Wall-clock time (ns) just before the cached bytes were read or verified.
    read_at_ns: int
    weight: int
    value: V
    #: Derived results keyed by whatever they depend on (e.g. a thresholds fingerprint).
    derived: dict[str, object] = field(default_factory=dict)

    def is_racy(self) -> bool:
        return self.identity is not None and is_racy(self.identity, self.read_at_ns)


def _weight_of(entry: Entry[V]) -> int:
    return entry.weight


class FileCache(Generic[V]):
    """LRU of file and text versions, bounded by ``max_entries`` and ``max_weight``."""

    def __init__(self, max_entries: int, max_weight: int) -> None:
        self.max_entries = max_entries
        self.max_weight = max_weight
        #: The weight of the versions that left the cache (or were refused) since
        #: the worker's last full garbage collection, which resets it: a tree let
        #: go after it was frozen is freed by nothing else (``child.Collector``).
        self.released = 0
        self._entries: Lru[Key, Entry[V]] = Lru(
            max_entries, max_weight=max_weight, weigh=_weight_of, on_evict=self._forget
        )
        #: Digest -> the key of the entry last stored with it (when several entries
        #: hold the same bytes, the others are just not found by digest).
        self._digests: dict[bytes, Key] = {}

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def weight(self) -> int:
        """The total weight of the versions held."""
        return self._entries.weight

    def get(self, key: Key) -> Entry[V] | None:
        return self._entries.get(key)

    def by_digest(self, digest: bytes) -> Entry[V] | None:
        """An entry whose bytes have ``digest``, if one is held (it counts as used)."""
        key = self._digests.get(digest)
        return None if key is None else self.get(key)

    def put(self, key: Key, entry: Entry[V]) -> None:
        self.discard(key)
        if entry.weight > self.max_weight:
            self.released += entry.weight
            return
        if entry.digest:
            self._digests[entry.digest] = key
        self._entries.put(key, entry)

    def discard(self, key: Key) -> None:
        old = self._entries.pop(key)
        if old is not None:
            self._forget(key, old)

    def _forget(self, key: Key, entry: Entry[V]) -> None:
        """What an entry let go leaves behind: its weight released, its digest unknown."""
        self.released += entry.weight
        if self._digests.get(entry.digest) == key:
            del self._digests[entry.digest]
