"""Unit tests of the lifecycle state machine (gzguide.guide.session) and its message boundary
(gzguide.guide.messages): every row of the contract's Lifecycle table, every error code,
the id echo rules, params validation, and the shipped schemas themselves.

Every reply is encoded exactly as the server sends it and checked like the
protocol client checks real responses (compact, schema-valid, hint field order).
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from gzguide import PROTOCOL_VERSION
from gzguide.analysis.model import FileReport, Finding
from gzguide.answer import Answer, FileAnswer, WorkerRef, unanswered
from gzguide.framing import encode_frame
from gzguide.freshness import CacheState
from gzguide.guide.messages import (
    PROTOCOLS,
    VERSION_MISMATCH,
    AnalyzeParams,
    AnalyzeResponse,
    AnalyzeResult,
    AnalyzeTextParams,
    BufferText,
    EmptyResult,
    ErrorResponse,
    Hint,
    InitializeResult,
    Request,
    Response,
    ResponseEncoder,
    ResultResponse,
    TextAnalyze,
    TextRequests,
    answer_hints,
    decode_params,
    decode_request,
    decode_text_analyze,
    encode_response,
    error_response,
)
from gzguide.guide.session import (
    Pending,
    Reply,
    RequestRecord,
    Session,
    State,
    negotiate,
)
from gzguide.rpc.bodies import INVALID_PARAMS, INVALID_REQUEST, METHOD_NOT_FOUND, PARSE_ERROR
from gzguide.rpc.frontend import StopReason
from support.protocol_client import (
    HINT_SCHEMA,
    PROTOCOL_SCHEMA,
    SCHEMA_FILES,
    THRESHOLDS_SCHEMA,
    check_body,
    hint_field_order,
    load_schema,
    request_validator,
    response_validator,
    validator_for,
)

pytestmark = pytest.mark.timeout(60)

EXAMPLE_3_RESPONSE = (
    b"Content-Length: 129\r\n\r\n"
    b'{"id":3,"error":{"code":-32099,"message":"VERSION_MISMATCH: client major version 2 '
    b'is incompatible with server major version 1"}}'
)
EXAMPLE_1_RESPONSE = (
    b'Content-Length: 62\r\n\r\n{"id":1,"result":{"version":"1.0","capabilities":["analyze"]}}'
)

HINT = Hint(
    metric="radon_cc",
    precedence_band="approaching",
    crossing_value=4.0,
    archetype="unclassified",
    doctrinal_frame_headline="Cyclomatic complexity 4 in function `f`",
    recommended_move="Return early.",
    file_path="ignored",
    start_line=1,
    end_line=8,
)


#: HINT as the analysis reports it (a finding, without a path).
FINDING = Finding(
    metric=HINT.metric,
    precedence_band=HINT.precedence_band,
    crossing_value=HINT.crossing_value,
    archetype=HINT.archetype,
    headline=HINT.doctrinal_frame_headline,
    move=HINT.recommended_move,
    start_line=HINT.start_line,
    end_line=HINT.end_line,
    start_byte=0,
    end_byte=100,
)


class RecordingAnalyzer:
    """Stands in for the service: records params, answers one hint per call."""

    def __init__(self) -> None:
        self.calls: list[AnalyzeParams] = []

    def __call__(self, params: AnalyzeParams) -> Answer:
        self.calls.append(params)
        part = FileAnswer(params.file_path, FileReport([FINDING]), CacheState.MISS)
        return Answer(params.file_path, None, (part,))


class Conversation:
    """A session whose analyze requests are answered at once, by a stand-in service."""

    def __init__(self, analyzer: RecordingAnalyzer) -> None:
        self.session = Session()
        self.analyzer = analyzer

    @property
    def state(self) -> State:
        return self.session.state

    def handle_body(self, body: bytes) -> Reply:
        step = self.session.handle_body(body)
        if isinstance(step, Pending):
            return self.session.answered(step, self.analyzer(step.params))
        return step


def as_body(msg: Any) -> bytes:
    if isinstance(msg, bytes):
        return msg
    return json.dumps(msg, separators=(",", ":"), ensure_ascii=False).encode()


def answer(session: Conversation, msg: Any) -> tuple[dict[str, Any], Reply]:
    """Hand ``msg`` (an object, or raw body bytes) to the session; the checked reply."""
    reply = session.handle_body(as_body(msg))
    return check_body(encode_response(reply.response)), reply


def error_code(session: Conversation, msg: Any) -> int:
    decoded, _ = answer(session, msg)
    assert "error" in decoded, decoded
    code: int = decoded["error"]["code"]
    return code


@pytest.fixture
def analyzer() -> RecordingAnalyzer:
    return RecordingAnalyzer()


@pytest.fixture
def new(analyzer: RecordingAnalyzer) -> Conversation:
    return Conversation(analyzer)


@pytest.fixture
def ready(analyzer: RecordingAnalyzer) -> Conversation:
    session = Conversation(analyzer)
    decoded, _ = answer(session, init(1))
    assert "result" in decoded
    return session


def init(id: Any = 1, version: Any = "1.0", **params: Any) -> dict[str, Any]:
    return {"id": id, "method": "initialize", "params": {"clientVersion": version, **params}}


def analyze(id: Any = 2, **params: Any) -> dict[str, Any]:
    return {"id": id, "method": "analyze", "params": params}


# -- before initialize ------------------------------------------------------------------


def test_example_1_initialize_answer_byte_for_byte(new: Conversation) -> None:
    reply = new.handle_body(b'{"id":1,"method":"initialize","params":{"clientVersion":"1.0"}}')
    assert encode_frame(encode_response(reply.response)) == EXAMPLE_1_RESPONSE
    assert reply.stop is None
    assert new.state is State.READY


RESULT_1_0 = {"version": "1.0", "capabilities": ["analyze"]}
RESULT_1_1 = {"version": "1.1", "capabilities": ["analyze", "analyze.text"]}


@pytest.mark.parametrize(
    ("version", "result"),
    [
        ("1.0", RESULT_1_0),
        ("1.0.3", RESULT_1_0),
        ("001.0", RESULT_1_0),
        ("1.00", RESULT_1_0),
        ("1.0-beta", RESULT_1_0),
        ("1.0rc1", RESULT_1_0),
        # Protocol 1.1: a client of minor 1 or more gets 1.1, the highest implemented.
        ("1.1", RESULT_1_1),
        ("1.01", RESULT_1_1),
        ("1.9", RESULT_1_1),
        ("1.2.3.4", RESULT_1_1),
        ("01.2", RESULT_1_1),
        ("1.99999", RESULT_1_1),
        ("1." + "9" * 5000, RESULT_1_1),
    ],
)
def test_initialize_same_major(new: Conversation, version: str, result: dict[str, Any]) -> None:
    decoded, reply = answer(new, init(7, version))
    assert decoded == {"id": 7, "result": result}
    assert reply.stop is None
    assert new.state is State.READY
    assert reply.record is not None and reply.record.protocol == result["version"]


def test_initialize_ignores_unknown_params(new: Conversation) -> None:
    decoded, _ = answer(new, init(1, "1.4", clientName="vim", features={"x": [1, 2]}))
    assert decoded["result"]["version"] == "1.1"
    assert new.state is State.READY


@pytest.mark.parametrize(
    "params",
    [
        pytest.param("absent", id="params-missing"),
        pytest.param(None, id="params-null"),
        pytest.param([], id="params-array"),
        pytest.param("1.0", id="params-string"),
        pytest.param({}, id="version-missing"),
        pytest.param({"clientVersion": None}, id="version-null"),
        pytest.param({"clientVersion": 1.0}, id="version-number"),
        pytest.param({"clientVersion": ["1.0"]}, id="version-array"),
        pytest.param({"clientVersion": ""}, id="version-empty"),
        pytest.param({"clientVersion": "1"}, id="version-major-only"),
        pytest.param({"clientVersion": "1."}, id="version-no-minor"),
        pytest.param({"clientVersion": ".0"}, id="version-no-major"),
        pytest.param({"clientVersion": "v1.0"}, id="version-v-prefix"),
        pytest.param({"clientVersion": " 1.0"}, id="version-leading-blank"),
        pytest.param({"clientVersion": "1,0"}, id="version-comma"),
        pytest.param({"clientVersion": "١.٠"}, id="version-arabic-digits"),
        pytest.param({"clientVersion": "１.０"}, id="version-fullwidth-digits"),
        pytest.param({"ClientVersion": "1.0"}, id="version-wrong-case-key"),
    ],
)
def test_initialize_bad_params_is_invalid_params_and_client_may_retry(
    new: Conversation, params: Any
) -> None:
    msg: dict[str, Any] = {"id": 4, "method": "initialize"}
    if params != "absent":
        msg["params"] = params
    decoded, reply = answer(new, msg)
    assert decoded["id"] == 4
    assert decoded["error"]["code"] == INVALID_PARAMS
    assert reply.stop is None
    refused_in = new.state
    assert refused_in is State.NEW
    decoded, _ = answer(new, init(5))
    assert decoded["result"]["capabilities"] == ["analyze"]
    assert new.state is State.READY


def test_example_3_version_mismatch_byte_for_byte(new: Conversation) -> None:
    reply = new.handle_body(b'{"id":3,"method":"initialize","params":{"clientVersion":"2.0"}}')
    assert encode_frame(encode_response(reply.response)) == EXAMPLE_3_RESPONSE
    assert reply.stop is StopReason.VERSION_MISMATCH


@pytest.mark.parametrize(
    ("version", "major"),
    [
        ("2.0", "2"),
        ("0.9", "0"),
        ("00.1", "0"),
        ("10.0", "10"),
        ("010.0", "10"),
        ("3.1.4", "3"),
        ("11.0", "11"),
        ("9" * 5000 + ".0", "9" * 5000),  # beyond Python's int-from-string limit
    ],
)
def test_version_mismatch_compares_majors_as_integers(
    new: Conversation, version: str, major: str
) -> None:
    decoded, reply = answer(new, init("m", version))
    assert decoded == {
        "id": "m",
        "error": {
            "code": VERSION_MISMATCH,
            "message": f"VERSION_MISMATCH: client major version {major} is incompatible "
            "with server major version 1",
        },
    }
    assert reply.stop is StopReason.VERSION_MISMATCH


@pytest.mark.parametrize(
    "params",
    [
        {"file_path": "/tmp/x.py"},
        {},
        {"file_path": ""},
        {"file_path": 5, "cursor_position": -1},
    ],
)
def test_analyze_before_initialize_is_method_not_found(
    new: Conversation, analyzer: RecordingAnalyzer, params: dict[str, Any]
) -> None:
    decoded, reply = answer(new, analyze(9, **params))
    assert decoded["id"] == 9
    assert decoded["error"]["code"] == METHOD_NOT_FOUND
    assert "not initialized" in decoded["error"]["message"]
    assert reply.stop is None
    assert analyzer.calls == []
    assert new.state is State.NEW


def test_analyze_without_params_before_initialize(new: Conversation) -> None:
    assert error_code(new, {"id": 1, "method": "analyze"}) == METHOD_NOT_FOUND


@pytest.mark.parametrize("state", ["new", "ready"])
@pytest.mark.parametrize(
    "params", ["absent", {}, None, [], "x", {"anything": 1}], ids=lambda p: repr(p)
)
def test_shutdown_answers_empty_result_and_exits_0(
    request: pytest.FixtureRequest, state: str, params: Any
) -> None:
    session: Conversation = request.getfixturevalue(state)
    msg: dict[str, Any] = {"id": "bye", "method": "shutdown"}
    if params != "absent":
        msg["params"] = params
    decoded, reply = answer(session, msg)
    assert decoded == {"id": "bye", "result": {}}
    assert reply.stop is StopReason.SHUTDOWN
    assert encode_response(reply.response) == b'{"id":"bye","result":{}}'


# -- initialized ---------------------------------------------------------------------------


@pytest.mark.parametrize("version", ["1.0", "2.0", "nonsense"])
def test_initialize_again_is_invalid_request_and_changes_nothing(
    ready: Conversation, analyzer: RecordingAnalyzer, version: str
) -> None:
    decoded, reply = answer(ready, init(11, version))
    assert decoded["id"] == 11
    assert decoded["error"]["code"] == INVALID_REQUEST
    assert reply.stop is None
    assert ready.state is State.READY
    decoded, _ = answer(ready, analyze(12, file_path="a.py"))
    assert [h["file_path"] for h in decoded["result"]["hints"]] == ["a.py"]


def test_analyze_passes_params_to_the_analyzer(
    ready: Conversation, analyzer: RecordingAnalyzer
) -> None:
    decoded, reply = answer(ready, analyze(2, file_path="/src/mymodule/parser.py"))
    assert analyzer.calls == [AnalyzeParams(file_path="/src/mymodule/parser.py")]
    assert decoded["id"] == 2
    assert [h["file_path"] for h in decoded["result"]["hints"]] == ["/src/mymodule/parser.py"]
    assert reply.stop is None and reply.record is not None
    assert reply.record.answer is not None and reply.record.answer.hint_count() == 1


@pytest.mark.parametrize(
    ("cursor", "expected"),
    [
        ("absent", None),
        (None, None),
        (0, 0),
        (17, 17),
        (2**63, 2**63),
        (10**30, 10**30),
    ],
)
def test_analyze_cursor_accepted(
    ready: Conversation, analyzer: RecordingAnalyzer, cursor: Any, expected: int | None
) -> None:
    params: dict[str, Any] = {"file_path": "m.py"}
    if cursor != "absent":
        params["cursor_position"] = cursor
    decoded, _ = answer(ready, analyze(3, **params))
    assert "result" in decoded
    assert analyzer.calls[-1].cursor_position == expected


def test_analyze_cursor_of_any_size_is_valid(
    ready: Conversation, analyzer: RecordingAnalyzer
) -> None:
    # More digits than Python converts from text by default: still an integer >= 0,
    # and certainly past the end of any file.
    body = b'{"id":3,"method":"analyze","params":{"file_path":"m.py","cursor_position":%b}}' % (
        b"9" * 5000
    )
    decoded, _ = answer(ready, body)
    assert "result" in decoded
    (params,) = analyzer.calls
    assert params.file_path == "m.py"
    assert params.cursor_position is not None and params.cursor_position > 4 * 1024 * 1024


def test_analyze_ignores_unknown_params(ready: Conversation, analyzer: RecordingAnalyzer) -> None:
    decoded, _ = answer(ready, analyze(3, file_path="m.py", cursor_position=1, future={"a": 1}))
    assert "result" in decoded
    assert analyzer.calls == [AnalyzeParams(file_path="m.py", cursor_position=1)]


@pytest.mark.parametrize(
    "params",
    [
        pytest.param("absent", id="params-missing"),
        pytest.param(None, id="params-null"),
        pytest.param([], id="params-array"),
        pytest.param(["a.py"], id="params-array-of-path"),
        pytest.param("a.py", id="params-string"),
        pytest.param(1, id="params-number"),
        pytest.param({}, id="file-path-missing"),
        pytest.param({"file_path": ""}, id="file-path-empty"),
        pytest.param({"file_path": None}, id="file-path-null"),
        pytest.param({"file_path": 5}, id="file-path-number"),
        pytest.param({"file_path": ["a.py"]}, id="file-path-array"),
        pytest.param({"filePath": "a.py"}, id="file-path-misspelt"),
        pytest.param({"file_path": "a.py", "cursor_position": -1}, id="cursor-negative"),
        pytest.param(
            {"file_path": "a.py", "cursor_position": -(10**30)}, id="cursor-very-negative"
        ),
        pytest.param({"file_path": "a.py", "cursor_position": 1.5}, id="cursor-float"),
        pytest.param({"file_path": "a.py", "cursor_position": 1.0}, id="cursor-integral-float"),
        pytest.param({"file_path": "a.py", "cursor_position": "3"}, id="cursor-string"),
        pytest.param({"file_path": "a.py", "cursor_position": True}, id="cursor-true"),
        pytest.param({"file_path": "a.py", "cursor_position": False}, id="cursor-false"),
        pytest.param({"file_path": "a.py", "cursor_position": [1]}, id="cursor-array"),
        pytest.param({"file_path": "a.py", "cursor_position": {}}, id="cursor-object"),
    ],
)
def test_analyze_bad_params_is_invalid_params(
    ready: Conversation, analyzer: RecordingAnalyzer, params: Any
) -> None:
    msg: dict[str, Any] = {"id": "p", "method": "analyze"}
    if params != "absent":
        msg["params"] = params
    decoded, reply = answer(ready, msg)
    assert decoded["id"] == "p"
    assert decoded["error"]["code"] == INVALID_PARAMS
    assert decoded["error"]["message"]
    assert reply.stop is None
    assert analyzer.calls == []
    assert ready.state is State.READY


@pytest.mark.parametrize("exponent", [b"1e3", b"1E3", b"1e0", b"-0.0"])
def test_analyze_cursor_written_as_a_float_is_invalid(ready: Conversation, exponent: bytes) -> None:
    body = b'{"id":1,"method":"analyze","params":{"file_path":"a","cursor_position":%b}}' % exponent
    assert error_code(ready, body) == INVALID_PARAMS


def test_analyze_huge_negative_cursor_is_invalid(ready: Conversation) -> None:
    body = b'{"id":1,"method":"analyze","params":{"file_path":"a","cursor_position":-%b}}' % (
        b"9" * 5000
    )
    assert error_code(ready, body) == INVALID_PARAMS


# -- methods ---------------------------------------------------------------------------------


@pytest.mark.parametrize("state", ["new", "ready"])
@pytest.mark.parametrize(
    "method",
    [
        pytest.param("absent", id="missing"),
        pytest.param("", id="empty"),
        pytest.param(None, id="null"),
        pytest.param(5, id="number"),
        pytest.param(True, id="true"),
        pytest.param(["analyze"], id="array"),
        pytest.param({"name": "analyze"}, id="object"),
        pytest.param("Initialize", id="wrong-case"),
        pytest.param("analyze ", id="trailing-blank"),
        pytest.param("textDocument/hover", id="lsp-method"),
        pytest.param("exit", id="exit"),
        pytest.param("\x00", id="nul"),
    ],
)
def test_bad_or_unknown_method_is_method_not_found(
    request: pytest.FixtureRequest, state: str, method: Any
) -> None:
    session: Conversation = request.getfixturevalue(state)
    before = session.state
    msg: dict[str, Any] = {"id": 21, "params": {}}
    if method != "absent":
        msg["method"] = method
    decoded, reply = answer(session, msg)
    assert decoded["id"] == 21
    assert decoded["error"]["code"] == METHOD_NOT_FOUND
    assert reply.stop is None
    assert session.state is before


# -- parse errors and invalid requests ---------------------------------------------------------

PARSE_ERRORS = {
    "empty": b"",
    "blank": b"   ",
    "truncated": b'{"id":1,"method":"initialize"',
    "trailing-garbage": b'{"id":1,"method":"shutdown"}x',
    "two-values": b'{"id":1,"method":"shutdown"}{"id":2,"method":"shutdown"}',
    "nan": b'{"id":1,"method":"analyze","params":{"file_path":"a","cursor_position":NaN}}',
    "infinity": b'{"id":1,"method":"x","params":{"a":Infinity}}',
    "bare-nan": b"NaN",
    "bom": b'\xef\xbb\xbf{"id":1,"method":"shutdown"}',
    "single-quotes": b"{'id':1,'method':'shutdown'}",
    "trailing-comma": b'{"id":1,"method":"shutdown",}',
    "comment": b'{"id":1,/*x*/"method":"shutdown"}',
    "unquoted-key": b'{id:1,"method":"shutdown"}',
    "control-char-in-string": b'{"id":"a\x01b","method":"shutdown"}',
    "bad-escape": b'{"id":"\\q","method":"shutdown"}',
    "invalid-utf8-whole": b"\xff\xfe",
    "invalid-utf8-in-id": b'{"id":"\xc3","method":"shutdown"}',
    "invalid-utf8-in-method": b'{"id":1,"method":"shutdown\xff"}',
    "invalid-utf8-in-params": b'{"id":1,"method":"analyze","params":{"file_path":"\xff.py"}}',
    "invalid-utf8-in-unknown-field": b'{"id":1,"method":"shutdown","x":"\xff"}',
    "encoded-surrogate": b'{"id":1,"method":"analyze","params":{"file_path":"\xed\xa0\x80"}}',
    "overlong-encoding": b'{"id":1,"method":"shutdown","x":"\xc0\xaf"}',
    "lone-surrogate-id": b'{"id":"\\ud800","method":"shutdown"}',
    "lone-low-surrogate-method": b'{"id":1,"method":"\\udc00"}',
    "lone-surrogate-version": (
        b'{"id":1,"method":"initialize","params":{"clientVersion":"1.0\\ud800"}}'
    ),
    "lone-surrogate-path": b'{"id":1,"method":"analyze","params":{"file_path":"a\\ud800b"}}',
    "lone-surrogate-unknown": b'{"id":1,"method":"shutdown","x":"\\udfff"}',
    "lone-surrogate-key": b'{"id":1,"method":"shutdown","\\ud800":1}',
    "reversed-surrogates": b'{"id":1,"method":"shutdown","x":"\\udc00\\ud800"}',
    "truncated-array": b"[1,",
    "array-with-nan": b"[NaN]",
    "true-with-garbage": b"truex",
    "bad-id-then-truncated": b'{"id":true,"method":"shutdown",',
    "bad-id-then-nan": b'{"id":1.5,"method":"shutdown","x":NaN}',
    "deep-id": b'{"id":' + b"[" * 100_000 + b"]" * 100_000 + b',"method":"shutdown"}',
    "deep-top-level": b"[" * 100_000 + b"]" * 100_000,
    "deep-object": b'{"a":' * 100_000 + b"1" + b"}" * 100_000,
    "deep-params": b'{"id":1,"method":"analyze","params":' + b"[" * 100_000 + b"]" * 100_000 + b"}",
    "deep-unknown": b'{"id":1,"method":"shutdown","x":' + b"[" * 100_000 + b"]" * 100_000 + b"}",
}


@pytest.mark.parametrize("state", ["new", "ready"])
@pytest.mark.parametrize("body", list(PARSE_ERRORS.values()), ids=list(PARSE_ERRORS))
def test_parse_errors(request: pytest.FixtureRequest, state: str, body: bytes) -> None:
    session: Conversation = request.getfixturevalue(state)
    before = session.state
    decoded, reply = answer(session, body)
    assert decoded["id"] is None
    assert decoded["error"]["code"] == PARSE_ERROR
    assert reply.stop is None
    assert session.state is before


def test_valid_surrogate_pair_is_fine(ready: Conversation, analyzer: RecordingAnalyzer) -> None:
    body = b'{"id":1,"method":"analyze","params":{"file_path":"\\ud83d\\udc0d.py"}}'
    decoded, _ = answer(ready, body)
    assert decoded["result"]["hints"][0]["file_path"] == "🐍.py"
    assert analyzer.calls[0].file_path == "🐍.py"


INVALID_REQUESTS = {
    "array": b"[]",
    "array-of-request": b'[{"id":1,"method":"shutdown"}]',
    "number": b"1",
    "string": b'"shutdown"',
    "null": b"null",
    "true": b"true",
    "id-missing": b'{"method":"shutdown"}',
    "id-null": b'{"id":null,"method":"shutdown"}',
    "id-true": b'{"id":true,"method":"shutdown"}',
    "id-false": b'{"id":false,"method":"shutdown"}',
    "id-float": b'{"id":1.5,"method":"shutdown"}',
    "id-integral-float": b'{"id":1.0,"method":"shutdown"}',
    "id-exponent": b'{"id":1e3,"method":"shutdown"}',
    "id-object": b'{"id":{},"method":"shutdown"}',
    "id-array": b'{"id":[1],"method":"shutdown"}',
}


@pytest.mark.parametrize("state", ["new", "ready"])
@pytest.mark.parametrize("body", list(INVALID_REQUESTS.values()), ids=list(INVALID_REQUESTS))
def test_invalid_requests(request: pytest.FixtureRequest, state: str, body: bytes) -> None:
    session: Conversation = request.getfixturevalue(state)
    before = session.state
    decoded, reply = answer(session, body)
    assert decoded["id"] is None
    assert decoded["error"]["code"] == INVALID_REQUEST
    assert reply.stop is None  # not even for a shutdown without a valid id
    assert session.state is before


@pytest.mark.parametrize(
    "request_id",
    [0, -1, 7, 2**53 + 1, 2**64, -(2**64), 10**30, "", "1", "id with spaces", "é🐍\u2028", "\\\"'"],
    ids=repr,
)
def test_ids_are_echoed_exactly(ready: Conversation, request_id: Any) -> None:
    for msg in (
        {"id": request_id, "method": "analyze", "params": {"file_path": "a"}},  # result
        {"id": request_id, "method": "nope"},  # error
        {"id": request_id, "method": "initialize", "params": {"clientVersion": "1.0"}},
    ):
        decoded, _ = answer(ready, msg)
        assert decoded["id"] == request_id
        assert type(decoded["id"]) is type(request_id)


def test_integer_id_is_not_turned_into_a_string(ready: Conversation) -> None:
    reply = ready.handle_body(b'{"id":10,"method":"nope"}')
    assert encode_response(reply.response).startswith(b'{"id":10,')
    reply = ready.handle_body(b'{"id":"10","method":"nope"}')
    assert encode_response(reply.response).startswith(b'{"id":"10",')


def test_framing_error_reply(new: Conversation) -> None:
    reply = Session.framing_error("header line without a colon")
    decoded = check_body(encode_response(reply.response))
    assert decoded["id"] is None
    assert decoded["error"]["code"] == PARSE_ERROR
    assert "header line without a colon" in decoded["error"]["message"]
    assert reply.stop is None
    assert new.state is State.NEW


def test_field_order_of_responses(ready: Conversation) -> None:
    reply = ready.handle_body(b'{"id":5,"method":"analyze","params":{"file_path":"f.py"}}')
    body = encode_response(reply.response)
    assert body.startswith(b'{"id":5,"result":{"hints":[{"metric":')
    decoded = check_body(body)
    assert tuple(decoded["result"]["hints"][0]) == hint_field_order()
    error = encode_response(ready.handle_body(b'{"id":5,"method":"x"}').response)
    assert error.startswith(b'{"id":5,"error":{"code":-32601,"message":')


#: A finding whose strings need escaping (quotes, a backslash, non-ASCII).
ESCAPED = msgspec.structs.replace(FINDING, headline='h\u00e9 \\ "quoted"')
request_ids = st.one_of(st.integers(min_value=-(2**63), max_value=2**64 - 1), st.text())


def file_answer(findings: list[Finding], cursor: int | None = None) -> Answer:
    part = FileAnswer("dir/\u00e9.py", FileReport(findings), CacheState.HIT, WorkerRef(1, 99))
    return Answer("dir/\u00e9.py", cursor, (part,))


def folder_answer(count: int) -> Answer:
    parts = tuple(
        FileAnswer(f"dir/m{i}.py", FileReport([ESCAPED] * i), CacheState.MISS) for i in range(count)
    )
    return Answer("dir", None, parts, directory=True)


@given(request_id=request_ids, count=st.integers(min_value=0, max_value=3))
def test_response_parts_join_to_the_encoded_response(request_id: int | str, count: int) -> None:
    responses: list[Response] = [
        ResultResponse(request_id, AnalyzeResult(hints=[HINT] * count)),
        ResultResponse(request_id, InitializeResult(version="1.0", capabilities=["analyze"])),
        ResultResponse(request_id, EmptyResult()),
        error_response(request_id, METHOD_NOT_FOUND, "Method not found: 'x'"),
        error_response(None, PARSE_ERROR, "Parse error"),
    ]
    encoder = ResponseEncoder()
    for response in responses:
        assert b"".join(encoder.parts(response)) == encode_response(response)


@given(
    request_id=request_ids,
    count=st.integers(min_value=0, max_value=3),
    cursor=st.sampled_from([None, 0, 99, 100]),
)
def test_an_answer_encodes_as_its_hints_would(
    request_id: int | str, count: int, cursor: int | None
) -> None:
    encoder = ResponseEncoder()
    for answer in (
        file_answer([ESCAPED] * count, cursor),
        folder_answer(count),
        unanswered("x.py", cursor),
    ):
        struct = ResultResponse(request_id, AnalyzeResult(hints=answer_hints(answer)))
        expected = msgspec.json.encode(struct)
        for _ in range(2):  # encoded, then given again from what the encoder holds
            assert b"".join(encoder.parts(AnalyzeResponse(request_id, answer))) == expected
        assert len(check_body(expected)["result"]["hints"]) == answer.hint_count()


def test_an_unchanged_answer_is_spliced_from_the_bytes_held() -> None:
    encoder = ResponseEncoder()
    answer = file_answer([ESCAPED] * 50)
    first = encoder.parts(AnalyzeResponse("a", answer))
    again = encoder.parts(AnalyzeResponse(7, answer))
    assert again[0] == b'{"id":7,"result":{"hints":' and again[2] == b"}}"
    assert again[1] is first[1]  # the very bytes held, not encoded again
    # A new report (a new file version) is encoded anew, and so is another cursor.
    changed = file_answer([ESCAPED] * 50)
    assert encoder.parts(AnalyzeResponse(7, changed))[1] is not first[1]
    assert encoder.parts(AnalyzeResponse(7, file_answer([ESCAPED], 5)))[1] is not first[1]


def test_the_request_record_carries_the_answer_facts() -> None:
    single = RequestRecord(3, "analyze", "ok", 60, file_answer([ESCAPED] * 2, cursor=200))
    assert single.log_fields(1.5) == {
        "request_id": 3,
        "method": "analyze",
        "outcome": "ok",
        "duration_ms": 1.5,
        "bytes_in": 60,
        "hints": 0,  # the cursor is past both findings
        "file_path": "dir/\u00e9.py",
        "cache": "hit",
        "worker": {"index": 1, "pid": 99},
    }
    folder = Answer("dir", None, folder_answer(3).files, directory=True, walk_complete=False)
    fields = RequestRecord(4, "analyze", "ok", 60, folder).log_fields(2.0)
    assert fields["hints"] == 3 and fields["files"] == 3 and fields["cache"] == {"miss": 3}
    assert fields["walk_complete"] is False
    failed = RequestRecord(5, "analyze", "ok", 60, unanswered("x.py", None)).log_fields(0.1)
    assert failed["hints"] == 0 and failed["file_path"] == "x.py" and "cache" not in failed
    plain = RequestRecord(None, None, "-32700", 3).log_fields(0.1)
    assert plain["hints"] is None and "file_path" not in plain


def test_stop_reasons_and_their_exit_statuses() -> None:
    codes = {reason.value: reason.exit_code for reason in StopReason}
    assert codes == {
        "shutdown": 0,
        "version_mismatch": 1,
        "end_of_input": 0,
        "output_closed": 0,
        "interrupted": 130,
        "terminated": 143,
    }


def test_an_analyze_request_is_pending_until_the_service_answers(
    ready: Conversation,
) -> None:
    body = b'{"id":"a","method":"analyze","params":{"file_path":"f"}}'
    step = ready.session.handle_body(body)
    assert step == Pending("a", AnalyzeParams(file_path="f"), len(body))
    reply = ready.session.answered(step, unanswered("f", None))
    assert encode_response(reply.response) == b'{"id":"a","result":{"hints":[]}}'
    assert reply.record is not None and reply.record.method == "analyze"


def test_a_full_conversation(new: Conversation, analyzer: RecordingAnalyzer) -> None:
    steps: list[tuple[Any, int | None]] = [
        (analyze(1, file_path="a"), METHOD_NOT_FOUND),
        (init(2, "x"), INVALID_PARAMS),
        (init(3, "1.1"), None),
        (init(4, "1.1"), INVALID_REQUEST),
        (analyze(5, file_path="a", cursor_position=-1), INVALID_PARAMS),
        (analyze(6, file_path="a", cursor_position=0), None),
        (b"[]", INVALID_REQUEST),
        (b"{", PARSE_ERROR),
        ({"id": 7, "method": "what"}, METHOD_NOT_FOUND),
        (analyze(8, file_path="b"), None),
    ]
    for msg, code in steps:
        decoded, reply = answer(new, msg)
        assert decoded.get("error", {}).get("code") == code, (msg, decoded)
        assert reply.stop is None
    assert [p.file_path for p in analyzer.calls] == ["a", "b"]
    decoded, reply = answer(new, {"id": 9, "method": "shutdown"})
    assert decoded == {"id": 9, "result": {}} and reply.stop is StopReason.SHUTDOWN


# -- the shipped schemas --------------------------------------------------------------------


@pytest.mark.parametrize("name", SCHEMA_FILES)
def test_shipped_schemas_are_valid_draft_2020_12(name: str) -> None:
    schema = load_schema(name)
    Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert "gzkit.tvproductions.dev" not in schema["$id"]  # ours, not the upstream files


def test_shipped_schemas_are_package_data() -> None:
    folder = resources.files("gzguide").joinpath("schemas")
    assert sorted(p.name for p in folder.iterdir() if p.name.endswith(".json")) == sorted(
        SCHEMA_FILES
    )


def test_embedded_default_thresholds_match_the_threshold_schema() -> None:
    table = json.loads(
        resources.files("gzguide").joinpath("data/complexity-thresholds.default.json").read_text()
    )
    validator_for(THRESHOLDS_SCHEMA).validate(table)


@pytest.mark.parametrize(
    "table",
    [
        {},
        {"corpus_revision": 0, "bands": [], "citation": {}},
        {
            "corpus_revision": 1,
            "bands": [
                {
                    "metric": "radon_cc",
                    "corpus_percentile": 80,
                    "absolute_number": 4,
                    "trigger_semantic": "advise",
                }
            ],
            "citation": {
                "distilled_characteristics_path": "docs/governance/complexity/a.md",
                "section_anchor": "radon-cc",
                "corpus_revision": 1,
            },
        },
    ],
)
def test_threshold_schema_rejects_bad_tables(table: dict[str, Any]) -> None:
    assert not validator_for(THRESHOLDS_SCHEMA).is_valid(table)


@pytest.mark.parametrize(
    "response",
    [
        {"id": None, "error": {"code": -32700, "message": "Parse error"}},
        {"id": None, "error": {"code": -32600, "message": "Invalid Request"}},
        {"id": 1, "error": {"code": -32600, "message": "already initialized"}},
        {"id": "a", "error": {"code": -32601, "message": "Method not found"}},
        {"id": 1, "result": {}},
        {"id": 1, "result": {"hints": []}},
        {"id": 1, "result": {"version": "1.0", "capabilities": ["analyze"]}},
    ],
)
def test_response_schema_accepts(response: dict[str, Any]) -> None:
    response_validator().validate(response)


@pytest.mark.parametrize(
    "response",
    [
        pytest.param({"id": None, "error": {"code": -32601, "message": "x"}}, id="null-id-32601"),
        pytest.param({"id": None, "error": {"code": -32602, "message": "x"}}, id="null-id-32602"),
        pytest.param({"id": None, "result": {}}, id="null-id-result"),
        pytest.param({"id": 1}, id="neither"),
        pytest.param({"id": 1, "result": {}, "error": {"code": -32601, "message": "x"}}, id="both"),
        pytest.param({"result": {}}, id="no-id"),
        pytest.param({"id": True, "result": {}}, id="bool-id"),
        pytest.param({"id": 1.5, "result": {}}, id="float-id"),
        pytest.param({"id": 1, "result": {"extra": 1}}, id="unknown-result"),
        pytest.param({"id": 1, "error": {"code": -32601}}, id="no-message"),
        pytest.param({"id": 1, "error": {"code": 1, "message": "x"}}, id="unknown-code"),
        pytest.param({"id": 1, "result": {"hints": [{}]}}, id="empty-hint"),
        pytest.param({"id": 1, "result": {}, "jsonrpc": "2.0"}, id="extra-member"),
    ],
)
def test_response_schema_rejects(response: dict[str, Any]) -> None:
    assert not response_validator().is_valid(response)


@pytest.mark.parametrize(
    "msg",
    [
        {"id": 1, "method": "initialize", "params": {"clientVersion": "1.0"}},
        {"id": 1, "method": "initialize", "params": {"clientVersion": "1.2.3", "more": True}},
        {"id": "a", "method": "analyze", "params": {"file_path": "x.py"}},
        {"id": 1, "method": "analyze", "params": {"file_path": "x", "cursor_position": None}},
        {"id": 1, "method": "analyze", "params": {"file_path": "x", "cursor_position": 10**30}},
        {"id": 1, "method": "analyze", "params": {"file_path": "x", "future_option": [1]}},
        {"id": 1, "method": "shutdown"},
        {"id": 1, "method": "shutdown", "params": {}},
    ],
)
def test_request_schema_accepts(msg: dict[str, Any]) -> None:
    request_validator().validate(msg)


@pytest.mark.parametrize(
    "msg",
    [
        {"id": 1, "method": "initialize"},
        {"id": 1, "method": "initialize", "params": {"clientVersion": "1"}},
        {"id": 1, "method": "initialize", "params": {"clientVersion": "١.٠"}},
        {"id": 1, "method": "analyze"},
        {"id": 1, "method": "analyze", "params": {"file_path": ""}},
        {"id": 1, "method": "analyze", "params": {"file_path": "x", "cursor_position": -1}},
        {"id": 1, "method": "analyze", "params": {"file_path": "x", "cursor_position": True}},
        {"id": 1, "method": "analyze", "params": {"file_path": "x", "cursor_position": 1.5}},
        {"id": None, "method": "shutdown"},
        {"id": True, "method": "shutdown"},
        {"method": "shutdown"},
        {"id": 1, "method": ""},
    ],
)
def test_request_schema_rejects(msg: dict[str, Any]) -> None:
    assert not request_validator().is_valid(msg)


def test_protocol_schema_root_accepts_requests_and_responses() -> None:
    validator = validator_for(PROTOCOL_SCHEMA)
    assert validator.is_valid({"id": 1, "method": "shutdown"})
    assert validator.is_valid({"id": 1, "result": {}})
    assert not validator.is_valid({"id": 1})


def test_hint_schema_field_order_matches_the_hint_struct() -> None:
    assert hint_field_order() == Hint.__struct_fields__
    assert tuple(load_schema(HINT_SCHEMA)["required"]) == hint_field_order()


def test_hint_schema_rejects_a_multi_line_headline() -> None:
    hint = msgspec.to_builtins(HINT)
    validator = validator_for(HINT_SCHEMA)
    assert validator.is_valid(hint)
    assert not validator.is_valid({**hint, "doctrinal_frame_headline": "one\ntwo"})
    assert not validator.is_valid({**hint, "doctrinal_frame_headline": "trailing\n"})
    assert not validator.is_valid({**hint, "precedence_band": "warn"})
    assert not validator.is_valid({**hint, "start_line": 0})


# -- protocol 1.1: the buffer's text ------------------------------------------------------


def session_at(version: str) -> Session:
    session = Session()
    reply = session.handle_body(as_body(init(1, version)))
    assert isinstance(reply, Reply) and reply.stop is None
    return session


def test_a_1_1_initialize_answer_byte_for_byte() -> None:
    session = Session()
    reply = session.handle_body(b'{"id":1,"method":"initialize","params":{"clientVersion":"1.1"}}')
    assert isinstance(reply, Reply)
    assert encode_frame(encode_response(reply.response)) == (
        b"Content-Length: 77\r\n\r\n"
        b'{"id":1,"result":{"version":"1.1","capabilities":["analyze","analyze.text"]}}'
    )
    assert session.protocol is not None and session.protocol.text


def test_negotiate_picks_the_highest_version_the_clients_minor_reaches() -> None:
    versions = {v: negotiate(v).version for v in ("1.0", "1.00", "1.1", "1.01", "1.10", "1.9.9")}
    assert versions == {
        "1.0": "1.0",
        "1.00": "1.0",
        "1.1": "1.1",
        "1.01": "1.1",
        "1.10": "1.1",
        "1.9.9": "1.1",
    }
    # The highest version implemented is the one the server announces in its logs.
    assert PROTOCOLS[-1].version == PROTOCOL_VERSION


@pytest.mark.parametrize("text", ["x = 1\n", 5, None, True, [1], {"a": "b"}, ""])
def test_a_1_0_session_ignores_text_whatever_it_is(text: Any) -> None:
    session = session_at("1.0")
    body = as_body(analyze(2, file_path="m.py", cursor_position=3, text=text))
    step = session.handle_body(body)
    assert step == Pending(2, AnalyzeParams("m.py", 3), len(body))


def text_of(step: Reply | Pending) -> bytes | None:
    """The UTF-8 form of the text a pending analyze request carries."""
    assert isinstance(step, Pending)
    return None if step.text is None else step.text.data()


@pytest.mark.parametrize(
    "text", ["", "x = 1\n", "é€😀\r\n", "\x00", "a" * 70_000, "# coding: latin-1\nx = 'é'\n"]
)
def test_a_1_1_session_passes_the_text_on_as_utf8(text: str) -> None:
    session = session_at("1.1")
    body = as_body(analyze(2, file_path="m.py", cursor_position=3, text=text))
    step = session.handle_body(body)
    assert isinstance(step, Pending) and step.text is not None
    assert (step.request_id, step.params, step.bytes_in) == (2, AnalyzeParams("m.py", 3), len(body))
    assert step.text.data() == text.encode("utf-8") and step.text.size == len(step.text.data())
    # With every character outside ASCII escaped (\\uXXXX, pairs for emoji): the same text.
    escaped = json.dumps({"id": 2, "method": "analyze", "params": {"file_path": "m", "text": text}})
    step = session.handle_body(escaped.encode("ascii"))
    assert isinstance(step, Pending) and text_of(step) == text.encode("utf-8")


def test_a_1_1_session_without_text_asks_for_the_file() -> None:
    session = session_at("1.7")
    step = session.handle_body(as_body(analyze(2, file_path="m.py")))
    assert isinstance(step, Pending) and step.text is None
    assert step.params == AnalyzeParams("m.py")


@pytest.mark.parametrize("text", [5, 1.5, None, True, False, [], ["x"], {}, {"text": "x"}])
def test_a_1_1_session_refuses_a_text_that_is_not_a_string(text: Any) -> None:
    session = session_at("1.1")
    reply = session.handle_body(as_body(analyze(2, file_path="m.py", text=text)))
    assert isinstance(reply, Reply)
    decoded = check_body(encode_response(reply.response))
    assert decoded["error"]["code"] == INVALID_PARAMS
    assert "`params.text`" in decoded["error"]["message"]
    # Other params are still checked first where they come first.
    reply = session.handle_body(as_body(analyze(3, file_path="", text="x")))
    assert (
        isinstance(reply, Reply)
        and "file_path" in check_body(encode_response(reply.response))["error"]["message"]
    )


def test_a_1_1_session_takes_a_cursor_too_long_for_an_int_with_its_text() -> None:
    session = session_at("1.1")
    body = b'{"id":2,"method":"analyze","params":{"file_path":"m","cursor_position":%b,"text":"x"}}'
    step = session.handle_body(body % (b"7" * 5000))
    assert isinstance(step, Pending) and text_of(step) == b"x"
    assert step.params.cursor_position is not None and step.params.cursor_position > 2**63
    reply = session.handle_body(
        b'{"id":3,"method":"analyze","params":{"file_path":"m","cursor_position":%b,"text":7}}'
        % (b"7" * 5000)
    )
    assert isinstance(reply, Reply) and isinstance(reply.response, ErrorResponse)
    assert reply.response.error.code == INVALID_PARAMS


def test_the_log_record_of_a_text_says_so_and_how_big_it_was() -> None:
    part = FileAnswer("m.py", FileReport([FINDING]), CacheState.MEMO)
    answer = Answer("m.py", None, (part,), text_bytes=1234)
    fields = RequestRecord(3, "analyze", "ok", 1300, answer).log_fields(0.5)
    assert fields["source"] == "text" and fields["text_bytes"] == 1234
    assert fields["cache"] == "memo" and fields["worker"] is None
    initialized = session_at("1.2").handle_body(as_body(init(2, "1.0")))
    assert isinstance(initialized, Reply) and initialized.record is not None
    assert "protocol" not in initialized.record.log_fields(0.1)  # an error: nothing set
    first = Session().handle_body(as_body(init(1, "1.3")))
    assert isinstance(first, Reply) and first.record is not None
    assert first.record.log_fields(0.1)["protocol"] == "1.1"


def test_the_shipped_schema_states_the_1_1_rule() -> None:
    results = validator_for(PROTOCOL_SCHEMA, "/$defs/InitializeResult")
    for protocol in PROTOCOLS:
        answer = {"version": protocol.version, "capabilities": list(protocol.capabilities)}
        results.validate(answer)
        assert answer in load_schema(PROTOCOL_SCHEMA)["$defs"]["InitializeResult"]["examples"]
    text_params = validator_for(PROTOCOL_SCHEMA, "/$defs/AnalyzeTextParams")
    for params in (
        {"file_path": "m.py", "text": ""},
        {"file_path": "m.py", "text": "x = 1\n", "cursor_position": 3},
        {"file_path": "m.py", "cursor_position": None},
    ):
        text_params.validate(params)
    for bad in (5, None, True, ["x"], {"x": 1}):
        assert not text_params.is_valid({"file_path": "m.py", "text": bad})
    # A 1.0 session's params accept any text, as they accept any unknown field.
    for anything in ("x", 5, None):
        validator_for(PROTOCOL_SCHEMA, "/$defs/AnalyzeParams").validate(
            {"file_path": "m.py", "text": anything}
        )


_members = st.sampled_from(
    [
        '"id":1',
        '"id":"a"',
        '"id":true',
        '"id":1.5',
        '"method":"analyze"',
        '"method":"analyse"',
        '"method":""',
        '"method":5',
        '"params":{"file_path":"m.py","text":"x = 1\\n"}',
        '"params":{"file_path":"m.py","text":"\\u00e9\\ud83d\\ude00","cursor_position":3}',
        '"params":{"text":"x","file_path":"m.py","cursor_position":null}',
        '"params":{"file_path":"m.py"}',
        '"params":{"file_path":"m.py","text":5}',
        '"params":{"file_path":"m.py","text":"x","cursor_position":-1}',
        '"params":{"file_path":"m.py","text":"x","cursor_position":' + "9" * 30 + "}",
        '"params":{"file_path":"","text":"x"}',
        '"params":[1]',
        '"params":null',
        '"extra":{"text":7}',
    ]
)


@given(st.lists(_members, max_size=6))
def test_a_1_1_request_decoded_in_one_pass_is_what_the_general_way_decodes(
    members: list[str],
) -> None:
    body = ("{" + ",".join(members) + "}").encode()
    fast = decode_text_analyze(body)
    general = decode_request(body)
    if fast is None:
        return
    assert isinstance(general, Request) and general.method == "analyze"
    assert general.id == fast.id and type(general.id) is type(fast.id)
    assert decode_params(general.params, AnalyzeTextParams) == as_text_params(fast)


def as_text_params(decoded: TextAnalyze) -> AnalyzeTextParams:
    """What the general way decodes for the request ``decoded`` stands for."""
    text = msgspec.UNSET if decoded.text is None else decoded.text.data().decode("utf-8")
    return AnalyzeTextParams(decoded.params.file_path, decoded.params.cursor_position, text)


#: A text, its JSON token spelled three ways (another escaping decodes to the same).
HELD_TEXT = 'def f(a):\n    return "é"\n'
_held_tokens = st.sampled_from(
    [
        json.dumps(HELD_TEXT, ensure_ascii=False),
        json.dumps(HELD_TEXT),
        json.dumps(HELD_TEXT).replace("d", "\\u0064", 1),
        json.dumps(HELD_TEXT + " "),
        json.dumps(HELD_TEXT[:-1]),
    ]
)


def _pieces_around(token: str) -> st.SearchStrategy[str]:
    return st.sampled_from(
        [
            '"id":1',
            '"id":"b"',
            '"id":22',
            '"id" :3',
            '"method":"analyze"',
            '"method":"shutdown"',
            f'"params":{{"file_path":"m.py","text":{token}}}',
            f'"params":{{"text":{token},"file_path":"m.py","cursor_position":4}}',
            f'"params":{{"file_path":"m.py","text":{token},"cursor_position":40}}',
            f'"params":{{"file_path":{token},"text":"x"}}',
            f'"params":{{"file_path":"n.py","text":{token},"text":"x"}}',
            f'"params":{{"file_path":"n.py","text":"x","text":{token}}}',
            f'"params":{{"file_path":"m.py","extra":{{"text":{token}}}}}',
            f'"params":{{"file_path":"m.py","text":[{token}]}}',
            f'"params":{{"file_path":"m.py","text":{token}}},"x":"\xff"',
            f'"extra":{token}',
            f'"text":{token}',
        ]
    )


@st.composite
def _body_pairs(draw: st.DrawFn) -> tuple[bytes, bytes]:
    """A request around the held text's token, then another much like it (or not valid)."""
    valid = ['"id":1', '"method":"analyze"', '"params":{"file_path":"m.py","text":%s}']
    first_token, second_token = draw(_held_tokens), draw(_held_tokens)
    first = [*valid, *draw(st.lists(_pieces_around(first_token), max_size=3))]
    first[2] %= first_token
    second = [p.replace(first_token, second_token) for p in first]
    for index, piece in draw(
        st.lists(st.tuples(st.integers(0, len(second) - 1), _pieces_around(second_token)))
    ):
        second[index] = piece
    if draw(st.booleans()):
        second = draw(st.permutations(second))
    return ("{" + ",".join(first) + "}").encode(), ("{" + ",".join(second) + "}").encode()


