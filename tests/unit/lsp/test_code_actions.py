"""Code actions, through the session driven with values: the fixes are worked out for
real (in-process) when the test says so, as the shell's fix runner would."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gzguide.analysis.fixes.document import DocumentFixes, document_fixes
from gzguide.analysis.fixes.edits import apply_edits
from gzguide.analysis.policy.thresholds import default_thresholds
from gzguide.lsp.actions import Action, Analyze, ComputeFixes, Send
from gzguide.lsp.codeactions import whole_change
from gzguide.lsp.positions import LineIndex
from gzguide.lsp.session import LspSession
from gzguide.lsp.types import encode
from support.fixable import FIXED, SEARCH, YIELDS

URI = "file:///w/m.py"

#: Another function with a search loop, not a copy of the first.
OTHER_SEARCH = """\
def first_long(names, limit, log):
    if log:
        log.write("looking")
    if limit is None:
        limit = 10
    for name in names:
        if len(name) > limit:
            return True
    return False
"""
LITERALS = {"codeActionLiteralSupport": {"codeActionKind": {"valueSet": ["quickfix", "source"]}}}


class Driver:
    """Feeds the session; keeps what it sends and the fix work it asks for, which the
    test carries out (:meth:`work`) when it wants."""

    def __init__(self) -> None:
        self.session = LspSession()
        self.sent: list[dict[str, Any]] = []
        self.jobs: list[ComputeFixes] = []

    def feed(self, actions: list[Action]) -> None:
        for action in actions:
            match action:
                case Send(message=message):
                    self.sent.append(json.loads(encode(message)))
                case ComputeFixes():
                    self.jobs.append(action)
                case Analyze():
                    pass  # code actions do not wait for the diagnostics

    def message(self, **message: Any) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        self.feed(self.session.frame(body, 0.0))

    def start(self, text: str, **init: Any) -> None:
        caps = init.pop("capabilities", {"textDocument": {"codeAction": LITERALS}})
        self.message(id=0, method="initialize", params={"capabilities": caps, **init})
        item = {"uri": URI, "languageId": "python", "version": 1, "text": text}
        self.message(method="textDocument/didOpen", params={"textDocument": item})
        self.output()

    def ask(self, request_id: int, line: int = 0, only: list[str] | None = None) -> None:
        spot = {"line": line, "character": 6}
        context: dict[str, Any] = {"diagnostics": []}
        if only is not None:
            context["only"] = only
        params = {"textDocument": {"uri": URI}, "range": {"start": spot, "end": spot}}
        self.message(
            id=request_id, method="textDocument/codeAction", params=params | {"context": context}
        )

    def work(self, index: int = -1) -> None:
        job = self.jobs[index]
        fixes: DocumentFixes = document_fixes(job.text, default_thresholds(), job.unsafe)
        self.feed(self.session.fixes_ready(job.uri, job.ticket, fixes, 1.0))

    def change(self, version: int, text: str) -> None:
        params = {
            "textDocument": {"uri": URI, "version": version},
            "contentChanges": [{"text": text}],
        }
        self.message(method="textDocument/didChange", params=params)

    def output(self) -> list[dict[str, Any]]:
        out, self.sent = self.sent, []
        return out

    def actions(self, request_id: int) -> list[dict[str, Any]]:
        (answer,) = [m for m in self.output() if m.get("id") == request_id]
        result: list[dict[str, Any]] = answer["result"]
        return result


def apply(text: str, edits: list[dict[str, Any]]) -> str:
    """``text`` with LSP ``edits`` (UTF-16 positions, ASCII text here) made, last first."""
    index = LineIndex(text)
    spans = []
    for edit in edits:
        start, end = edit["range"]["start"], edit["range"]["end"]
        first = index.offset(start["line"], start["character"], "utf-16")
        last = index.offset(end["line"], end["character"], "utf-16")
        spans.append((first, last, edit["newText"]))
    for first, last, new in sorted(spans, reverse=True):
        text = text[:first] + new + text[last:]
    return text


def edits_of(action: dict[str, Any]) -> list[dict[str, Any]]:
    edit = action["edit"]
    if "documentChanges" in edit:
        (change,) = edit["documentChanges"]
        edits: list[dict[str, Any]] = change["edits"]
        return edits
    return list(edit["changes"][URI])


@pytest.fixture
def driver() -> Driver:
    return Driver()


def test_a_code_action_waits_for_the_fixes_then_they_are_kept(driver: Driver) -> None:
    driver.start(SEARCH)
    driver.ask(1)
    assert len(driver.jobs) == 1 and driver.output() == []  # waiting for the work
    driver.work()
    (action,) = driver.actions(1)
    assert action["title"] == "Use any(): radon_cc 5 -> 4"
    assert (action["kind"], action["isPreferred"]) == ("quickfix", True)
    assert action["diagnostics"][0]["code"] == "radon_cc"
    assert action["diagnostics"][0]["range"]["start"] == {"line": 0, "character": 4}
    assert apply(SEARCH, edits_of(action)) == FIXED
    driver.ask(2, line=6)  # on the loop the fix replaces: the same fix, worked out once
    assert len(driver.jobs) == 1
    assert [a["title"] for a in driver.actions(2)] == ["Use any(): radon_cc 5 -> 4"]


def test_a_range_away_from_the_hint_gets_no_quick_fix(driver: Driver) -> None:
    driver.start(SEARCH)
    driver.ask(1, line=2)  # `print(ys)`: neither the name nor the code the fix changes
    driver.work()
    assert driver.actions(1) == []


def test_a_change_while_waiting_is_content_modified(driver: Driver) -> None:
    driver.start(SEARCH)
    driver.ask(1)
    driver.change(2, YIELDS)
    (answer,) = driver.output()
    assert (answer["id"], answer["error"]["code"]) == (1, -32801)
    driver.work()  # the work on version 1 ends: nobody waits, nothing is sent
    assert driver.output() == []
    driver.ask(2)  # version 2: worked out anew
    assert len(driver.jobs) == 2 and driver.jobs[1].text == YIELDS


def test_fixes_are_kept_for_their_version_only(driver: Driver) -> None:
    driver.start(SEARCH)
    driver.ask(1)
    driver.work()
    assert len(driver.actions(1)) == 1
    driver.change(2, OTHER_SEARCH)
    driver.ask(2)  # the fixes of version 1 are not this text's: worked out anew
    assert len(driver.jobs) == 2 and driver.output() == []
    driver.work()
    (action,) = driver.actions(2)
    assert "any(len(name) > limit" in apply(OTHER_SEARCH, edits_of(action))


def test_fixes_of_an_outdated_text_are_not_offered(driver: Driver) -> None:
    driver.start(SEARCH)
    driver.ask(1)
    driver.message(method="textDocument/didSave", params={"textDocument": {"uri": URI}})
    driver.work(0)  # of the state before the save: worked out again for the waiting request
    assert len(driver.jobs) == 2 and driver.output() == []
    driver.work(1)
    assert len(driver.actions(1)) == 1


def test_fix_all_is_asked_for_by_kind(driver: Driver) -> None:
    driver.start(SEARCH)
    driver.ask(1, only=["source"])
    driver.work()
    (action,) = driver.actions(1)
    assert (action["kind"], action["title"]) == (
        "source.fixAll.gzguide",
        "Make the safe gzguide fix",
    )
    assert apply(SEARCH, edits_of(action)) == FIXED
    driver.ask(2, only=["quickfix"])
    assert [a["kind"] for a in driver.actions(2)] == ["quickfix"]


def test_fix_all_joins_the_quick_fixes_when_it_does_more(driver: Driver) -> None:
    twice = SEARCH + "\n\n" + OTHER_SEARCH
    driver.start(twice)
    driver.ask(1)
    driver.work()
    kinds = [(a["kind"], a["title"]) for a in driver.actions(1)]
    assert kinds == [
        ("quickfix", "Use any(): radon_cc 5 -> 4"),
        ("source.fixAll.gzguide", "Make the 2 safe gzguide fixes"),
    ]
    # On a line no fix touches, fix-all alone would read as that line's fix: a reviewer
    # took it for one, and it edited other functions.
    driver.ask(2, line=2)
    assert driver.actions(2) == []
    driver.ask(3, line=2, only=["source.fixAll"])  # asked for by kind: offered anywhere
    assert [a["kind"] for a in driver.actions(3)] == ["source.fixAll.gzguide"]


#: Two `else:` + `if` pairs in one function (fire's `_consume_google_args_line`): two
#: fixes of the same words, each on a hint of its own.
TWO_ELIFS = """\
def consume(line_info, state):
    split_line = line_info.remaining.split(':', 1)
    if len(split_line) > 1:
        first, second = split_line
        if is_arg_name(first.strip()):
            arg = get_arg(state, first.strip())
            arg.description.lines.append(second.strip())
            state.current_arg = arg
        else:
            arg_name_and_type = as_arg_name_and_type(first)
            if arg_name_and_type:
                arg_name, type_str = arg_name_and_type
                arg = get_arg(state, arg_name)
                arg.type.lines.append(type_str)
                arg.description.lines.append(second.strip())
                state.current_arg = arg
            else:
                if state.current_arg:
                    state.current_arg.description.lines.append(split_line[0])
    else:
        if state.current_arg:
            state.current_arg.description.lines.append(split_line[0])
