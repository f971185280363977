"""Code actions over real pipes: pytest-lsp asks the real server for fixes, applies the
edit it answers, and sees the diagnostics change."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from lsprotocol import types
from pytest_lsp import LanguageClient

from support.fixable import FIXED, SEARCH
from support.lsp_pipes import position_of
from support.lsp_session import (
    change,
    initialize,
    open_document,
    published,
    start_client,
    stop_client,
)

pytestmark = pytest.mark.asyncio(loop_scope="function")


@pytest_asyncio.fixture
async def client(tmp_path: Path) -> AsyncIterator[LanguageClient]:
    started = await start_client(tmp_path, "--workers", "1")
    yield started
    await stop_client(started)


def apply(text: str, edits: list[types.TextEdit]) -> str:
    """``text`` with the edits made (UTF-16 positions), the last first."""
    spans = []
    for edit in edits:
        start = _offset(text, edit.range.start)
        end = _offset(text, edit.range.end)
        spans.append((start, end, edit.new_text))
    for start, end, new in sorted(spans, reverse=True):
        text = text[:start] + new + text[end:]
    return text


def _offset(text: str, where: types.Position) -> int:
    return next(
        i
        for i in range(len(text) + 1)
        if position_of(text, i, "utf-16") == (where.line, where.character)
    )


def document_edits(action: types.CodeAction, uri: str, version: int) -> list[types.TextEdit]:
    assert action.edit is not None and action.edit.document_changes is not None
    (changed,) = action.edit.document_changes
    assert isinstance(changed, types.TextDocumentEdit)
    assert (changed.text_document.uri, changed.text_document.version) == (uri, version)
    return [e for e in changed.edits if isinstance(e, types.TextEdit)]


async def code_actions(
    client: LanguageClient, uri: str, line: int, only: list[str] | None = None
) -> list[types.CodeAction]:
    spot = types.Position(line, 6)
    params = types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        range=types.Range(spot, spot),
        context=types.CodeActionContext(diagnostics=[], only=only),
    )
    found = await client.text_document_code_action_async(params)
    assert found is not None
    return [a for a in found if isinstance(a, types.CodeAction)]


async def test_a_quick_fix_applied_changes_the_diagnostics(
    client: LanguageClient, tmp_path: Path
) -> None:
    result = await initialize(client, code_actions=True)
    provider = result.capabilities.code_action_provider
    assert isinstance(provider, types.CodeActionOptions)
    assert list(provider.code_action_kinds or ()) == ["quickfix", "source.fixAll.gzguide"]
    uri = (tmp_path / "m.py").as_uri()
    open_document(client, uri, SEARCH, version=1)
    before = await published(client, uri, 1)
    assert [d.message[:8] for d in before.diagnostics] == ["The loop"]  # the move leads

    (action,) = await code_actions(client, uri, line=0)
    assert action.title == "Use any(): radon_cc 5 -> 4"
    assert (action.kind, action.is_preferred) == ("quickfix", True)
    assert action.diagnostics is not None and action.diagnostics[0].code == "radon_cc"
    edited = apply(SEARCH, document_edits(action, uri, 1))
    assert edited == FIXED

    change(client, uri, 2, [types.TextDocumentContentChangeWholeDocument(text=edited)])
    after = await published(client, uri, 2)
    assert [d.data["crossing_value"] for d in after.diagnostics] == [4.0]  # type: ignore[index]
    assert all("any(" not in d.message for d in after.diagnostics)
    assert await code_actions(client, uri, line=0) == []  # nothing left to fix


async def test_fix_all_makes_every_safe_fix(client: LanguageClient, tmp_path: Path) -> None:
    await initialize(client, code_actions=True)
    uri = (tmp_path / "m.py").as_uri()
    open_document(client, uri, SEARCH, version=4)
    await published(client, uri, 4)
    (action,) = await code_actions(client, uri, line=2, only=["source.fixAll"])
    assert action.kind == "source.fixAll.gzguide"
    assert apply(SEARCH, document_edits(action, uri, 4)) == FIXED
