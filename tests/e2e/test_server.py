"""The real server, as a subprocess over real pipes, against the contract.

Every row of CONTRACT.md's Transport, Lifecycle and analyze sections is exercised
here through ``python -m gzguide complexity guide --server``; the protocol client
checks every response it reads (framing, compact UTF-8 JSON, the shipped
schemas, hint field order), so each test also checks its output as a whole.

Tests that need a session of their own (exits, lifecycle, relative paths) spawn
a server; the rest share one initialized server per module (``shared``), which
must still answer a ping after each test.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import socket
import stat
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from gzguide import procfs
from support.protocol_client import (
    ServerProcess,
    Spawn,
    analyze_message,
    frame,
    initialize_message,
    message,
)
from support.server_cases import (
    CALM,
    EXAMPLE_1_REQUEST,
    EXAMPLE_1_RESPONSE,
    EXAMPLE_3_REQUEST,
    EXAMPLE_3_RESPONSE,
    FOUR,
    NESTED,
    NO_WORKERS,
    SEVEN,
    SIX,
    TWO,
)

pytestmark = pytest.mark.timeout(60)

MAX_BODY = 10 * 1024 * 1024
MAX_LINE = 8 * 1024
MAX_LINES = 32
PROMPTLY = 5.0  # seconds: generous, only there to catch a hang


# -- helpers -----------------------------------------------------------------------------


def sort_key(hint: dict[str, Any]) -> tuple[str, int, int, str]:
    return (hint["file_path"], hint["start_line"], hint["end_line"], hint["metric"])


def analyze(server: ServerProcess, path: str, cursor: Any = None, **kw: Any) -> list[Any]:
    """Analyze; check the hints are sorted; return them."""
    params = {"cursor": cursor} if cursor is not None else {}
    hints = server.analyze(path, **params, **kw).hints
    assert hints == sorted(hints, key=sort_key), "hints not sorted by file, lines, metric"
    return hints


def cc(hints: list[dict[str, Any]]) -> list[tuple[str, int, int]]:
    """The radon_cc hints as (file_path, start_line, end_line).

    Other metrics may report on the same files (module-level ones in particular);
    the exact expectations of these tests are about radon_cc.
    """
    return [
        (h["file_path"], h["start_line"], h["end_line"]) for h in hints if h["metric"] == "radon_cc"
    ]


def write(path: Path, text: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, str):
        path.write_text(text, encoding="utf-8", newline="")
    else:
        path.write_bytes(text)
    return path


def probe(server: ServerProcess, tag: str = "probe") -> None:
    """A valid request right now is answered normally (the stream is aligned)."""
    request_id = f"{tag}-{time.monotonic_ns()}"
    response = server.request(analyze_message(request_id, "/nonexistent/gzguide-probe.py"))
    assert response.id == request_id
    assert response.result == {"hints": []}


def expect_parse_error(server: ServerProcess) -> None:
    server.read_response().expect_error(-32700, None)


def valid_frame(request_id: Any = "v") -> bytes:
    return frame(analyze_message(request_id, "/nonexistent/gzguide-probe.py"))


def expect_valid(server: ServerProcess, request_id: Any = "v") -> None:
    response = server.read_response()
    assert response.id == request_id and response.result == {"hints": []}, response.message


# == Worked examples =====================================================================


def test_example_1_initialize_byte_for_byte_then_eof_exits_0(server: ServerProcess) -> None:
    server.write(EXAMPLE_1_REQUEST + b"\r\n\r\n")  # blank lines after it: still between messages
    assert server.read_response().raw == EXAMPLE_1_RESPONSE
    server.close_stdin()
    assert server.finish(0, timeout=PROMPTLY) == []  # no worker left behind either


def test_example_2_analyze_shape(shared: ServerProcess, tmp_path: Path) -> None:
    path = str(write(tmp_path / "src" / "mymodule" / "parser.py", "\n" * 41 + FOUR))
    body = json.dumps({"id": 2, "method": "analyze", "params": {"file_path": path}}).encode()
    shared.write(b"Content-Length: %d\r\n\r\n%b" % (len(body), body))
    response = shared.read_response()
    assert response.id == 2
    assert list(response.message) == ["id", "result"]
    assert list(response.result) == ["hints"]
    (hint,) = [h for h in response.hints if h["metric"] == "radon_cc"]
    assert list(hint) == [
        "metric",
        "precedence_band",
        "crossing_value",
        "archetype",
        "doctrinal_frame_headline",
        "recommended_move",
        "file_path",
        "start_line",
        "end_line",
    ]
    assert hint["metric"] == "radon_cc"
    assert hint["precedence_band"] == "approaching"
    assert hint["crossing_value"] == 4.0
    assert hint["file_path"] == path
    assert (hint["start_line"], hint["end_line"]) == (42, 49)
    assert hint["doctrinal_frame_headline"] and "\n" not in hint["doctrinal_frame_headline"]
    assert hint["recommended_move"]


def test_example_3_version_mismatch_byte_for_byte_then_exit_1(server: ServerProcess) -> None:
    server.write(EXAMPLE_3_REQUEST)
    assert server.read_response().raw == EXAMPLE_3_RESPONSE
    assert server.finish(1) == []


# == Transport ===========================================================================

# -- header lines ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "headers",
    [
        pytest.param(b"Content-Length: %d\r\n\r\n", id="crlf"),
        pytest.param(b"Content-Length: %d\n\n", id="bare-lf"),
        pytest.param(b"Content-Length: %d\r\n\n", id="crlf-lf"),
        pytest.param(b"content-length: %d\r\n\r\n", id="lowercase"),
        pytest.param(b"CONTENT-LENGTH: %d\r\n\r\n", id="uppercase"),
        pytest.param(
            b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n"
            b"Content-Length: %d\r\n\r\n",
            id="content-type-first",
        ),
        pytest.param(
            b"Content-Length: %d\r\nX-Future: yes\r\nX-Empty:\r\n\r\n", id="unknown-after"
        ),
        pytest.param(b"Content-Length:%d\r\n\r\n", id="no-blank"),
        pytest.param(b"Content-Length: \t %d \t \r\n\r\n", id="blanks-around"),
        pytest.param(b"Content-Length: 000000000000000000%d\r\n\r\n", id="twenty-digits"),
        pytest.param(b"Content-Length: %d\r\nContent-Length: %d\r\n\r\n", id="repeated-equal"),
    ],
)
def test_header_variants_are_accepted(shared: ServerProcess, headers: bytes) -> None:
    body = json.dumps(analyze_message("h", "/nonexistent/x.py")).encode()
    length = len(body)
    header = headers % ((length,) * headers.count(b"%d"))
    shared.write(header + body)
    expect_valid(shared, "h")


# -- Content-Length errors and realignment -----------------------------------------------


@pytest.mark.parametrize(
    "section",
    [
        pytest.param(b"X-Only: 1\r\n\r\n", id="missing"),
        pytest.param(b"Content-Length:\r\n\r\n", id="empty"),
        pytest.param(b"Content-Length:   \r\n\r\n", id="blank"),
        pytest.param(b"Content-Length: -5\r\n\r\n", id="negative"),
        pytest.param(b"Content-Length: +5\r\n\r\n", id="plus-sign"),
        pytest.param(b"Content-Length: five\r\n\r\n", id="non-numeric"),
        pytest.param(b"Content-Length: 5.0\r\n\r\n", id="decimal"),
        pytest.param(b"Content-Length: 0x10\r\n\r\n", id="hex"),
        pytest.param(b"Content-Length: 1 2\r\n\r\n", id="two-numbers"),
        pytest.param(b"Content-Length: 000000000000000000005\r\n\r\n", id="21-digits"),
        pytest.param(b"Content-Length: 5\r\nContent-Length: 6\r\n\r\n", id="conflicting"),
        pytest.param(b"Content-Length 5\r\n\r\n", id="no-colon"),
        pytest.param(b"garbage\r\n\r\n", id="garbage-line"),
        pytest.param(b"Content-Length: 5\nnot a header\n\n", id="no-colon-lf"),
    ],
)
def test_header_section_errors_get_one_parse_error_and_realign(
    shared: ServerProcess, section: bytes
) -> None:
    # Each bad section is followed at once by a valid message: exactly one -32700,
    # then the valid message is answered (it was expected right after the blank line).
    shared.write(section + valid_frame("after") + section + valid_frame("again"))
    expect_parse_error(shared)
    expect_valid(shared, "after")
    expect_parse_error(shared)
    expect_valid(shared, "again")


def test_body_is_never_skipped_after_a_header_section_error(shared: ServerProcess) -> None:
    follow = valid_frame("follow")
    # The Content-Length is valid and covers exactly the next message, but the
    # section is in error: the next message must be read, not skipped as a body.
    shared.write(b"Content-Length: %d\r\nbroken\r\n\r\n" % len(follow) + follow)
    expect_parse_error(shared)
    expect_valid(shared, "follow")


def test_blank_lines_between_messages_are_skipped(shared: ServerProcess) -> None:
    shared.write(b"\r\n\r\n\n" + valid_frame(1) + b"\r\n" * 100 + valid_frame(2) + b"\n\n")
    expect_valid(shared, 1)
    expect_valid(shared, 2)
    shared.assert_silent(0.1)
    probe(shared)


def test_body_is_exactly_content_length_bytes(shared: ServerProcess) -> None:
    # A body whose strings hold what looks like framing, then messages back to back.
    tricky_path = "/nonexistent/\r\n\r\nContent-Length: 3\r\n\r\n{}.py"
    first = frame(analyze_message(1, tricky_path))
    shared.write(
        first + valid_frame(2) + frame(b'{"id":3,"method":"analyze","params":{"file_path":"/x"}}')
    )
    response = shared.read_response()
    assert response.id == 1 and response.hints == []
    expect_valid(shared, 2)
    assert shared.read_response().id == 3


def test_body_shorter_than_declared_waits_for_the_rest(shared: ServerProcess) -> None:
    body = json.dumps(analyze_message("slow", "/nonexistent/x.py")).encode()
    shared.write(b"Content-Length: %d\r\n\r\n" % len(body) + body[:-1])
    shared.assert_silent(0.2)
    shared.write(body[-1:])
    expect_valid(shared, "slow")


def test_declared_length_too_short_is_answered_at_that_length(shared: ServerProcess) -> None:
    # The body ends at byte N: what is cut off is not JSON (-32700), and the rest
    # of the client's bytes are read as the next message (a header line without a
    # colon here: one more -32700), drained up to its blank line.
    body = json.dumps(analyze_message("cut", "/nonexistent/x.py")).encode()
    shared.write(b"Content-Length: %d\r\n\r\n" % (len(body) - 2) + body + b"\r\n\r\n")
    expect_parse_error(shared)
    expect_parse_error(shared)
    probe(shared)


# -- limits ------------------------------------------------------------------------------


def test_body_of_exactly_10_mib_is_answered(shared: ServerProcess) -> None:
    body = json.dumps(analyze_message("big", "/nonexistent/x.py")).encode()
    body += b" " * (MAX_BODY - len(body))
    assert len(body) == MAX_BODY
    shared.write(frame(body))
    expect_valid(shared, "big")


def test_body_over_10_mib_is_one_error_discarded_in_full(shared: ServerProcess) -> None:
    # The discarded body is full of valid frames: none of them may be answered.
    inner = valid_frame("inside-the-discarded-body")
    filler = inner * (MAX_BODY // len(inner) + 1)
    size = MAX_BODY + 1
    filler = (filler + b" " * size)[:size]
    shared.write(b"Content-Length: %d\r\n\r\n" % size)
    expect_parse_error(shared)  # reported before any of the body arrives
    shared.write(filler + valid_frame("after"))
    expect_valid(shared, "after")


def test_header_lines_at_and_over_the_limit(shared: ServerProcess) -> None:
    body = json.dumps(analyze_message("lines", "/nonexistent/x.py")).encode()
    filler = b"X-Filler: 1\r\n" * (MAX_LINES - 1)
    shared.write(filler + b"Content-Length: %d\r\n\r\n" % len(body) + body)
    expect_valid(shared, "lines")
    shared.write(b"X-Filler: 1\r\n" + filler + b"Content-Length: %d\r\n" % len(body))
    expect_parse_error(shared)  # at the 33rd line, before the blank line
    shared.write(b"\r\n" + valid_frame("after"))
    expect_valid(shared, "after")


@pytest.mark.parametrize("ending", [b"\r\n", b"\n"])
def test_header_line_at_and_over_the_limit(shared: ServerProcess, ending: bytes) -> None:
    at_limit = b"X-Pad: " + b"p" * (MAX_LINE - 7)
    assert len(at_limit) == MAX_LINE  # the line ending is not counted
    body = json.dumps(analyze_message("pad", "/nonexistent/x.py")).encode()
    shared.write(at_limit + ending + b"Content-Length: %d" % len(body) + ending + ending + body)
    expect_valid(shared, "pad")
    over = at_limit + b"p"
    shared.write(b"Content-Length: %d" % len(body) + ending + over + ending + ending)
    expect_parse_error(shared)
    shared.write(valid_frame("after"))
    expect_valid(shared, "after")


@pytest.mark.parametrize(
    "line",
    [
        pytest.param(b"Content-Length: x\r\n", id="malformed-length"),
        pytest.param(b"Content-Length: 5\r\nContent-Length: 6\r\n", id="conflicting"),
        pytest.param(b"no colon here\r\n", id="no-colon"),
    ],
)
def test_header_errors_are_reported_before_the_section_ends(
    shared: ServerProcess, line: bytes
) -> None:
    shared.write(line)
    expect_parse_error(shared)  # the blank line has not been sent yet
    shared.write(b"X-More: lines\r\n\r\n" + valid_frame("after"))
    expect_valid(shared, "after")


def test_over_long_header_line_is_reported_before_it_ends(shared: ServerProcess) -> None:
    shared.write(b"X-Endless: " + b"a" * (2 * MAX_LINE))
    expect_parse_error(shared)
    shared.write(b"a" * 100_000 + b"\r\n\r\n" + valid_frame("after"))
    expect_valid(shared, "after")


def test_endless_header_line_is_consumed_in_constant_memory(shared: ServerProcess) -> None:
    probe(shared)
    before = procfs.peak_rss_kib(shared.pid)
    shared.write(b"X-Endless: ")
    chunk = b"b" * (1 << 20)
    for _ in range(96):  # 96 MiB without a line end
        shared.write(chunk)
    expect_parse_error(shared)
    shared.write(b"\r\n\r\n" + valid_frame("after"))
    expect_valid(shared, "after")
    grown_mib = (procfs.peak_rss_kib(shared.pid) - before) / 1024
    assert grown_mib < 32, f"peak RSS grew by {grown_mib:.0f} MiB for a 96 MiB header line"


def test_huge_body_is_discarded_in_constant_memory(shared: ServerProcess) -> None:
    probe(shared)
    before = procfs.peak_rss_kib(shared.pid)
    size = 96 * 1024 * 1024
    shared.write(b"Content-Length: %d\r\n\r\n" % size)
    expect_parse_error(shared)
    chunk = b"c" * (1 << 20)
    for _ in range(size // len(chunk)):
        shared.write(chunk)
    shared.write(valid_frame("after"))
    expect_valid(shared, "after")
    grown_mib = (procfs.peak_rss_kib(shared.pid) - before) / 1024
    assert grown_mib < 32, f"peak RSS grew by {grown_mib:.0f} MiB for a 96 MiB discarded body"


def test_too_many_header_lines_stream_in_constant_memory(shared: ServerProcess) -> None:
    lines = b"X-Again: and again\r\n" * 50_000  # 1 MB of header lines, never a blank one
    shared.write(lines)
    expect_parse_error(shared)
    for _ in range(4):
        shared.write(lines)
    shared.assert_silent(0.05)  # still one error for the whole section
    shared.write(b"\r\n" + valid_frame("after"))
    expect_valid(shared, "after")


# -- bodies that are not valid requests --------------------------------------------------


@pytest.mark.parametrize(
    "body",
    [
        pytest.param(b"\xff\xfe\xfd", id="invalid-utf8"),
        pytest.param(
            b'{"id":1,"method":"analyze","params":{"file_path":"\xc3("}}', id="bad-utf8-param"
        ),
        pytest.param(
            b'{"id":1,"method":"analyze","params":{"file_path":"a\\ud800"}}', id="lone-surrogate"
        ),
        pytest.param(
            b'{"id":1,"method":"analyze","params":{"file_path":"a","cursor_position":NaN}}',
            id="nan",
        ),
        pytest.param(b'\xef\xbb\xbf{"id":1,"method":"shutdown"}', id="bom"),
        pytest.param(b'{"id":1,"method":"shutdown"', id="truncated"),
        pytest.param(b'{"id":1,"method":"shutdown"} trailing', id="trailing"),
        pytest.param(b"", id="empty"),
        pytest.param(b"[" * 200_000 + b"]" * 200_000, id="deep-array"),
        pytest.param(
            b'{"id":1,"method":"shutdown","p":' + b'{"a":' * 50_000 + b"1" + b"}" * 50_001,
            id="deep-object",
        ),
    ],
)
def test_invalid_bodies_are_parse_errors_and_keep_serving(
    shared: ServerProcess, body: bytes
) -> None:
    shared.write(frame(body))
    expect_parse_error(shared)
    probe(shared)


@pytest.mark.parametrize(
    "body",
    [
        pytest.param(b"[]", id="array"),
        pytest.param(b'[{"id":1,"method":"shutdown"}]', id="batch"),
        pytest.param(b"42", id="number"),
        pytest.param(b'"shutdown"', id="string"),
        pytest.param(b"null", id="null"),
        pytest.param(b'{"method":"shutdown"}', id="id-missing"),
        pytest.param(b'{"id":null,"method":"shutdown"}', id="id-null"),
        pytest.param(b'{"id":true,"method":"shutdown"}', id="id-true"),
        pytest.param(b'{"id":1.5,"method":"shutdown"}', id="id-float"),
        pytest.param(b'{"id":[1],"method":"shutdown"}', id="id-array"),
        pytest.param(b'{"id":{"n":1},"method":"shutdown"}', id="id-object"),
    ],
)
def test_invalid_requests_keep_serving(shared: ServerProcess, body: bytes) -> None:
    # A shutdown with an unusable id is not a shutdown: the server keeps serving.
    shared.write(frame(body))
    shared.read_response().expect_error(-32600, None)
    probe(shared)


# -- EOF ---------------------------------------------------------------------------------


def test_eof_before_anything_exits_0(server: ServerProcess) -> None:
    server.close_stdin()
    assert server.finish(0, timeout=PROMPTLY) == []


def test_eof_after_pipelined_requests_answers_them_all_first(
    server: ServerProcess, tmp_path: Path
) -> None:
    path = str(write(tmp_path / "m.py", TWO))
    requests = [initialize_message(0)] + [analyze_message(i, path) for i in range(1, 12)]
    server.send(*requests)
    server.close_stdin()
    responses = server.finish(0, timeout=PROMPTLY)  # workers, busy a moment ago, all gone
    assert [r.id for r in responses] == list(range(12))
    assert all(len(cc(r.hints)) == 2 for r in responses[1:])


@pytest.mark.parametrize(
    ("partial", "args"),
    [
        pytest.param(b"Content-Len", NO_WORKERS, id="mid-header-line"),
        pytest.param(b"Content-Length: 63\r\n", NO_WORKERS, id="mid-header-section"),
        pytest.param(b"Content-Length: 63\r\n\r\n", NO_WORKERS, id="before-body"),
        pytest.param(EXAMPLE_1_REQUEST[:-5], (), id="mid-body"),
    ],
)
def test_eof_mid_message_exits_promptly_answering_nothing(
    spawn: Spawn, partial: bytes, args: tuple[str, ...]
) -> None:
    server = spawn(*args)
    server.write(EXAMPLE_1_REQUEST + partial)
    assert server.read_response().raw == EXAMPLE_1_RESPONSE
    server.close_stdin()
    assert server.finish(0, timeout=PROMPTLY) == []


def test_eof_mid_discard_of_an_over_limit_body(spawn: Spawn) -> None:
    server = spawn(*NO_WORKERS)
    server.write(b"Content-Length: %d\r\n\r\n" % (MAX_BODY * 5) + b"x" * 100_000)
    expect_parse_error(server)  # the error was detected before EOF
    server.close_stdin()
    assert server.finish(0, timeout=PROMPTLY) == []


# -- broken stdout -----------------------------------------------------------------------


def test_closed_stdout_exits_promptly_and_quietly(server: ServerProcess) -> None:
    server.write(EXAMPLE_1_REQUEST)
    assert server.read_response().raw == EXAMPLE_1_RESPONSE
    server.close_stdout()
    # The next answers hit a broken pipe.
    for i in range(3):
        try:
            server.write(frame(analyze_message(i, "/nonexistent/x.py")))
        except BrokenPipeError:
            break
        time.sleep(0.05)
    assert server.wait_exit(PROMPTLY) == 0
    server.assert_no_stray_processes()
    err = server.stderr()
    assert "Traceback" not in err and "BrokenPipeError" not in err, err[-2000:]


def test_closed_stdout_before_anything_is_answered(server: ServerProcess, tmp_path: Path) -> None:
    path = str(write(tmp_path / "m.py", TWO))
    server.close_stdout()
    with contextlib.suppress(BrokenPipeError):  # it may be gone before all is written
        server.send(initialize_message(1), *[analyze_message(i, path) for i in range(2, 20)])
    assert server.wait_exit(PROMPTLY) == 0
    server.assert_no_stray_processes()
    assert "Traceback" not in server.stderr()


# -- stdout hygiene ----------------------------------------------------------------------

NOISY = f"""\
import os
import sys
import warnings

