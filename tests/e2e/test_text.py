"""Protocol 1.1: ``analyze`` with the editor's unsaved buffer (``params.text``), over real pipes.

The real server as a subprocess, its every answer checked by the protocol client
(framing, schemas, field order). Each text's hints are compared with a fresh
in-process analysis of the same bytes (:func:`expected`), and the log says how
each was obtained (``cache``, ``source: "text"``, ``text_bytes``).
"""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path
from typing import Any

import msgspec
import pytest

from gzguide.guide.messages import answer_hints
from gzguide.service import AnalysisService, Request
from gzguide.source import Buffer, Source
from gzguide.workers.inprocess import InProcessBackend
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
    FOUR,
    NO_WORKERS,
    SIX,
    TWO,
)
from support.tables import table

pytestmark = pytest.mark.timeout(90)

LIMIT = 4 * 1024 * 1024
RESPONSE_1_1 = (
    b"Content-Length: 77\r\n\r\n"
    b'{"id":1,"result":{"version":"1.1","capabilities":["analyze","analyze.text"]}}'
)


def cc(hints: list[dict[str, Any]]) -> list[tuple[str, int, int]]:
    return [
        (h["file_path"], h["start_line"], h["end_line"]) for h in hints if h["metric"] == "radon_cc"
    ]


def expected(
    root: Path, file_path: str, text: str | bytes, cursor: int | None = None
) -> list[dict[str, Any]]:
    """The hints a fresh in-process analysis gives for ``text``, as the protocol sends them."""
    data = text.encode("utf-8") if isinstance(text, str) else text
    request = Request(Source(file_path, Buffer(data)), cursor)
    answer = AnalysisService(str(root), InProcessBackend()).analyze_now(request)
    decoded: list[dict[str, Any]] = msgspec.json.decode(msgspec.json.encode(answer_hints(answer)))
    return decoded


def make_old(path: Path) -> None:
    """Move the file's times safely out of the racy window (its version is then memoizable)."""
    old = time.time_ns() - 10 * 1_000_000_000
    os.utime(path, ns=(old, old))


def analyze_lines(log_path: Path, count: int) -> list[dict[str, Any]]:
    """The log's analyze request lines, once there are ``count`` of them."""
    deadline = time.monotonic() + 10
    while True:
        lines = []
        if log_path.exists():
            for line in log_path.read_text().splitlines():
                record = json.loads(line)
                if record["event"] == "request" and record["method"] == "analyze":
                    lines.append(record)
        if len(lines) >= count or time.monotonic() > deadline:
            assert len(lines) == count, lines
            return lines
        time.sleep(0.02)


def events(log_path: Path, name: str, at_least: int = 0) -> list[dict[str, Any]]:
    """The log's ``name`` lines, once there are ``at_least`` of them (lines come when idle)."""
    deadline = time.monotonic() + 10
    while True:
        found = [
            record
            for line in log_path.read_text().splitlines()
            if (record := json.loads(line))["event"] == name
        ]
        if len(found) >= at_least or time.monotonic() > deadline:
            return found
        time.sleep(0.02)


def start(spawn: Spawn, log_path: Path, *args: str, version: str = "1.1") -> ServerProcess:
    server = spawn("--log-file", str(log_path), *args)
    server.initialize(version)
    return server


# == Negotiation ==========================================================================


def test_a_1_0_client_sees_example_1_and_its_session_ignores_text(
    spawn: Spawn, workspace: Path, log_path: Path
) -> None:
    (workspace / "m.py").write_text(FOUR)
    server = spawn("--log-file", str(log_path))
    server.send(EXAMPLE_1_REQUEST)
    assert server.read_response().raw == EXAMPLE_1_RESPONSE
    # A 1.0 server does not know ``text``: an unknown field, ignored whatever it holds.
    for text in (CALM, TWO, 5, None, True, [CALM], {"text": CALM}):
        assert cc(server.hints("m.py", text=text)) == [("m.py", 1, 8)], text
    lines = analyze_lines(log_path, 7)
    assert all("source" not in line and "text_bytes" not in line for line in lines)
    server.close_stdin()
    assert server.finish(0) == []


