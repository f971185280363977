"""The fuzz run's reference model: what the server owes for a byte stream, from the contract alone.

Given a whole input byte stream and the state the session starts in (not
initialized, or running at a protocol version: :data:`Session`), :func:`run_model`
says which responses the server owes, in order: one ``-32700`` with a null id per
framing error, and for every complete body the answer class (code and id, or a
result). It is written from the contract's Transport and
Lifecycle tables alone and imports nothing from ``gzguide``: the JSON oracle is
Python's ``json`` module, kept to the region where it is trustworthy (see
*Assumptions*). It also says how the stream ends (aligned, inside a header line,
inside a header section, inside a body, inside the discard of an over-limit
body), which is what lets the driver realign a stream that random bytes left in
the middle of a message. :func:`mismatches` compares what a server said with it.

Assumptions beyond the contract's words (each one is a place the model refuses to
judge, or a decision the project's docs/protocol.md states):

* JSON the model relies on is nested either shallower than 100 levels or deeper
  than 20,000; anything in between is outside the contract's words ("nesting too
  deep" names no depth) and the example is rejected. Integers longer than 4,000
  digits, numbers that overflow a float and duplicate object keys are likewise
  rejected: Python's ``json`` is not a trustworthy oracle there.
* A string holding a lone surrogate escape (``"\\ud800"``) is a parse error: the
  docs/protocol.md lists it among the ``-32700`` cases (it cannot be represented in UTF-8).
* Unknown top-level fields of a request (``"jsonrpc": "2.0"``) are ignored, as
  unknown ``params`` fields and unknown headers are; ``text`` is one of those in
  a session at 1.0 (the contract's Protocol 1.1 section), and must be a string in
  a session at 1.1.
* A header name is compared case-insensitively and exactly; a name that equals
  ``Content-Length`` only once blanks around it are stripped is outside the
  contract, so such streams are rejected (never generated on purpose).
* A framing error is answered as soon as it is found (docs/protocol.md says so), so one
  found in a header section that EOF then cuts short is owed all the same.
* At end of input, a partial header line already known to be over the 8 KiB limit
  may or may not have been answered with its ``-32700`` (the contract says nothing
  is answered for a message cut by EOF; docs/protocol.md says errors are sent as soon as
  detected): both are accepted. Everything else complete before the cut is owed.
"""

from __future__ import annotations

import base64
import enum
import functools
import hashlib
import itertools
import json
import math
import re
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from support.protocol_client import Response

# -- the contract's numbers, restated (never imported from the server) -------------------

MAX_BODY = 10 * 1024 * 1024
MAX_HEADER_LINES = 32
MAX_HEADER_LINE = 8 * 1024
MAX_LENGTH_DIGITS = 20

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
VERSION_MISMATCH = -32099

SERVER_MAJOR = "1"
#: What initialize answers, by the version the session then runs at.
INITIALIZE_RESULTS = {
    "1.0": {"version": "1.0", "capabilities": ["analyze"]},
    "1.1": {"version": "1.1", "capabilities": ["analyze", "analyze.text"]},
}
BLANKS = b" \t"
DIGITS = frozenset(b"0123456789")
#: ``clientVersion`` must start with ASCII ``digits.digits``.
VERSION_PREFIX = re.compile(r"([0-9]+)\.([0-9]+)")

#: A session's state: None before a successful initialize, else the protocol version
#: it runs at (``"1.0"`` for a client of minor 0, ``"1.1"`` for minor 1 and up).
Session = str | None

#: Stands for a field left out of a request.
ABSENT: Any = object()

#: Depths where Python's ``json`` and any reasonable server agree.
SHALLOW_DEPTH = 100
DEEP_DEPTH = 20_000
#: The longest missing body or discard the driver will send to realign a stream.
REALIGN_CAP = 12 * 1024 * 1024


# == The reference model =================================================================


