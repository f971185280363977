"""The pool's own byte moving: a worker's outbox written to a real non-blocking pipe."""

from __future__ import annotations

import contextlib
import os
from collections import deque
from collections.abc import Iterator

import pytest

from gzguide.workers.pool import _drain


@pytest.fixture
def pipe() -> Iterator[tuple[int, int]]:
    read_fd, write_fd = os.pipe()
    os.set_blocking(write_fd, False)  # as the pool's end of a job pipe is
    yield read_fd, write_fd
    for fd in (read_fd, write_fd):
        with contextlib.suppress(OSError):
            os.close(fd)


def read_all(fd: int) -> bytes:
    os.set_blocking(fd, False)
    data = b""
    with contextlib.suppress(BlockingIOError):
        while chunk := os.read(fd, 1 << 16):
            data += chunk
    return data


def test_a_full_pipe_keeps_the_rest_of_the_outbox_in_order(pipe: tuple[int, int]) -> None:
    read_fd, write_fd = pipe
    pieces = [bytes([65 + n % 26]) * (10_000 + n) for n in range(40)]  # more than a pipe holds
    outbox = deque(memoryview(piece) for piece in pieces)
    _drain(write_fd, outbox)
    assert outbox, "the pipe took everything: make the pieces larger"
    received = read_all(read_fd)
    while outbox:  # the worker reads, the pool writes again
        _drain(write_fd, outbox)
        received += read_all(read_fd)
    assert received == b"".join(pieces)


def test_a_pipe_nobody_reads_any_more_empties_the_outbox(pipe: tuple[int, int]) -> None:
    read_fd, write_fd = pipe
    os.close(read_fd)
    outbox = deque([memoryview(b"job"), memoryview(b"text")])
    _drain(write_fd, outbox)  # EPIPE: the result pipe's end is what reports the death
    assert not outbox
