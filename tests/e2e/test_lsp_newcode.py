"""What an editor shows where, under pytest-lsp: the census on new code only, every
move everywhere, each diagnostic on its definition's name, with the places the hint
names and a link to the section of docs/hints.md that explains it.

New code is a definition whose text differs from the file at git ``HEAD`` (a file not
in ``HEAD`` is new as a whole), or, outside a work tree, from the text at ``didOpen``.
The repositories are made by each test in its temporary folder with ``git`` itself.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from pathlib import Path

import pytest
import pytest_asyncio
from lsprotocol import types
from pytest_lsp import LanguageClient

from support.budget import BUDGET, HEADERS, IN_RETRY_DELAY
from support.gitrepo import committed, git
from support.lsp_pipes import proposes_nothing
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
)

pytestmark = pytest.mark.asyncio(loop_scope="function")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A work tree whose one commit holds ``budget.py``."""
    return committed(tmp_path / "repo", "budget.py", BUDGET).parent


@pytest_asyncio.fixture
async def client(repo: Path) -> AsyncIterator[LanguageClient]:
    started = await start_client(repo, "--workers", "1")
    yield started
    await stop_client(started)


async def nth_publication(
    client: LanguageClient, uri: str, version: int, count: int
) -> types.PublishDiagnosticsParams:
    """The ``count``-th publication of ``version`` of ``uri``, once it has arrived."""
    log: list[types.PublishDiagnosticsParams] = client.published  # type: ignore[attr-defined]
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 30
    while True:
        found = [p for p in log if p.uri == uri and p.version == version]
        if len(found) >= count:
            return found[count - 1]
        arrival = client.protocol.wait_for_notification_async("textDocument/publishDiagnostics")
        await asyncio.wait_for(arrival, max(deadline - loop.time(), 0.01))


def censuses(diagnostics: Sequence[types.Diagnostic]) -> list[int]:
    """The header lines (1-based) of the diagnostics that show a census."""
    return [d.range.start.line + 1 for d in diagnostics if d.data and proposes_nothing(d.data)]


def retry_delay_edited(text: str) -> tuple[str, types.TextDocumentContentChangePartial]:
    old, new = IN_RETRY_DELAY
    at = text.index(old)
    return edit(text, at, at + len(old), new, "utf-16")


async def test_the_census_shows_on_the_edited_function_only(
    client: LanguageClient, repo: Path
) -> None:
    await initialize(client, census=None)
    path = repo / "budget.py"
    uri = path.as_uri()
    open_document(client, uri, BUDGET)
    first = await published(client, uri, 1)
    hints = reference_hints(repo, str(path), BUDGET)
    assert sum(map(proposes_nothing, hints)) == 2  # both census hints are there, neither shown
    assert as_json(first.diagnostics) == expected_diagnostics(hints, BUDGET, "utf-16", False)
    assert censuses(first.diagnostics) == []

    edited, part = retry_delay_edited(BUDGET)
    change(client, uri, 2, [part])
    second = await published(client, uri, 2)
    assert censuses(second.diagnostics) == [HEADERS["retry_delay"]]
    census = next(d for d in second.diagnostics if d.range.start.line + 1 == HEADERS["retry_delay"])
    # On the name, as the budget of the function being written.
    line = edited.splitlines()[HEADERS["retry_delay"] - 1]
    assert line[census.range.start.character : census.range.end.character] == "retry_delay"
    assert census.severity == types.DiagnosticSeverity.Hint
    assert census.message.startswith(
        "1 more decision point stays under warn at 7; now: 2 `if`s (lines 5 and 10), "
        "loop (line 8), `and` (line 10). Cyclomatic complexity 5 in function `retry_delay`"
    )
    # Moves show everywhere; hover still gives every hint of a line.
    assert [d.range.start.line + 1 for d in second.diagnostics] == [4, 28]
    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=types.Position(line=HEADERS["parse_size"] - 1, character=4),
        )
    )
    assert hover is not None and "more decision point" in str(hover.contents)


async def test_a_commit_makes_the_edit_old_code(client: LanguageClient, repo: Path) -> None:
    await initialize(client, census=None)
    path = repo / "budget.py"
    uri = path.as_uri()
    open_document(client, uri, BUDGET)
    await published(client, uri, 1)
    edited, part = retry_delay_edited(BUDGET)
    change(client, uri, 2, [part])
    assert censuses((await published(client, uri, 2)).diagnostics) == [4]

    path.write_text(edited, "utf-8")
    git(repo, "commit", "-q", "-am", "slower back-off")
    client.text_document_did_save(
        types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    # The save is analyzed again: a second publication of version 2.
    last = await nth_publication(client, uri, 2, 2)
    assert censuses(last.diagnostics) == []


async def test_a_file_not_in_head_is_new_code_as_a_whole(
    client: LanguageClient, repo: Path
) -> None:
    await initialize(client, census=None)
    path = repo / "fresh.py"  # untracked, never written: a buffer of a new file
    uri = path.as_uri()
    open_document(client, uri, BUDGET)
    shown = await published(client, uri, 1)
    assert censuses(shown.diagnostics) == [HEADERS["retry_delay"], HEADERS["parse_size"]]


async def test_the_census_is_off_or_everywhere_as_configured(
    client: LanguageClient, repo: Path
) -> None:
    await initialize(client, census="off")
    uri = (repo / "fresh.py").as_uri()
    open_document(client, uri, BUDGET)
    shown = await published(client, uri, 1)
    assert censuses(shown.diagnostics) == []
    assert [d.range.start.line + 1 for d in shown.diagnostics] == [HEADERS["has_negative"]]


async def test_outside_git_new_code_is_what_changed_since_open(tmp_path: Path) -> None:
    folder = tmp_path / "plain"
    folder.mkdir()
    started = await start_client(folder, "--workers", "1")
    try:
        await initialize(started, census=None)
        uri = (folder / "budget.py").as_uri()
        open_document(started, uri, BUDGET)
        assert censuses((await published(started, uri, 1)).diagnostics) == []
        _, part = retry_delay_edited(BUDGET)
        change(started, uri, 2, [part])
        assert censuses((await published(started, uri, 2)).diagnostics) == [4]
    finally:
        await stop_client(started)


async def test_related_places_and_the_link_to_the_rule(client: LanguageClient, repo: Path) -> None:
    await initialize(client, census="all", related=True, hints_url="https://example.org/hints")
    uri = (repo / "budget.py").as_uri()
    open_document(client, uri, BUDGET)
    shown = {d.range.start.line + 1: d for d in (await published(client, uri, 1)).diagnostics}
    census = shown[HEADERS["retry_delay"]]
    assert census.code_description is not None
    assert census.code_description.href == "https://example.org/hints#the-census"
    assert [
        (r.location.range.start.line + 1, r.message) for r in census.related_information or []
    ] == [
        (5, "decision point: `if`"),
        (8, "decision point: loop"),
        (10, "decision point: `if`"),
        (10, "decision point: `and`"),
    ]
    move = shown[HEADERS["has_negative"]]
    assert move.code_description is not None
    assert move.code_description.href == "https://example.org/hints#any-all-next"
    places = [
        (r.location.uri, r.location.range.start.line + 1, r.location.range.end.line + 1, r.message)
        for r in move.related_information or []
    ]
    assert places == [(uri, 29, 32, "what the move changes")]  # the loop and its `return False`
