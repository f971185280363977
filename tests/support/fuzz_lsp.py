"""The fuzz run in LSP mode: a model of the LSP lifecycle, LSP messages among the garbage,
and the driver that compares a real ``--lsp`` server with the model.

**The model** (:func:`classify_lsp`) judges one complete body from the contract's LSP
table and JSON-RPC 2.0 alone (it imports nothing from ``gzguide``); the framing
around bodies is :func:`support.fuzz_model.run_model`'s, the same as for the other mode.
Session states are ``"new"``, ``"running"`` and ``"shut_down"``. The params rules
the model restates are docs/lsp.md's: params must be an object; a field of the
wrong JSON type is ``-32602`` (an integer is never a float or a boolean; unknown
fields are ignored); ``initializationOptions.debounceMs`` is 0 to 60,000. Requests
about documents name URIs that are never opened (``hover`` is ``null``, a pull an
empty full report), so every answer is known without analysis; the documents the
streams do open get diagnostics pushed, which the driver checks apart (every
notification must be a ``publishDiagnostics`` of an opened URI). Integers past 64
bits inside params are outside what the model judges.

**Streams** mix LSP requests and notifications (valid and not), the authoring-guide
protocol's own requests (just unknown methods here, or an LSP ``initialize``), and
every garbage unit of :mod:`support.fuzz_strategies`.
"""

from __future__ import annotations

import contextlib
import dataclasses
import enum
import functools
import itertools
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from support.fuzz_model import (
    ABSENT,
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    PARSE_ERROR,
    Ending,
    Expected,
    ModelRun,
    Session,
    Verdict,
    _BadJSON,
    _Unspecified,
    describe_stream,
    is_id,
    parse_json,
    realignment,
    run_model,
)
from support.fuzz_strategies import (
    EOF_TAILS,
    FuzzStream,
    Raw,
    bad_sections,
    encode_json,
    framed,
    huge_frames,
    invalid_bodies,
    limit_frames,
    random_objects,
    raw_garbage,
    request_bodies,
    request_object,
    short_text,
    text_styles,
    valid_ids,
    write_cuts,
    write_in_pieces,
)
from support.fuzz_workspace import TEXTS
from support.lsp_pipes import LspProcess, initialize_params, lsp_message
from support.protocol_client import Response, ServerFailure, frame

SERVER_NOT_INITIALIZED = -32002
NEW, RUNNING, SHUT_DOWN = "new", "running", "shut_down"
EMPTY_REPORT = {"resultId": "0", "items": [], "kind": "full"}

#: Documents the streams open (and never ask about) and URIs they ask about (never opened).
OPENED = ["file:///fuzz/opened.py", "file:///fuzz/caf%C3%A9.py", "untitled:fuzz-1"]
ASKED = ["file:///fuzz/never.py", "file:///fuzz/other.py", "untitled:never"]

# == the model ==============================================================================


def _int(value: Any, low: int | None = None, high: int | None = None) -> bool:
    if type(value) is not int:
        return False
    if abs(value) >= 2**63:
        raise _Unspecified(f"integer {value} past 64 bits in params")
    return (low is None or value >= low) and (high is None or value <= high)


def _opt(obj: dict[str, Any], key: str, check: Any) -> bool:
    """``obj[key]`` absent, null, or passing ``check``."""
    return key not in obj or obj[key] is None or check(obj[key])


def _strings(value: Any) -> bool:
    return type(value) is list and all(type(v) is str for v in value)


def _object(value: Any, *checks: tuple[str, Any, bool]) -> bool:
    """An object whose keys pass their checks (required ones present and not null)."""
    if type(value) is not dict:
        return False
    for key, check, required in checks:
        if required:
            if key not in value or not check(value[key]):
                return False
        elif not _opt(value, key, check):
            return False
    return True


def _document(value: Any) -> bool:
    return _object(value, ("uri", lambda v: type(v) is str, True))


