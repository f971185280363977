"""Reading a source file safely and decoding it the way Python itself would.

Only regular files are read, opened without blocking (a FIFO or device can never
hang the caller), and never more than ``MAX_SOURCE_BYTES``. Decoding follows PEP
263: a UTF-8 BOM, or a coding cookie on one of the first two lines, else UTF-8.
"""

from __future__ import annotations

import codecs
import io
import os
import stat
import tokenize

#: Files larger than this are not analyzed (4 MiB: about 100,000 lines of Python,
#: far past anything a person edits, and small enough to parse well inside the
#: analysis deadline).
MAX_SOURCE_BYTES = 4 * 1024 * 1024

_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)


def read_source_bytes(path: str, limit: int = MAX_SOURCE_BYTES) -> bytes | None:
    """The bytes of the regular file at ``path``, or None if it is not one we may read.

    None for: a missing or unreadable path, anything that is not a regular file
    (directory, FIFO, socket, device), or a file larger than ``limit`` bytes.
    """
    try:
        fd = os.open(path, _OPEN_FLAGS)
    except (OSError, ValueError):
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > limit:
            return None
        return _read_at_most(fd, limit, st.st_size)
    except OSError:
        return None
    finally:
        os.close(fd)


#: The usual read size: under glibc's mmap threshold, so a read's buffer comes from
#: the heap instead of a fresh mapping that page-faults in as it is filled.
_READ_CHUNK = 1 << 16


def _read_at_most(fd: int, limit: int, size_hint: int) -> bytes | None:
    """Read to EOF; None if the file turns out longer than ``limit`` (it grew).

    A file larger than one chunk is read with one call of its size (plus one byte,
    to see it end), not chunk by chunk.
    """
    chunks: list[bytes] = []
    total = 0
    want = size_hint + 1 if size_hint >= _READ_CHUNK else _READ_CHUNK
    while True:
        chunk = os.read(fd, min(want, limit + 1))
        want = _READ_CHUNK
        if not chunk:
            return b"".join(chunks)
        total += len(chunk)
        if total > limit:
            return None
        chunks.append(chunk)


def decode_source(data: bytes) -> str | None:
    """Decode Python source bytes per PEP 263; None if they cannot be decoded."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        codecs.lookup(encoding)
        text = data.decode(encoding)
    except (SyntaxError, LookupError, UnicodeDecodeError, ValueError):
        return None
    if text.startswith("\ufeff"):
        text = text[1:]
    return text
