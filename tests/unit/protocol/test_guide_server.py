"""The stdio shell's own pieces: how answers and log lines reach their descriptors."""

from __future__ import annotations

import contextlib
import os
import select
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

import msgspec
import pytest

from gzguide.framing import NEED_DATA, EndOfStream, Frame, FramingError, encode_frame, frame_parts
from gzguide.guide.server import Server
from gzguide.logs import LineSink
from gzguide.rpc.loop import FramePump, Loop
from gzguide.rpc.stdio import OutputClosed, write_all
from gzguide.service import AnalysisService
from gzguide.workers.inprocess import InProcessBackend


@pytest.fixture
def pipe() -> Iterator[tuple[int, int]]:
    read_fd, write_fd = os.pipe()
    yield read_fd, write_fd
    for fd in (read_fd, write_fd):
        with contextlib.suppress(OSError):
            os.close(fd)


def read_exactly(fd: int, size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = os.read(fd, size - len(data))
        assert chunk, "the pipe closed early"
        data += chunk
    return data


def test_frame_parts_are_the_frame_of_the_joined_body() -> None:
    parts: list[bytes | memoryview] = [b'{"id":1,', memoryview(b'"result":{}'), b"}"]
    framed = frame_parts(parts)
    assert b"".join(framed) == encode_frame(b"".join(parts))
    assert framed[1:] == parts  # the body's pieces are not copied


def test_frame_parts_of_an_empty_body() -> None:
    assert b"".join(frame_parts([])) == b"Content-Length: 0\r\n\r\n"


def test_write_all_writes_every_part_in_order(pipe: tuple[int, int]) -> None:
    read_fd, write_fd = pipe
    parts: list[bytes | memoryview] = [b"ab", memoryview(b"xcdx")[1:3], b"", b"ef"]
    write_all(write_fd, parts)
    assert read_exactly(read_fd, 6) == b"abcdef"


def test_write_all_finishes_a_short_gathering_write(
    pipe: tuple[int, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    read_fd, write_fd = pipe

    def short_writev(fd: int, parts: Sequence[bytes | memoryview]) -> int:
        return os.write(fd, b"".join(parts)[:3])  # as a signal would cut it

    monkeypatch.setattr(os, "writev", short_writev)  # what write_all calls
    write_all(write_fd, [b"head", b"-body-", b"tail"])
    assert read_exactly(read_fd, 14) == b"head-body-tail"


def test_write_all_blocks_on_a_full_pipe_until_read(pipe: tuple[int, int]) -> None:
    read_fd, write_fd = pipe
    body = bytes(range(256)) * 4096  # 1 MiB: far past a pipe's capacity
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(read_exactly(read_fd, len(body) + 2)))
    reader.start()
    write_all(write_fd, [b"<", memoryview(body), b">"])
    reader.join(timeout=30)
    assert received == [b"<" + body + b">"]


def test_write_all_to_a_closed_reader_is_output_closed(pipe: tuple[int, int]) -> None:
    read_fd, write_fd = pipe
    os.close(read_fd)
    with pytest.raises(OutputClosed):
        write_all(write_fd, [b"anything"])


def test_write_all_waits_on_a_non_blocking_pipe_instead_of_failing(
    pipe: tuple[int, int],
) -> None:
    read_fd, write_fd = pipe
    os.set_blocking(write_fd, False)  # as a parent might hand the server its stdout
    body = bytes(range(256)) * 2048  # 512 KiB: the pipe fills many times over
    received: list[bytes] = []

    def slow_reader() -> None:
        time.sleep(0.2)  # the writer finds the pipe full and must wait
        received.append(read_exactly(read_fd, len(body) + 2))

    reader = threading.Thread(target=slow_reader)
    reader.start()
    write_all(write_fd, [b"<", memoryview(body), b">"])
    reader.join(timeout=30)
    assert received == [b"<" + body + b">"]


def test_write_all_to_a_non_blocking_pipe_whose_reader_left(pipe: tuple[int, int]) -> None:
    read_fd, write_fd = pipe
    os.set_blocking(write_fd, False)
    os.write(write_fd, b"x" * 65536)  # full
    os.close(read_fd)
    with pytest.raises(OutputClosed):
        write_all(write_fd, [b"more"])


def test_a_non_blocking_stdin_with_nothing_to_read_is_not_the_end_of_input(
    pipe: tuple[int, int],
) -> None:
    read_fd, write_fd = pipe
    os.set_blocking(read_fd, False)
    server = Server(AnalysisService("/", InProcessBackend()), read_fd, write_fd, log=None)
    # As when readiness was reported but the data is gone (another reader of the pipe).
    server.loop.read_input()
    assert server.pump.decoder.next_event() is NEED_DATA
    os.close(write_fd)
    server.loop.read_input()
    assert isinstance(server.pump.decoder.next_event(), EndOfStream)


# -- the one loop ---------------------------------------------------------------------


class Watched:
    """A companion with one descriptor and a deadline, recording what the loop does."""

    def __init__(self, fd: int | None = None, due: float | None = None) -> None:
        self.fd = fd
        self.due = due
        self.readied: list[int] = []
        self.ticks: list[float] = []

    def start(self) -> None:
        pass

    def watch(self) -> list[tuple[int, int]]:
        return [] if self.fd is None else [(self.fd, select.POLLIN)]

    def ready(self, fd: int, events: int) -> None:
        self.readied.append(fd)
        assert self.fd is not None
        os.read(self.fd, 100)

    def next_deadline(self) -> float | None:
        return self.due

    def tick(self, now: float) -> None:
        self.ticks.append(now)
        self.due = None


def test_a_turn_hands_input_to_the_front_end_and_events_to_their_companion(
    pipe: tuple[int, int],
) -> None:
    stdin_r, stdin_w = pipe
    out_r, out_w = os.pipe()
    side_r, side_w = os.pipe()
    try:
        inputs: list[bytes] = []
        companion = Watched(side_r)
        loop = Loop(stdin_r, out_w, [companion], inputs.append)
        os.write(side_w, b"x")
        loop.turn(reading=False)  # stdin is not read while an answer is owed
        assert companion.readied == [side_r] and inputs == []
        os.write(stdin_w, b"abc")
        loop.turn(reading=True)
        assert inputs == [b"abc"]
        os.close(stdin_w)
        loop.turn(reading=True)
        assert inputs == [b"abc", b""]  # the end of input
    finally:
        for fd in (out_r, out_w, side_r, side_w):
            os.close(fd)


def test_a_turn_ticks_a_companion_at_its_deadline_and_flushes_when_idle(
    pipe: tuple[int, int],
) -> None:
    read_fd, write_fd = pipe
    companion = Watched(due=time.monotonic() + 0.05)
    idled: list[bool] = []
    loop = Loop(read_fd, write_fd, [companion], lambda chunk: None)
    loop.idle = lambda: idled.append(True)
    due = companion.due
    assert due is not None
    while not companion.ticks:
        loop.turn(reading=False)
    assert companion.ticks[0] >= due and idled  # not before its time, and idle meanwhile


def test_a_closed_stdout_ends_a_turn_even_when_nothing_is_read(pipe: tuple[int, int]) -> None:
    stdin_r, _ = pipe
    out_r, out_w = os.pipe()
    try:
        loop = Loop(stdin_r, out_w, [Watched(due=time.monotonic() + 60)], lambda c: None)
        os.close(out_r)  # the client stopped listening
        with pytest.raises(OutputClosed):
            loop.turn(reading=False)
    finally:
        os.close(out_w)


# -- log lines on a pipe nobody reads ----------------------------------------------------


def test_a_full_log_pipe_drops_whole_lines_and_says_how_many(pipe: tuple[int, int]) -> None:
    read_fd, write_fd = pipe
    os.set_blocking(write_fd, False)
    sink = LineSink(write_fd, deferred=False)
    line = b'{"event":"request","pad":"' + b"x" * 200 + b'"}'
    for _ in range(1000):  # ~230 KB: the pipe holds 64 KiB
        sink.msg(line)
    assert sink.dropped > 0
    os.set_blocking(read_fd, False)
    held = b""
    with contextlib.suppress(BlockingIOError):
        while chunk := os.read(read_fd, 65536):
            held += chunk
    # Whole lines only, never a cut one. While the pipe is stuck, a short notice may
    # still fit where a line no longer does: its count covers the lines before it.
    kept = [k for k in held.splitlines() if k == line]
    notices = [msgspec.json.decode(k) for k in held.splitlines() if k != line]
    assert kept and all(n["event"] == "log_lines_dropped" for n in notices)
    lost_before = sum(n["count"] for n in notices)
    lost = sink.dropped
    sink.msg(b'{"event":"after"}')
    notice, after = os.read(read_fd, 65536).splitlines()
    decoded = msgspec.json.decode(notice)
    assert decoded["event"] == "log_lines_dropped" and decoded["level"] == "warning"
    assert decoded["count"] == lost
    assert len(kept) + lost_before + lost == 1000  # every line written or counted
    assert after == b'{"event":"after"}' and sink.dropped == 0


def test_logs_get_their_own_non_blocking_descriptor_on_a_stderr_pipe() -> None:
    code = (
        "import os; from gzguide.logs import open_log_fd; fd = open_log_fd(None); "
        "print(os.get_blocking(fd), os.get_blocking(2))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, check=True)
    # The logs' descriptor does not wait; the stderr the parent handed over still does.
    assert done.stdout.split() == [b"False", b"True"]


STRAY = """
import sys, warnings
from gzguide import logs
logs.quiet_stray_output()
for i in range(3000):  # ~200 KB of warnings: far past the pipe's 64 KiB
    warnings.warn(f"stray warning number {i}")
print("x" * 100_000)
sys.stderr.write("and more\\n")
with open(sys.argv[1], "w") as done:
    done.write("finished")
"""


def test_python_stray_output_on_a_stderr_pipe_nobody_reads_never_blocks(tmp_path: Path) -> None:
    read_fd, write_fd = os.pipe()  # never read
    marker = tmp_path / "done"
    try:
        child = subprocess.Popen([sys.executable, "-c", STRAY, str(marker)], stderr=write_fd)
        os.close(write_fd)
        assert child.wait(timeout=60) == 0
        assert marker.read_text() == "finished"
    finally:
        os.close(read_fd)


class Recorded:
    """A log that keeps each record's event name and fields."""

    def __init__(self) -> None:
        self.records: list[tuple[str, dict[str, object]]] = []

    def info(self, event: str, **fields: object) -> None:
        self.records.append((event, fields))


def test_the_pump_reads_until_a_frame_and_logs_realignment_and_the_end(
    pipe: tuple[int, int],
) -> None:
    stdin_r, stdin_w = pipe
    out_r, out_w = os.pipe()
    try:
        log = Recorded()
        pump = FramePump(stdin_r, out_w, [], log)
        os.write(stdin_w, b"Content-Length: x\r\n\r\n" + encode_frame(b"{}"))
        os.close(stdin_w)
        assert isinstance(pump.next_event(), FramingError)
        assert pump.next_event() == Frame(b"{}")
        assert [event for event, _ in log.records] == ["framing_realigned"]
        assert isinstance(pump.next_event(), EndOfStream)
        assert log.records[-1] == ("end_of_input", {"truncated": False})
    finally:
        for fd in (out_r, out_w):
            os.close(fd)