def _position(value: Any) -> bool:
    return _object(
        value,
        ("line", lambda v: _int(v, 0), True),
        ("character", lambda v: _int(v, 0), True),
    )


def hover_ok(params: Any) -> bool:
    return _object(params, ("textDocument", _document, True), ("position", _position, True))


def diagnostic_ok(params: Any) -> bool:
    return _object(
        params,
        ("textDocument", _document, True),
        ("identifier", lambda v: type(v) is str, False),
        ("previousResultId", lambda v: type(v) is str, False),
    )


def _range(value: Any) -> bool:
    return _object(value, ("start", _position, True), ("end", _position, True))


def _context(value: Any) -> bool:
    return _object(
        value,
        ("diagnostics", lambda v: type(v) is list, False),
        ("only", lambda v: v is None or _strings(v), False),
    )


def code_action_ok(params: Any) -> bool:
    return _object(
        params,
        ("textDocument", _document, True),
        ("range", _range, True),
        ("context", _context, False),
    )


def _hover_caps(value: Any) -> bool:
    return _object(value, ("contentFormat", _strings, False))


def _publish_caps(value: Any) -> bool:
    return _object(value, ("relatedInformation", lambda v: type(v) is bool, False))


def _text_document_caps(value: Any) -> bool:
    return _object(
        value,
        ("hover", _hover_caps, False),
        ("publishDiagnostics", _publish_caps, False),
        ("diagnostic", lambda v: type(v) is dict, False),
    )


def _general_caps(value: Any) -> bool:
    return _object(value, ("positionEncodings", _strings, False))


def _capabilities(value: Any) -> bool:
    """An object when present (the field has a default, and null is not one)."""
    return _object(
        value, ("general", _general_caps, False), ("textDocument", _text_document_caps, False)
    )


def _options(value: Any) -> bool:
    return _object(
        value,
        ("debounceMs", lambda v: _int(v, 0, 60_000), False),
        ("census", lambda v: v in ("new", "all", "off"), False),
        ("hintsUrl", lambda v: type(v) is str, False),
    )


def initialize_ok(params: Any) -> bool:
    return _object(
        params,
        ("processId", _int, False),
        ("rootUri", lambda v: type(v) is str, False),
        ("initializationOptions", _options, False),
    ) and ("capabilities" not in params or _capabilities(params["capabilities"]))


def negotiated(params: dict[str, Any]) -> tuple[str, bool]:
    """The position encoding and the pull model an initialize with ``params`` settles."""
    caps = params.get("capabilities") or {}
    offered = (caps.get("general") or {}).get("positionEncodings") or []
    encoding = "utf-8" if "utf-8" in offered else "utf-32" if "utf-32" in offered else "utf-16"
    pull = (caps.get("textDocument") or {}).get("diagnostic") is not None
    return encoding, pull


@functools.lru_cache(maxsize=512)
def classify_lsp(body: bytes, phase: str) -> Verdict:
    """The answer the LSP table assigns to one complete body in ``phase``."""
    try:
        message = parse_json(body)
    except _BadJSON as exc:
        return Verdict(Expected(None, PARSE_ERROR, str(exc)), phase)
    if type(message) is not dict:
        return Verdict(Expected(None, INVALID_REQUEST, "not an object"), phase)
    if "id" in message and not is_id(message["id"]):
        return Verdict(Expected(None, INVALID_REQUEST, f"id {message['id']!r}"), phase)
    request_id = message.get("id")
    if "method" not in message:
        if request_id is not None and ("result" in message or "error" in message):
            return Verdict(None, phase)  # a client's response: dropped
        return Verdict(Expected(request_id, INVALID_REQUEST, "no method"), phase)
    method = message["method"]
    if type(method) is not str or not method:
        return Verdict(Expected(request_id, INVALID_REQUEST, f"method {method!r}"), phase)
    if method == "exit":
        return Verdict(None, phase, 0 if phase == SHUT_DOWN else 1)
    if request_id is None:
        return Verdict(None, phase)  # notifications are never answered
    return _request(request_id, method, message.get("params", ABSENT), phase)