print("PRINTED TO STDOUT")
sys.stdout.write("WRITTEN TO SYS.STDOUT\\n")
os.write(1, b"WRITTEN TO FD 1\\n")
warnings.warn("a warning")
open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "EXECUTED"), "w").close()
os.system("echo CHILD PROCESS OUTPUT")
assert (1, "tuple asserts are always true")
x = 1 is 1
y = "invalid escape \\d"

{FOUR}

if __name__ == "__main__":
    os._exit(3)
"""


def test_analyzed_code_is_never_executed_and_stdout_holds_only_frames(
    spawn: Spawn, tmp_path: Path
) -> None:
    noisy = write(tmp_path / "noisy.py", NOISY)
    write(tmp_path / "pkg" / "__init__.py", NOISY)
    write(tmp_path / "pkg" / "__main__.py", NOISY)
    # Python's warnings fully on and debug logs: still nothing but frames on fd 1.
    server = spawn("--log-level", "debug", env={**os.environ, "PYTHONWARNINGS": "always"})
    server.initialize()
    assert cc(analyze(server, str(noisy))) == [(str(noisy), 15, 22)]
    dir_hints = cc(analyze(server, str(tmp_path / "pkg")))
    assert [h[0] for h in dir_hints] == [
        f"{tmp_path}/pkg/__init__.py",
        f"{tmp_path}/pkg/__main__.py",
    ]
    assert not (tmp_path / "EXECUTED").exists()
    assert not (tmp_path / "pkg" / "EXECUTED").exists()
    server.write(b"garbage\r\n\r\n")
    expect_parse_error(server)
    server.send(message("shutdown", id="end"))
    assert server.read_response().result == {}
    # finish() fails on any byte of stdout that is not a whole, valid frame.
    assert server.finish(0) == []
    assert "CHILD PROCESS OUTPUT" not in server.stderr()
    assert server.stderr()  # logs went somewhere, and it was not stdout


# -- output ------------------------------------------------------------------------------


def test_each_response_is_flushed_without_waiting_for_more_input(shared: ServerProcess) -> None:
    for i in range(5):
        shared.write(valid_frame(i))
        expect_valid(shared, i)  # the client keeps stdin open: only a flush delivers it


def test_pipelined_requests_are_answered_in_order(shared: ServerProcess, tmp_path: Path) -> None:
    path = str(write(tmp_path / "m.py", TWO))
    chunks: list[bytes] = []
    expected: list[tuple[Any, int | None]] = []
    for i in range(150):
        kind = i % 5
        if kind == 0:
            chunks.append(frame(analyze_message(i, path)))
            expected.append((i, None))
        elif kind == 1:
            chunks.append(frame(message("nope", {}, id=i)))
            expected.append((i, -32601))
        elif kind == 2:
            chunks.append(frame(analyze_message(i, path, -1)))
            expected.append((i, -32602))
        elif kind == 3:
            chunks.append(b"Content-Length: bad\r\n\r\n")
            expected.append((None, -32700))
        else:
            chunks.append(frame(initialize_message(i)))
            expected.append((i, -32600))
    shared.write(b"".join(chunks))
    responses = shared.read_responses(len(expected), timeout=30)
    assert [(r.id, r.code) for r in responses] == expected
    assert all(len(cc(r.hints)) == 2 for r in responses if r.code is None)


def test_trickled_input_one_byte_at_a_time(shared: ServerProcess, tmp_path: Path) -> None:
    path = str(write(tmp_path / "é" / "m.py", TWO))
    data = b"\r\n" + frame(analyze_message("trickle", path, 0)) + b"Content-Length: x\r\n\r\n"
    shared.trickle(data[:-30], delay=0.0005)
    shared.assert_silent(0.05)  # nothing until the message is whole
    shared.trickle(data[-30:], delay=0.0005)
    response = shared.read_response()
    assert response.id == "trickle" and cc(response.hints) == [(path, 1, 8)]
    expect_parse_error(shared)


def test_multibyte_utf8_paths_have_byte_accurate_lengths(
    shared: ServerProcess, tmp_path: Path
) -> None:
    folder = tmp_path / "ünïcödé 日本語 🐍"
    path = str(write(folder / "mödülé_🐍.py", TWO))
    body = json.dumps(analyze_message("utf8", path), ensure_ascii=False).encode()
    assert len(body) > len(body.decode())
    shared.write(b"Content-Length: %d\r\n\r\n%b" % (len(body), body))
    response = shared.read_response()
    # The client has checked that Content-Length is the body's byte length.
    assert response.id == "utf8"
    assert cc(response.hints) == [(path, 1, 8), (path, 11, 22)]
    assert path.encode() in response.body  # sent as UTF-8, not \\u escapes or mangled
    # The same path sent with \u escapes is the same string.
    escaped = json.dumps(analyze_message("escaped", path), ensure_ascii=True).encode()
    shared.write(frame(escaped))
    assert cc(shared.read_response().hints) == [(path, 1, 8), (path, 11, 22)]


# == Lifecycle ===========================================================================


def test_lifecycle_before_initialize(server: ServerProcess, tmp_path: Path) -> None:
    path = str(write(tmp_path / "m.py", TWO))
    # analyze, whatever its params: -32601, the session is not initialized.
    for params in ({"file_path": path}, {}, {"file_path": 5}, None):
        msg = message("analyze", id="a") if params is None else message("analyze", params, id="a")
        response = server.request(msg).expect_error(-32601, "a")
        assert "not initialized" in response.error["message"]
    # initialize with bad params: -32602, still not initialized, the client may retry.
    bad_versions: list[Any] = [1.0, None, "1", "v1.0", "", "١.٠"]
    for params in [None, {}, *({"clientVersion": v} for v in bad_versions)]:
        msg = message("initialize", id=2) if params is None else message("initialize", params, id=2)
        server.request(msg).expect_error(-32602, 2)
        server.request(analyze_message("b", path)).expect_error(-32601, "b")
    # methods that do not exist: -32601.
    for method in ("", None, 7, "Initialize", "exit"):
        msg = message(method, {}, id="m")
        server.request(msg).expect_error(-32601, "m")
    server.request(message(id="m2")).expect_error(-32601, "m2")
    # Now a valid initialize (a 1.x client, patch component and extra params allowed).
    response = server.request(message("initialize", {"clientVersion": "1.7.2", "x": 1}, id=3))
    assert response.result == {"version": "1.1", "capabilities": ["analyze", "analyze.text"]}
    assert len(cc(server.analyze(path).hints)) == 2


def test_lifecycle_initialized_then_shutdown(ready: ServerProcess, tmp_path: Path) -> None:
    path = str(write(tmp_path / "m.py", TWO))
    for version in ("1.0", "2.0", "bad"):
        response = ready.request(initialize_message("again", version))
        response.expect_error(-32600, "again")
    # The session is unchanged: still initialized, still serving.
    assert len(cc(ready.analyze(path).hints)) == 2
    for method in ("", 0, "Analyze", "textDocument/hover"):
        ready.request(message(method, {"file_path": path}, id=9)).expect_error(-32601, 9)
    ready.request(message(id=10, params={})).expect_error(-32601, 10)
    # shutdown: {} flushed, then exit 0 with the workers stopped; what follows it
    # in the same write is never answered.
    ready.send(message("shutdown", id="bye"), analyze_message("late", path))
    assert ready.read_response().raw == b'Content-Length: 24\r\n\r\n{"id":"bye","result":{}}'
    assert ready.finish(0, timeout=PROMPTLY) == []


def test_initialize_compares_majors_as_integers(spawn: Spawn) -> None:
    server = spawn(*NO_WORKERS)
    response = server.request(initialize_message(1, "01.2"))
    assert response.result == {"version": "1.1", "capabilities": ["analyze", "analyze.text"]}
    server.close_stdin()
    assert server.finish(0) == []


@pytest.mark.parametrize(("version", "major"), [("10.0", "10"), ("0.9", "0")])
def test_version_mismatch_answers_then_exits_1_ignoring_what_follows(
    spawn: Spawn, version: str, major: str
) -> None:
    server = spawn(*NO_WORKERS)
    server.send(
        initialize_message("v", version), analyze_message(2, "/x.py"), initialize_message(3)
    )
    response = server.read_response().expect_error(-32099, "v")
    assert response.error["message"] == (
        f"VERSION_MISMATCH: client major version {major} "
        "is incompatible with server major version 1"
    )
    assert server.finish(1) == []  # nothing after the mismatch is answered


@pytest.mark.parametrize(
    "shutdown",
    [
        pytest.param(message("shutdown", {}, id=1), id="params"),
        pytest.param(message("shutdown", id=1), id="no-params"),
    ],
)
def test_shutdown_before_initialize_exits_0(spawn: Spawn, shutdown: dict[str, Any]) -> None:
    server = spawn(*NO_WORKERS)
    assert server.request(shutdown).raw == b'Content-Length: 20\r\n\r\n{"id":1,"result":{}}'
    assert server.finish(0) == []


# == analyze =============================================================================


@pytest.mark.parametrize(
    "params",
    [
        pytest.param("absent", id="no-params"),
        pytest.param(None, id="params-null"),
        pytest.param(["a.py"], id="params-array"),
        pytest.param({}, id="no-file-path"),
        pytest.param({"file_path": ""}, id="empty-file-path"),
        pytest.param({"file_path": 3}, id="number-file-path"),
        pytest.param({"file_path": None}, id="null-file-path"),
        pytest.param({"file_path": "a.py", "cursor_position": -1}, id="negative-cursor"),
        pytest.param({"file_path": "a.py", "cursor_position": 2.5}, id="float-cursor"),
        pytest.param({"file_path": "a.py", "cursor_position": 3.0}, id="integral-float-cursor"),
        pytest.param({"file_path": "a.py", "cursor_position": "3"}, id="string-cursor"),
        pytest.param({"file_path": "a.py", "cursor_position": True}, id="true-cursor"),
    ],
)
def test_analyze_invalid_params(shared: ServerProcess, params: Any) -> None:
    msg = (
        message("analyze", id="bad") if params == "absent" else message("analyze", params, id="bad")
    )
    shared.request(msg).expect_error(-32602, "bad")


def test_analyze_ignores_unknown_params_and_accepts_null_cursor(
    shared: ServerProcess, tmp_path: Path
) -> None:
    path = str(write(tmp_path / "m.py", TWO))
    expected = [(path, 1, 8), (path, 11, 22)]
    assert (
        cc(shared.request(analyze_message(1, path, None, future_option=[1, 2])).hints) == expected
    )
    assert cc(shared.request(analyze_message(2, path)).hints) == expected
    # Unknown members of the request itself (a JSON-RPC style client) are ignored too.
    jsonrpc = {"jsonrpc": "2.0", **analyze_message(3, path)}
    assert cc(shared.request(jsonrpc).hints) == expected


@pytest.mark.parametrize(
    "request_id", [0, -7, 2**64, 10**30, "", "0", "ïd 🐍", 'q"uote\\'], ids=repr
)
def test_ids_are_echoed_exactly(shared: ServerProcess, request_id: Any) -> None:
    for msg in (
        analyze_message(request_id, "/nonexistent/x.py"),
        message("nope", {}, id=request_id),
        initialize_message(request_id),
        analyze_message(request_id, "x.py", -1),
    ):
        response = shared.request(msg)
        assert response.id == request_id and type(response.id) is type(request_id)


def test_a_member_given_twice_must_be_valid_each_time_and_the_last_counts(
    shared: ServerProcess,
) -> None:
    shared.send(frame('{"id":1,"id":2,"method":"gz/nope"}'))
    shared.read_response().expect_error(-32601, 2)
    shared.send(frame('{"id":true,"id":3,"method":"gz/nope"}'))
    shared.read_response().expect_error(-32600, None)
    shared.send(frame('{"id":4,"method":"gz/nope","method":"initialize","params":{}}'))
    shared.read_response().expect_error(-32600, 4)  # initialize again: already initialized


def test_bands_and_hint_values(shared: ServerProcess, tmp_path: Path) -> None:
    path = str(write(tmp_path / "bands.py", FOUR + "\n\n" + SIX + "\n\n" + SEVEN + "\n\n" + CALM))
    hints = [h for h in analyze(shared, path) if h["metric"] == "radon_cc"]
    assert [(h["start_line"], h["crossing_value"], h["precedence_band"]) for h in hints] == [
        (1, 4.0, "approaching"),
        (11, 6.0, "approaching_warn"),
    ]  # seven (at warn) and calm (below advise) give no radon_cc hint


def test_nested_functions_and_methods(shared: ServerProcess, tmp_path: Path) -> None:
    path = str(write(tmp_path / "nested.py", NESTED))
    assert cc(analyze(shared, path)) == [(path, 1, 18), (path, 5, 12), (path, 22, 29)]
    line_6 = len("".join(NESTED.splitlines(keepends=True)[:5])) + 4
    assert cc(analyze(shared, path, line_6)) == [(path, 1, 18), (path, 5, 12)]


# -- unanalyzable files ------------------------------------------------------------------


def unanalyzable_cases(tmp_path: Path) -> Iterator[tuple[str, str]]:
    yield "missing", str(tmp_path / "does-not-exist.py")
    yield "missing-folder", str(tmp_path / "no" / "such" / "folder" / "x.py")
    fifo = tmp_path / "fifo.py"
    os.mkfifo(fifo)
    yield "fifo", str(fifo)
    yield "dev-zero", "/dev/zero"
    yield "dev-null", "/dev/null"
    yield "dev-urandom", "/dev/urandom"
    yield "dev-stdin", "/dev/stdin"  # never read as source, whatever it is
    zero_link = tmp_path / "zero.py"
    zero_link.symlink_to("/dev/zero")
    yield "symlink-to-device", str(zero_link)
    loop = tmp_path / "loop.py"
    loop.symlink_to(loop)
    yield "symlink-loop", str(loop)
    big = "# padding padding padding padding padding padding padding padding padding\n"
    text = FOUR + big * (4 * 1024 * 1024 // len(big) + 1)
    yield "over-4-mib", str(write(tmp_path / "big.py", text))
    yield "invalid-utf8", str(write(tmp_path / "bad_utf8.py", FOUR.encode() + b"x = '\xff\xfe'\n"))
    yield "unknown-coding", str(write(tmp_path / "cookie.py", "# -*- coding: klingon -*-\n" + FOUR))
    yield (
        "wrong-coding",
        str(write(tmp_path / "wrong.py", b"# coding: ascii\n" + FOUR.encode() + b"# \xc3\xa9\n")),
    )
    yield "syntax-error", str(write(tmp_path / "syntax.py", FOUR + "def broken(:\n    pass\n"))
    yield "nul-byte", str(write(tmp_path / "nul.py", FOUR.encode() + b"\x00\n"))
    yield "utf16", str(write(tmp_path / "utf16.py", FOUR.encode("utf-16")))
    sock_path = tmp_path / "s.py"
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(sock_path))
    yield "socket", str(sock_path)
    sock.close()
    yield "nul-in-path", str(tmp_path / "a\x00b.py")
    yield "name-too-long", str(tmp_path / ("n" * 5000 + ".py"))
    yield "path-too-long", "/" + "/".join(["d" * 200] * 100) + "/x.py"
    yield "not-a-folder", str(write(tmp_path / "file.py", FOUR)) + "/inside.py"


def test_unanalyzable_files_give_empty_hints_promptly(
    shared: ServerProcess, tmp_path: Path
) -> None:
    for name, path in unanalyzable_cases(tmp_path):
        response = shared.request(analyze_message(name, path), timeout=PROMPTLY)
        assert response.result == {"hints": []}, name
    assert stat.S_ISFIFO(os.stat(tmp_path / "fifo.py").st_mode)
    probe(shared)


def test_fifo_with_a_writer_is_answered_promptly(shared: ServerProcess, tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.py"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    writer = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
    try:
        os.write(writer, FOUR.encode())
        response = shared.request(analyze_message("fifo", str(fifo)), timeout=PROMPTLY)
        assert response.result == {"hints": []}
    finally:
        os.close(writer)
        os.close(reader)


def test_unreadable_file_gives_empty_hints(shared: ServerProcess, tmp_path: Path) -> None:
    path = write(tmp_path / "secret.py", FOUR)
    path.chmod(0)
    try:
        if os.access(path, os.R_OK):
            pytest.skip("running as a user who can read a mode-000 file (root)")
        assert shared.request(analyze_message("u", str(path)), timeout=PROMPTLY).hints == []
    finally:
        path.chmod(0o644)


def test_unreadable_folder_gives_empty_hints(shared: ServerProcess, tmp_path: Path) -> None:
    folder = tmp_path / "locked"
    write(folder / "m.py", FOUR)
    folder.chmod(0)
    try:
        if os.access(folder, os.R_OK | os.X_OK):
            pytest.skip("running as a user who can enter a mode-000 folder (root)")
        assert (
            shared.request(analyze_message("u", str(folder / "m.py")), timeout=PROMPTLY).hints == []
        )
        assert shared.request(analyze_message("d", str(folder)), timeout=PROMPTLY).hints == []
    finally:
        folder.chmod(0o755)


# -- PEP 263 decoding --------------------------------------------------------------------


def test_source_decoding_follows_pep_263(shared: ServerProcess, tmp_path: Path) -> None:
    latin1 = write(
        tmp_path / "latin1.py",
        "# -*- coding: latin-1 -*-\n# café\n".encode("latin-1") + FOUR.encode(),
    )
    bom = write(tmp_path / "bom.py", b"\xef\xbb\xbf" + FOUR.encode())
    cookie_line_2 = write(
        tmp_path / "second.py",
        "#!/usr/bin/env python\n# vim: set fileencoding=cp1252 :\n# ‰\n".encode("cp1252")
        + FOUR.encode(),
    )
    utf8 = write(tmp_path / "utf8.py", "# ünïcödé 🐍\n" + FOUR)
    assert cc(analyze(shared, str(latin1))) == [(str(latin1), 3, 10)]
    assert cc(analyze(shared, str(bom))) == [(str(bom), 1, 8)]
    assert cc(analyze(shared, str(cookie_line_2))) == [(str(cookie_line_2), 4, 11)]
    assert cc(analyze(shared, str(utf8))) == [(str(utf8), 2, 9)]
    # Offsets are bytes of the file as stored: the BOM is bytes 0-2 of line 1.
    assert cc(analyze(shared, str(bom), 0)) == [(str(bom), 1, 8)]
    emoji_line_end = len("# ünïcödé 🐍".encode())
    assert cc(analyze(shared, str(utf8), emoji_line_end)) == []  # the "\n" of line 1
    assert cc(analyze(shared, str(utf8), emoji_line_end + 1)) == [(str(utf8), 2, 9)]


# -- paths -------------------------------------------------------------------------------


def test_relative_paths_resolve_against_the_working_directory(
    spawn: Spawn, workspace: Path
) -> None:
    write(workspace / "pkg" / "mod.py", TWO)
    write(workspace / "top.py", FOUR)
    server = spawn()
    server.initialize()
    for path in ("pkg/mod.py", "./pkg/mod.py", "pkg//mod.py", "pkg/../pkg/mod.py"):
        assert cc(analyze(server, path)) == [(path, 1, 8), (path, 11, 22)]
    assert cc(analyze(server, "top.py")) == [("top.py", 1, 8)]
    assert cc(analyze(server, "pkg")) == [("pkg/mod.py", 1, 8), ("pkg/mod.py", 11, 22)]
    assert cc(analyze(server, "pkg/")) == [("pkg/mod.py", 1, 8), ("pkg/mod.py", 11, 22)]
    assert cc(analyze(server, ".")) == [
        ("./pkg/mod.py", 1, 8),
        ("./pkg/mod.py", 11, 22),
        ("./top.py", 1, 8),
    ]
    absolute = str(workspace / "top.py")
    assert cc(analyze(server, absolute)) == [(absolute, 1, 8)]


def test_relative_paths_resolve_against_root_option(spawn: Spawn, tmp_path: Path) -> None:
    root = tmp_path / "project root"
    write(root / "src" / "mod.py", FOUR)
    elsewhere = tmp_path / "elsewhere"
    write(elsewhere / "src" / "mod.py", SIX)
    server = spawn("--root", str(root), cwd=elsewhere)
    server.initialize()
    assert cc(analyze(server, "src/mod.py")) == [("src/mod.py", 1, 8)]


# -- directories -------------------------------------------------------------------------


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "tree"
    write(root / "a.py", FOUR)
    write(root / "b.pyi", SIX)
    write(root / "sub" / "c.py", TWO)
    write(root / "sub" / "deeper" / "d.py", NESTED)
    write(root / "ünï" / "é.py", FOUR)
    write(root / "calm.py", CALM)
    write(root / "broken.py", "def (:\n")
    # Not analyzed: hidden files and folders, other suffixes.
    write(root / ".hidden" / "e.py", FOUR)
    write(root / ".f.py", FOUR)
    write(root / "sub" / ".g.py", FOUR)
    write(root / "notes.txt", FOUR)
    write(root / "compiled.pyc", FOUR)
    write(root / "backup.py.bak", FOUR)
    write(root / "script.pyw", FOUR)
    write(root / "noext", FOUR)
    # A symlinked folder is not followed.
    outside = tmp_path / "outside"
    write(outside / "x.py", FOUR)
    (root / "linked").symlink_to(outside, target_is_directory=True)
    (root / "sub" / "loop").symlink_to(root, target_is_directory=True)
    # A FIFO named like a source file does not hang the walk.
    os.mkfifo(root / "sub" / "fifo.py")
    return root


TREE_HINTS = [
    ("a.py", 1, 8),
    ("b.pyi", 1, 12),
    ("sub/c.py", 1, 8),
    ("sub/c.py", 11, 22),
    ("sub/deeper/d.py", 1, 18),
    ("sub/deeper/d.py", 5, 12),
    ("sub/deeper/d.py", 22, 29),
    ("ünï/é.py", 1, 8),
]


def test_directory_analyze(shared: ServerProcess, tree: Path) -> None:
    request_path = str(tree)
    hints = analyze(shared, request_path)
    expected = [(f"{request_path}/{rel}", start, end) for rel, start, end in TREE_HINTS]
    assert cc(hints) == expected
    # Hints are sorted by file path first, then (start_line, end_line, metric).
    assert [sort_key(h) for h in hints] == sorted(sort_key(h) for h in hints)
    assert {h["file_path"] for h in hints} <= {e[0] for e in expected}


def test_directory_analyze_ignores_cursor(shared: ServerProcess, tree: Path) -> None:
    whole = shared.analyze(str(tree)).hints
    for cursor in (0, 5, 10**12):
        assert shared.analyze(str(tree), cursor).hints == whole


def test_directory_analyze_with_trailing_slash(shared: ServerProcess, tree: Path) -> None:
    hints = analyze(shared, f"{tree}/")
    assert cc(hints) == [(f"{tree}/{rel}", start, end) for rel, start, end in TREE_HINTS]


def test_file_names_are_echoed_exactly_whatever_they_hold(
    shared: ServerProcess, tmp_path: Path
) -> None:
    # Quotes, backslashes, control characters and line separators in names: the
    # JSON must escape them and the decoded file_path must equal the name.
    folder = tmp_path / 'we"ird\\dir'
    names = ['quo"te.py', "back\\slash.py", "tab\there.py", "new\nline.py", "sep\u2028ar.py"]
    for name in names:
        write(folder / name, FOUR)
    for name in names:
        path = str(folder / name)
        assert cc(analyze(shared, path)) == [(path, 1, 8)]
    hints = cc(analyze(shared, str(folder)))
    assert sorted(h[0] for h in hints) == sorted(f"{folder}/{n}" for n in names)


def test_undecodable_file_names_in_a_folder_are_skipped(
    shared: ServerProcess, tmp_path: Path
) -> None:
    folder = tmp_path / "names"
    write(folder / "ok.py", FOUR)
    fd = os.open(os.fsencode(folder) + b"/bad\xff.py", os.O_WRONLY | os.O_CREAT, 0o644)
    os.write(fd, FOUR.encode())
    os.close(fd)
    assert cc(analyze(shared, str(folder))) == [(f"{folder}/ok.py", 1, 8)]


def test_large_response_over_the_pipe_buffer(shared: ServerProcess, tmp_path: Path) -> None:
    folder = tmp_path / "many ünïcödé"
    for i in range(100):
        write(folder / f"módulo_{i:03d}_🐍.py", TWO)
    response = shared.analyze(str(folder))
    assert len(response.body) > 64 * 1024  # more than a pipe holds: written whole anyway
    assert len(cc(response.hints)) == 200


def test_empty_and_source_free_directories(shared: ServerProcess, tmp_path: Path) -> None:
    write(tmp_path / "empty" / ".keep", "")
    write(tmp_path / "docs" / "readme.md", "# hi\n")
    assert analyze(shared, str(tmp_path / "empty")) == []
    assert analyze(shared, str(tmp_path / "docs")) == []


# -- cursor scoping ----------------------------------------------------------------------


def line_starts(data: bytes) -> list[int]:
    """Byte offset of each line's start (lines end at \\n, \\r\\n or a lone \\r)."""
    starts = [0] + [m.end() for m in re.finditer(rb"\r\n|\r|\n", data)]
    return starts[:-1] if starts[-1] == len(data) else starts


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"], ids=["lf", "crlf", "cr"])
@pytest.mark.parametrize("final_newline", [True, False], ids=["eol-at-eof", "no-eol-at-eof"])
def test_cursor_scoping(
    shared: ServerProcess, tmp_path: Path, newline: str, final_newline: bool
) -> None:
    text = TWO if final_newline else TWO.rstrip("\n")
    data = text.replace("\n", newline).encode()
    path = str(write(tmp_path / "cursor.py", data))
    starts = line_starts(data)
    assert len(starts) == 22
    four, six = (path, 1, 8), (path, 11, 22)
    cases = {
        0: [four],  # first byte of the file
        starts[1] + 3: [four],
        starts[8] - 1: [four],  # the last byte of line 8's line ending
        starts[8]: [],  # line 9: blank, between the functions
        starts[9] + len(newline) - 1: [],  # line 10
        starts[10]: [six],  # line 11, where six starts
        len(data) - 1: [six],
        len(data): [six],  # an offset equal to the file's length is on its last line
    }
    for cursor, expected in cases.items():
        assert cc(analyze(shared, path, cursor)) == expected, (cursor, expected)
    # Past the end of the file: no hints at all, of any metric.
    for cursor in (len(data) + 1, len(data) + 1000, 2**64, 10**40):
        assert analyze(shared, path, cursor) == [], cursor


