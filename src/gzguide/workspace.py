"""A workspace (the root the server analyzes for) and its threshold table.

The frontend owns the one :class:`ThresholdSource` of a server: it looks at the
workspace file before each request, and the table it hands out travels with
every job (workers parse the document when its fingerprint is new to them, and
never look at the file themselves).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Final

from gzguide.freshness import Identity, identity_of, is_racy

if TYPE_CHECKING:
    from gzguide.analysis.policy.thresholds import Thresholds

#: A workspace's own threshold table, relative to its root.
WORKSPACE_TABLE: Final = ".gzkit/rules/complexity-thresholds.json"
#: A threshold table larger than this is rejected (the default is 5 KiB).
MAX_TABLE_BYTES: Final = 1 << 20


def thresholds_path(root: str) -> str:
    return os.path.join(root, WORKSPACE_TABLE)


def _ignore(event: str, **fields: object) -> None:
    del event, fields


class ThresholdSource:
    """The active table of a workspace, as of each :meth:`current` call.

    The workspace file replaces the embedded default while it exists and
    validates; when it is missing the default applies; when it is invalid the
    change is logged (``thresholds_rejected``) and the default applies until the
    file is fixed, never fatal. A file whose identity is still inside the racy
    window is read again at each call and compared by fingerprint, so a same-size
    rewrite within the timestamp granularity is never missed.

    Each call costs one ``stat`` of the file. Most workspaces have none, and a
    failing ``stat`` costs more than the system call itself (it builds an
    exception), so while the file was absent at the last look, ``os.access``
    looks first.
    """

    def __init__(self, root: str, on_event: Callable[..., None] = _ignore) -> None:
        self.path = thresholds_path(root)
        self._emit = on_event
        self._default: Thresholds | None = None
        self._active: Thresholds | None = None
        self._identity: Identity | None = None
        #: Wall-clock ns just before the active file's bytes were read.
        self._read_at_ns = 0
        #: Whether the file was there at the last look (which probe comes first).
        self._present = True

    def default(self) -> Thresholds:
        if self._default is None:
            # Imported here: the frontend's start-up does not wait for the analysis modules.
            from gzguide.analysis.policy.thresholds import default_thresholds

            self._default = default_thresholds()
        return self._default

    def exists(self) -> bool:
        return os.path.exists(self.path)

    def current(self) -> Thresholds:
        identity = self._identity_now()
        active = self._active
        unchanged = identity == self._identity
        if active is not None and unchanged and self._trusted(identity):
            return active
        self._identity = identity
        return self._adopt(self.default() if identity is None else self._load(log=not unchanged))

    def _trusted(self, identity: Identity | None) -> bool:
        """Whether the bytes read last are surely the file's (its identity is past the racy
        window of that read, or there is no file)."""
        return identity is None or not is_racy(identity, self._read_at_ns)

    def _adopt(self, table: Thresholds) -> Thresholds:
        """``table``, unless it says what the active one says: then that one stays."""
        active = self._active
        if active is None or table.fingerprint != active.fingerprint:
            self._active = active = table
        return active

    def _identity_now(self) -> Identity | None:
        path = self.path
        if not self._present and not os.access(path, os.F_OK):
            return None
        try:
            identity = identity_of(os.stat(path))
        except OSError:
            self._present = False
            return None
        self._present = True
        return identity

    def _load(self, log: bool) -> Thresholds:
        """The table the file holds now, or the default when it holds none (``log``: say so)."""
        from gzguide.analysis.policy.thresholds import ThresholdError, parse_thresholds
        from gzguide.analysis.source import read_source_bytes

        emit = self._emit if log else _ignore
        self._read_at_ns = time.time_ns()
        # Never blocks: only a regular file is read (a FIFO here must not hang us).
        data = read_source_bytes(self.path, MAX_TABLE_BYTES)
        if data is None:
            reason = f"not a readable regular file of at most {MAX_TABLE_BYTES} bytes"
            emit("thresholds_rejected", path=self.path, reason=reason)
            return self.default()
        try:
            table = parse_thresholds(data, self.path)
        except ThresholdError as exc:
            emit("thresholds_rejected", path=self.path, reason=str(exc))
            return self.default()
        emit("thresholds_loaded", path=self.path, metrics=sorted(table.bands))
        return table
