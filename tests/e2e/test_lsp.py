"""The LSP mode end to end under pytest-lsp: the real server as a subprocess, over real pipes.

* the lifecycle table of ``seeds/lsp-stub-transport.md`` (as the contract restates it),
  row by row, exit statuses included;
* diagnostics: pushed after ``didOpen`` and ``didChange`` with the document's version,
  equal to what ``analyze`` returns for the same text (protocol 1.1), cleared by
  ``didClose``; the debounce coalesces a burst of changes into one analysis;
* incremental sync in each position encoding, with non-ASCII text, a surrogate pair
  and CRLF line ends, checked through what the analysis then quotes of the buffer;
* hover over a flagged range (with the archetype's page of ``docs/hints.md``) and
  off it; the pull model (``textDocument/diagnostic``) for clients that offer it.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient

from support.lsp_session import (
    as_json,
    change,
    edit,
    expected_diagnostics,
    initialize,
    open_document,
    published,
    reference_hints,
    start_client,
    stop_client,
    units,
)
from support.paths import DOCS, EXAMPLES

pytestmark = pytest.mark.asyncio(loop_scope="function")

HINTS_PAGE = DOCS / "hints.md"
ORDERS = (EXAMPLES / "orders.py").read_text("utf-8")
#: A line of the example whose hint quotes it (an ``any()`` move): whatever the
#: buffer holds there shows in the hint's text.
QUOTED = 'if qty > 0 and sku.startswith("BO-"):'


@pytest.fixture
def root(tmp_path: Path) -> Path:
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    return workspace


@pytest_asyncio.fixture
async def client(root: Path) -> AsyncIterator[LanguageClient]:
    started = await start_client(root, "--workers", "1")
    yield started
    await stop_client(started)


async def request_error(client: LanguageClient, method: str, params: object) -> int:
    """The error code the server answers ``method`` with (the test fails on a result)."""
    if client.capabilities is None:
        # pytest-lsp checks requests against the client's capabilities, known once it
        # has initialized; before that, it is told of none (nothing is sent for this).
        client.capabilities = types.ClientCapabilities()
    try:
        sent = client.protocol.send_request_async(method, params)  # type: ignore[no-untyped-call]
        result = await asyncio.wait_for(sent, 20)
    except JsonRpcException as exc:
        return exc.code
    raise AssertionError(f"{method} got a result: {result!r}")


async def exit_status(client: LanguageClient) -> int:
    server = client._server
    assert server is not None
    return await asyncio.wait_for(server.wait(), 20)


def hover_params(uri: str, line: int, character: int = 0) -> types.HoverParams:
    return types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        position=types.Position(line=line, character=character),
    )


# == the lifecycle table =====================================================================


async def test_requests_before_initialize_are_server_not_initialized(
    client: LanguageClient, root: Path
) -> None:
    uri = (root / "early.py").as_uri()
    assert await request_error(client, "textDocument/hover", hover_params(uri, 0)) == -32002
    assert await request_error(client, "shutdown", None) == -32002
    assert await request_error(client, "gzguide/unknown", {}) == -32002
    # A notification before initialize is ignored: the document was never opened.
    open_document(client, uri, ORDERS)
    await initialize(client)
    assert await client.text_document_hover_async(hover_params(uri, 80)) is None
    assert uri not in client.diagnostics


async def test_initialize_once(client: LanguageClient) -> None:
    result = await initialize(client)
    caps = result.capabilities
    assert caps.position_encoding == types.PositionEncodingKind.Utf16
    assert caps.hover_provider is True
    assert caps.diagnostic_provider is None  # this client does not pull
    sync = caps.text_document_sync
    assert isinstance(sync, types.TextDocumentSyncOptions)
    assert sync.open_close and sync.change == types.TextDocumentSyncKind.Incremental
    assert result.server_info is not None and result.server_info.name == "gzguide"
    again = types.InitializeParams(capabilities=types.ClientCapabilities())
    assert await request_error(client, "initialize", again) == -32600


async def test_the_stdio_option_clients_pass_is_accepted(root: Path) -> None:
    """vscode-languageclient appends ``--stdio`` to the command of a stdio server."""
    started = await start_client(root, "--workers", "0", "--stdio")
    try:
        result = await initialize(started)
        assert result.server_info is not None and result.server_info.name == "gzguide"
        await started.shutdown_session()
        assert await exit_status(started) == 0
    finally:
        await stop_client(started)


async def test_unknown_methods_and_accepted_notifications(client: LanguageClient) -> None:
    await initialize(client)
    assert await request_error(client, "gzguide/unknown", {}) == -32601
    assert await request_error(client, "$/gzguide.unknown", {}) == -32601
    client.protocol.notify("gzguide/unknown", {})
    client.protocol.notify("$/gzguide.unknown", {})
    client.protocol.notify("$/setTrace", types.SetTraceParams(value=types.TraceValue.Verbose))
    client.protocol.notify("$/cancelRequest", types.CancelParams(id=12345))
    assert await request_error(client, "gzguide/still-there", {}) == -32601
    await client.shutdown_session()
    assert await exit_status(client) == 0


async def test_after_shutdown_only_exit(client: LanguageClient, root: Path) -> None:
    await initialize(client)
    # The request shutdown_async sends, sent as is: pygls types its answer as None, which
    # a type-checked test could not compare with anything.
    shutdown = client.protocol.send_request_async("shutdown", None)  # type: ignore[no-untyped-call]
    assert await shutdown is None
    uri = (root / "late.py").as_uri()
    assert await request_error(client, "textDocument/hover", hover_params(uri, 0)) == -32600
    assert await request_error(client, "shutdown", None) == -32600
    again = types.InitializeParams(capabilities=types.ClientCapabilities())
    assert await request_error(client, "initialize", again) == -32600
    open_document(client, uri, ORDERS)  # ignored: nothing is published for it
    assert await request_error(client, "gzguide/unknown", {}) == -32600
    client.exit(None)
    assert await exit_status(client) == 0
    assert uri not in client.diagnostics


async def test_exit_without_shutdown_is_status_1(client: LanguageClient) -> None:
    await initialize(client)
    client.exit(None)
    assert await exit_status(client) == 1


async def test_exit_before_initialize_is_status_1(client: LanguageClient) -> None:
    client.exit(None)
    assert await exit_status(client) == 1


async def test_bad_initialize_params_leave_the_session_new(client: LanguageClient) -> None:
    for options in ({"debounceMs": -5}, {"debounceMs": "soon"}, ["debounceMs"]):
        bad = types.InitializeParams(
            capabilities=types.ClientCapabilities(), initialization_options=options
        )
        assert await request_error(client, "initialize", bad) == -32602
    hover = hover_params("file:///nowhere.py", 0)
    assert await request_error(client, "textDocument/hover", hover) == -32002
    await initialize(client)
    await client.shutdown_session()
    assert await exit_status(client) == 0


# == diagnostics from the buffer ==================================================================


async def test_diagnostics_are_the_hints_of_the_buffer(client: LanguageClient, root: Path) -> None:
    await initialize(client)
    path = root / "orders.py"  # never written: the buffer alone is analyzed
    uri = path.as_uri()
    open_document(client, uri, ORDERS, version=7)
    first = await published(client, uri, 7)
    hints = reference_hints(root, str(path), ORDERS)
    assert len(hints) >= 3
    assert as_json(first.diagnostics) == expected_diagnostics(hints, ORDERS, "utf-16")
    # The quiet severity of a census, and a band's severity for a move.
    severities = {d.severity for d in first.diagnostics}
    assert types.DiagnosticSeverity.Hint in severities
    assert severities - {types.DiagnosticSeverity.Hint}

    # An unsaved edit: the whole text replaced, then analyzed as it stands.
    edited = ORDERS.replace(QUOTED, 'if qty > 0 and sku.startswith("XX-"):')
    change(client, uri, 8, [types.TextDocumentContentChangeWholeDocument(text=edited)])
    second = await published(client, uri, 8)
    assert as_json(second.diagnostics) == expected_diagnostics(
        reference_hints(root, str(path), edited), edited, "utf-16"
    )
    assert any("XX-" in d.message for d in second.diagnostics)

    client.text_document_did_close(
        types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    cleared = await published(client, uri, None)
    assert list(cleared.diagnostics) == []


async def test_a_burst_of_changes_is_analyzed_once(root: Path) -> None:
    client = await start_client(root, "--workers", "1")
    try:
        await initialize(client, debounce_ms=1000)
        uri = (root / "burst.py").as_uri()
        open_document(client, uri, ORDERS)
        text = ORDERS
        for version, tag in ((2, "A"), (3, "B"), (4, "C")):
            start = text.index("BO-") if version == 2 else text.index('startswith("') + 12
            text, partial = edit(text, start, start + 2, tag + "O", "utf-16")
            change(client, uri, version, [partial])
        last = await published(client, uri, 4)
        log = client.published  # type: ignore[attr-defined]
        assert [p.version for p in log if p.uri == uri] == [4]
        assert as_json(last.diagnostics) == expected_diagnostics(
            reference_hints(root, str(root / "burst.py"), text), text, "utf-16"
        )
    finally:
        await stop_client(client)


async def test_non_python_documents_get_no_diagnostics(client: LanguageClient, root: Path) -> None:
    await initialize(client)
    notes = (root / "notes.txt").as_uri()
    item = types.TextDocumentItem(uri=notes, language_id="plaintext", version=1, text=ORDERS)
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=item))
    code = (root / "code.py").as_uri()
    open_document(client, code, ORDERS)
    await published(client, code, 1)
    assert notes not in client.diagnostics
    assert await client.text_document_hover_async(hover_params(notes, 80)) is None


# == incremental sync and position encodings =======================================================

#: The example, with text whose widths differ by encoding on the quoted line: a
#: two-byte letter, and an emoji (four UTF-8 bytes, a UTF-16 surrogate pair).
WIDE = ORDERS.replace('"BO-"', '"BÖ😀-"')


@pytest.mark.parametrize(
    ("offered", "negotiated"),
    [
        (None, "utf-16"),
        (["utf-16"], "utf-16"),
        (["utf-8", "utf-16"], "utf-8"),
        (["utf-32"], "utf-32"),
    ],
)
@pytest.mark.parametrize("newline", ["\n", "\r\n"], ids=["lf", "crlf"])
async def test_incremental_edits_land_on_the_right_characters(
    client: LanguageClient, root: Path, offered: list[str] | None, negotiated: str, newline: str
) -> None:
    result = await initialize(client, encodings=offered)
    assert result.capabilities.position_encoding == negotiated
    path = root / "wide.py"
    uri = path.as_uri()
    text = WIDE.replace("\n", newline)
    open_document(client, uri, text)
    await published(client, uri, 1)

    # Right after the surrogate pair: a character inserted between the emoji and "-".
    at = text.index("😀") + 1
    text, insert = edit(text, at, at, "x", negotiated)
    # Across a line end: from the middle of the loop header to the middle of the
    # quoted condition, replaced by text of its own line end.
    start = text.index("order.lines:", text.index("def overdue"))
    end = text.index(" and sku", start)
    new = f"order.lines:{newline}                if qty >= 2"
    text, across = edit(text, start, end, new, negotiated)
    # On the last line, after the line ends (an append at the very end).
    tail = len(text)
    text, append = edit(text, tail, tail, f"# ünïcødé 🐍 end{newline}", negotiated)
    change(client, uri, 2, [insert, across, append])

    after = await published(client, uri, 2)
    assert 'if qty >= 2 and sku.startswith("BÖ😀x-"):' in text
    hints = reference_hints(root, str(path), text)
    # The move quotes the condition as it now stands in the buffer.
    assert any("qty >= 2 and sku.startswith('BÖ😀x-')" in h["recommended_move"] for h in hints)
    assert as_json(after.diagnostics) == expected_diagnostics(hints, text, negotiated)


async def test_a_position_past_its_line_means_the_line_end(
    client: LanguageClient, root: Path
) -> None:
    await initialize(client)
    uri = (root / "clamp.py").as_uri()
    open_document(client, uri, "# gz\nx = 1\n")
    await published(client, uri, 1)
    # Character 99 of line 0 is its end; line 40 is the end of the text.
    span = types.Range(types.Position(0, 99), types.Position(40, 0))
    change(client, uri, 2, [types.TextDocumentContentChangePartial(range=span, text="\n" + ORDERS)])
    expected = "# gz\n" + ORDERS
    after = await published(client, uri, 2)
    hints = reference_hints(root, str(root / "clamp.py"), expected)
    assert hints and as_json(after.diagnostics) == expected_diagnostics(hints, expected, "utf-16")


# == hover ==================================================================================


def archetype_page(archetype: str) -> str:
    """The body of an archetype's section of docs/hints.md, read here independently."""
    text = HINTS_PAGE.read_text("utf-8")
    section = text.split("## Archetypes", 1)[1].split(f"### {archetype}\n", 1)[1]
    return section.split("\n### ", 1)[0].split("\n## ", 1)[0].strip()


