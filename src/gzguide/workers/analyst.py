"""The analyst: one file path in, its report out, with a cache of parsed versions.

This is what runs inside each worker process (and in-process with ``--workers 0``).
An unchanged file is neither re-read nor re-parsed; a changed one is parsed once.
"""

from __future__ import annotations

import hashlib
import os
import stat
import time
from collections.abc import Callable
from typing import Final

from gzguide.analysis.engine import Measured, evaluate, measure
from gzguide.analysis.model import EMPTY_REPORT, FileReport
from gzguide.analysis.parsed import parse_module
from gzguide.analysis.source import MAX_SOURCE_BYTES, read_source_bytes
from gzguide.analysis.thresholds import Thresholds
from gzguide.freshness import CacheState, Identity, identity_of
from gzguide.workers import Outcome
from gzguide.workers.cache import TOTAL_CACHE_BYTES, Entry, FileCache

#: Parsed trees cost far more memory than their source; this factor turns a file's
#: size into the cache weight of what is kept of its parsed version: the bytes the
#: tree, line index, definitions, measurements and report retain per source byte,
#: with room for the allocator's own overhead. ``benchmarks/README.md`` ("Where the
#: constants come from") shows how to measure the retained bytes with tracemalloc.
AST_WEIGHT_FACTOR: Final = 40
DEFAULT_MAX_ENTRIES: Final = 2048
DEFAULT_MAX_WEIGHT: Final = TOTAL_CACHE_BYTES


def _digest(data: bytes) -> bytes:
    return hashlib.blake2b(data, digest_size=16).digest()


def _measure_bytes(data: bytes) -> Measured | None:
    """Parse and measure; None when the bytes are not analyzable Python.

    A module whose syntax tree is too deep for the metric visitors (they recurse,
    and a 1,000-term expression is enough) is unanalyzable like a syntax error,
    and that verdict is cached with the file version instead of retried.
    """
    module = parse_module(data)
    if module is None:
        return None
    try:
        return measure(module)
    except RecursionError:
        return None


class Analyst:
    def __init__(
        self,
        on_event: Callable[..., None],
        max_entries: int = DEFAULT_MAX_ENTRIES,
        max_weight: int = DEFAULT_MAX_WEIGHT,
    ) -> None:
        self._emit = on_event
        self.cache: FileCache[Measured | None] = FileCache(max_entries, max_weight)
        self.parses = 0

    def analyze(self, path: str, thresholds: Thresholds) -> Outcome:
        """The report of the file at ``path`` under ``thresholds``, and how it was obtained."""
        try:
            st = os.stat(path)
        except (OSError, ValueError):
            self.cache.discard(path)
            return Outcome(EMPTY_REPORT, CacheState.UNANALYZABLE)
        if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_SOURCE_BYTES:
            self.cache.discard(path)
            return Outcome(EMPTY_REPORT, CacheState.UNANALYZABLE)
        identity = identity_of(st)
        entry = self.cache.get(path)
        state = CacheState.HIT
        if entry is not None and entry.identity == identity and entry.is_racy():
            entry, state = self._verify(path, entry)
        if entry is None or entry.identity != identity:
            entry = self._load(path, identity)
            if entry is None:
                return Outcome(EMPTY_REPORT, CacheState.UNANALYZABLE)
            state = CacheState.MISS
        measured = entry.value
        report: object = EMPTY_REPORT
        if measured is not None:
            report = entry.derived.get(thresholds.fingerprint)
            if not isinstance(report, FileReport):
                report = evaluate(measured, thresholds)
                entry.derived = {thresholds.fingerprint: report}
        assert isinstance(report, FileReport)
        return Outcome(report, state, entry.identity, entry.read_at_ns)

    def _verify(
        self, path: str, entry: Entry[Measured | None]
    ) -> tuple[Entry[Measured | None] | None, CacheState]:
        """Re-read a racy entry's file: keep it if its bytes are unchanged."""
        now = time.time_ns()
        data = read_source_bytes(path)
        if data is None or _digest(data) != entry.digest:
            self.cache.discard(path)
            return None, CacheState.MISS
        entry.read_at_ns = now
        return entry, CacheState.RACY

    def _load(self, path: str, identity: Identity) -> Entry[Measured | None] | None:
        read_at = time.time_ns()
        data = read_source_bytes(path)
        if data is None:
            self.cache.discard(path)
            return None
        self.parses += 1
        try:
            measured = _measure_bytes(data)
        except MemoryError:
            # Past the worker's heap limit: the verdict is cached like a syntax error's.
            measured = None
            self._emit("analysis_out_of_memory", path=path, bytes=len(data))
        entry: Entry[Measured | None] = Entry(
            identity=identity,
            digest=_digest(data),
            read_at_ns=read_at,
            weight=max(len(data), 1) * AST_WEIGHT_FACTOR,
            value=measured,
        )
        self.cache.put(path, entry)
        return entry