def _request(request_id: int | str, method: str, params: Any, phase: str) -> Verdict:
    def answer(code: int | None, why: str, result: Any = None) -> Expected:
        return Expected(request_id, code, why, result)

    if phase == NEW:
        if method != "initialize":
            return Verdict(answer(SERVER_NOT_INITIALIZED, f"{method} before initialize"), phase)
        if not initialize_ok(params):
            return Verdict(answer(INVALID_PARAMS, f"initialize {params!r}"), phase)
        return Verdict(answer(None, "initialize", ("initialize", *negotiated(params))), RUNNING)
    if phase == SHUT_DOWN:
        return Verdict(answer(INVALID_REQUEST, f"{method} after shutdown"), phase)
    if method == "initialize":
        return Verdict(answer(INVALID_REQUEST, "initialize again"), phase)
    if method == "shutdown":
        return Verdict(answer(None, "shutdown", ("null",)), SHUT_DOWN)
    if method == "textDocument/hover":
        ok = hover_ok(params)
        return Verdict(answer(None if ok else INVALID_PARAMS, "hover", ("null",)), phase)
    if method == "textDocument/diagnostic":
        ok = diagnostic_ok(params)
        return Verdict(answer(None if ok else INVALID_PARAMS, "pull", ("report",)), phase)
    if method == "textDocument/codeAction":
        ok = code_action_ok(params)
        return Verdict(answer(None if ok else INVALID_PARAMS, "code actions", ("empty",)), phase)
    return Verdict(answer(METHOD_NOT_FOUND, f"method {method!r}"), phase)


def run_lsp_model(stream: bytes, phase: str) -> ModelRun:
    return run_model(stream, phase, classify_lsp)


def phase_of(session: Session) -> str:
    """The LSP phase a record shared with the other mode's model holds (never None here)."""
    assert session is not None
    return session


def sync_code(phase: str) -> int:
    """What an unknown request is answered with in ``phase``."""
    return {NEW: SERVER_NOT_INITIALIZED, RUNNING: METHOD_NOT_FOUND}.get(phase, INVALID_REQUEST)


def mismatches(expected: list[Expected], got: list[Response]) -> list[str]:
    problems = []
    for index, (want, have) in enumerate(itertools.zip_longest(expected, got)):
        if want is None:
            problems.append(f"#{index}: unexpected response {have.message}")
        elif have is None:
            problems.append(f"#{index}: missing response: {want.describe()}")
        else:
            problem = _mismatch(want, have)
            if problem:
                problems.append(
                    f"#{index}: {problem}; wanted {want.describe()}, got {have.message}"
                )
    return problems


def _mismatch(want: Expected, have: Response) -> str | None:
    if type(have.id) is not type(want.id) or have.id != want.id:
        return "wrong id"
    if want.code is not None:
        return None if have.code == want.code else "wrong answer"
    if "result" not in have.message:
        return "an error where a result was owed"
    assert isinstance(want.result, tuple)
    kind = want.result[0]
    result = have.result
    if kind == "null":
        return None if result is None else "not null"
    if kind == "report":
        return None if result == EMPTY_REPORT else "not an empty full report"
    if kind == "empty":
        return None if result == [] else "not an empty list"
    _, encoding, pull = want.result
    caps = result["capabilities"]
    if caps["positionEncoding"] != encoding:
        return "wrong position encoding"
    if ("diagnosticProvider" in caps) != pull:
        return "wrong pull model"
    return None if result["serverInfo"]["name"] == "gzguide" else "wrong serverInfo"