@pytest.mark.parametrize("version", ["1.1", "1.7", "1.7.2", "01.10"])
def test_a_client_of_1_1_or_later_gets_1_1_and_the_text_capability(
    spawn: Spawn, workspace: Path, version: str
) -> None:
    server = spawn(*NO_WORKERS)
    server.send(initialize_message(1, version))
    assert server.read_response().raw == RESPONSE_1_1
    (workspace / "m.py").write_text(FOUR)
    assert cc(server.hints("m.py", text=TWO)) == [("m.py", 1, 8), ("m.py", 11, 22)]
    server.close_stdin()
    assert server.finish(0) == []


def test_the_session_keeps_the_version_it_was_initialized_at(spawn: Spawn, workspace: Path) -> None:
    (workspace / "m.py").write_text(FOUR)
    server = spawn(*NO_WORKERS)
    server.initialize("1.0")
    # initialize again is refused, and does not change the version either way.
    server.request(initialize_message(2, "1.1")).expect_error(-32600, 2)
    assert cc(server.hints("m.py", text=CALM)) == [("m.py", 1, 8)]
    server.close_stdin()
    assert server.finish(0) == []


# == What a text is analyzed as ============================================================


def test_unsaved_edits_change_the_hints_while_the_file_on_disk_stays_old(
    spawn: Spawn, workspace: Path, log_path: Path
) -> None:
    target = workspace / "pkg" / "m.py"
    target.parent.mkdir()
    target.write_text(FOUR)
    make_old(target)
    before = target.stat()
    server = start(spawn, log_path)
    assert cc(server.hints("pkg/m.py")) == [("pkg/m.py", 1, 8)]
    edits = [CALM, FOUR + "\n\n" + CALM, TWO, SIX, "", CALM + "\n" + SIX]
    for text in edits:
        hints = server.hints("pkg/m.py", text=text)
        assert hints == expected(workspace, "pkg/m.py", text), text
        assert all(h["file_path"] == "pkg/m.py" for h in hints)
    assert cc(server.hints("pkg/m.py", text=TWO)) == [("pkg/m.py", 1, 8), ("pkg/m.py", 11, 22)]
    # The file was never read for a text, nor touched: asking by path gives its hints.
    assert cc(server.hints("pkg/m.py")) == [("pkg/m.py", 1, 8)]
    after = target.stat()
    assert (after.st_mtime_ns, after.st_size, after.st_ino) == (
        before.st_mtime_ns,
        before.st_size,
        before.st_ino,
    )
    assert target.read_text() == FOUR
    lines = analyze_lines(log_path, 9)
    texts = [line for line in lines if line.get("source") == "text"]
    assert [line["text_bytes"] for line in texts] == [len(t.encode()) for t in [*edits, TWO]]
    assert [line["cache"] for line in texts] == ["miss"] * 6 + ["memo"]
    assert "source" not in lines[0] and "source" not in lines[-1]
    server.close_stdin()
    assert server.finish(0) == []


def line_starts(data: bytes) -> list[int]:
    starts = [0] + [m.end() for m in re.finditer(rb"\r\n|\r|\n", data)]
    return starts[:-1] if starts[-1] == len(data) else starts