class Ending(enum.Enum):
    """Where a stream stops, as far as framing is concerned."""

    ALIGNED = "aligned"  # between messages: the next byte starts a message
    PARTIAL_LINE = "partial_line"  # inside a header line (no line feed yet)
    SECTION_OPEN = "section_open"  # after a header line, before the blank line ending it
    BODY = "body"  # inside a body of an accepted length
    DISCARD = "discard"  # inside the discarded body of an over-limit length
    SESSION_END = "session_end"  # a shutdown or a version mismatch was answered


@dataclass(frozen=True)
class Expected:
    """One response the server owes.

    ``code`` is None for a result; then ``result`` says which: ``"1.0"`` or ``"1.1"``
    (an initialize answered with that version), ``"shutdown"``, or ``("analyze",
    file_path, cursor, text)`` (text None: the file on disk). The LSP mode's model
    (``fuzz_lsp``) owes tuples of its own, each named by its first item.
    """

    id: int | str | None
    code: int | None
    why: str
    result: str | tuple[Any, ...] | None = None
    #: For a -32601 to analyze before initialize: the message must say so.
    not_initialized: bool = False
    #: For a -32099: the major version the message must name.
    major: str | None = None

    def describe(self) -> str:
        what = f"result {self.result}" if self.code is None else f"error {self.code}"
        return f"id={self.id!r} {what} ({self.why})"


@dataclass
class ModelRun:
    """What the model predicts for a whole stream."""

    expected: list[Expected]
    session: Session
    ending: Ending
    #: BODY/DISCARD: bytes still missing; PARTIAL_LINE: bytes of the partial line.
    missing: int = 0
    #: At the end: one more -32700 the server may already have sent (a partial
    #: header line already longer than the limit).
    optional_error: bool = False
    #: SESSION_END: the exit status the server must end with.
    exit_status: int | None = None
    #: Why the model refuses to judge this stream (outside the contract's words).
    unspecified: list[str] = field(default_factory=list)


class _Unspecified(Exception):
    """The body is in a region where the model has no trustworthy answer."""


@dataclass(frozen=True)
class Verdict:
    """The model's answer to one complete body."""

    answer: Expected | None
    session: Session
    exit_status: int | None = None


#: Judges one complete body in a session state: the answer it owes and the state after.
Classifier = Callable[[bytes, Any], Verdict]


def run_model(stream: bytes, session: Session, classify: Classifier | None = None) -> ModelRun:
    """The responses owed for ``stream``, read from its first byte to its last.

    ``classify`` judges each complete body (the authoring-guide protocol's
    :func:`classify_body` by default; the LSP mode's model brings its own, with
    its own session states): the framing is the same for both.
    """
    judge = classify_body if classify is None else classify
    expected: list[Expected] = []
    unspecified: list[str] = []
    pos = 0
    size = len(stream)
    while True:
        # -- one header section (blank lines before it are skipped) --
        started = False
        failed = False
        lines = 0
        length: int | None = None
        while True:
            newline = stream.find(b"\n", pos)
            if newline < 0:
                partial = stream[pos:]
                run = ModelRun(expected, session, Ending.ALIGNED, unspecified=unspecified)
                if partial:
                    run.ending, run.missing = Ending.PARTIAL_LINE, len(partial)
                    known = len(partial) - (1 if partial.endswith(b"\r") else 0)
                    run.optional_error = not failed and known > MAX_HEADER_LINE
                elif started:
                    run.ending = Ending.SECTION_OPEN
                return run
            line = stream[pos:newline]
            if line.endswith(b"\r"):
                line = line[:-1]
            pos = newline + 1
            if not line:
                if started:
                    break
                continue  # a blank line between messages
            started = True
            if failed:
                continue  # a section in error is drained up to its blank line
            problem, length, odd = _header_line(line, lines + 1, length)
            lines += 1
            if odd:
                unspecified.append(odd)
            if problem:
                failed = True
                expected.append(Expected(None, PARSE_ERROR, f"framing: {problem}, byte {pos}"))
        if failed:
            continue  # the next message starts right after the blank line
        if length is None:
            expected.append(Expected(None, PARSE_ERROR, f"framing: no Content-Length, byte {pos}"))
            continue
        if length > MAX_BODY:
            expected.append(Expected(None, PARSE_ERROR, f"framing: body of {length} bytes"))
            available = min(length, size - pos)
            pos += available
            if available < length:
                return ModelRun(
                    expected,
                    session,
                    Ending.DISCARD,
                    length - available,
                    unspecified=unspecified,
                )
            continue
        if size - pos < length:
            return ModelRun(
                expected, session, Ending.BODY, length - (size - pos), unspecified=unspecified
            )
        body = stream[pos : pos + length]
        pos += length
        try:
            verdict = judge(body, session)
        except _Unspecified as exc:
            unspecified.append(str(exc))
            return ModelRun(expected, session, Ending.ALIGNED, unspecified=unspecified)
        session = verdict.session
        if verdict.answer is not None:
            expected.append(verdict.answer)
        if verdict.exit_status is not None:
            run = ModelRun(expected, session, Ending.SESSION_END, unspecified=unspecified)
            run.exit_status = verdict.exit_status
            return run


