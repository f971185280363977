"""A stat-validated memo of finished reports, in front of any backend.

An editor asks about the same unchanged file again and again. The memo answers
those requests with one ``stat`` and a dictionary look-up, without a round trip to
a worker. An entry is used only when all of these hold:

* the file's identity (mtime, ctime, size, inode, device) is the one the report
  was computed for;
* the workspace threshold file's identity is unchanged;
* the file's mtime is safely older (by the racy window) than the moment its
  bytes were read: otherwise a same-size rewrite inside the filesystem's
  timestamp granularity could hide behind an unchanged identity, so the request
  goes to the worker, which verifies the content by hash.

Bounded by entry count, least recently used out.
"""

from __future__ import annotations

import os
from collections import OrderedDict
from collections.abc import Sequence
from typing import Final

from gzguide.workers import Backend, Outcome, Stats
from gzguide.workers.cache import RACY_WINDOW_NS, Identity, identity_of

DEFAULT_MAX_ENTRIES: Final = 4096

_Key = tuple[Identity, Identity | None]
#: Marks "no stat given: take one".
_STAT_IT: Final = object()


class Memo:
    def __init__(
        self, inner: Backend, thresholds_path: str, max_entries: int = DEFAULT_MAX_ENTRIES
    ) -> None:
        self.inner = inner
        self.thresholds_path = thresholds_path
        self.max_entries = max_entries
        self._entries: OrderedDict[str, tuple[_Key, Outcome]] = OrderedDict()

    def __len__(self) -> int:
        return len(self._entries)

    def _thresholds_identity(self) -> Identity | None:
        try:
            return identity_of(os.stat(self.thresholds_path))
        except OSError:
            return None

    def analyze(self, paths: Sequence[str], stats: Stats = None) -> list[Outcome]:
        table = self._thresholds_identity()
        results: list[Outcome | None] = [None] * len(paths)
        missing: list[int] = []
        for index, path in enumerate(paths):
            hit = self._lookup(path, table, stats[index] if stats is not None else _STAT_IT)
            if hit is None:
                missing.append(index)
            else:
                results[index] = hit
        if missing:
            fresh = self.inner.analyze([paths[i] for i in missing])
            for index, outcome in zip(missing, fresh, strict=True):
                results[index] = outcome
                self._store(paths[index], table, outcome)
        return [r for r in results if r is not None]

    def _lookup(
        self, path: str, table: Identity | None, st: os.stat_result | object | None
    ) -> Outcome | None:
        entry = self._entries.get(path)
        if entry is None:
            return None
        if st is _STAT_IT:
            try:
                st = os.stat(path)
            except (OSError, ValueError):
                return None
        if not isinstance(st, os.stat_result):
            return None
        identity = identity_of(st)
        key, outcome = entry
        if key != (identity, table) or identity[0] + RACY_WINDOW_NS > outcome.read_at_ns:
            return None
        self._entries.move_to_end(path)
        return Outcome(outcome.report, "memo", identity, outcome.read_at_ns, None)

    def _store(self, path: str, table: Identity | None, outcome: Outcome) -> None:
        if outcome.identity is None:
            self._entries.pop(path, None)
            return
        self._entries[path] = ((outcome.identity, table), outcome)
        self._entries.move_to_end(path)
        while len(self._entries) > self.max_entries:
            self._entries.popitem(last=False)

    def close(self) -> None:
        self.inner.close()