"""


def test_fixes_of_the_same_words_say_where_each_is(driver: Driver) -> None:
    # A reviewer could not tell two "Use elif: lizard_nloc 22 -> 21" apart.
    driver.start(TWO_ELIFS)
    driver.ask(1)
    driver.work()
    titles = [a["title"] for a in driver.actions(1) if a["kind"] == "quickfix"]
    assert len(titles) == 2 and len(set(titles)) == 2
    assert all(t.startswith("Use elif on line ") for t in titles)


def test_unsafe_fixes_only_when_asked_for(driver: Driver) -> None:
    driver.start(YIELDS)
    driver.ask(1, line=5)
    driver.work()
    assert driver.actions(1) == []
    other = Driver()
    other.start(YIELDS, initializationOptions={"unsafeFixes": True})
    other.ask(1, line=5)
    other.work()
    (action,) = other.actions(1)
    assert action["title"].endswith("(unsafe)") and action["isPreferred"] is False
    assert "yield from xs" in apply(YIELDS, edits_of(action))


def test_the_edit_names_the_version_when_the_client_takes_it(driver: Driver) -> None:
    caps = {
        "textDocument": {"codeAction": LITERALS},
        "workspace": {"workspaceEdit": {"documentChanges": True}},
    }
    driver.start(SEARCH, capabilities=caps)
    driver.change(3, SEARCH)
    driver.ask(1)
    driver.work()
    (action,) = driver.actions(1)
    (change,) = action["edit"]["documentChanges"]
    assert change["textDocument"] == {"uri": URI, "version": 3}


def test_no_code_actions_for_a_client_without_literals(driver: Driver) -> None:
    driver.message(id=0, method="initialize", params={"capabilities": {}})
    (answer,) = driver.output()
    assert "codeActionProvider" not in answer["result"]["capabilities"]
    item = {"uri": URI, "languageId": "python", "version": 1, "text": SEARCH}
    driver.message(method="textDocument/didOpen", params={"textDocument": item})
    driver.ask(1)
    assert driver.jobs == [] and driver.actions(1) == []


def test_closing_answers_a_waiting_code_action(driver: Driver) -> None:
    driver.start(SEARCH)
    driver.ask(1)
    driver.message(method="textDocument/didClose", params={"textDocument": {"uri": URI}})
    assert driver.actions(1) == []
    driver.work()
    assert [m.get("method") for m in driver.output()] == []


def test_a_cancelled_code_action_is_answered_once(driver: Driver) -> None:
    driver.start(SEARCH)
    driver.ask(1)
    driver.message(method="$/cancelRequest", params={"id": 1})
    (answer,) = driver.output()
    assert answer["error"]["code"] == -32800
    driver.work()
    assert driver.output() == []


@pytest.mark.parametrize(
    ("old", "new", "start", "end", "text"),
    [
        ("a\nb\nc\n", "a\nB\nc\n", (1, 0), (1, 1), "B"),
        ("a\r\nb\r\n", "a\nb\r\n", (0, 1), (1, 0), "\n"),  # never between \r and \n
        ("x\n", "x\n", (1, 0), (1, 0), ""),
        ("é😀b\n", "é😀c\n", (0, 3), (0, 4), "c"),  # UTF-16 units: é 1, 😀 2
    ],
)
def test_whole_change_replaces_only_what_differs(
    old: str, new: str, start: tuple[int, int], end: tuple[int, int], text: str
) -> None:
    edit = whole_change(LineIndex(old), new, "utf-16")
    assert (edit.range.start.line, edit.range.start.character) == start
    assert (edit.range.end.line, edit.range.end.character) == end
    assert edit.newText == text
    index = LineIndex(old)
    first = index.offset(*start, "utf-16")
    last = index.offset(*end, "utf-16")
    assert old[:first] + text + old[last:] == new


# == random code actions on random edits ======================================================

TEXTS = [SEARCH, YIELDS, OTHER_SEARCH, SEARCH + "\n\n" + OTHER_SEARCH, "def broken(:\n", ""]
STEP = st.one_of(
    st.tuples(st.just("change"), st.sampled_from(TEXTS)),
    st.tuples(st.just("ask"), st.integers(0, 12)),
    st.tuples(st.just("work"), st.integers(0, 3)),
    st.tuples(st.just("save"), st.none()),
)
CHANGES_CAPS = {
    "textDocument": {"codeAction": LITERALS},
    "workspace": {"workspaceEdit": {"documentChanges": True}},
}


class Editor:
    """A client and the fix runner, both as the test decides: what the session sends is
    checked against the text the client holds when it arrives."""

    def __init__(self) -> None:
        self.driver = Driver()
        self.driver.start(SEARCH, capabilities=CHANGES_CAPS)
        self.version, self.text, self.ids = 1, SEARCH, 0
        self.pending: list[ComputeFixes] = []

    def step(self, kind: str, value: Any) -> None:
        driver = self.driver
        if kind == "change":
            self.version += 1
            self.text = value
            driver.change(self.version, value)
        elif kind == "ask":
            self.ids += 1
            driver.ask(self.ids, line=value)
        elif kind == "save":
            driver.message(method="textDocument/didSave", params={"textDocument": {"uri": URI}})
        self._run_jobs(value if kind == "work" else None)
        self._check(driver.output())

    def _run_jobs(self, which: int | None) -> None:
        self.pending.extend(self.driver.jobs)
        self.driver.jobs = []
        if which is not None and self.pending:
            job = self.pending.pop(which % len(self.pending))
            fixes = document_fixes(job.text, default_thresholds(), job.unsafe)
            self.driver.feed(self.driver.session.fixes_ready(job.uri, job.ticket, fixes, 1.0))

    def _check(self, sent: list[dict[str, Any]]) -> None:
        for message in sent:
            assert "error" not in message or message["error"]["code"] in (-32800, -32801)
            actions = message.get("result") or []
            made = self._made_now() if actions else {}
            for action in actions:
                (change,) = action["edit"]["documentChanges"]
                assert change["textDocument"]["version"] == self.version
                # What the fix makes of the text the client holds now: never a stale edit.
                assert apply(self.text, change["edits"]) in made[action["title"]]

    def _made_now(self) -> dict[str, set[str]]:
        """What the actions of the current text make of it, by title."""
        fixes = document_fixes(self.text, default_thresholds())
        made: dict[str, set[str]] = {}
        for offered in fixes.offers:
            made.setdefault(offered.summary, set()).add(apply_edits(self.text, offered.fix.edits))
        if fixes.fixed is not None:
            count = fixes.fixed_count
            title = (
                f"Make the {count} safe gzguide fixes" if count > 1 else "Make the safe gzguide fix"
            )
            made[title] = {fixes.fixed}
        return made


@settings(max_examples=150, deadline=None, derandomize=True)
@given(st.lists(STEP, max_size=14))
def test_random_code_actions_on_random_edits(steps: list[tuple[str, Any]]) -> None:
    editor = Editor()
    for kind, value in steps:
        editor.step(kind, value)
    while editor.pending or editor.driver.jobs:  # the runner finishes: every request answered
        editor.step("work", 0)
    assert not editor.driver.session._waiting