def _header_line(
    line: bytes, number: int, length: int | None
) -> tuple[str | None, int | None, str | None]:
    """Check one header line (its ending removed) of a section not yet in error.

    Returns the problem (None when the line is fine), the section's Content-Length
    so far, and a reason the line is outside the contract (None normally).
    """
    if len(line) > MAX_HEADER_LINE:
        return f"header line of {len(line)} bytes", length, None
    if number > MAX_HEADER_LINES:
        return f"header line number {number}", length, None
    name, colon, value = line.partition(b":")
    if not colon:
        return "header line without a colon", length, None
    if name.lower() != b"content-length":
        odd = None
        if name.strip(BLANKS).lower() == b"content-length":
            odd = f"header name {name!r} is Content-Length only once blanks are stripped"
        return None, length, odd
    digits = value.strip(BLANKS)
    if not 1 <= len(digits) <= MAX_LENGTH_DIGITS or not set(digits) <= DIGITS:
        return f"Content-Length value {value[:40]!r}", length, None
    declared = int(digits)
    if length is not None and declared != length:
        return f"Content-Length {declared} after {length}", length, None
    return None, declared, None


def _reject_constant(name: str) -> Any:
    raise ValueError(f"JSON has no {name}")


def _pairs_without_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    keys = [key for key, _ in pairs]
    if len(keys) != len(set(keys)):
        raise _Unspecified(f"duplicate keys {keys}")
    return dict(pairs)


_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"?', re.DOTALL)
_DEPTH_STEP = str.maketrans({"[": "1", "{": "1", "]": "2", "}": "2"})


def nesting_depth(text: str) -> int:
    """The deepest nesting of arrays and objects in ``text``, strings skipped."""
    brackets = re.sub(r"[^\[\]{}]", "", _JSON_STRING.sub("", text))
    steps = (1 if step == "1" else -1 for step in brackets.translate(_DEPTH_STEP))
    return max(itertools.accumulate(steps, initial=0))


def _bracket_count(text: str) -> int:
    return text.count("[") + text.count("{")


_SURROGATE = re.compile("[\ud800-\udfff]")


def _lone_surrogate(value: Any) -> bool:
    """Whether any string in ``value`` (keys included) holds an unpaired surrogate.

    Python's ``json`` joins an escaped pair into one character, so a surrogate left
    in a decoded string was unpaired.
    """
    if isinstance(value, str):
        return _SURROGATE.search(value) is not None
    if isinstance(value, list):
        return any(_lone_surrogate(item) for item in value)
    if isinstance(value, dict):
        return any(_lone_surrogate(k) or _lone_surrogate(v) for k, v in value.items())
    return False


def _check_numbers(value: Any) -> None:
    """Floats that overflowed to infinity are outside the oracle's trustworthy region."""
    if isinstance(value, float) and not math.isfinite(value):
        raise _Unspecified("a number that overflows a float")
    if isinstance(value, list):
        for item in value:
            _check_numbers(item)
    elif isinstance(value, dict):
        for item in value.values():
            _check_numbers(item)


