"""A stat-validated memo of finished reports, in front of any backend.

An editor asks about the same unchanged file again and again. The memo answers
those requests with one ``stat`` and a dictionary look-up, without a round trip to
a worker. An entry is used only when all of these hold:

* the file's identity (mtime, ctime, size, inode, device) is the one the report
  was computed for;
* the report was computed under the threshold table asked for (by fingerprint);
* the version is outside the racy window (:func:`gzguide.freshness.is_racy`):
  otherwise a same-size rewrite could hide behind an unchanged identity, so the
  request goes to the worker, which verifies the content by hash.

Bounded by entry count, least recently used out.

It also remembers the file versions whose analysis failed (the worker missed its
deadline or died): an editor asks about an unchanged file over and over, and each
of those requests would otherwise wait out the deadline again and cost a worker.
For ``QUARANTINE_S`` seconds such a version is answered with an empty report at
once (``quarantined``); any change to the file ends its quarantine, and so does
time, because a deadline missed under load may well be met later. As for reports,
only versions safely older than the racy window are quarantined.
"""

from __future__ import annotations

import os
import time
from collections import OrderedDict
from collections.abc import Sequence
from typing import TYPE_CHECKING, Final

from gzguide.analysis.model import EMPTY_REPORT
from gzguide.freshness import FAILED_STATES, CacheState, Identity, identity_of, is_racy
from gzguide.workers import Backend, Outcome, Stats

if TYPE_CHECKING:
    from gzguide.analysis.thresholds import Thresholds

DEFAULT_MAX_ENTRIES: Final = 4096
#: How long a file version whose analysis failed is answered without a retry.
QUARANTINE_S: Final = 60.0


class Memo:
    def __init__(self, inner: Backend, max_entries: int = DEFAULT_MAX_ENTRIES) -> None:
        self.inner = inner
        self.max_entries = max_entries
        #: path -> (file identity, threshold table fingerprint, the report as a
        #: ``memo`` outcome). Only versions safely older than the racy window are
        #: kept: the others could never be answered from here.
        self._entries: OrderedDict[str, tuple[Identity, str, Outcome]] = OrderedDict()
        #: Failed versions: path -> (identity, monotonic time the quarantine ends).
        self._quarantine: OrderedDict[str, tuple[Identity, float]] = OrderedDict()

    def __len__(self) -> int:
        return len(self._entries)

    def analyze(
        self,
        paths: Sequence[str],
        thresholds: Thresholds,
        stats: Stats = None,
        deadline: float | None = None,
    ) -> list[Outcome]:
        table = thresholds.fingerprint
        if stats is not None and len(paths) == 1:
            # An editor's usual request, answered without the batch's bookkeeping.
            hit = self._lookup(paths[0], table, stats[0])
            if hit is not None:
                return [hit]
            return self._fetch(paths, stats, thresholds, deadline)
        fresh_stats = [_stat(p) for p in paths] if stats is None else stats
        known = [self._lookup(p, table, st) for p, st in zip(paths, fresh_stats, strict=True)]
        missing = [index for index, hit in enumerate(known) if hit is None]
        if missing:
            fresh = self._fetch(
                [paths[i] for i in missing], [fresh_stats[i] for i in missing], thresholds, deadline
            )
            for index, outcome in zip(missing, fresh, strict=True):
                known[index] = outcome
        return [outcome for outcome in known if outcome is not None]

    def _fetch(
        self,
        paths: Sequence[str],
        stats: Sequence[os.stat_result | None],
        thresholds: Thresholds,
        deadline: float | None,
    ) -> list[Outcome]:
        """Outcomes from the backend behind, each remembered for next time."""
        outcomes = self.inner.analyze(paths, thresholds, stats, deadline)
        table = thresholds.fingerprint
        for path, st, outcome in zip(paths, stats, outcomes, strict=True):
            self._store(path, table, outcome, st)
        return outcomes

    def _lookup(self, path: str, table: str, st: os.stat_result | None) -> Outcome | None:
        if st is None:
            return None
        identity = identity_of(st)
        entry = self._entries.get(path)
        if entry is not None and entry[0] == identity and entry[1] == table:
            self._entries.move_to_end(path)
            return entry[2]
        held = self._quarantine.get(path)
        if held is not None:
            if held[0] == identity and time.monotonic() < held[1]:
                return Outcome(EMPTY_REPORT, CacheState.QUARANTINED)
            del self._quarantine[path]
        return None

    def _store(self, path: str, table: str, outcome: Outcome, st: os.stat_result | None) -> None:
        if outcome.cache in FAILED_STATES:
            self._entries.pop(path, None)
            self._hold(path, st)
            return
        identity, read_at = outcome.identity, outcome.read_at_ns
        if identity is None or is_racy(identity, read_at):
            self._entries.pop(path, None)  # unanalyzable, or racy: the worker must look again
            return
        memo = Outcome(outcome.report, CacheState.MEMO, identity, read_at, None)
        self._entries[path] = (identity, table, memo)
        self._entries.move_to_end(path)
        while len(self._entries) > self.max_entries:
            self._entries.popitem(last=False)

    def _hold(self, path: str, st: os.stat_result | None) -> None:
        """Quarantine the version ``st`` describes, if it is safely older than the window."""
        if st is None:
            return
        identity = identity_of(st)
        if is_racy(identity, time.time_ns()):
            return  # it may still be rewritten unnoticed: retry it next time
        self._quarantine[path] = (identity, time.monotonic() + QUARANTINE_S)
        self._quarantine.move_to_end(path)
        while len(self._quarantine) > self.max_entries:
            self._quarantine.popitem(last=False)

    def close(self) -> None:
        self.inner.close()


def _stat(path: str) -> os.stat_result | None:
    try:
        return os.stat(path)
    except (OSError, ValueError):
        return None
