"""The protocol's stdout: claimed for frames only, and written whole.

The frontend claims file descriptor 1 before anything else can write there: the
real stdout is duplicated to a private descriptor for frames, and fd 1 (with
``sys.stdout``) is pointed at stderr, so a stray ``print``, a library warning or
a child process's output can never reach the client's stream.
"""

from __future__ import annotations

import os
import select
import sys
from collections.abc import Sequence

from gzguide.framing import frame_parts


class OutputClosed(Exception):
    """The client closed our stdout."""


def claim_stdout() -> int:
    """Take fd 1 for frames only; return the descriptor frames are written to."""
    out_fd = os.dup(1)  # non-inheritable: child processes never see it
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return out_fd


def write_frame(fd: int, body: Sequence[bytes | memoryview]) -> None:
    """Write one frame whose body is ``body``'s pieces one after the other."""
    write_all(fd, frame_parts(body))


def write_all(fd: int, parts: Sequence[bytes | memoryview]) -> None:
    """Write ``parts`` one after the other: one gathering write, unless it falls short.

    A descriptor left non-blocking by whoever started the server (a full pipe then
    answers ``EAGAIN`` instead of waiting) is waited on with ``poll``, as a blocking
    one would wait in the kernel: never a lost answer, never a busy loop.
    """
    try:
        written = _gathering_write(fd, parts)
        if written < _size(parts):
            _write_rest(fd, memoryview(b"".join(parts))[written:])
    except OSError as exc:  # a broken pipe, a reset, EBADF: nobody is listening any more
        raise OutputClosed from exc


def _gathering_write(fd: int, parts: Sequence[bytes | memoryview]) -> int:
    """How much of ``parts`` one ``writev`` took (nothing, when the pipe is full)."""
    try:
        return os.writev(fd, parts)
    except BlockingIOError:
        return 0


def _write_rest(fd: int, rest: memoryview) -> None:
    """Write what the gathering write left, waiting whenever the pipe is full."""
    while rest:
        try:
            rest = rest[os.write(fd, rest) :]
        except BlockingIOError:
            _wait_writable(fd)


def _wait_writable(fd: int) -> None:
    """Block until ``fd`` takes data again, or reports an error (the next write raises)."""
    poller = select.poll()
    poller.register(fd, select.POLLOUT)
    poller.poll()


def _size(parts: Sequence[bytes | memoryview]) -> int:
    return sum(map(len, parts))