@given(_body_pairs())
def test_a_text_known_again_is_decoded_as_if_it_were_read(pair: tuple[bytes, bytes]) -> None:
    first, second = pair
    texts = TextRequests()
    texts.decode(first)
    known = texts.decode(second)
    fresh = decode_text_analyze(second)
    assert (known is None) == (fresh is None), second
    if known is not None and fresh is not None:
        assert (known.id, type(known.id)) == (fresh.id, type(fresh.id))
        assert as_text_params(known) == as_text_params(fresh), second


def test_a_text_known_again_is_neither_decoded_nor_hashed() -> None:
    texts = TextRequests()
    body = b'{"id":%d,"method":"analyze","params":{"file_path":"m.py","text":"x = 1\\n"%b}}'
    first = texts.decode(body % (1, b""))
    assert first is not None and first.text is not None
    digest = first.text.digest()
    for request_id, cursor in (
        (2, b""),
        (3, b',"cursor_position":3'),
        (400, b',"cursor_position":5'),
    ):
        again = texts.decode(body % (request_id, cursor))
        assert again is not None and again.text is first.text, cursor
        assert again.id == request_id and again.text.digest() is digest
    assert again is not None and again.params == AnalyzeParams("m.py", 5)
    # Where the token is neither as far from the start nor from the end: decoded in full.
    moved = texts.decode(body % (50_000, b',"cursor_position":12345'))
    assert moved is not None and moved.text is not first.text
    assert moved.params == AnalyzeParams("m.py", 12345) and moved.text is not None
    assert moved.text.digest() == digest
    other = texts.decode(body.replace(b"1", b"2", 1) % (5, b""))
    assert other is not None and other.text is not first.text
    assert other.text is not None and other.text.data() == b"x = 2\n"
    assert first.text.data() == b"x = 1\n"  # let go of, then decoded again from its token