def test_cursor_of_any_size_past_the_end(shared: ServerProcess, tmp_path: Path) -> None:
    path = str(write(tmp_path / "m.py", TWO))
    body = b'{"id":"huge","method":"analyze","params":{"file_path":%b,"cursor_position":%b}}' % (
        json.dumps(path).encode(),
        b"9" * 6000,
    )
    shared.write(frame(body))
    response = shared.read_response()
    assert response.id == "huge" and response.hints == []


def test_cursor_in_empty_file(shared: ServerProcess, tmp_path: Path) -> None:
    path = str(write(tmp_path / "empty.py", ""))
    assert analyze(shared, path, 0) == []
    assert analyze(shared, path, 1) == []


# == Hints: the workspace threshold table ================================================


def test_workspace_thresholds_replace_the_default_and_are_reloaded(
    spawn: Spawn, workspace: Path
) -> None:
    write(workspace / "m.py", CALM + "\n\n" + FOUR)
    table_path = workspace / ".gzkit" / "rules" / "complexity-thresholds.json"
    server = spawn()
    server.initialize()
    assert cc(analyze(server, "m.py")) == [("m.py", 5, 12)]
    table = {
        "corpus_revision": 2,
        "citation": {
            "distilled_characteristics_path": "docs/governance/complexity/x.md",
            "section_anchor": "radon-cc",
            "corpus_revision": 2,
        },
        "bands": [
            {
                "metric": "radon_cc",
                "corpus_percentile": 75,
                "absolute_number": 1,
                "trigger_semantic": "advise",
            },
            {
                "metric": "radon_cc",
                "corpus_percentile": 90,
                "absolute_number": 3,
                "trigger_semantic": "warn",
            },
        ],
    }
    write(table_path, json.dumps(table))
    hints = [h for h in analyze(server, "m.py") if h["metric"] == "radon_cc"]
    assert [(h["start_line"], h["crossing_value"]) for h in hints] == [
        (1, 1.0)
    ]  # four is gated now
    write(table_path, "{not json")  # invalid: logged, ignored, never fatal
    assert cc(analyze(server, "m.py")) == [("m.py", 5, 12)]
    server.close_stdin()
    assert server.finish(0) == []


def test_workspace_thresholds_fifo_is_ignored_never_a_hang(spawn: Spawn, workspace: Path) -> None:
    # An invalid table is logged and ignored, never fatal; a hang would be worse.
    write(workspace / "m.py", TWO)
    table_path = workspace / ".gzkit" / "rules" / "complexity-thresholds.json"
    table_path.parent.mkdir(parents=True)
    os.mkfifo(table_path)
    server = spawn()
    server.initialize()
    response = server.request(analyze_message(1, "m.py"), timeout=3)
    assert cc(response.hints) == [("m.py", 1, 8), ("m.py", 11, 22)]  # the default table
    server.close_stdin()
    assert server.finish(0, timeout=3) == []


# == Last: the shared server survived everything above ===================================


def test_shared_server_is_still_healthy(shared: ServerProcess) -> None:
    probe(shared)
    assert shared.proc.poll() is None