def test_cursor_positions_are_byte_offsets_into_the_utf8_text(
    spawn: Spawn, workspace: Path
) -> None:
    # Line 1 holds 100 three-byte characters: byte and character offsets part ways there.
    text = "# " + "€" * 100 + "\n" + FOUR.replace("return 1", "return '😀'") + "\n\n" + SIX
    data = text.encode("utf-8")
    starts = line_starts(data)
    four_start, six_start = starts[1], starts[11]
    assert four_start == len(b"# ") + 300 + 1
    server = start(spawn, Path(workspace / "log"), *NO_WORKERS)
    cases = {
        0: [],
        four_start - 1: [],  # the line ending of line 1
        four_start: [("m.py", 2, 9)],
        starts[3] + 14: [("m.py", 2, 9)],  # inside the emoji's four bytes
        starts[9] - 1: [("m.py", 2, 9)],
        six_start: [("m.py", 12, 23)],
        len(data): [("m.py", 12, 23)],  # the text's length is on its last line
        # Counted in characters, this is where six starts; in bytes, it is on line 1.
        len(text[: text.index("def six")]): [],
    }
    for cursor, want in cases.items():
        hints = server.hints("m.py", cursor, text=text)
        assert cc(hints) == want, cursor
        assert hints == expected(workspace, "m.py", text, cursor), cursor
    for cursor in (len(data) + 1, 2**64, 10**40):
        assert server.hints("m.py", cursor, text=text) == [], cursor
    server.close_stdin()
    assert server.finish(0) == []


def test_a_text_and_a_file_of_the_same_bytes_share_one_analysis(
    spawn: Spawn, workspace: Path, log_path: Path
) -> None:
    target = workspace / "m.py"
    target.write_text(TWO)
    make_old(target)
    server = start(spawn, log_path)
    from_file = server.hints("m.py")
    assert cc(from_file) == [("m.py", 1, 8), ("m.py", 11, 22)]
    # The same bytes as a buffer, under its own name and another: the memo knows them.
    assert server.hints("m.py", text=TWO) == from_file
    renamed = server.hints("unsaved.py", text=TWO)
    assert renamed == [{**h, "file_path": "unsaved.py"} for h in from_file]
    # Under another threshold table the memo cannot answer; the worker has the bytes
    # parsed already (for the file), and only evaluates them again.
    table_path = workspace / ".gzkit" / "rules" / "complexity-thresholds.json"
    table_path.parent.mkdir(parents=True)
    table_path.write_bytes(table(("radon_cc", 5, "advise"), ("radon_cc", 8, "warn")))
    assert cc(server.hints("m.py", text=TWO)) == [("m.py", 11, 22)]
    # A buffer saved: the file's new version has bytes the worker parsed for the text.
    saved = TWO + "\n\n" + CALM
    assert cc(server.hints("m.py", text=saved)) == [("m.py", 11, 22)]
    target.write_text(saved)
    assert cc(server.hints("m.py")) == [("m.py", 11, 22)]
    lines = analyze_lines(log_path, 6)
    assert [(line.get("source"), line["cache"]) for line in lines] == [
        (None, "miss"),
        ("text", "memo"),
        ("text", "memo"),
        ("text", "hit"),
        ("text", "miss"),
        (None, "hit"),
    ]
    server.close_stdin()
    assert server.finish(0) == []


def test_a_relative_path_picks_the_workspace_threshold_table_for_a_text(
    spawn: Spawn, tmp_path: Path, log_path: Path
) -> None:
    root = tmp_path / "root"
    (root / ".gzkit" / "rules").mkdir(parents=True)
    (root / ".gzkit" / "rules" / "complexity-thresholds.json").write_bytes(
        table(("radon_cc", 1, "advise"), ("radon_cc", 5, "warn"))
    )
    server = start(spawn, log_path, "--root", str(root), *NO_WORKERS)
    hints = server.hints("nowhere/m.py", text=CALM + "\n\n" + FOUR)
    assert [(h["start_line"], h["crossing_value"]) for h in hints if h["metric"] == "radon_cc"] == [
        (1, 1.0),
        (5, 4.0),
    ]
    assert hints == expected(root, "nowhere/m.py", CALM + "\n\n" + FOUR)
    server.close_stdin()
    assert server.finish(0) == []


# == A text sent again ====================================================================

# radon cyclomatic complexity 5; commenting one ``if`` out (one byte) makes it 4.
FIVE = (
    "def five(a, b, c, d):\n"
    + "".join(f"    if {v}: return {n}\n" for n, v in enumerate("abcd", 1))
    + "    return 0\n"
)


