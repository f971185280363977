"""The LSP mode's msgspec Structs, checked against lsprotocol's types.

lsprotocol's types are generated from the specification's meta-model; the server
does not use them at run time (importing and building their converter takes about
a second, where the whole server starts in a fraction of that), so every Struct it
sends is checked here to be structured by lsprotocol into the type the
specification names, and to come back out the same JSON, field for field; and the
initialize params of real editors (the capability files pytest-lsp ships) are
decoded by the server's own Struct into what they say.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

import msgspec
import pytest
from lsprotocol import types
from lsprotocol.converters import get_converter

from gzguide.guide.messages import Hint
from gzguide.lsp import types as ours

converter = get_converter()
HINT = Hint("radon_cc", "approaching_warn", 6.0, "arrowhead", "Head", "Move", "/w/a.py", 3, 9)
RANGE = ours.Range(ours.Position(2, 0), ours.Position(8, 14))
DIAGNOSTIC = ours.Diagnostic(RANGE, ours.WARNING, "radon_cc", "gzguide", "Head. Move", HINT)

SENT: list[tuple[Any, Any]] = [
    (
        ours.InitializeResult(
            ours.ServerCapabilities(
                "utf-16",
                ours.TextDocumentSyncOptions(True, ours.SYNC_INCREMENTAL, ours.SaveOptions(False)),
                True,
                ours.DiagnosticOptions("gzguide", False, False),
            ),
            ours.ServerInfo("gzguide", "0.1.0"),
        ),
        types.InitializeResult,
    ),
    (
        ours.PublishDiagnosticsParams("file:///w/a.py", [DIAGNOSTIC], 4),
        types.PublishDiagnosticsParams,
    ),
    (ours.PublishDiagnosticsParams("file:///w/a.py", []), types.PublishDiagnosticsParams),
    (ours.FullDocumentDiagnosticReport("3", [DIAGNOSTIC]), types.FullDocumentDiagnosticReport),
    (ours.UnchangedDocumentDiagnosticReport("3"), types.UnchangedDocumentDiagnosticReport),
    (ours.Hover(ours.MarkupContent("markdown", "**x**"), RANGE), types.Hover),
    (ours.ResponseError(-32002, "not yet"), types.ResponseError),
    (
        ours.CodeAction(
            "Use any(): radon_cc 6 -> 4",
            "quickfix",
            ours.WorkspaceEdit(
                documentChanges=[
                    ours.TextDocumentEdit(
                        ours.OptionalVersionedTextDocumentIdentifier("file:///w/a.py", 4),
                        [ours.TextEdit(RANGE, "return any(x for x in xs)")],
                    )
                ]
            ),
            [DIAGNOSTIC],
            True,
        ),
        types.CodeAction,
    ),
    (
        ours.CodeAction(
            "Make the safe gzguide fix",
            "source.fixAll.gzguide",
            ours.WorkspaceEdit(changes={"file:///w/a.py": [ours.TextEdit(RANGE, "")]}),
        ),
        types.CodeAction,
    ),
    (ours.CodeActionOptions(["quickfix", "source.fixAll.gzguide"]), types.CodeActionOptions),
]


@pytest.mark.parametrize(("struct", "kind"), SENT, ids=lambda v: type(v).__name__)
def test_what_the_server_sends_is_the_specification_s_type(struct: Any, kind: type[object]) -> None:
    sent = msgspec.to_builtins(struct)
    structured = converter.structure(sent, kind)
    assert converter.unstructure(structured) == sent


def test_envelopes() -> None:
    result = json.loads(ours.encode(ours.result_message(1, None)))
    assert result == {"jsonrpc": "2.0", "id": 1, "result": None}
    converter.structure(result, types.ShutdownResponse)
    error = json.loads(ours.encode(ours.error_message(None, -32700, "Parse error")))
    assert list(error) == ["jsonrpc", "id", "error"]
    note = ours.notification(
        "textDocument/publishDiagnostics", ours.PublishDiagnosticsParams("u", [])
    )
    structured = converter.structure(
        json.loads(ours.encode(note)), types.PublishDiagnosticsNotification
    )
    assert structured.params.uri == "u"


def lsp_json(value: Any) -> bytes:
    return json.dumps(converter.unstructure(value)).encode()


RECEIVED: list[tuple[Any, type]] = [
    (
        types.DidOpenTextDocumentParams(types.TextDocumentItem("file:///a.py", "python", 3, "x\n")),
        ours.DidOpenParams,
    ),
    (
        types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(4, "file:///a.py"),
            [
                types.TextDocumentContentChangePartial(
                    types.Range(types.Position(0, 1), types.Position(1, 0)), "y", range_length=3
                ),
                types.TextDocumentContentChangeWholeDocument("whole"),
            ],
        ),
        ours.DidChangeParams,
    ),
    (
        types.DidSaveTextDocumentParams(types.TextDocumentIdentifier("file:///a.py")),
        ours.DidSaveParams,
    ),
    (
        types.DidCloseTextDocumentParams(types.TextDocumentIdentifier("file:///a.py")),
        ours.DidCloseParams,
    ),
    (
        types.HoverParams(types.TextDocumentIdentifier("file:///a.py"), types.Position(5, 2)),
        ours.HoverParams,
    ),
    (
        types.DocumentDiagnosticParams(
            types.TextDocumentIdentifier("file:///a.py"), "gzguide", "7"
        ),
        ours.DocumentDiagnosticParams,
    ),
    (types.CancelParams(id=9), ours.CancelParams),
    (types.SetTraceParams(types.TraceValue.Messages), ours.SetTraceParams),
]


@pytest.mark.parametrize(("value", "struct"), RECEIVED, ids=lambda v: type(v).__name__)
def test_what_clients_send_decodes_to_the_same_fields(value: Any, struct: type[object]) -> None:
    decoded = ours.decode_params(msgspec.Raw(lsp_json(value)), struct)
    # Every field the Struct declares carries what the lsprotocol value said.
    assert msgspec.to_builtins(decoded) == _pick(
        converter.unstructure(value), msgspec.to_builtins(decoded)
    )


def _pick(full: Any, shape: Any) -> Any:
    """``full`` restricted to the keys ``shape`` has (recursively; one it left out is null)."""
    if isinstance(shape, dict):
        return {key: _pick(full.get(key), shape[key]) for key in shape}
    if isinstance(shape, list):
        return [_pick(f, s) for f, s in zip(full, shape, strict=True)]
    return full


def client_files() -> list[Any]:
    folder = resources.files("pytest_lsp.clients")
    return sorted((f for f in folder.iterdir() if f.name.endswith(".json")), key=lambda f: f.name)


@pytest.mark.parametrize("capabilities", client_files(), ids=lambda f: f.name)
def test_real_editors_initialize_params(capabilities: Any) -> None:
    raw = json.loads(capabilities.read_text())
    converter.structure(raw, types.InitializeParams)  # a valid InitializeParams
    params = ours.decode_params(msgspec.Raw(json.dumps(raw).encode()), ours.InitializeParams)
    general = raw["capabilities"].get("general", {})
    assert (params.capabilities.general and params.capabilities.general.positionEncodings) == (
        general.get("positionEncodings")
    )
    text = raw["capabilities"].get("textDocument", {})
    assert params.capabilities.textDocument is not None
    assert (params.capabilities.textDocument.diagnostic is not None) == ("diagnostic" in text)