def notification_problems(notes: list[dict[str, Any]]) -> list[str]:
    """What is wrong with the notifications read: only diagnostics of opened documents."""
    problems = []
    for note in notes:
        params = note.get("params") or {}
        if note.get("method") != "textDocument/publishDiagnostics":
            problems.append(f"an unexpected notification {note}")
        elif params.get("uri") not in OPENED or not isinstance(params.get("diagnostics"), list):
            problems.append(f"diagnostics nobody could want: {note}")
    return problems


# == strategies =================================================================================

ENCODINGS = ["utf-8", "utf-16", "utf-32", "utf-7", "", "UTF-8"]
BAD_NUMBERS: list[Any] = [-1, 1.5, True, "3", None, Raw("1.0"), Raw("1e2"), [0]]
UNKNOWN_LSP = ["textDocument/definition", "workspace/symbol", "$/gzguide", "Shutdown"]
UNKNOWN_LSP += ["initialize ", "textDocument/Hover", "analyze", "exit ", "\u00e9", "shutdown\u0000"]


@st.composite
def initialize_objects(draw: st.DrawFn) -> Any:
    kind = draw(st.integers(0, 5))
    if kind == 0:
        return draw(st.sampled_from([ABSENT, None, [], "x", Raw("[{}]"), {}]))
    params: dict[str, Any] = {}
    if draw(st.booleans()):
        params["processId"] = draw(st.sampled_from([None, 1234, 0, *BAD_NUMBERS]))
    if draw(st.booleans()):
        params["rootUri"] = draw(st.sampled_from([None, "file:///fuzz", 5]))
    caps: Any = {}
    if draw(st.booleans()):
        encodings = draw(st.lists(st.sampled_from(ENCODINGS), max_size=3))
        caps["general"] = draw(st.sampled_from([{"positionEncodings": encodings}, None, 5]))
    if draw(st.booleans()):
        text: Any = {"hover": {"contentFormat": draw(st.sampled_from([["markdown"], [], [3]]))}}
        if draw(st.booleans()):
            text["diagnostic"] = draw(st.sampled_from([{}, {"dynamicRegistration": True}, None, 1]))
        caps["textDocument"] = draw(st.sampled_from([text, text, None, []]))
    if kind >= 2:
        params["capabilities"] = draw(st.sampled_from([caps, caps, None, "all"]))
    if kind >= 3:
        debounce = draw(st.sampled_from([0, 150, 60_000, 60_001, *BAD_NUMBERS]))
        params["initializationOptions"] = draw(
            st.sampled_from(
                [
                    {"debounceMs": debounce},
                    {"debounceMs": 0, "x": 1},
                    {"census": "off"},
                    {"census": "some"},
                    None,
                    7,
                ]
            )
        )
    if draw(st.integers(0, 4)) == 0:
        params["clientInfo"] = {"name": draw(short_text)}
    return params


@st.composite
def document_params(draw: st.DrawFn, valid: bool) -> Any:
    uri = draw(st.sampled_from(ASKED))
    if not valid:
        return draw(
            st.sampled_from(
                [
                    ABSENT,
                    None,
                    {},
                    {"textDocument": {}},
                    {"textDocument": {"uri": 5}, "position": {"line": 0, "character": 0}},
                    {"textDocument": {"uri": uri}, "position": {"line": -1, "character": 0}},
                    {"textDocument": {"uri": uri}, "position": {"line": 1.5, "character": 0}},
                    {"textDocument": {"uri": uri}, "position": {"line": 0}},
                    {"textDocument": {"uri": uri}, "previousResultId": 3},
                    {"textDocument": uri},
                ]
            )
        )
    line, character = draw(st.integers(0, 500)), draw(st.integers(0, 200))
    params = {"textDocument": {"uri": uri}, "position": {"line": line, "character": character}}
    if draw(st.booleans()):
        params["previousResultId"] = draw(st.sampled_from(["0", "1", None]))
    return params


