"""The LSP mode's parts on their own: positions, documents, JSON-RPC decoding, the
lifecycle table, the debounce timers, the hover's pages, and the front end's
scheduling with a service that answers when the test says so."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import msgspec
import pytest

from gzguide.analysis.model import FileReport, Finding
from gzguide.answer import Answer, FileAnswer
from gzguide.freshness import CacheState
from gzguide.guide.messages import Hint, to_hint
from gzguide.lsp import jsonrpc
from gzguide.lsp.actions import Action, Analyze, ReadBaseline, Send
from gzguide.lsp.diagnostics import Presenter
from gzguide.lsp.documents import Document, path_of
from gzguide.lsp.families import hidden_copies, second_hints
from gzguide.lsp.hover import archetype_pages, covering, parse_archetype_pages
from gzguide.lsp.lifecycle import HANDLE, IGNORE, Exit, Lifecycle
from gzguide.lsp.newcode import Baseline
from gzguide.lsp.positions import LineIndex, index_in_line, units_of
from gzguide.lsp.session import LspSession
from gzguide.lsp.timers import Timers
from gzguide.lsp.types import ContentChange, ErrorMessage, Position, Range, encode
from support.paths import DOCS, REPO
from support.protocol_client import load_schema

# == positions =================================================================================

LINE = "aé😀b"  # widths: a 1/1/1, é 2/1/1, 😀 4/2/1, b 1/1/1 (utf-8/utf-16/utf-32)


@pytest.mark.parametrize(
    ("encoding", "character", "index"),
    [
        ("utf-16", 0, 0),
        ("utf-16", 2, 2),
        ("utf-16", 3, 2),  # inside the surrogate pair: the emoji's start
        ("utf-16", 4, 3),
        ("utf-16", 5, 4),
        ("utf-16", 99, 4),  # past the line: its end
        ("utf-8", 1, 1),
        ("utf-8", 2, 1),  # inside é
        ("utf-8", 3, 2),
        ("utf-8", 6, 2),  # inside the emoji
        ("utf-8", 7, 3),
        ("utf-32", 3, 3),
        ("utf-32", 9, 4),
    ],
)
def test_index_in_line(encoding: str, character: int, index: int) -> None:
    assert index_in_line(LINE, character, encoding) == index


def test_units_of() -> None:
    assert [units_of(LINE, e) for e in ("utf-8", "utf-16", "utf-32")] == [8, 5, 4]
    assert units_of("plain", "utf-16") == 5


def test_line_index_line_ends() -> None:
    index = LineIndex("a\r\nbé\rc\n\nd")
    assert [index.line(n) for n in range(index.line_count)] == ["a", "bé", "c", "", "d"]
    assert index.offset(0, 5, "utf-16") == 1  # never inside \r\n
    assert index.offset(1, 2, "utf-8") == 4
    assert index.offset(9, 0, "utf-16") == len(index.text)
    assert index.line_units(1, "utf-8") == 3
    assert LineIndex("").line_count == 1
    assert LineIndex("x\n").line_count == 2


# == documents =================================================================================


def span(a: tuple[int, int], b: tuple[int, int]) -> Range:
    return Range(Position(*a), Position(*b))


def test_changes_apply_in_order() -> None:
    doc = Document("file:///w/a.py", "python", 1, "one\r\ntwo😀\nthree")
    changes = [
        ContentChange("2", span((1, 0), (1, 3))),  # "two" -> "2"
        ContentChange("!", span((1, 3), (1, 3))),  # after "2😀" (utf-16: 1 + 2)
        ContentChange("", span((0, 3), (1, 0))),  # join the first two lines
        ContentChange("X", span((1, 5), (1, 0))),  # a reversed range is the same range
    ]
    doc.apply(2, changes, "utf-16")
    assert doc.text == "one2😀!\nX"
    assert doc.version == 2
    assert doc.data == doc.text.encode()
    doc.apply(3, [ContentChange("new"), ContentChange("!", span((0, 3), (0, 3)))], "utf-8")
    assert doc.text == "new!"
    assert doc.index.line_count == 1


@pytest.mark.parametrize(
    ("uri", "path"),
    [
        ("file:///home/me/na%C3%AFve%20%C3%A9t%C3%A9.py", "/home/me/naïve été.py"),
        ("file://localhost/tmp/x.py", "/tmp/x.py"),
        ("file://server/share/x.py", "//server/share/x.py"),
        ("untitled:Untitled-1", "untitled:Untitled-1"),
    ],
)
def test_path_of(uri: str, path: str) -> None:
    assert path_of(uri) == path


def test_which_documents_are_analyzed() -> None:
    assert Document("file:///a.py", "plaintext", 1, "").analyzed
    assert Document("untitled:1", "python", 1, "").analyzed
    assert not Document("file:///a.txt", "plaintext", 1, "").analyzed


# == JSON-RPC ==================================================================================


def decoded(body: Any) -> Any:
    raw = body if isinstance(body, bytes) else json.dumps(body).encode()
    return jsonrpc.decode(raw)


def error_of(body: Any) -> tuple[Any, int]:
    message = decoded(body)
    assert isinstance(message, ErrorMessage), message
    return message.id, message.error.code


@pytest.mark.parametrize(
    ("body", "answer"),
    [
        (b"\xff{}", (None, -32700)),
        (b'{"id":1,', (None, -32700)),
        (b'{"id":NaN}', (None, -32700)),
        (b'{"id":1,"method":"x","params":"\\ud800"}', (None, -32700)),
        (b"[" * 5000 + b"]" * 5000, (None, -32700)),
        ([1], (None, -32600)),
        ({"id": None, "method": "x"}, (None, -32600)),
        ({"id": 1.5, "method": "x"}, (None, -32600)),
        ({"id": True, "method": "x"}, (None, -32600)),
        ({"id": 3, "method": ""}, (3, -32600)),
        ({"id": "a", "method": 7}, ("a", -32600)),
        ({"method": None}, (None, -32600)),
        ({"id": 4}, (4, -32600)),
        ({}, (None, -32600)),
    ],
)
def test_what_earns_an_error(body: Any, answer: tuple[Any, int]) -> None:
    assert error_of(body) == answer


def test_messages() -> None:
    assert decoded({"jsonrpc": "2.0", "id": 1, "method": "m", "params": {}}) == jsonrpc.Request(
        1, "m", msgspec.Raw(b"{}")
    )
    assert decoded({"method": "n"}) == jsonrpc.Notification("n", None)
    assert decoded({"id": "x", "result": None}) == jsonrpc.ClientResponse("x")
    assert decoded({"id": 2**70, "error": {}}) == jsonrpc.ClientResponse(2**70)


# == the lifecycle table =======================================================================


def test_lifecycle_table() -> None:
    session = Lifecycle(frozenset({"textDocument/hover"}), frozenset({"textDocument/didOpen"}))

    def code(method: str) -> Any:
        gate = session.request(1, method)
        return gate.error.code if isinstance(gate, ErrorMessage) else gate

    assert code("initialize") is HANDLE
    assert code("shutdown") == -32002
    assert code("textDocument/hover") == -32002
    assert session.notification("textDocument/didOpen") is IGNORE
    assert session.exit() == Exit(1)
    session.initialized()
    assert code("initialize") == -32600
    assert code("textDocument/hover") is HANDLE
    assert code("textDocument/definition") == -32601
    assert session.notification("textDocument/didOpen") is HANDLE
    assert session.notification("textDocument/didSomething") is IGNORE
    assert code("shutdown") is HANDLE
    assert session.request(1, "exit") == Exit(1)
    session.shut_down()
    assert code("textDocument/hover") == -32600
    assert code("shutdown") == -32600
    assert session.notification("textDocument/didOpen") is IGNORE
    assert session.request(1, "exit") == Exit(0)
    assert session.notification("exit") == Exit(0)


# == timers ====================================================================================


def test_timers_fire_due_keys_in_deadline_order() -> None:
    fired: list[str] = []
    timers = Timers(fired.append)
    timers.schedule("b", 2.0)
    timers.schedule("a", 1.0)
    timers.schedule("c", 5.0)
    timers.schedule("b", 3.0)  # moved
    assert timers.next_deadline() == 1.0
    assert timers.cancel("c") and not timers.cancel("c")
    timers.tick(2.5)
    assert fired == ["a"]
    timers.tick(3.0)
    assert fired == ["a", "b"]
    assert timers.next_deadline() is None


# == hover pages ===============================================================================


def test_every_archetype_has_a_page() -> None:
    archetypes = load_schema("authoring_hint.schema.json")["properties"]["archetype"]["enum"]
    pages = archetype_pages()
    emitted = [a for a in archetypes if a not in ("divergent_change", "shotgun_surgery")]
    emitted = [a for a in emitted if a != "feature_envy"]
    assert set(emitted) <= set(pages)
    assert all(pages[a] for a in emitted)
    assert not any("never emits" in page for page in pages.values())


def test_pages_are_the_sections_of_the_archetypes_part() -> None:
    text = "# T\n## Metrics\n### radon_cc\nno\n## Archetypes\n### one\nA\n\n"
    text += "### two words\nB\n## Moves\n"
    assert parse_archetype_pages(text) == {"one": "A"}


def hint(start: int, end: int, metric: str = "radon_cc") -> Hint:
    return Hint(metric, "approaching", 5.0, "arrowhead", "h", "m", "f.py", start, end)


def test_covering_is_narrowest_first() -> None:
    outer, inner, other = hint(1, 30), hint(10, 12, "lizard_nloc"), hint(40, 50)
    assert covering([outer, inner, other], 11) == [inner, outer]
    assert covering([outer, inner, other], 35) == []


def test_a_hover_explains_a_smell_and_says_nothing_of_none() -> None:
    """``unclassified`` names no smell: neither its name nor its page is worth a reader's
    time (VS Code's screenshot showed the page under every such hover)."""
    from gzguide.lsp.hover import hover_text

    plain = Hint("radon_cc", "approaching", 5.0, "unclassified", "H", "M", "f.py", 1, 9)
    text = hover_text([plain], markdown=True)
    assert text.startswith("**gzguide** `radon_cc` = 5 (approaching), lines 1-9")
    assert "unclassified" not in text
    assert "### arrowhead" in hover_text([plain, hint(1, 30)], markdown=True)


def test_a_hint_that_proposes_no_change_is_a_quiet_diagnostic() -> None:
    def found(band: str, proposes: bool = True) -> tuple[Finding, Hint]:
        f = Finding("radon_cc", band, 5.0, "unclassified", "H", "M", 1, 2, 0, 18, proposes)
        return f, to_hint(f, "/w/a.py")

    index = LineIndex("def f():\n    pass\n")
    presenter = Presenter("utf-16", "file:///hints.md", related=False)
    shown = [found("approaching"), found("approaching_warn"), found("approaching_warn", False)]
    severities = [presenter.diagnostic(f, h, "file:///w/a.py", index).severity for f, h in shown]
    assert severities == [3, 3, 4]  # Information in either part of the band; Hint: quiet


# == the session, driven with values: no pipe, no clock =======================================


class Driver:
    """Feeds the session messages and analysis answers; keeps what it sends and the
    analyses it asks for (as the shell would carry them out)."""

    def __init__(self) -> None:
        self.session = LspSession()
        self.asked: list[Analyze] = []
        self.sent: list[dict[str, Any]] = []

    def feed(self, actions: list[Action]) -> None:
        for action in actions:
            match action:
                case Send(message=message):
                    self.sent.append(json.loads(encode(message)))
                case Analyze():
                    self.asked.append(action)
                case ReadBaseline(uri=uri):
                    self.session.baseline_read(uri, Baseline(None, "test"))

    def message(self, **message: Any) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        self.feed(self.session.frame(body, 0.0))

    def answer(self, index: int, lines: int = 1) -> None:
        job = self.asked[index]
        finding = Finding("radon_cc", "approaching", 5.0, "arrowhead", "H", "M", 1, lines, 0, 1)
        report = FileReport([finding])
        answer = Answer(job.path, None, (FileAnswer(job.path, report, CacheState.MISS),))
        self.feed(self.session.analyzed(job.uri, job.ticket, answer, 1.0))

    def tick(self) -> None:
        """Every debounce passes."""
        self.feed(self.session.tick(float("inf")))

    def output(self) -> list[dict[str, Any]]:
        out, self.sent = self.sent, []
        return out


@pytest.fixture
def front() -> tuple[Driver, Driver, Callable[[], list[dict[str, Any]]]]:
    driver = Driver()
    return driver, driver, driver.output


def send(server: Driver, **message: Any) -> None:
    server.message(**message)


URI = "file:///w/a.py"


def start(server: Driver) -> None:
    send(server, id=0, method="initialize", params={"capabilities": {}})
    item = {"uri": URI, "languageId": "python", "version": 1, "text": "x = 1\n"}
    send(server, method="textDocument/didOpen", params={"textDocument": item})


def hover(server: Driver, request_id: int) -> None:
    position = {"line": 0, "character": 0}
    send(
        server,
        id=request_id,
        method="textDocument/hover",
        params={"textDocument": {"uri": URI}, "position": position},
    )


def test_a_waiting_hover_is_cancelled_or_answered(front: Any) -> None:
    server, service, output = front
    start(server)
    hover(server, 1)  # waits for the analysis, which it starts at once
    assert len(service.asked) == 1
    send(server, method="$/cancelRequest", params={"id": 1})
    hover(server, 2)  # the same analysis: no second one
    assert len(service.asked) == 1
    service.answer(0)
    messages = output()
    assert [m.get("id") for m in messages] == [0, 1, None, 2]
    assert messages[1]["error"]["code"] == -32800
    assert messages[2]["method"] == "textDocument/publishDiagnostics"
    assert messages[3]["result"]["contents"]["value"].startswith("gzguide radon_cc = 5")


def test_a_stale_result_is_not_published(front: Any) -> None:
    server, service, output = front
    start(server)
    server.tick()  # the debounce passes
    assert len(service.asked) == 1
    change = {"textDocument": {"uri": URI, "version": 2}, "contentChanges": [{"text": "y = 2\n"}]}
    send(server, method="textDocument/didChange", params=change)
    server.tick()
    assert len(service.asked) == 1  # one analysis at a time per document
    service.answer(0)  # for version 1: stale, so version 2 is analyzed now
    assert len(service.asked) == 2 and service.asked[1].data == b"y = 2\n"
    assert [m.get("method") for m in output()] == [None]  # the initialize answer only
    service.answer(1)
    (published,) = output()
    assert published["params"]["version"] == 2


def test_a_change_answers_waiting_requests_content_modified(front: Any) -> None:
    server, service, output = front
    start(server)
    hover(server, 8)
    change = {"textDocument": {"uri": URI, "version": 2}, "contentChanges": [{"text": "z = 3\n"}]}
    send(server, method="textDocument/didChange", params=change)
    messages = output()
    assert [(m.get("id"), m.get("error", {}).get("code")) for m in messages] == [
        (0, None),
        (8, -32801),
    ]
    service.answer(0)  # version 1's result: stale; version 2 is analyzed after its debounce
    assert len(service.asked) == 1
    server.tick()
    assert service.asked[-1].data == b"z = 3\n"


def test_shutdown_cancels_waiting_requests(front: Any) -> None:
    server, service, output = front
    start(server)
    hover(server, 5)
    send(server, id=6, method="shutdown")
    service.answer(0)  # too late: nothing more is sent
    messages = output()
    assert [(m.get("id"), m.get("error", {}).get("code")) for m in messages] == [
        (0, None),
        (5, -32802),
        (6, None),
    ]
    assert messages[2]["result"] is None


def test_closing_answers_waiting_requests(front: Any) -> None:
    server, service, output = front
    start(server)
    hover(server, 7)
    send(server, method="textDocument/didClose", params={"textDocument": {"uri": URI}})
    service.answer(0)
    messages = output()
    assert [m.get("id") for m in messages] == [0, 7, None]
    assert messages[1]["result"] is None
    assert messages[2]["params"] == {"uri": URI, "diagnostics": []}


def test_the_hints_page_ships_with_the_package() -> None:
    shipped = REPO / "src" / "gzguide" / "data" / "hints.md"
    page = DOCS / "hints.md"
    assert shipped.read_text("utf-8") == page.read_text("utf-8")


# == copies shown once ==========================================================================


def copy_hint(line: int, copy: int, kind: str = "copied_function") -> Finding:
    related = ((line, line + 5, "what the move changes"), (copy, copy + 5, "the copy"))
    return Finding(
        "radon_cc",
        "approaching",
        4.0,
        "u",
        "H",
        "M",
        line,
        line + 5,
        0,
        1,
        True,
        kind,
        True,
        related,
    )


def test_copies_are_shown_on_their_first_member() -> None:
    """A fresh review: pathlib's seven stat predicates drew seven diagnostics for one
    change to make; a later one counted each mirrored pair's second hint as noise."""
    family = [copy_hint(10, 20), copy_hint(20, 10), copy_hint(30, 10)]
    assert hidden_copies(family) == {family[1], family[2]}
    pair = [copy_hint(40, 50), copy_hint(50, 40)]
    assert hidden_copies(family + pair) == {family[1], family[2], pair[1]}
    assert hidden_copies([pair[0], copy_hint(60, 5, kind="extract")]) == set()


def test_a_definition_shows_one_hint_that_proposes_a_change() -> None:
    """A nesting hint beside a complexity hint of one function read as a duplicate (a
    fresh review's fire ``docstrings``): the complexity hint is kept, else the first;
    a census, a module hint and other definitions are left alone."""
    nesting = msgspec.structs.replace(copy_hint(10, 20, kind="else_if"), metric="x_nesting")
    complexity = copy_hint(10, 20, kind="merge_ifs")
    assert second_hints([nesting, complexity]) == {nesting}
    assert second_hints([complexity, nesting]) == {nesting}
    census = msgspec.structs.replace(complexity, proposes=False, kind="census")
    assert second_hints([nesting, census]) == set()
    module = msgspec.structs.replace(nesting, definition=False)
    assert second_hints([module, msgspec.structs.replace(module, metric="y")]) == set()
    elsewhere = msgspec.structs.replace(complexity, start_line=30, end_line=35)
    assert second_hints([complexity, elsewhere]) == set()
    two_others = [nesting, msgspec.structs.replace(nesting, metric="lizard_ccn")]
    assert second_hints(two_others) == {two_others[1]}