@pytest.mark.parametrize("markdown", [True, False], ids=["markdown", "plaintext"])
async def test_hover_over_a_flagged_range(
    client: LanguageClient, root: Path, markdown: bool
) -> None:
    await initialize(client, markdown=markdown)
    path = root / "orders.py"
    uri = path.as_uri()
    open_document(client, uri, ORDERS)
    await published(client, uri, 1)
    hints = reference_hints(root, str(path), ORDERS)
    hint = next(h for h in hints if h["archetype"] == "arrowhead")
    line = hint["start_line"] + 1  # inside the function, not on its def line
    hover = await client.text_document_hover_async(hover_params(uri, line - 1, 4))
    assert hover is not None
    assert isinstance(hover.contents, types.MarkupContent)
    assert hover.contents.kind == ("markdown" if markdown else "plaintext")
    value = hover.contents.value
    assert hint["doctrinal_frame_headline"] in value
    assert hint["recommended_move"] in value
    assert archetype_page("arrowhead") in value
    assert hover.range is not None
    assert hover.range.start == types.Position(hint["start_line"] - 1, 0)
    end_line = ORDERS.split("\n")[hint["end_line"] - 1]
    assert hover.range.end == types.Position(hint["end_line"] - 1, units(end_line, "utf-16"))
    # Off every flagged range (the module docstring): no hover.
    assert await client.text_document_hover_async(hover_params(uri, 0)) is None