@st.composite
def code_action_params(draw: st.DrawFn) -> Any:
    """Code action params, valid or not, about a document never opened."""
    uri = draw(st.sampled_from(ASKED))
    spot = {"line": draw(st.integers(0, 500)), "character": draw(st.integers(0, 200))}
    valid: dict[str, Any] = {"textDocument": {"uri": uri}, "range": {"start": spot, "end": spot}}
    context = draw(
        st.sampled_from(
            [ABSENT, {}, {"diagnostics": []}, {"only": ["quickfix"]}, {"only": None}, {"only": [3]}]
        )
    )
    if context is not ABSENT:
        valid["context"] = context
    bad = [
        ABSENT,
        None,
        {},
        {"textDocument": {"uri": uri}},
        {"textDocument": {"uri": uri}, "range": spot},
    ]
    return draw(st.sampled_from([valid, valid, valid, *bad]))


@st.composite
def notification_objects(draw: st.DrawFn) -> dict[str, Any]:
    uri = draw(st.sampled_from(OPENED))
    version = draw(st.integers(0, 10**6))
    kind = draw(st.integers(0, 9))
    text = draw(st.sampled_from(TEXTS))
    params: Any  # a notification's params may be anything, valid or not
    if kind <= 1:
        item = {"uri": uri, "languageId": "python", "version": version, "text": text}
        method, params = "textDocument/didOpen", {"textDocument": item}
    elif kind <= 3:
        start = {"line": draw(st.integers(0, 40)), "character": draw(st.integers(0, 30))}
        change: dict[str, Any] = {"text": text if kind == 2 else draw(short_text)}
        if kind == 3:
            change["range"] = {"start": start, "end": start}
        params = {"textDocument": {"uri": uri, "version": version}, "contentChanges": [change]}
        method = "textDocument/didChange"
    elif kind == 4:
        method, params = "textDocument/didClose", {"textDocument": {"uri": uri}}
    elif kind == 5:
        method, params = "textDocument/didSave", {"textDocument": {"uri": uri}}
    elif kind == 6:
        method = draw(st.sampled_from(["$/cancelRequest", "$/setTrace", "initialized"]))
        params = draw(st.sampled_from([{"id": 1}, {"value": "verbose"}, {}, {"id": None}]))
    elif kind == 7:
        method, params = draw(st.sampled_from(UNKNOWN_LSP)), {}
    else:  # a known notification with params that do not fit: ignored
        method = draw(st.sampled_from(["textDocument/didOpen", "textDocument/didChange"]))
        params = draw(st.sampled_from([None, [], {"textDocument": {"uri": uri}}, 5]))
    return draw(request_object(method, params, ABSENT))


@st.composite
def lsp_bodies(draw: st.DrawFn) -> bytes:
    """One LSP message body: requests and notifications, valid or not, and client responses."""
    kind = draw(st.integers(0, 13))
    request_id = draw(valid_ids)
    if kind == 0:
        obj = draw(request_object("initialize", draw(initialize_objects()), request_id))
    elif kind <= 2:
        params = draw(document_params(draw(st.integers(0, 3)) > 0))
        obj = draw(request_object("textDocument/hover", params, request_id))
    elif kind == 3:
        params = draw(document_params(draw(st.integers(0, 3)) > 0))
        if isinstance(params, dict) and draw(st.booleans()):
            params = {k: v for k, v in params.items() if k != "position"}
        obj = draw(request_object("textDocument/diagnostic", params, request_id))
    elif kind == 4:
        obj = draw(request_object(draw(st.sampled_from(UNKNOWN_LSP)), {}, request_id))
    elif kind == 5:
        method = "shutdown" if draw(st.integers(0, 5)) == 0 else "gzguide/unknown"
        obj = draw(request_object(method, draw(st.sampled_from([ABSENT, None, {}])), request_id))
    elif kind <= 8:
        obj = draw(notification_objects())
    elif kind == 9:
        member = draw(st.sampled_from(["result", "error"]))
        obj = {"jsonrpc": "2.0", "id": request_id, member: draw(st.sampled_from([None, {}, 1]))}
    elif kind == 11:
        obj = draw(
            request_object("textDocument/codeAction", draw(code_action_params()), request_id)
        )
    elif kind == 10:
        bad: dict[str, Any] = draw(
            st.sampled_from([{"id": None, "method": "x"}, {"method": 5}, {"id": 1}, {}])
        )
        obj = {"jsonrpc": "2.0", **bad}
    else:
        obj = draw(request_object("gzguide/any", {}, request_id))
        obj["jsonrpc"] = draw(st.sampled_from(["2.0", "1.0", 2, None]))
    return encode_json(obj, draw(text_styles)).encode("utf-8")