def parse_json(body: bytes) -> Any:
    """The body as JSON, or :class:`_BadJSON` with why it is a parse error."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _BadJSON(f"invalid UTF-8 at byte {exc.start}") from None
    try:
        value = json.loads(
            text, parse_constant=_reject_constant, object_pairs_hook=_pairs_without_duplicates
        )
    except RecursionError:
        depth = nesting_depth(text)
        if depth <= DEEP_DEPTH:
            raise _Unspecified(f"nesting depth {depth} (between the trusted regions)") from None
        raise _BadJSON(f"nested {depth} deep") from None
    except json.JSONDecodeError as exc:
        raise _BadJSON(f"invalid JSON: {exc.msg} at {exc.pos}") from None
    except ValueError as exc:
        if "JSON has no" in str(exc):
            raise _BadJSON(str(exc)) from None
        raise _Unspecified(f"json refused a value: {exc}") from None
    if _bracket_count(text) > SHALLOW_DEPTH and nesting_depth(text) > SHALLOW_DEPTH:
        raise _Unspecified("valid JSON nested deeper than the shallow region")
    _check_numbers(value)
    if _lone_surrogate(value):
        raise _BadJSON("a lone surrogate escape")
    return value


class _BadJSON(Exception):
    """The body is not JSON the server may accept: a parse error."""


def is_id(value: Any) -> bool:
    """A request id: a string or an integer (``bool`` is not an integer here)."""
    return type(value) is str or type(value) is int


@functools.lru_cache(maxsize=512)
def classify_body(body: bytes, session: Session) -> Verdict:
    """The answer the contract assigns to one complete body in this session state."""
    try:
        request = parse_json(body)
    except _BadJSON as exc:
        return Verdict(Expected(None, PARSE_ERROR, str(exc)), session)
    if not isinstance(request, dict):
        return Verdict(Expected(None, INVALID_REQUEST, f"{type(request).__name__} body"), session)
    if "id" not in request or not is_id(request["id"]):
        why = "no id" if "id" not in request else f"id {request['id']!r}"
        return Verdict(Expected(None, INVALID_REQUEST, why), session)
    request_id = request["id"]
    method = request.get("method")
    if type(method) is not str or not method:
        return Verdict(Expected(request_id, METHOD_NOT_FOUND, f"method {method!r}"), session)
    params = request.get("params", ABSENT)
    if method == "initialize":
        return _initialize(request_id, params, session)
    if method == "analyze":
        if not session:
            answer = Expected(
                request_id, METHOD_NOT_FOUND, "analyze before initialize", not_initialized=True
            )
            return Verdict(answer, session)
        return Verdict(_analyze(request_id, params, session), session)
    if method == "shutdown":
        return Verdict(Expected(request_id, None, "shutdown", result="shutdown"), session, 0)
    return Verdict(Expected(request_id, METHOD_NOT_FOUND, f"method {method!r}"), session)


def _initialize(request_id: int | str, params: Any, session: Session) -> Verdict:
    if session:
        return Verdict(Expected(request_id, INVALID_REQUEST, "initialize again"), session)
    version = params.get("clientVersion") if isinstance(params, dict) else None
    match = VERSION_PREFIX.match(version) if type(version) is str else None
    if match is None:
        return Verdict(Expected(request_id, INVALID_PARAMS, f"initialize {params!r}"), None)
    major = match.group(1).lstrip("0") or "0"
    if major != SERVER_MAJOR:
        answer = Expected(request_id, VERSION_MISMATCH, f"clientVersion {version!r}", major=major)
        return Verdict(answer, None, 1)
    runs_at = "1.1" if match.group(2).strip("0") else "1.0"
    return Verdict(Expected(request_id, None, f"initialize {version!r}", result=runs_at), runs_at)


def _analyze(request_id: int | str, params: Any, session: Session) -> Expected:
    if not isinstance(params, dict):
        return Expected(request_id, INVALID_PARAMS, f"analyze params {params!r}")
    path = params.get("file_path")
    if type(path) is not str or not path:
        return Expected(request_id, INVALID_PARAMS, f"file_path {path!r}")
    cursor = params.get("cursor_position")
    if cursor is not None and (type(cursor) is not int or cursor < 0):
        return Expected(request_id, INVALID_PARAMS, f"cursor_position {cursor!r}")
    text = None
    if session == "1.1" and "text" in params:  # a 1.0 session ignores it
        text = params["text"]
        if type(text) is not str:
            return Expected(request_id, INVALID_PARAMS, f"text {text!r}")
    return Expected(request_id, None, "analyze", result=("analyze", path, cursor, text))


def realignment(
    stream: bytes, session: Session, classify: Classifier | None = None
) -> bytes | None:
    """Bytes that bring ``stream`` back between messages, or None when too many.

    A partial header line gets its line feed, an open header section its blank
    line, a short body its missing bytes (blanks), a discard its missing bytes.
    """
    suffix = b""
    for _ in range(6):
        run = run_model(stream + suffix, session, classify)
        if run.ending in (Ending.ALIGNED, Ending.SESSION_END):
            return suffix
        if run.ending is Ending.PARTIAL_LINE:
            suffix += b"\n"
        elif run.ending is Ending.SECTION_OPEN:
            suffix += b"\r\n"
        elif run.missing > REALIGN_CAP:
            return None
        else:
            suffix += (b" " if run.ending is Ending.BODY else b"\0") * run.missing
    raise AssertionError("the model did not realign in six steps")


# == Comparing what the server said ======================================================

#: The hints owed for (file_path, cursor, text): text None asks for the file on disk.
HintsOracle = Callable[[str, "int | None", "str | None"], list[dict[str, Any]]]


def mismatches(expected: list[Expected], got: list[Response], hints_for: HintsOracle) -> list[str]:
    """Every difference between the owed responses and the ones read, in order."""
    problems = []
    for index, pair in enumerate(itertools.zip_longest(expected, got)):
        want, have = pair
        if want is None:
            problems.append(f"#{index}: unexpected response {have.message}")
            continue
        if have is None:
            problems.append(f"#{index}: missing response: {want.describe()}")
            continue
        problem = _mismatch(want, have, hints_for)
        if problem:
            problems.append(f"#{index}: {problem}; wanted {want.describe()}, got {have.message}")
    return problems


def _mismatch(want: Expected, have: Response, hints_for: HintsOracle) -> str | None:
    if type(have.id) is not type(want.id) or have.id != want.id:
        return "wrong id"
    if want.code is not None:
        if have.code != want.code:
            return "wrong answer"
        message = have.error["message"]
        if want.not_initialized and "initializ" not in message.lower():
            return "the message does not say the session is not initialized"
        if want.major is not None:
            form = (
                f"VERSION_MISMATCH: client major version {want.major} "
                f"is incompatible with server major version {SERVER_MAJOR}"
            )
            if message != form:
                return "wrong VERSION_MISMATCH message"
        return None
    if "result" not in have.message:
        return "an error where a result was owed"
    if want.result in INITIALIZE_RESULTS:
        owed = INITIALIZE_RESULTS[want.result]
        return None if have.result == owed else "wrong initialize result"
    if want.result == "shutdown":
        return None if have.result == {} else "wrong shutdown result"
    assert isinstance(want.result, tuple)
    _, path, cursor, text = want.result
    if have.result != {"hints": hints_for(path, cursor, text)}:
        return "hints differ from the reference server's"
    return None


# == Reporting a stream ==================================================================


def describe_stream(stream: bytes, limit: int = 6000) -> str:
    """The stream, whole: as a bytes literal when short, else as a compressed blob."""
    if len(stream) <= limit:
        return f"stream ({len(stream)} bytes): {stream!r}"
    blob = base64.b85encode(zlib.compress(stream, 9)).decode("ascii")
    digest = hashlib.sha256(stream).hexdigest()[:16]
    return (
        f"stream ({len(stream)} bytes, sha256 {digest}..., head {stream[:300]!r}); "
        f"whole, for fuzz_model.decode_blob(): {blob}"
    )


def decode_blob(blob: str) -> bytes:
    """The stream a failure message carried as a compressed blob."""
    return zlib.decompress(base64.b85decode(blob))
