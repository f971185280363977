"""When a stored result may be used again for a file: its identity, the racy rule, cache states.

Everything that keeps something computed from a file (the workers' caches of
parsed versions, the frontend's memo of reports, the workspace threshold table)
decides with these rules, and reports what it did with these words.

**Identity.** A file version is known by ``st_mtime_ns``, ``st_ctime_ns``,
``st_size``, ``st_ino`` and ``st_dev``. The ctime catches the tools that put an old
mtime back (``cp -p``, ``rsync -t``, ``touch -r``): whatever sets the mtime moves
the ctime to the present.

**The racy rule**, as git applies it to its index: a file rewritten with the same
size within the filesystem's timestamp granularity keeps the same identity. So a
result read from a version whose mtime is not safely older than the moment its
bytes were read (by :data:`RACY_WINDOW_NS`) is not trusted on identity alone: the
content must be compared again, or the result not kept.

**Content digests.** A version's bytes are also known by their digest
(:func:`content_digest`), which is all there is to know of an editor's buffer
sent as text: nothing on disk stands behind it, so it is never racy, and a
buffer whose bytes equal a file's shares whatever was computed from that file.
The racy rule's content comparison uses the same digest.

**Cache states** (:class:`CacheState`) are what the log's ``cache`` field says
about how a file's answer was obtained.
"""

from __future__ import annotations

import enum
import os
from typing import Final

#: An mtime this close to the read time (or later) may hide a same-size rewrite.
#: Two seconds covers the coarsest common filesystems (FAT has 2 s granularity).
RACY_WINDOW_NS: Final = 2_000_000_000

#: (mtime ns, ctime ns, size, inode, device).
Identity = tuple[int, int, int, int, int]


#: The length of a :func:`content_digest`.
DIGEST_BYTES: Final = 16


def content_digest(data: bytes) -> bytes:
    """The digest that identifies a version by its bytes (SHA-256, first 16 bytes).

    SHA-256 because OpenSSL computes it with the CPU's SHA instructions where there
    are some (every buffer an editor sends again is hashed on the request path);
    128 bits keep accidental collisions out of reach. ``hashlib`` is imported on
    first use: the frontend's start-up does not wait for it.
    """
    import hashlib

    return hashlib.sha256(data).digest()[:DIGEST_BYTES]


def identity_of(st: os.stat_result) -> Identity:
    return (st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino, st.st_dev)


def stat_or_none(path: str) -> os.stat_result | None:
    """``os.stat(path)``, or None when there is nothing there that can be looked at."""
    try:
        return os.stat(path)
    except (OSError, ValueError):
        return None


def is_racy(identity: Identity, read_at_ns: int) -> bool:
    """Whether bytes read at ``read_at_ns`` (wall-clock ns) may differ from a same-identity file.

    True while the version's mtime is within :data:`RACY_WINDOW_NS` of the read (or
    after it): a rewrite of the same size in that window can leave every field of
    the identity as it was.
    """
    return identity[0] + RACY_WINDOW_NS > read_at_ns


class CacheState(enum.StrEnum):
    """How one file's answer was obtained (the ``cache`` field of a request's log line)."""

    #: The frontend's memo answered: the version was unchanged, no worker was asked.
    MEMO = "memo"
    #: A worker had the version parsed already.
    HIT = "hit"
    #: A worker had it parsed, but inside the racy window: verified by content first.
    RACY = "racy"
    #: Read and parsed.
    MISS = "miss"
    #: Not analyzable: missing, not a regular file, too large, undecodable, a syntax error.
    UNANALYZABLE = "unanalyzable"
    #: The analysis missed its deadline; the worker was replaced.
    TIMEOUT = "timeout"
    #: The worker died during the analysis, or sent something that is not a message.
    CRASHED = "crashed"
    #: The version's analysis failed a moment ago: answered empty without a retry.
    QUARANTINED = "quarantined"
    #: A directory request's budget ran out before the file was started.
    SKIPPED = "skipped"


#: States whose answer came without parsing the file again.
HIT_STATES: Final = (CacheState.MEMO, CacheState.HIT, CacheState.RACY)
#: States of an analysis that failed (the version is then quarantined).
FAILED_STATES: Final = frozenset({CacheState.TIMEOUT, CacheState.CRASHED})