LSP_UNITS = (
    "lsp",
    "lsp",
    "lsp",
    "lsp",
    "authoring",
    "invalid_body",
    "bad_section",
    "blank_lines",
    "raw",
    "random_object",
    "limit",
    "burst",
)


def _unit(draw: st.DrawFn, kind: str, paths: list[str]) -> bytes:
    if kind == "lsp":
        return draw(framed(draw(lsp_bodies())))
    if kind == "authoring":
        return draw(framed(draw(request_bodies(paths, None))))
    if kind == "invalid_body":
        return draw(framed(draw(invalid_bodies(paths))))
    if kind == "bad_section":
        return draw(bad_sections(paths, None))
    if kind == "blank_lines":
        return b"".join(draw(st.lists(st.sampled_from([b"\r\n", b"\n"]), min_size=1, max_size=4)))
    if kind == "raw":
        return draw(raw_garbage())
    if kind == "random_object":
        return draw(framed(draw(random_objects())))
    if kind == "limit":
        return draw(limit_frames(draw(lsp_bodies())))
    if kind == "burst":
        return b"".join(
            draw(framed(b)) for b in draw(st.lists(lsp_bodies(), min_size=2, max_size=4))
        )
    if kind == "huge":
        return draw(huge_frames(paths, None))
    raise AssertionError(kind)


@st.composite
def lsp_streams(draw: st.DrawFn, paths: list[str], phase: str, max_units: int = 8) -> FuzzStream:
    parts: list[bytes] = []
    kinds: list[str] = []
    huge_at = draw(st.integers(0, 39))
    for index in range(draw(st.integers(1, max_units))):
        kind = "huge" if huge_at == 39 and index == 0 else draw(st.sampled_from(LSP_UNITS))
        parts.append(_unit(draw, kind, paths))
        kinds.append(kind)
    stream = b"".join(parts)
    cuts: tuple[int, ...] = ()
    pause = 0.0
    if draw(st.integers(0, 3)) == 0:
        cuts = draw(write_cuts(stream))
        pause = draw(st.sampled_from([0.0, 0.0002, 0.001, 0.006]))
    await_answers = draw(st.integers(0, 3)) == 0
    return FuzzStream(phase, stream, cuts, pause, tuple(kinds), await_answers)


def prepare(fuzz: FuzzStream) -> tuple[FuzzStream, ModelRun] | None:
    """The stream realigned with the model's prediction; None when it cannot be judged
    (too much to realign, outside the contract, or ending the session)."""
    suffix = realignment(fuzz.stream, fuzz.session_before, classify_lsp)
    if suffix is None:
        return None
    whole = dataclasses.replace(fuzz, stream=fuzz.stream + suffix)
    run = run_lsp_model(whole.stream, phase_of(fuzz.session_before))
    if run.unspecified or run.ending is not Ending.ALIGNED:
        return None
    return whole, run


# == the driver ==================================================================================

_sync_ids = itertools.count(1)


class ExampleFailed(AssertionError):
    pass


