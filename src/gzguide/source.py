"""What an analysis is of: a file on disk, or an editor's buffer of one.

A :class:`Source` is the one description every stage takes, from the service's
request to the worker's analyst. Its two cases differ in what knows a version of
it and where its bytes come from:

* a file (``Source(path)``): a version is known by the file's stat identity
  (:mod:`gzguide.freshness`), and its bytes are read from disk by whoever
  analyzes it;
* a buffer (``Source(path, buffer)``): the bytes an editor holds for the file at
  ``path``, which is never read. A version is known by the bytes' content digest,
  and the bytes travel with the job to the worker of the file, so the file and its
  buffers share one cache there.

This module imports nothing but :mod:`gzguide.freshness`: the front ends, the
service and the workers all build sources, the workers in their start-up.
"""

from __future__ import annotations

from typing import NamedTuple

from gzguide.freshness import content_digest


class Buffer:
    """A buffer's contents: its UTF-8 bytes, their size, and their content digest.

    The digest is computed once, when it is first asked for, unless whoever made
    the buffer knew it already (a worker is sent it along with the bytes).
    """

    __slots__ = ("_data", "_digest", "size")

    def __init__(self, data: bytes, digest: bytes | None = None) -> None:
        #: The bytes' length: what the source size limit and the log count.
        self.size = len(data)
        #: The bytes; None only in a subclass that can make them again (see :meth:`data`).
        self._data: bytes | None = data
        self._digest = digest

    def data(self) -> bytes:
        """The bytes: what is hashed and analyzed, and what a cursor is an offset into."""
        data = self._data
        assert data is not None, "a buffer that lets go of its bytes must make them again"
        return data

    def digest(self) -> bytes:
        """``freshness.content_digest`` of the bytes, computed once."""
        digest = self._digest
        if digest is None:
            self._digest = digest = content_digest(self.data())
        return digest


class Source(NamedTuple):
    """The file at ``path``, or, with ``buffer``, a buffer of that file holding its bytes."""

    #: The file's path: as a request names it in the service's request, absolute
    #: (resolved against the workspace root) from the service on. It is what a
    #: file's version is read from, what the hints echo, and what picks the worker.
    path: str
    #: The buffer's contents, analyzed in place of the file's; None: the file on disk.
    buffer: Buffer | None = None

    @property
    def text_bytes(self) -> int | None:
        """The buffer's size in bytes; None for a file (what an answer reports)."""
        buffer = self.buffer
        return None if buffer is None else buffer.size

    def at(self, path: str) -> Source:
        """The same file or buffer under another name for its path (the resolved one)."""
        return Source(path, self.buffer)

    def held(self) -> Source:
        """This source as a job carries it: a buffer's bytes held by the job itself.

        A request's buffer may let go of its bytes while it is kept for the requests
        after it (and make them again when asked); a job's are its own.
        """
        buffer = self.buffer
        if buffer is None:
            return self
        return Source(self.path, Buffer(buffer.data(), buffer.digest()))
