"""A stat-validated memo of finished reports, consulted by the service before any backend.

An editor asks about the same unchanged file again and again. The memo answers
those requests with the ``stat`` the service took anyway and a dictionary
look-up, without a round trip to a worker. An entry is used only when all of
these hold:

* the file's identity (:mod:`gzguide.freshness`) is the one the report was
  computed for;
* the report was computed under the threshold table asked for (by fingerprint);
* the version is outside the racy window: otherwise a same-size rewrite could
  hide behind an unchanged identity, so the request goes to the worker, which
  verifies the content by hash. Only such versions are stored at all.

Bounded by entry count, least recently used out.

Reports are also kept by content: the digest of the bytes they are for (which
the worker reports with each outcome) and the table. That is how an editor's
buffer is answered again (a buffer's :class:`~gzguide.source.Source` is looked up
by its digest): a buffer sent unchanged, or equal to a file version analyzed
before, gets its report without a worker. A
content entry is true of its bytes whatever happens to any file, so it needs no
racy rule; they are fewer (``DEFAULT_MAX_CONTENTS``), since each edit of a
buffer makes a version that is seldom asked about again.

It also remembers the file versions whose analysis failed (the worker missed its
deadline or died): an editor asks about an unchanged file over and over, and each
of those requests would otherwise wait out the deadline again and cost a worker.
For ``QUARANTINE_S`` seconds such a version is answered with an empty report at
once (``quarantined``); any change to the file ends its quarantine, and so does
time, because a deadline missed under load may well be met later. As for reports,
only versions safely older than the racy window are quarantined. A buffer's text
whose analysis failed is quarantined by its digest, for as long.
"""

from __future__ import annotations

import os
import time
from typing import Final

from gzguide.analysis.model import EMPTY_REPORT
from gzguide.freshness import FAILED_STATES, CacheState, Identity, identity_of, is_racy
from gzguide.lru import Lru
from gzguide.source import Source
from gzguide.workers import Outcome

DEFAULT_MAX_ENTRIES: Final = 4096
#: Reports kept by content digest (and failed texts held, as many).
DEFAULT_MAX_CONTENTS: Final = 256
#: How long a file version whose analysis failed is answered without a retry.
QUARANTINE_S: Final = 60.0

_QUARANTINED: Final = Outcome(EMPTY_REPORT, CacheState.QUARANTINED)


class Memo:
    def __init__(
        self, max_entries: int = DEFAULT_MAX_ENTRIES, max_contents: int = DEFAULT_MAX_CONTENTS
    ) -> None:
        self.max_entries = max_entries
        self.max_contents = max_contents
        #: path -> (file identity, threshold table fingerprint, the report as a
        #: ``memo`` outcome).
        self._entries: Lru[str, tuple[Identity, str, Outcome]] = Lru(max_entries)
        #: Failed versions: path -> (identity, monotonic time the quarantine ends).
        self._quarantine: Lru[str, tuple[Identity, float]] = Lru(max_entries)
        #: (content digest, table fingerprint) -> the report as a ``memo`` outcome.
        self._contents: Lru[tuple[bytes, str], Outcome] = Lru(max_contents)
        #: Failed texts: content digest -> monotonic time the quarantine ends.
        self._failed_texts: Lru[bytes, float] = Lru(max_contents)

    def __len__(self) -> int:
        return len(self._entries)

    def lookup(self, source: Source, st: os.stat_result | None, table: str) -> Outcome | None:
        """The stored outcome for this version of ``source`` under ``table``, if any.

        A file's version is the one ``st`` (the stat the service took of it)
        describes; a buffer's is its bytes, known by their digest (``st`` is None).
        """
        buffer = source.buffer
        if buffer is not None:
            return self._by_digest(buffer.digest(), table)
        return self._by_identity(source.path, st, table)

    def store(
        self, source: Source, st: os.stat_result | None, table: str, outcome: Outcome
    ) -> None:
        """Remember ``outcome``, the analysis of ``source`` (a file as ``st`` found it before
        the job, or a buffer's bytes)."""
        buffer = source.buffer
        if buffer is not None:
            self._store_buffer(buffer.digest(), table, outcome)
        else:
            self._store_file(source.path, st, table, outcome)

    def _by_identity(self, path: str, st: os.stat_result | None, table: str) -> Outcome | None:
        """The outcome stored (or the quarantine's) for the version of ``path`` ``st`` describes."""
        if st is None:
            return None
        identity = identity_of(st)
        stored = self._stored(path, identity, table)
        return stored if stored is not None else self._quarantined(path, identity)

    def _stored(self, path: str, identity: Identity, table: str) -> Outcome | None:
        """The report stored for this version of ``path`` under ``table``, if any."""
        entry = self._entries.peek(path)
        if entry is not None and entry[0] == identity and entry[1] == table:
            self._entries.touch(path)
            return entry[2]
        return None

    def _quarantined(self, path: str, identity: Identity) -> Outcome | None:
        """The quarantine's answer for this version of ``path``, while it lasts; a quarantine
        of another version, or one that is over, ends."""
        held = self._quarantine.peek(path)
        if held is None:
            return None
        if held[0] == identity and time.monotonic() < held[1]:
            return _QUARANTINED
        self._quarantine.pop(path)
        return None

    def _store_file(
        self, path: str, st: os.stat_result | None, table: str, outcome: Outcome
    ) -> None:
        """Remember ``outcome``, the analysis of ``path`` as ``st`` found it before the job."""
        if outcome.cache in FAILED_STATES:
            self._entries.pop(path)
            self._hold(path, st)
            return
        identity, read_at = outcome.identity, outcome.read_at_ns
        memo = Outcome(outcome.report, CacheState.MEMO, identity, read_at, None, outcome.digest)
        if outcome.digest is not None:
            self._keep_content(outcome.digest, table, memo)  # true of those bytes, racy or not
        if identity is None or is_racy(identity, read_at):
            self._entries.pop(path)  # unanalyzable, or racy: the worker must look again
            return
        self._entries.put(path, (identity, table, memo))

    def _by_digest(self, digest: bytes, table: str) -> Outcome | None:
        """The stored outcome for the bytes of ``digest`` under ``table``, if any."""
        known = self._contents.get((digest, table))
        if known is not None:
            return known
        until = self._failed_texts.peek(digest)
        if until is not None:
            if time.monotonic() < until:
                return _QUARANTINED
            self._failed_texts.pop(digest)
        return None

    def _store_buffer(self, digest: bytes, table: str, outcome: Outcome) -> None:
        """Remember ``outcome``, the analysis of a buffer whose bytes have ``digest``."""
        if outcome.cache in FAILED_STATES:
            self._failed_texts.put(digest, time.monotonic() + QUARANTINE_S)
            return
        if outcome.cache is CacheState.SKIPPED:
            return
        memo = Outcome(outcome.report, CacheState.MEMO, None, 0, None, digest)
        self._keep_content(digest, table, memo)

    def _keep_content(self, digest: bytes, table: str, memo: Outcome) -> None:
        self._contents.put((digest, table), memo)

    def _hold(self, path: str, st: os.stat_result | None) -> None:
        """Quarantine the version ``st`` describes, if it is safely older than the window."""
        if st is None:
            return
        identity = identity_of(st)
        if is_racy(identity, time.time_ns()):
            return  # it may still be rewritten unnoticed: retry it next time
        self._quarantine.put(path, (identity, time.monotonic() + QUARANTINE_S))
