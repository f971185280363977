"""pytest-lsp sessions with the real ``gz complexity guide --lsp``, and what they must say.

* :func:`start_client` starts the server as a subprocess under pytest-lsp's client
  (pygls over real pipes), with a root of the test's own, and records every
  ``textDocument/publishDiagnostics`` whole (pytest-lsp keeps only the latest
  diagnostics of a URI, without their version);
* :func:`expected_diagnostics` is what the diagnostics of a text must be, derived
  here from the contract alone: the hints the authoring-guide server gives for the
  same text (``analyze`` with ``text``, protocol 1.1), each on its lines, its end
  measured in the negotiated encoding by Python's own codecs;
* :func:`position` and :func:`lines_of` give positions in each encoding the same way.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path
from typing import Any

import msgspec
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features

from gzguide.client import GuideClient
from support.lsp_pipes import (
    SEVERITY,
    expected_diagnostics,
    lines_of,
    position_of,
    severity,
    units,
    without_links,
)

SERVER = [sys.executable, "-m", "gzguide", "complexity", "guide", "--lsp"]
PUBLISH = types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS
WAIT_S = 20.0


def make_client() -> LanguageClient:
    client = LanguageClient()
    published: list[types.PublishDiagnosticsParams] = []

    def publish(client: LanguageClient, params: types.PublishDiagnosticsParams) -> None:
        published.append(params)
        client.diagnostics[params.uri] = params.diagnostics

    register_lsp_features(client, {**DEFAULT_CLIENT_FEATURES, PUBLISH: publish})
    client.published = published  # type: ignore[attr-defined]
    return client


async def start_client(root: Path, *options: str) -> LanguageClient:
    config = ClientServerConfig(
        server_command=[*SERVER, "--root", str(root), *options], client_factory=make_client
    )
    client = await config.start()
    assert isinstance(client, LanguageClient)
    return client


async def stop_client(client: LanguageClient) -> None:
    """Stop the client; a server still running is killed (a test that ends it checks it)."""
    server = client._server
    if server is not None and server.returncode is None:
        server.kill()
        await server.wait()
    await client.stop()  # type: ignore[no-untyped-call]


def capabilities(
    encodings: list[str] | None = None,
    pull: bool = False,
    markdown: bool = True,
    related: bool = False,
    code_actions: bool = False,
) -> types.ClientCapabilities:
    general = types.GeneralClientCapabilities(position_encodings=encodings)
    kinds = types.ClientCodeActionKindOptions(value_set=["quickfix", "source"])
    literals = types.ClientCodeActionLiteralOptions(code_action_kind=kinds)
    text = types.TextDocumentClientCapabilities(
        hover=types.HoverClientCapabilities(
            content_format=[types.MarkupKind.Markdown if markdown else types.MarkupKind.PlainText]
        ),
        diagnostic=types.DiagnosticClientCapabilities(related_information=related)
        if pull
        else None,
        publish_diagnostics=types.PublishDiagnosticsClientCapabilities(
            version_support=True, related_information=related
        ),
        code_action=types.CodeActionClientCapabilities(code_action_literal_support=literals)
        if code_actions
        else None,
    )
    workspace = types.WorkspaceClientCapabilities(
        workspace_edit=types.WorkspaceEditClientCapabilities(document_changes=True)
    )
    return types.ClientCapabilities(general=general, text_document=text, workspace=workspace)


async def initialize(
    client: LanguageClient,
    encodings: list[str] | None = None,
    pull: bool = False,
    debounce_ms: int | None = 0,
    markdown: bool = True,
    census: str | None = "all",
    related: bool = False,
    hints_url: str | None = None,
    code_actions: bool = False,
) -> types.InitializeResult:
    """Initialize with the client's capabilities; the census shown everywhere unless
    ``census`` says otherwise (None: the server's default, new code only)."""
    options: dict[str, Any] = {}
    if debounce_ms is not None:
        options["debounceMs"] = debounce_ms
    if census is not None:
        options["census"] = census
    if hints_url is not None:
        options["hintsUrl"] = hints_url
    params = types.InitializeParams(
        capabilities=capabilities(encodings, pull, markdown, related, code_actions),
        initialization_options=options or None,
    )
    return await client.initialize_session(params)


async def published(
    client: LanguageClient, uri: str, version: int | None
) -> types.PublishDiagnosticsParams:
    """The first publication for ``uri`` at ``version`` (None: a clearing one, no version)."""
    log: list[types.PublishDiagnosticsParams] = client.published  # type: ignore[attr-defined]
    loop = asyncio.get_running_loop()
    deadline = loop.time() + WAIT_S
    while True:
        for params in log:
            if params.uri == uri and params.version == version:
                return params
        # Registered before waiting: a notification cannot slip between check and wait.
        arrival = client.protocol.wait_for_notification_async(PUBLISH)
        await asyncio.wait_for(arrival, max(deadline - loop.time(), 0.01))


def open_document(client: LanguageClient, uri: str, text: str, version: int = 1) -> None:
    item = types.TextDocumentItem(uri=uri, language_id="python", version=version, text=text)
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=item))


def change(
    client: LanguageClient,
    uri: str,
    version: int,
    changes: list[types.TextDocumentContentChangeEvent],
) -> None:
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=changes,
        )
    )


def edit(
    text: str, start: int, end: int, new: str, encoding: str
) -> tuple[str, types.TextDocumentContentChangePartial]:
    """The text after replacing ``text[start:end]`` by ``new``, and that change as LSP sends it."""
    span = types.Range(position(text, start, encoding), position(text, end, encoding))
    return text[:start] + new + text[end:], types.TextDocumentContentChangePartial(
        range=span, text=new
    )


def reference_hints(root: Path, path: str, text: str) -> list[dict[str, Any]]:
    """The hints the authoring-guide server gives for ``text`` as the file ``path``."""
    quiet = subprocess.DEVNULL
    with GuideClient.start(root=str(root), options=["--workers", "0"], stderr=quiet) as guide:
        guide.initialize("1.1")
        hints = guide.analyze(path, text=text)
        guide.shutdown()
    return [msgspec.to_builtins(hint) for hint in hints]


def as_json(diagnostics: Any) -> list[dict[str, Any]]:
    """lsprotocol diagnostics as the JSON values they were sent as."""
    from lsprotocol.converters import get_converter

    plain: list[dict[str, Any]] = get_converter().unstructure(list(diagnostics))
    return without_links(plain)


def position(text: str, index: int, encoding: str) -> types.Position:
    """The position of string index ``index`` of ``text``."""
    return types.Position(*position_of(text, index, encoding))


__all__ = ["SEVERITY", "expected_diagnostics", "lines_of", "severity", "units"]
