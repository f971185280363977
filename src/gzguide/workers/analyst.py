"""The analyst: one source (a file, or a buffer of one) in, its report out, with a cache.

This is what runs inside each worker process (and in-process with ``--workers 0``).
An unchanged file is neither re-read nor re-parsed; a changed one is parsed once.
A buffer's text is analyzed exactly as a file holding those bytes would be, and
bytes parsed once, for a file or for a text, are not parsed again for the other
(the cache finds versions by content digest too).
"""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Callable
from typing import Final, TypeAlias

from gzguide.analysis.engine import Measured, evaluate, measure
from gzguide.analysis.facts.parsed import parse_module
from gzguide.analysis.model import EMPTY_REPORT, FileReport
from gzguide.analysis.policy.thresholds import Thresholds
from gzguide.analysis.reuse import PartMemo
from gzguide.analysis.source import MAX_SOURCE_BYTES, read_source_bytes
from gzguide.freshness import CacheState, Identity, content_digest, identity_of
from gzguide.lru import Lru
from gzguide.source import Buffer, Source
from gzguide.workers import Outcome
from gzguide.workers.cache import TOTAL_CACHE_BYTES, Entry, FileCache, Key, text_key

#: Parsed trees cost far more memory than their source; this factor turns a file's
#: size into the cache weight of what is kept of its parsed version: the bytes the
#: tree, line index, definitions, measurements and report retain per source byte,
#: with room for the allocator's own overhead. ``benchmarks/README.md`` ("Where the
#: constants come from") shows how to measure the retained bytes with tracemalloc.
AST_WEIGHT_FACTOR: Final = 40
DEFAULT_MAX_ENTRIES: Final = 2048
DEFAULT_MAX_WEIGHT: Final = TOTAL_CACHE_BYTES
#: The memo of parts of files holds at most this fraction of the cache budget: the
#: buffers being typed in need little, and in the benchmark's memory run (3,000
#: distinct files) a memo free to fill what the file versions left grew the
#: server's resident size by 35 MiB (``benchmarks/README.md``).
PARTS_SHARE: Final = 4
#: Buffers whose latest text is kept parsed, the most recently sent ones. Each edit
#: makes a new version, and one sent again is the frontend memo's to answer, so a
#: text's parse is kept for two things only: the file saved with those bytes, and
#: the same text under another threshold table. Both concern the buffers being
#: typed in now, and a bound this small keeps typing from growing the cache.
MAX_TEXT_ENTRIES: Final = 2


def _measure_bytes(data: bytes, parts: PartMemo) -> Measured | None:
    """Parse and measure; None when the bytes are not analyzable Python.

    A module whose syntax tree is too deep for the metric visitors (they recurse,
    and a 1,000-term expression is enough) is unanalyzable like a syntax error,
    and that verdict is cached with the file version instead of retried.
    """
    module = parse_module(data)
    if module is None:
        return None
    try:
        return measure(module, parts)
    except RecursionError:
        return None


#: A cache entry for a request, and how it was obtained.
_Found: TypeAlias = tuple[Entry[Measured | None], CacheState]


def _analyzable(st: os.stat_result) -> bool:
    """Whether a file with this stat is one to analyze: a regular file, not too large."""
    return stat.S_ISREG(st.st_mode) and st.st_size <= MAX_SOURCE_BYTES


