"""The public client (gzguide.client): its strict frame reader, its pipes, its typed calls.

The frame reader is fed bytes by hand; the connection talks to small child
processes that write frames (or nothing) in chosen pieces; the typed client talks
to the real server.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from gzguide.client import (
    SERVER_COMMAND,
    Closed,
    FrameReader,
    GuideClient,
    ProtocolViolation,
    ServerError,
    Timeout,
    encode_request,
)
from gzguide.guide.messages import Hint
from support.paths import EXAMPLES

pytestmark = pytest.mark.timeout(60)


def frame(body: bytes) -> bytes:
    return b"Content-Length: %d\r\n\r\n%b" % (len(body), body)


# -- the frame reader ------------------------------------------------------------------


def test_frames_come_out_whole_however_the_bytes_are_cut() -> None:
    bodies = [b'{"id":1}', b"", b'{"id":"\xc3\xa9"}', b"x" * 70_000]
    stream = b"".join(frame(b) for b in bodies)
    for step in (1, 7, 4096, len(stream)):
        reader = FrameReader()
        got: list[bytes] = []
        for start in range(0, len(stream), step):
            reader.feed(stream[start : start + step])
            while (body := reader.next_body()) is not None:
                got.append(body)
        assert got == bodies and reader.pending == b""


def test_a_read_holding_one_whole_frame_is_taken_without_copying() -> None:
    reader = FrameReader()
    chunk = frame(b'{"id":1}') + b"Content-Le"
    whole = reader.take_whole(chunk)
    assert isinstance(whole, memoryview) and whole.obj is chunk and bytes(whole) == b'{"id":1}'
    assert reader.pending == b"Content-Le"  # the rest waits for the next read
    assert reader.take_whole(frame(b"{}")) is None  # not with bytes buffered before it


@pytest.mark.parametrize(
    "data",
    [
        b"HTTP/1.1 200 OK\r\n\r\n",
        b"content-length: 2\r\n\r\n{}",
        b"Content-Length: 02\r\n\r\n{}",
        b"Content-Length: +2\r\n\r\n{}",
        b"Content-Length: 2\r\nContent-Type: x\r\n\r\n{}",
        b"Content-Length: 2 \r\n\r\n{}",
        b"Content-Length: " + b"1" * 40,
        b"{}",
    ],
    ids=repr,
)
def test_anything_but_a_canonical_frame_is_a_protocol_violation(data: bytes) -> None:
    reader = FrameReader()
    reader.feed(data)
    with pytest.raises(ProtocolViolation):
        reader.next_body()


def test_encoded_requests_are_compact_frames() -> None:
    assert encode_request(3, "analyze", {"file_path": "é.py"}) == frame(
        '{"id":3,"method":"analyze","params":{"file_path":"é.py"}}'.encode()
    )
    assert encode_request("x", "shutdown") == frame(b'{"id":"x","method":"shutdown"}')


# -- the connection, against small children --------------------------------------------

#: Writes three frames: the first two in one write, the third cut in pieces written
#: with pauses; then waits for its stdin to close.
WRITER = r"""
import os, sys, time
def frame(body):
    return b"Content-Length: %d\r\n\r\n%b" % (len(body), body)
os.write(1, frame(b'{"id":1}') + frame(b'{"id":2}'))
third = frame(b'{"id":3,"pad":"' + b"x" * 200_000 + b'"}')
for start in range(0, len(third), 70_001):
    os.write(1, third[start:start + 70_001])
    time.sleep(0.01)
sys.stdin.read()
"""


def child(code: str) -> GuideClient:
    return GuideClient.start(command=[sys.executable, "-c", code], new_session=True)


def test_the_connection_takes_frames_whole_split_and_several_per_read() -> None:
    client = child(WRITER)
    try:
        connection = client.connection
        assert connection.receive(timeout=30) == b'{"id":1}'
        assert connection.receive(timeout=30) == b'{"id":2}'
        assert connection.receive(timeout=30) == b'{"id":3,"pad":"' + b"x" * 200_000 + b'"}'
        assert client.close() == 0
    finally:
        client.kill()


def test_a_silent_server_is_a_timeout_and_a_gone_one_is_closed() -> None:
    client = child("import sys; sys.stdin.read()")
    try:
        with pytest.raises(Timeout):
            client.connection.receive(timeout=0.2)
        client.connection.close_sending()  # EOF: the child exits, its stdout ends
        with pytest.raises(Closed):
            client.connection.receive(timeout=10)
    finally:
        client.kill()


def test_a_server_that_stops_reading_is_a_timeout_never_a_hang() -> None:
    client = child("import time; time.sleep(60)")
    try:
        with pytest.raises(Timeout):
            client.connection.send(b"x" * (4 << 20), timeout=0.5)
    finally:
        client.kill()


# -- typed calls, against the real server ----------------------------------------------------


def test_typed_calls_to_the_real_server() -> None:
    with GuideClient.start(root=EXAMPLES, options=["--workers", "0"], new_session=True) as guide:
        info = guide.initialize()
        assert (info.version, info.capabilities) == ("1.0", ["analyze"])
        hints = guide.analyze("orders.py")
        assert hints and all(isinstance(h, Hint) and h.file_path == "orders.py" for h in hints)
        scoped = guide.analyze("orders.py", cursor_position=0)
        assert all(h.start_line == 1 for h in scoped)  # only what covers line 1
        with pytest.raises(ServerError) as failed:
            guide.call("gzguide/nothing")
        assert failed.value.code == -32601
        assert guide.shutdown() == 0


def test_attaching_to_pipes_someone_else_set_up(tmp_path: Path) -> None:
    to_server_r, to_server = os.pipe()
    from_server, from_server_w = os.pipe()
    proc = subprocess.Popen(
        [*SERVER_COMMAND, "--workers", "0", "--root", str(tmp_path)],
        stdin=to_server_r,
        stdout=from_server_w,
        stderr=subprocess.DEVNULL,
    )
    os.close(to_server_r)
    os.close(from_server_w)
    guide = GuideClient.attach(to_server, from_server)
    try:
        assert guide.initialize().version == "1.0"
        assert guide.analyze("missing.py") == []
        guide.close()
        assert proc.wait(timeout=10) == 0  # EOF on its stdin
    finally:
        proc.kill()
        proc.wait()