def text_body(request_id: int, token: bytes, path: bytes = b"m.py", cursor: bytes = b"") -> bytes:
    """An analyze request whose text is the JSON string ``token`` exactly as given."""
    return frame(
        b'{"id":%d,"method":"analyze","params":{"file_path":"%b",%b"text":%b}}'
        % (request_id, path, cursor, token)
    )


def test_a_text_sent_again_is_answered_as_it_was_and_every_change_is_seen(
    spawn: Spawn, workspace: Path, log_path: Path
) -> None:
    server = start(spawn, log_path)
    token = json.dumps(FIVE + "\n\n" + SIX).encode()
    sent: list[tuple[bytes, str, str | None, int | None]] = []

    def ask(body: bytes, text: str, path: str = "m.py", cursor: int | None = None) -> bytes:
        server.send(body)
        response = server.read_response()
        assert response.hints == expected(workspace, path, text, cursor), (len(sent), text[:40])
        sent.append((body, text, path, cursor))
        return response.raw

    text = FIVE + "\n\n" + SIX
    first = ask(text_body(1, token), text)
    assert cc(server.hints("m.py", text=text)) == [("m.py", 1, 6), ("m.py", 9, 20)]
    # The same bytes again: the same answer, byte for byte; another id: the same hints.
    assert ask(text_body(1, token), text) == first
    ask(text_body(70_000, token), text)
    # One byte changed: the fresh answer (complexity 4 where it was 5), then back.
    changed = token.replace(b"    if a", b"    #f a", 1)
    ask(text_body(2, changed), text.replace("    if a", "    #f a", 1))
    assert ask(text_body(1, token), text) == first
    # The cursor (before or after the text), and the path the hints echo.
    ask(text_body(3, token, cursor=b'"cursor_position":200,'), text, cursor=200)
    ask(text_body(4, token, cursor=b'"cursor_position":5,'), text, cursor=5)
    ask(text_body(5, token, path=b"other.py"), text, path="other.py")
    # Spelled otherwise, the same text; an escape that decodes to another one, another text.
    ask(text_body(6, token.replace(b"d", b"\\u0064")), text)
    ask(text_body(7, token.replace(b"A", b"\\u0041")), text)
    ask(text_body(8, token.replace(b"a, b", b"\\u0041, b", 1)), text.replace("a, b", "A, b", 1))
    # The workspace's threshold table changed: the same text gets the answer under it.
    table_path = workspace / ".gzkit" / "rules" / "complexity-thresholds.json"
    table_path.parent.mkdir(parents=True)
    table_path.write_bytes(table(("radon_cc", 6, "advise"), ("radon_cc", 8, "warn")))
    assert ask(text_body(1, token), text) != first
    assert cc(server.hints("m.py", text=text)) == [("m.py", 9, 20)]
    table_path.unlink()
    assert ask(text_body(1, token), text) == first
    lines = analyze_lines(log_path, len(sent) + 2)
    assert {line["source"] for line in lines} == {"text"}
    assert {line["text_bytes"] for line in lines} == {len(text.encode())}
    caches = [line["cache"] for line in lines]
    assert caches[:4] == ["miss", "memo", "memo", "memo"]
    assert caches[4] == "miss" and caches[5] == "memo"  # the changed text, then the first again
    # A new table: the memo cannot answer, a worker does; then the memo, under either table.
    assert caches[-3] in ("hit", "miss") and caches[-2:] == ["memo", "memo"]
    server.close_stdin()
    assert server.finish(0) == []


# == Texts that get no hints, and params that are not valid ================================