def read_until(lsp: LspProcess, request_id: str, limit: int) -> tuple[list[Response], list[Any]]:
    """Responses up to the one for ``request_id``, and the notifications among them."""
    responses: list[Response] = []
    notes: list[Any] = []
    while len(responses) <= limit:
        message = lsp.read(timeout=15)
        if "method" in message.message:
            notes.append(message.message)
            continue
        responses.append(message)
        if message.id == request_id:
            break
    return responses, notes


class LspFuzzDriver:
    """One long-lived ``--lsp`` server, fed stream after stream; replaced after a failure."""

    def __init__(self, cwd: Path) -> None:
        self.cwd = cwd
        self.lsp: LspProcess | None = None
        self.phase = NEW
        self.examples = 0
        self.restarts = 0
        self.log_problems: list[str] = []

    def _fresh(self) -> LspProcess:
        self.close()
        self.lsp = LspProcess(args=("--workers", "1"), cwd=self.cwd)
        self.phase = NEW
        self.restarts += 1
        return self.lsp

    def begin(self, fresh: bool) -> str:
        """A new session, or a running one (a server shut down by the last stream is replaced)."""
        lsp = self.lsp
        if fresh or lsp is None or lsp.server.proc.poll() is not None or self.phase != RUNNING:
            lsp = self._fresh()
            if fresh:
                return NEW
            lsp.send(lsp_message("initialize", initialize_params(debounce_ms=0), id="driver-init"))
            lsp.response("driver-init")
            self.phase = RUNNING
        return self.phase

    def close(self) -> None:
        if self.lsp is not None:
            for line in self.lsp.server.stderr().splitlines():
                if "Traceback" in line or '"level":"error"' in line:
                    self.log_problems.append(f"pid {self.lsp.server.pid}: {line[:300]}")
            self.lsp.server.kill()
            self.lsp = None

    def check(self, fuzz: FuzzStream, run: ModelRun) -> None:
        lsp = self.lsp
        assert lsp is not None and fuzz.session_before == self.phase
        sync_id = f"sync-{os.getpid()}-{next(_sync_ids)}"
        after = phase_of(run.session)
        expected = [*run.expected, Expected(sync_id, sync_code(after), "the sync request")]
        got: list[Response] = []
        notes: list[Any] = []
        failure = None
        self.examples += 1
        try:
            write_in_pieces(lsp.server, fuzz.stream, fuzz.cuts, fuzz.pause)
            while fuzz.await_answers and len(got) < len(run.expected):
                message = lsp.read(timeout=10)
                if "method" in message.message:
                    notes.append(message.message)
                else:
                    got.append(message)
            lsp.send(lsp_message("gzguide-fuzz/sync", id=sync_id))
            more, more_notes = read_until(lsp, sync_id, len(expected) + 8)
            got += more
            notes += more_notes
        except (ServerFailure, AssertionError, OSError) as exc:
            failure = f"the server failed: {exc}"
        problems = mismatches(expected, got) + notification_problems(notes)
        if failure is not None:
            problems.insert(0, failure)
        if problems:
            stderr = lsp.server.stderr()[-1500:]
            self.close()
            raise ExampleFailed(
                f"LSP answers differ from the model (session before: {fuzz.session_before}):\n"
                + "\n".join(problems[:20])
                + "\nowed:\n"
                + "\n".join(f"  {e.describe()}" for e in expected[:60])
                + f"\n{describe_stream(fuzz.stream)}\nserver stderr tail: {stderr}"
            )
        self.phase = after


# == fresh sessions and how they end ==============================================================


class Finale(enum.Enum):
    EOF = "eof"  # stdin closed at any byte: exit 0
    EXIT = "exit"  # exit (after a shutdown or not), then junk that must be ignored
    OUTPUT_CLOSED = "output_closed"  # the client closes its end of stdout: exit 0


@dataclass(frozen=True)
class EndingPlan:
    fuzz: FuzzStream
    finale: Finale
    status: int


AFTER_THE_END = [b"", frame({"jsonrpc": "2.0", "id": "after", "method": "x"}), b"\xff\r\n\r\n"]