async def test_hover_waits_for_the_latest_version(client: LanguageClient, root: Path) -> None:
    """A hover right after a change is answered from that change's analysis."""
    await initialize(client, debounce_ms=60_000)
    path = root / "late.py"
    uri = path.as_uri()
    open_document(client, uri, ORDERS)
    hints = reference_hints(root, str(path), ORDERS)
    hint = hints[0]
    hover = await client.text_document_hover_async(hover_params(uri, hint["start_line"] - 1))
    assert hover is not None and hint["recommended_move"] in hover.contents.value  # type: ignore[union-attr]


# == pull diagnostics =============================================================================


def diagnostic_params(uri: str, previous: str | None = None) -> types.DocumentDiagnosticParams:
    return types.DocumentDiagnosticParams(
        text_document=types.TextDocumentIdentifier(uri=uri), previous_result_id=previous
    )


async def test_pull_diagnostics(client: LanguageClient, root: Path) -> None:
    result = await initialize(client, pull=True, debounce_ms=60_000)
    provider = result.capabilities.diagnostic_provider
    assert isinstance(provider, types.DiagnosticOptions)
    assert not provider.inter_file_dependencies and not provider.workspace_diagnostics
    path = root / "pulled.py"
    uri = path.as_uri()
    open_document(client, uri, ORDERS)
    # The debounce is a minute: a pull does not wait for it.
    report = await client.text_document_diagnostic_async(diagnostic_params(uri))
    assert isinstance(report, types.RelatedFullDocumentDiagnosticReport)
    hints = reference_hints(root, str(path), ORDERS)
    assert as_json(report.items) == expected_diagnostics(hints, ORDERS, "utf-16")
    same = await client.text_document_diagnostic_async(diagnostic_params(uri, report.result_id))
    assert isinstance(same, types.RelatedUnchangedDocumentDiagnosticReport)
    assert same.result_id == report.result_id

    edited = ORDERS.replace(QUOTED, 'if qty > 0 and sku.startswith("ZZ-"):')
    change(client, uri, 2, [types.TextDocumentContentChangeWholeDocument(text=edited)])
    fresh = await client.text_document_diagnostic_async(diagnostic_params(uri, report.result_id))
    assert isinstance(fresh, types.RelatedFullDocumentDiagnosticReport)
    assert fresh.result_id != report.result_id
    assert as_json(fresh.items) == expected_diagnostics(
        reference_hints(root, str(path), edited), edited, "utf-16"
    )
    # Nothing is pushed to a client that pulls.
    assert client.published == []  # type: ignore[attr-defined]
    unknown = (root / "never-opened.py").as_uri()
    empty = await client.text_document_diagnostic_async(diagnostic_params(unknown))
    assert isinstance(empty, types.RelatedFullDocumentDiagnosticReport) and not empty.items
