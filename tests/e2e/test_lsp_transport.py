"""The LSP mode's transport over raw pipes: the same framing, limits, realignment and
stdout hygiene as ``--server``, JSON-RPC 2.0 errors, the ends of a session, and the
document notifications pytest-lsp cannot send malformed."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from support.lsp_pipes import LspProcess, lsp_message, without_links
from support.paths import EXAMPLES
from support.protocol_client import frame

EXAMPLE = (EXAMPLES / "orders.py").read_text("utf-8")


@pytest.fixture
def lsp(workspace: Path) -> Iterator[LspProcess]:
    process = LspProcess(args=("--workers", "1"), cwd=workspace)
    yield process
    process.server.kill()


@pytest.fixture
def running(lsp: LspProcess) -> LspProcess:
    lsp.initialize()
    return lsp


def ping(lsp: LspProcess, request_id: str) -> int:
    """The error code of an unknown request (the session is alive and aligned)."""
    return lsp.request("gzguide/ping", {}, id=request_id).code  # type: ignore[return-value]


@pytest.mark.parametrize(
    "garbage",
    [
        b"Content-Length: five\r\n\r\n",
        b"no colon here\r\nContent-Length: 2\r\n\r\n",
        b"X-Only: header\r\n\r\n",
        b"Content-Length: 10485761\r\n\r\n" + b"x" * 10_485_761,
        b"".join(b"X-%d: y\r\n" % n for n in range(33)) + b"\r\n",
        b"X: " + b"a" * 9000 + b"\r\n\r\n",
    ],
    ids=["bad-length", "no-colon", "no-length", "body-over-limit", "33-headers", "long-line"],
)
def test_framing_errors_answer_one_parse_error_and_realign(
    running: LspProcess, garbage: bytes
) -> None:
    running.send(garbage, lsp_message("gzguide/after", {}, id="after"))
    error = running.read()
    assert error.message == {
        "jsonrpc": "2.0",
        "id": None,
        "error": {"code": -32700, "message": error.error["message"]},
    }
    assert running.response("after").code == -32601


@pytest.mark.parametrize(
    ("body", "answer"),
    [
        (b"\xff\xfe", (None, -32700)),
        (b"\xef\xbb\xbf{}", (None, -32700)),
        (b'{"jsonrpc":"2.0","id":1,"method":"x","params":NaN}', (None, -32700)),
        (b"[]", (None, -32600)),
        (b'{"jsonrpc":"2.0","id":null,"method":"x"}', (None, -32600)),
        (b'{"jsonrpc":"2.0","id":[1],"method":"x"}', (None, -32600)),
        (b'{"jsonrpc":"2.0","id":"m","method":5}', ("m", -32600)),
        (b'{"jsonrpc":"2.0","id":"n"}', ("n", -32600)),
        (b'{"jsonrpc":"2.0","id":"h","method":"textDocument/hover","params":{}}', ("h", -32602)),
        (b'{"jsonrpc":"2.0","id":"i","method":"textDocument/hover"}', ("i", -32602)),
    ],
)
def test_invalid_messages(running: LspProcess, body: bytes, answer: tuple[object, int]) -> None:
    running.send(frame(body))
    error = running.read()
    assert (error.id, error.code) == answer
    assert ping(running, "still-there") == -32601


def test_what_is_not_answered(running: LspProcess) -> None:
    running.send(
        frame(b'{"jsonrpc":"2.0","id":77,"result":{"applied":true}}'),  # a client's response
        lsp_message("textDocument/didOpen", {"textDocument": 5}),  # bad params: ignored
        lsp_message(
            "textDocument/didChange",
            {
                "textDocument": {"uri": "file:///n.py", "version": 2},
                "contentChanges": [{"text": "x"}],
            },
        ),  # never opened
        lsp_message("workspace/didChangeConfiguration", {"settings": {}}),  # not ours
    )
    assert ping(running, "after-them") == -32601
    assert running.notifications == []


def test_the_banner_names_the_pid_and_the_transport(running: LspProcess) -> None:
    deadline = time.monotonic() + 10
    while not running.server.stderr() and time.monotonic() < deadline:
        time.sleep(0.01)  # log lines are written once the server is idle
    line = json.loads(running.server.stderr().splitlines()[0])
    assert line["event"] == "server_start"
    assert line["pid"] == running.server.pid
    assert (line["protocol"], line["transport"]) == ("lsp-3.17", "stdio")


def test_end_of_input_exits_0_with_workers_reaped(workspace: Path) -> None:
    with LspProcess(args=("--workers", "2"), cwd=workspace) as lsp:
        lsp.initialize()
        uri = (workspace / "a.py").as_uri()
        lsp.open(uri, EXAMPLE)
        assert lsp.publication(uri, 1)
        assert len(lsp.server.stray_processes()) == 3  # the frontend and two workers
        lsp.send(b"Content-Length: 40\r\n\r\n{")  # EOF inside a message
        lsp.server.close_stdin()
        assert lsp.server.finish(0) == []


def test_exit_as_a_request_ends_the_session_unanswered(running: LspProcess) -> None:
    running.send(lsp_message("shutdown", id=1))
    assert running.response(1).result is None
    running.send(lsp_message("exit", id=2), lsp_message("gzguide/after", id=3))
    assert running.server.finish(0) == []


def test_closed_stdout_exits_0_quietly(running: LspProcess) -> None:
    running.server.close_stdout()
    running.send(lsp_message("gzguide/into-the-void", id=1))
    assert running.server.wait_exit() == 0
    running.server.assert_no_stray_processes()
    assert "Traceback" not in running.server.stderr()


def test_save_reanalyzes_and_open_again_replaces(running: LspProcess, workspace: Path) -> None:
    uri = (workspace / "saved.py").as_uri()
    running.open(uri, EXAMPLE)
    first = running.publication(uri, 1)
    running.notify("textDocument/didSave", {"textDocument": {"uri": uri}})
    running.send(lsp_message("gzguide/sync", id="s1"))
    running.response("s1")
    again = [n for n in running.notifications if n["params"].get("version") == 1]
    while len(again) < 2:
        running.notifications.append(running.read().message)
        again = [n for n in running.notifications if n["params"].get("version") == 1]
    assert without_links(again[1]["params"]["diagnostics"]) == first
    running.open(uri, "x = 1\n", version=5)
    assert running.publication(uri, 5) == []


def test_a_buffer_over_the_source_limit_gets_no_diagnostics(
    running: LspProcess, workspace: Path
) -> None:
    uri = (workspace / "huge.py").as_uri()
    running.open(uri, EXAMPLE + "#" * (4 * 1024 * 1024))
    assert running.publication(uri, 1, timeout=30) == []
    assert ping(running, "after-huge") == -32601