class Analyst:
    def __init__(
        self,
        on_event: Callable[..., None],
        max_entries: int = DEFAULT_MAX_ENTRIES,
        max_weight: int = DEFAULT_MAX_WEIGHT,
    ) -> None:
        self._emit = on_event
        self.cache: FileCache[Measured | None] = FileCache(max_entries, max_weight)
        #: Values of parts of the files measured, by their text (what lets a new
        #: version of a buffer be measured again only where its text changed). It
        #: holds what the file versions leave of the cache budget, at most
        #: 1/PARTS_SHARE of it: the versions come first, so the memo changes how
        #: fast, never what or how much, the cache keeps.
        self.parts = PartMemo(max_weight // PARTS_SHARE)
        #: The memo's hit and miss counts when they were last logged.
        self._logged = (0, 0)
        self.parses = 0
        #: The files whose buffers have a text entry, least recently sent first.
        #: The oldest's text entry leaves the cache as it leaves this.
        self._texts: Lru[str, bool] = Lru(MAX_TEXT_ENTRIES, on_evict=self._drop_text)

    def analyze(self, source: Source, thresholds: Thresholds) -> Outcome:
        """The report of ``source`` under ``thresholds``, and how it was obtained."""
        buffer = source.buffer
        if buffer is None:
            found = self._file_entry(source.path)
        else:
            found = self._buffer_entry(source.path, buffer)
        if found is None:
            return Outcome(EMPTY_REPORT, CacheState.UNANALYZABLE)
        entry, state = found
        return self._outcome(entry, state, thresholds)

    def _file_entry(self, path: str) -> _Found | None:
        """The entry of the file at ``path`` as it is now; None when it is not one to analyze."""
        st = self._source_stat(path)
        return None if st is None else self._entry(path, identity_of(st))

    def _source_stat(self, path: str) -> os.stat_result | None:
        """The stat of the file at ``path`` when it is one to analyze; else None, and what
        the cache held for it goes."""
        try:
            st: os.stat_result | None = os.stat(path)
        except (OSError, ValueError):
            st = None
        if st is None or not _analyzable(st):
            self.cache.discard(path)
            return None
        return st

    def _entry(self, path: str, identity: Identity) -> _Found | None:
        """The entry of this version of the file, cached or read now; None if unreadable."""
        cached = self._cached(path, identity)
        return cached if cached is not None else self._fresh(path, identity)

    def _cached(self, path: str, identity: Identity) -> _Found | None:
        """The cached entry of this version of the file, checked again if it is racy."""
        entry = self.cache.get(path)
        if entry is None or entry.identity != identity:
            return None
        if entry.is_racy():
            return self._verify(path, entry)
        return entry, CacheState.HIT

    def _fresh(self, path: str, identity: Identity) -> _Found | None:
        """The file read and parsed anew (unless its bytes were parsed already)."""
        loaded = self._load(path, identity)
        if loaded is None:
            return None
        entry, parsed = loaded
        # Bytes parsed already (for a buffer since saved, or another file) are a hit.
        return entry, CacheState.MISS if parsed else CacheState.HIT

    def _buffer_entry(self, path: str, buffer: Buffer) -> _Found | None:
        """The entry of a buffer of ``path``'s file holding ``buffer``; the file is not read.

        Bytes with a version in the cache already (the file on disk, or this or
        another buffer) are a ``hit``; new bytes are parsed and kept as the
        buffer's one cached version, replacing its previous one. None when the
        bytes are too many to analyze.
        """
        data = buffer.data()
        if len(data) > MAX_SOURCE_BYTES:
            return None
        digest = buffer.digest()
        entry = self.cache.by_digest(digest)
        if entry is not None:
            return entry, CacheState.HIT
        entry, _parsed = self._parse(text_key(path), path, data, digest, None, 0)
        self._texts.put(path, True)
        return entry, CacheState.MISS

    def _drop_text(self, path: str, _held: bool) -> None:
        self.cache.discard(text_key(path))

    def _outcome(
        self, entry: Entry[Measured | None], state: CacheState, thresholds: Thresholds
    ) -> Outcome:
        """``entry``'s report under ``thresholds`` (evaluated once per table)."""
        measured = entry.value
        report: object = EMPTY_REPORT
        if measured is not None:
            report = entry.derived.get(thresholds.fingerprint)
            if not isinstance(report, FileReport):
                report = evaluate(measured, thresholds)
                entry.derived = {thresholds.fingerprint: report}
        assert isinstance(report, FileReport)
        return Outcome(report, state, entry.identity, entry.read_at_ns, digest=entry.digest)

    def _verify(self, path: str, entry: Entry[Measured | None]) -> _Found | None:
        """Re-read a racy entry's file: keep it if its bytes are unchanged."""
        now = time.time_ns()
        data = read_source_bytes(path)
        if data is None or content_digest(data) != entry.digest:
            self.cache.discard(path)
            return None
        entry.read_at_ns = now
        return entry, CacheState.RACY

    def _load(self, path: str, identity: Identity) -> tuple[Entry[Measured | None], bool] | None:
        """The new entry for the file at ``path`` and whether it was parsed; None if unreadable."""
        read_at = time.time_ns()
        data = read_source_bytes(path)
        if data is None:
            self.cache.discard(path)
            return None
        return self._parse(path, path, data, content_digest(data), identity, read_at)

    def _parse(
        self,
        key: Key,
        path: str,
        data: bytes,
        digest: bytes,
        identity: Identity | None,
        read_at: int,
    ) -> tuple[Entry[Measured | None], bool]:
        """The entry for ``data`` under ``key``, and whether the bytes had to be parsed."""
        same = self.cache.by_digest(digest)
        if same is not None:
            # Bytes parsed for another entry (a buffer now saved, two equal files).
            measured, derived = same.value, dict(same.derived)
        else:
            self.parses += 1
            derived = {}
            measured = self._measured(path, data)
        entry: Entry[Measured | None] = Entry(
            identity=identity,
            digest=digest,
            read_at_ns=read_at,
            weight=max(len(data), 1) * AST_WEIGHT_FACTOR,
            value=measured,
            derived=derived,
        )
        self.cache.put(key, entry)
        self._fit_parts()
        if same is None:
            self._log_parts(path)
        return entry, same is None

    def _measured(self, path: str, data: bytes) -> Measured | None:
        """``data`` measured, reusing the parts the memo holds."""
        try:
            return _measure_bytes(data, self.parts)
        except MemoryError:
            # Past the worker's heap limit: the verdict is cached like a syntax error's.
            self._emit("analysis_out_of_memory", path=path, bytes=len(data))
            return None

    def _fit_parts(self) -> None:
        """Keep the memo of parts within what the file versions leave of the budget."""
        cache = self.cache
        self.parts.limit(min(cache.max_weight // PARTS_SHARE, cache.max_weight - cache.weight))

    def _log_parts(self, path: str) -> None:
        """Log what the analysis of ``path`` found in the memo of parts."""
        parts = self.parts
        stats = parts.stats
        hits, misses = self._logged
        self._logged = (stats.hits, stats.misses)
        self._emit(
            "parts_reused",
            path=path,
            hits=stats.hits - hits,
            misses=stats.misses - misses,
            parts=len(parts),
            bytes=parts.bytes,
        )