def test_oversize_non_parsing_and_undecodable_texts_get_no_hints(
    spawn: Spawn, log_path: Path
) -> None:
    server = start(spawn, log_path)
    padding = "# " + "x" * 76 + "\n"
    padded = (FOUR + padding * (LIMIT // len(padding))).encode()
    at_limit = (padded[: LIMIT - 1] + b"\n").decode()
    assert len(at_limit.encode()) == LIMIT
    assert cc(server.hints("big.py", text=at_limit)) == [("big.py", 1, 8)]
    over = at_limit + "#"
    # Under the limit in characters, over it in UTF-8 bytes.
    wide = FOUR + "# " + "é" * (LIMIT // 2) + "\n"
    assert len(wide) < LIMIT < len(wide.encode())
    not_python = ["def broken(:\n    pass\n", "\x00" + FOUR, "# coding: ascii\n" + "s = 'é'\n"]
    for text in (over, wide, *not_python):
        assert server.hints("m.py", text=text) == [], text[:40]
    for text in not_python:  # the verdict is kept like a report
        assert server.hints("m.py", text=text) == []
    lines = analyze_lines(log_path, 9)
    assert [line["cache"] for line in lines] == [
        "miss",
        "unanalyzable",
        "unanalyzable",
        *["miss"] * 3,
        *["memo"] * 3,
    ]
    assert lines[1]["worker"] is None and lines[1]["text_bytes"] == LIMIT + 1
    server.close_stdin()
    assert server.finish(0) == []


FAR_CURSOR_BODY = (
    b'{"id":"c","method":"analyze","params":{"file_path":"m.py","cursor_position":%b,"text":%b}}'
)


@pytest.mark.parametrize("text", [5, 1.5, None, True, [FOUR], {"text": FOUR}])
def test_a_text_that_is_not_a_string_is_invalid_params(spawn: Spawn, text: Any) -> None:
    server = spawn(*NO_WORKERS)
    server.initialize("1.1")
    response = server.request(analyze_message("t", "m.py", text=text))
    assert "params.text" in response.expect_error(-32602, "t").error["message"]
    # The same with a cursor too long for an int: still the text's error.
    body = FAR_CURSOR_BODY
    server.send(frame(body % (b"9" * 5000, json.dumps(text).encode())))
    server.read_response().expect_error(-32602, "c")
    server.ping()
    server.close_stdin()
    assert server.finish(0) == []


def test_a_text_with_a_cursor_too_long_for_an_int_is_past_its_end(spawn: Spawn) -> None:
    server = spawn(*NO_WORKERS)
    server.initialize("1.1")
    body = FAR_CURSOR_BODY
    server.send(frame(body % (b"9" * 5000, json.dumps(TWO).encode())))
    response = server.read_response()
    assert response.id == "c" and response.hints == []
    assert server.request(message("analyze", {"file_path": "m.py", "text": TWO}, id="d")).hints
    server.close_stdin()
    assert server.finish(0) == []


# == A text that costs a worker ============================================================


def slow_source(functions: int = 40_000) -> str:
    return "".join(
        f"def f{i}(a, b):\n    if a and b:\n        return a\n    return b\n\n"
        for i in range(functions)
    )


def test_a_text_that_times_out_a_worker_is_quarantined_by_its_digest(
    spawn: Spawn, log_path: Path
) -> None:
    server = start(spawn, log_path, "--workers", "2", "--analysis-timeout", "0.25")
    slow = slow_source()
    assert server.hints("slow.py", text=slow) == []
    failed = events(log_path, "job_failed", at_least=1)
    assert [(f["reason"], f["source"]) for f in failed] == [("timeout", "text")]
    # The same bytes again, under any name: no hints at once, no worker asked.
    assert server.hints("slow.py", text=slow) == []
    assert server.hints("elsewhere.py", text=slow) == []
    # Other bytes are analyzed as usual, by the worker that replaced the one killed.
    assert cc(server.hints("slow.py", text=FOUR)) == [("slow.py", 1, 8)]
    lines = analyze_lines(log_path, 4)
    assert [line["cache"] for line in lines] == ["timeout", "quarantined", "quarantined", "miss"]
    assert [line["worker"] is None for line in lines] == [False, True, True, False]
    assert len(events(log_path, "job_failed")) == 1
    assert [e["reason"] for e in events(log_path, "worker_replaced", 1)] == ["timeout"]
    server.close_stdin()
    assert server.finish(0) == []