@st.composite
def ending_plans(draw: st.DrawFn, paths: list[str]) -> EndingPlan | None:
    fuzz = draw(lsp_streams(paths, NEW, max_units=5))
    finale = draw(st.sampled_from([Finale.EOF, *Finale]))
    stream = fuzz.stream
    status = 0
    if finale is Finale.OUTPUT_CLOSED:
        stream = stream[: draw(st.integers(0, len(stream)))]
    elif finale is Finale.EOF:
        tail = draw(st.sampled_from(EOF_TAILS))
        if tail:
            suffix = realignment(stream, NEW, classify_lsp)
            if suffix is None:
                return None
            stream += suffix + tail
        else:
            stream = stream[: draw(st.integers(0, len(stream)))]
    else:
        suffix = realignment(stream, NEW, classify_lsp)
        if suffix is None:
            return None
        stream += suffix
        phase = run_lsp_model(stream, NEW).session
        if draw(st.integers(0, 2)) > 0:  # a shutdown first (status 0), or not (status 1)
            if phase == NEW:
                stream += frame(lsp_message("initialize", initialize_params(), id="init"))
            stream += frame(lsp_message("shutdown", id=draw(valid_ids)))
        with_id = draw(st.integers(0, 3)) == 0
        last = request_object(
            "exit", draw(st.sampled_from([ABSENT, None, {}])), 1 if with_id else ABSENT
        )
        stream += draw(framed(encode_json(draw(last), draw(text_styles)).encode("utf-8")))
        stream += draw(st.sampled_from(AFTER_THE_END))
        status = run_lsp_model(stream, NEW).exit_status or 0
    run = run_lsp_model(stream, NEW)
    if run.unspecified or (run.ending is Ending.SESSION_END) != (finale is Finale.EXIT):
        return None
    return EndingPlan(FuzzStream(NEW, stream, fuzz.cuts, fuzz.pause, fuzz.units), finale, status)


def check_ending(lsp: LspProcess, plan: EndingPlan) -> None:
    """The session ends as planned, every owed answer given, nothing left behind."""
    fuzz = plan.fuzz
    server = lsp.server
    problems: list[str] = []
    try:
        if plan.finale is Finale.OUTPUT_CLOSED:
            write_in_pieces(server, fuzz.stream, fuzz.cuts, fuzz.pause)
            server.close_stdout()
            with contextlib.suppress(BrokenPipeError, ServerFailure):
                server.write(frame(lsp_message("gzguide/into-the-void", id="void")))
            if (status := server.wait_exit()) != 0:
                problems.append(f"exit status {status} after stdout was closed")
            server.assert_no_stray_processes()
            if "Traceback" in server.stderr():
                problems.append("a traceback on stderr after stdout was closed")
        else:
            run = run_lsp_model(fuzz.stream, NEW)
            try:
                write_in_pieces(server, fuzz.stream, fuzz.cuts, fuzz.pause)
            except (BrokenPipeError, ServerFailure):
                if plan.finale is Finale.EOF:
                    raise
            if plan.finale is Finale.EOF:
                server.close_stdin()
            messages = server.finish(plan.status)
            got = [m for m in messages if "method" not in m.message]
            notes = [m.message for m in messages if "method" in m.message]
            expected = run.expected
            if run.optional_error and len(got) == len(expected) + 1:
                expected = [*expected, Expected(None, PARSE_ERROR, "over-long partial line")]
            problems = mismatches(expected, got) + notification_problems(notes)
    except (ServerFailure, AssertionError, OSError) as exc:
        problems = [f"the server failed: {exc}"]
    if problems:
        raise ExampleFailed(
            "\n".join(problems[:20])
            + f"\nfinale {plan.finale.value}, status wanted {plan.status}\n"
            + f"{describe_stream(fuzz.stream)}\nserver stderr tail: {server.stderr()[-1500:]}"
        )