def test_the_texts_held_are_bounded_by_count_and_bytes() -> None:
    texts = TextRequests(max_texts=2, max_bytes=100)
    body = b'{"id":1,"method":"analyze","params":{"file_path":"m.py","text":"%b"}}'

    def text_of(text: bytes) -> BufferText | None:
        decoded = texts.decode(body % text)
        assert decoded is not None
        return decoded.text

    held = [text_of(n) for n in (b"a", b"b", b"c")]
    assert all(t is not None for t in held)
    assert text_of(b"a") is not held[0]  # the oldest went first
    assert text_of(b"c") is held[2]
    big = text_of(b"x" * 97)
    assert big is not None and text_of(b"x" * 97) is big
    assert text_of(b"c") is not held[2]  # 99 + 3 bytes are too many


def test_one_pass_decoding_declines_what_it_must_not_answer() -> None:
    for body in (
        b'{"id":1,"method":"analyze","params":{"file_path":"m","text":"x"}} x',
        b'{"id":1,"method":"analyze","params":{"file_path":"m","text":"\\xff"}}',
        b'{"id":1,"method":"analyze","params":{"file_path":"m","text":"x"},"z":"\xff"}',
        b'{"id":1,"method":"shutdown","params":{"file_path":"m","text":"x"}}',
        b'{"id":1,"method":"analyze","params":{"file_path":"m","text":"x"},"method":"x"}',
    ):
        assert decode_text_analyze(body) is None, body
    # Taken the general way, each gets the answer it always got.
    session = session_at("1.1")
    replies = [
        session.handle_body(b'{"id":1,"method":"analyze","params":{"file_path":"m","text":"x"}} x'),
        session.handle_body(
            b'{"id":2,"method":"analyze","params":{"file_path":"m","text":"\\xff"}}'
        ),
    ]
    codes = [
        r.response.error.code
        for r in replies
        if isinstance(r, Reply) and isinstance(r.response, ErrorResponse)
    ]
    assert codes == [PARSE_ERROR, PARSE_ERROR]
