"""Fuzzing the whole server loop over real pipes: strategies, a reference model, a driver.

Three parts, used by ``test_fuzz_server.py``:

* **The reference model** (:func:`run_model`). Given a whole input byte stream and
  whether the session starts initialized, it says which responses the server owes,
  in order: one ``-32700`` with a null id per framing error, and for every complete
  body the answer class (code and id, or a result). It is written from the
  contract's Transport and Lifecycle tables alone and imports nothing from
  ``gzguide``: the JSON oracle is Python's ``json`` module, kept to the region where
  it is trustworthy (see *Assumptions*). It also says how the stream ends
  (aligned, inside a header line, inside a header section, inside a body, inside
  the discard of an over-limit body), which is what lets the driver realign a
  stream that random bytes left in the middle of a message.

* **Strategies** (:func:`fuzz_streams` and the unit strategies it draws from):
  valid requests of every method the fuzzed session may see, framed with every
  header variant the contract accepts, interleaved with every kind of garbage the
  contract names (bad ``Content-Length`` values, lines without a colon, too many
  or too long header lines, over-limit bodies, invalid UTF-8, invalid JSON, a BOM,
  ``NaN``, JSON that is not an object, bad ids, deep nesting) and raw random bytes.
  Units are drawn one at a time, each knowing the session state the model predicts
  at that point, so a version-mismatch ``initialize`` is only ever drawn where the
  session is already initialized (where it must be refused with ``-32600``).

* **The driver** (:class:`FuzzDriver`): one long-lived server, a stream written
  whole or split into writes with tiny pauses, then a sync request (an
  unknown method with a fresh id) and every response read up to its answer; the
  list must equal the model's, nothing missing and nothing extra. Analyze results
  are compared with what a separate reference server (in-process analysis, only
  ever sent clean requests) answers for the same file and cursor.

Assumptions beyond the contract's words (each one is a place the model refuses to
judge, or a decision the project's README states):

* JSON the model relies on is nested either shallower than 100 levels or deeper
  than 20,000; anything in between is outside the contract's words ("nesting too
  deep" names no depth) and the example is rejected. Integers longer than 4,000
  digits, numbers that overflow a float and duplicate object keys are likewise
  rejected: Python's ``json`` is not a trustworthy oracle there.
* A string holding a lone surrogate escape (``"\\ud800"``) is a parse error: the
  README lists it among the ``-32700`` cases (it cannot be represented in UTF-8).
* Unknown top-level fields of a request (``"jsonrpc": "2.0"``) are ignored, as
  unknown ``params`` fields and unknown headers are.
* A header name is compared case-insensitively and exactly; a name that equals
  ``Content-Length`` only once blanks around it are stripped is outside the
  contract, so such streams are rejected (never generated on purpose).
* A framing error is answered as soon as it is found (the README says so), so one
  found in a header section that EOF then cuts short is owed all the same.
* At end of input, a partial header line already known to be over the 8 KiB limit
  may or may not have been answered with its ``-32700`` (the contract says nothing
  is answered for a message cut by EOF; the README says errors are sent as soon as
  detected): both are accepted. Everything else complete before the cut is owed.
"""

from __future__ import annotations

import base64
import contextlib
import dataclasses
import enum
import functools
import hashlib
import itertools
import json
import math
import os
import re
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from protocol_client import Response, ServerFailure, ServerProcess, analyze_message, frame

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
INITIALIZE_RESULT = {"version": "1.0", "capabilities": ["analyze"]}
BLANKS = b" \t"
DIGITS = frozenset(b"0123456789")
#: ``clientVersion`` must start with ASCII ``digits.digits``.
VERSION_PREFIX = re.compile(r"([0-9]+)\.[0-9]+")

#: Stands for a field left out of a request.
_ABSENT: Any = object()

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

    ``code`` is None for a result; then ``result`` says which: ``"initialize"`` or
    ``("analyze", file_path, cursor)``.
    """

    id: int | str | None
    code: int | None
    why: str
    result: str | tuple[str, str, int | None] | None = None
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
    initialized: bool
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
    initialized: bool
    exit_status: int | None = None


def run_model(stream: bytes, initialized: bool) -> ModelRun:
    """The responses owed for ``stream``, read from its first byte to its last."""
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
                run = ModelRun(expected, initialized, Ending.ALIGNED, unspecified=unspecified)
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
                    initialized,
                    Ending.DISCARD,
                    length - available,
                    unspecified=unspecified,
                )
            continue
        if size - pos < length:
            return ModelRun(
                expected, initialized, Ending.BODY, length - (size - pos), unspecified=unspecified
            )
        body = stream[pos : pos + length]
        pos += length
        try:
            verdict = classify_body(body, initialized)
        except _Unspecified as exc:
            unspecified.append(str(exc))
            return ModelRun(expected, initialized, Ending.ALIGNED, unspecified=unspecified)
        initialized = verdict.initialized
        if verdict.answer is not None:
            expected.append(verdict.answer)
        if verdict.exit_status is not None:
            run = ModelRun(expected, initialized, Ending.SESSION_END, unspecified=unspecified)
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
def classify_body(body: bytes, initialized: bool) -> Verdict:
    """The answer the contract assigns to one complete body in this session state."""
    try:
        request = parse_json(body)
    except _BadJSON as exc:
        return Verdict(Expected(None, PARSE_ERROR, str(exc)), initialized)
    if not isinstance(request, dict):
        return Verdict(
            Expected(None, INVALID_REQUEST, f"{type(request).__name__} body"), initialized
        )
    if "id" not in request or not is_id(request["id"]):
        why = "no id" if "id" not in request else f"id {request['id']!r}"
        return Verdict(Expected(None, INVALID_REQUEST, why), initialized)
    request_id = request["id"]
    method = request.get("method")
    if type(method) is not str or not method:
        return Verdict(Expected(request_id, METHOD_NOT_FOUND, f"method {method!r}"), initialized)
    params = request.get("params", _ABSENT)
    if method == "initialize":
        return _initialize(request_id, params, initialized)
    if method == "analyze":
        if not initialized:
            answer = Expected(
                request_id, METHOD_NOT_FOUND, "analyze before initialize", not_initialized=True
            )
            return Verdict(answer, initialized)
        return Verdict(_analyze(request_id, params), initialized)
    if method == "shutdown":
        return Verdict(Expected(request_id, None, "shutdown", result="shutdown"), initialized, 0)
    return Verdict(Expected(request_id, METHOD_NOT_FOUND, f"method {method!r}"), initialized)


def _initialize(request_id: int | str, params: Any, initialized: bool) -> Verdict:
    if initialized:
        return Verdict(Expected(request_id, INVALID_REQUEST, "initialize again"), True)
    version = params.get("clientVersion") if isinstance(params, dict) else None
    match = VERSION_PREFIX.match(version) if type(version) is str else None
    if match is None:
        return Verdict(Expected(request_id, INVALID_PARAMS, f"initialize {params!r}"), False)
    major = match.group(1).lstrip("0") or "0"
    if major != SERVER_MAJOR:
        answer = Expected(request_id, VERSION_MISMATCH, f"clientVersion {version!r}", major=major)
        return Verdict(answer, False, 1)
    return Verdict(Expected(request_id, None, "initialize", result="initialize"), True)


def _analyze(request_id: int | str, params: Any) -> Expected:
    if not isinstance(params, dict):
        return Expected(request_id, INVALID_PARAMS, f"analyze params {params!r}")
    path = params.get("file_path")
    if type(path) is not str or not path:
        return Expected(request_id, INVALID_PARAMS, f"file_path {path!r}")
    cursor = params.get("cursor_position")
    if cursor is not None and (type(cursor) is not int or cursor < 0):
        return Expected(request_id, INVALID_PARAMS, f"cursor_position {cursor!r}")
    return Expected(request_id, None, "analyze", result=("analyze", path, cursor))


def realignment(stream: bytes, initialized: bool) -> bytes | None:
    """Bytes that bring ``stream`` back between messages, or None when too many.

    A partial header line gets its line feed, an open header section its blank
    line, a short body its missing bytes (blanks), a discard its missing bytes.
    """
    suffix = b""
    for _ in range(6):
        run = run_model(stream + suffix, initialized)
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

HintsOracle = Callable[[str, "int | None"], list[dict[str, Any]]]


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
    if want.result == "initialize":
        return None if have.result == INITIALIZE_RESULT else "wrong initialize result"
    if want.result == "shutdown":
        return None if have.result == {} else "wrong shutdown result"
    assert isinstance(want.result, tuple)
    _, path, cursor = want.result
    if have.result != {"hints": hints_for(path, cursor)}:
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
        f"whole, for fuzz_server.decode_blob(): {blob}"
    )


def decode_blob(blob: str) -> bytes:
    """The stream a failure message carried as a compressed blob."""
    return zlib.decompress(base64.b85decode(blob))


# == The workspace the fuzzed servers analyze ============================================

# My own small modules. radon's cyclomatic complexity of ``route`` is 5 and of
# ``Dispatcher.pick`` 6: both inside the default advise band, so cursors matter.
BRANCHY = """\
import os


def route(kind, size, flag):
    if kind == "a":
        return 1
    if size > 10:
        return 2
    if flag:
        return 3
    if kind == "b" and size:
        return 4
    return 0


class Dispatcher:
    def pick(self, a, b, c, d, e):
        if a:
            return a
        if b:
            return b
        if c:
            return c
        if d:
            return d
        if e:
            return e
        return None

    def plain(self):
        return os.sep
"""
SMALL = """\
def tally(a, b, c):
    if a:
        return 1
    if b:
        return 2
    if c:
        return 3
    return 0
"""

FIXTURE_FILES: dict[str, bytes] = {
    "branchy.py": BRANCHY.encode(),
    "crlf.py": BRANCHY.replace("\n", "\r\n").encode(),
    "flat.py": b"VALUE = 1\n",
    "empty.py": b"",
    "broken.py": b"def broken(:\n    pass\n",
    "na\u00efve \u00e9t\u00e9.py": SMALL.encode(),
    "notes.txt": b"not python at all\n",
    "pkg/__init__.py": b"",
    "pkg/mod.py": SMALL.encode(),
    "pkg/deeper/more.py": BRANCHY.encode(),
    "pkg/.hidden.py": SMALL.encode(),
}


def make_workspace(root: Path) -> list[str]:
    """Write the fixture files under ``root``; the paths analyze requests will name."""
    for name, content in FIXTURE_FILES.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content)
    relative = ["branchy.py", "./branchy.py", "crlf.py", "flat.py", "empty.py", "broken.py"]
    relative += ["na\u00efve \u00e9t\u00e9.py", "notes.txt", "pkg", "pkg/", "pkg/deeper/more.py"]
    relative += ["missing.py", "pkg/../branchy.py"]
    absolute = [str(root / "branchy.py"), str(root / "pkg"), str(root / "nowhere" / "x.py")]
    return relative + absolute + ["/dev/null"]


#: Cursor offsets tried on every file: inside, at the end of and just past each fixture,
#: and far past any file (also past 64-bit integers).
_SIZES = sorted({len(content) for content in FIXTURE_FILES.values()})
CURSORS = (0, 1, 30, 60, 95, 140, 200, 260, 330, *_SIZES, *(size + 1 for size in _SIZES))
CURSORS += (10**6, 2**63, 10**30)


class ReferenceServer:
    """Hints for (file, cursor) from a server only ever sent clean requests.

    It analyzes in-process (``--workers 0``), which also checks that the pool and
    the in-process engine agree.
    """

    def __init__(self, cwd: Path) -> None:
        self.cwd = cwd
        self._server: ServerProcess | None = None
        self._cache: dict[tuple[str, int | None], list[dict[str, Any]]] = {}
        self._ids = itertools.count()

    def hints(self, path: str, cursor: int | None) -> list[dict[str, Any]]:
        key = (path, cursor)
        if key not in self._cache:
            if self._server is None:
                self._server = ServerProcess(args=("--workers", "0"), cwd=self.cwd)
                self._server.initialize()
            request_id = f"reference-{next(self._ids)}"
            extra = {} if cursor is None else {"cursor": cursor}
            response = self._server.request(analyze_message(request_id, path, **extra))
            self._cache[key] = response.hints
        return self._cache[key]

    def close(self) -> None:
        if self._server is not None:
            self._server.kill()
            self._server = None


# == Strategies ===========================================================================


@dataclass(frozen=True)
class Raw:
    """A JSON fragment written verbatim (odd literals, bad syntax, deep nesting)."""

    text: str


_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r"}
_ESCAPES["\t"] = "\\t"


def _escape_all(text: str) -> str:
    """Every character as a ``\\u`` escape (surrogate pairs beyond the BMP)."""
    out = []
    for char in text:
        code = ord(char)
        if code > 0xFFFF:
            code -= 0x10000
            out.append(f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04X}")
        else:
            out.append(f"\\u{code:04x}")
    return "".join(out)


def _escape_needed(text: str) -> str:
    """Only what JSON requires escaped; everything else written as itself."""
    out = []
    for char in text:
        if char in _ESCAPES:
            out.append(_ESCAPES[char])
        elif ord(char) < 0x20:
            out.append(f"\\u{ord(char):04x}")
        else:
            out.append(char)
    return "".join(out)


def encode_string(text: str, style: int) -> str:
    """A JSON string literal: 0 only the escapes JSON needs, 1 ASCII only, 2 every
    character escaped, 3 as 0 with ``/`` escaped too."""
    if style == 1:
        return json.dumps(text, ensure_ascii=True)
    if style == 2:
        return f'"{_escape_all(text)}"'
    if style == 3:
        return '"' + _escape_needed(text).replace("/", "\\/") + '"'
    return f'"{_escape_needed(text)}"'


@dataclass(frozen=True)
class TextStyle:
    """How one JSON document is written: whitespace around tokens, string escaping."""

    #: Between every two tokens (JSON whitespace only).
    space: str = ""
    #: The :func:`encode_string` style of every string.
    strings: int = 0


def encode_json(value: Any, style: TextStyle) -> str:
    """``value`` as JSON text in ``style`` (``Raw`` fragments written verbatim)."""
    gap = style.space
    if isinstance(value, Raw):
        return value.text
    if isinstance(value, dict):
        items = [
            f"{encode_string(k, style.strings)}{gap}:{gap}{encode_json(v, style)}"
            for k, v in value.items()
        ]
        return "{" + gap + f"{gap},{gap}".join(items) + gap + "}"
    if isinstance(value, list):
        return "[" + gap + f"{gap},{gap}".join(encode_json(v, style) for v in value) + gap + "]"
    if isinstance(value, str):
        return encode_string(value, style.strings)
    if value is None or isinstance(value, bool | int | float):
        return json.dumps(value)
    raise TypeError(f"cannot encode {value!r}")


text_styles = st.builds(
    TextStyle,
    space=st.sampled_from(["", "", "", " ", "\n", "\t", "\r\n  "]),
    strings=st.sampled_from([0, 0, 1, 2, 3]),
)

short_text = st.text(st.characters(codec="utf-8"), max_size=12) | st.sampled_from(
    ["", 'a"b\\c', "tab\there", "\u00e9\u4e2d\U0001f600", "\u2028", "/"]
)

valid_ids: st.SearchStrategy[Any] = st.one_of(
    st.integers(-(2**63), 2**64),
    st.integers(-(10**40), 10**40),
    short_text,
    st.sampled_from([0, -1, 2**53 + 1, "", "0", "null", "1.5", Raw("-0"), Raw("0")]),
)
BAD_IDS: list[Any] = [None, True, False, 1.5, -0.0, 1e300, Raw("1E2"), Raw("1.0"), Raw("-0.0")]
BAD_IDS += [Raw("1e-5"), [], {}, [1], {"id": 1}, ["a"]]
bad_ids: st.SearchStrategy[Any] = st.sampled_from(BAD_IDS)

#: Methods the fuzzed session may see besides initialize and analyze (never shutdown).
NEAR_MISSES = ["Initialize", "ANALYZE", "analyze ", " analyze", "initialize\u0000", "Shutdown"]
NEAR_MISSES += ["shutdown ", "exit", "$/cancelRequest", "textDocument/didOpen", "analyse", "\u00e9"]
unknown_methods = st.one_of(
    st.sampled_from(NEAR_MISSES),
    st.text(st.characters(codec="utf-8"), min_size=1, max_size=12).filter(
        lambda m: m not in ("initialize", "analyze", "shutdown")
    ),
)
bad_methods: st.SearchStrategy[Any] = st.sampled_from(
    [_ABSENT, "", None, 1, True, [], {}, ["analyze"], {"name": "analyze"}, Raw("1.5")]
)

VALID_VERSIONS = ["1.0", "1.9", "01.2", "001.0", "1.0.3", "1.0-beta", "1.00", "1.0 extra"]
VALID_VERSIONS += ["1.2.3.4"]
BAD_VERSIONS: list[Any] = ["", "1", "v1.0", "1.", ".1", "1,0", " 1.0", "1 .0", "x1.0", "one.zero"]
BAD_VERSIONS += ["\u0661.\u0660", "\uff11.\uff10", 1, 1.0, None, True, [], {}, ["1.0"]]
OTHER_MAJORS = ["2.0", "0.9", "10.0", "11.1", "02.0", "99999999999999999999.0", "0.0"]

extra_fields = st.dictionaries(
    st.sampled_from(["jsonrpc", "x", "trace", "\u00e9", "params2", "Id", "METHOD"]),
    st.sampled_from(["2.0", 1, None, [], {"a": [1, {"b": None}]}, "\u00e9"]),
    max_size=2,
)


@st.composite
def request_object(draw: st.DrawFn, method: Any, params: Any, request_id: Any) -> dict[str, Any]:
    """A request with these fields (``_ABSENT`` leaves one out), extras, shuffled keys."""
    fields: dict[str, Any] = {}
    if request_id is not _ABSENT:
        fields["id"] = request_id
    if method is not _ABSENT:
        fields["method"] = method
    if params is not _ABSENT:
        fields["params"] = params
    if draw(st.integers(0, 3)) == 0:
        fields.update(draw(extra_fields))
    order = draw(st.permutations(list(fields)))
    return {key: fields[key] for key in order}


BAD_CURSORS: list[Any] = [-1, -(10**30), 1.5, Raw("1.0"), Raw("1E2"), Raw("-0.0"), Raw("0e0")]
BAD_CURSORS += ["5", True, False, [], {}, [0]]


@st.composite
def analyze_params(draw: st.DrawFn, paths: list[str], valid: bool) -> Any:
    if valid:
        params: dict[str, Any] = {"file_path": draw(st.sampled_from(paths))}
        choice = draw(st.integers(0, 3))
        if choice == 1:
            params["cursor_position"] = None
        elif choice >= 2:
            params["cursor_position"] = draw(st.sampled_from([*CURSORS, Raw("-0")]))
        if draw(st.integers(0, 4)) == 0:
            params["future_option"] = draw(st.sampled_from([True, "x", {"y": 1}]))
        return params
    kind = draw(st.integers(0, 2))
    if kind == 0:
        return draw(st.sampled_from([_ABSENT, None, [], "branchy.py", 1, Raw("[{}]")]))
    if kind == 1:
        path = draw(st.sampled_from([_ABSENT, "", None, 1, [], {}, True, ["a.py"]]))
        return {} if path is _ABSENT else {"file_path": path}
    bad_cursor = draw(st.sampled_from(BAD_CURSORS))
    return {"file_path": draw(st.sampled_from(paths)), "cursor_position": bad_cursor}


@st.composite
def request_bodies(draw: st.DrawFn, paths: list[str], initialized: bool) -> bytes:
    """One request body: any method the fuzzed session may see, ids good and bad."""
    kind = draw(st.integers(0, 9))
    request_id = draw(valid_ids)
    if kind == 0:  # initialize (a version mismatch only where it must be refused)
        versions = VALID_VERSIONS + BAD_VERSIONS + (OTHER_MAJORS if initialized else [])
        version = draw(st.sampled_from([*versions, _ABSENT]))
        params: Any = {} if version is _ABSENT else {"clientVersion": version}
        if draw(st.integers(0, 4)) == 0:  # a 1.x client's optional parameters are ignored
            params["clientName"] = draw(st.sampled_from(["vim", None, {"x": [1]}]))
        if draw(st.integers(0, 5)) == 0:
            params = draw(st.sampled_from([_ABSENT, None, [], "1.0", Raw('["1.0"]')]))
        obj = draw(request_object("initialize", params, request_id))
    elif kind <= 4:  # analyze, mostly valid
        valid = draw(st.integers(0, 3)) > 0
        obj = draw(request_object("analyze", draw(analyze_params(paths, valid)), request_id))
    elif kind <= 6:
        params = draw(st.sampled_from([_ABSENT, {}, None, [1], {"file_path": "x.py"}]))
        obj = draw(request_object(draw(unknown_methods), params, request_id))
    elif kind == 7:
        obj = draw(request_object(draw(bad_methods), {}, request_id))
    else:  # a bad or missing id on an otherwise sensible request
        method = draw(st.sampled_from(["initialize", "analyze", "nope", _ABSENT]))
        params = {"clientVersion": "1.0"} if method == "initialize" else {"file_path": paths[0]}
        obj = draw(request_object(method, params, draw(st.one_of(bad_ids, st.just(_ABSENT)))))
    text = encode_json(obj, draw(text_styles))
    if draw(st.integers(0, 5)) == 0:  # JSON whitespace around the value is still JSON
        text = draw(json_blanks) + text + draw(json_blanks)
    return text.encode("utf-8")


json_blanks = st.sampled_from(["", " ", "\r\n", "\t\n ", "\n\n"])


#: Byte sequences that are not UTF-8.
INVALID_UTF8 = [b"\xff", b"\xfe", b"\x80", b"\xc0\xaf", b"\xe0\x80\xaf", b"\xed\xa0\x80"]
INVALID_UTF8 += [b"\xf4\x90\x80\x80", b"\xc3", b"\xe2\x82", b"\xf8\x88\x80\x80\x80", b"\xc3\x28"]
MARKER = "\u2603MARK\u2603"
NOT_JSON_VALUES = ["NaN", "Infinity", "-Infinity", "nan", "+1", "01", ".5", "1.", "-", "0x1F"]
NOT_JSON_VALUES += ["tru", "True", "nul", "'single'", '"\\x41"', '"\\u12"', '"a\x01b"', '"a\tb"']
NOT_JSON_VALUES += ['"line\nbreak"', "[1,]", "{,}", '{"a" 1}', '{"a":1,}', "[1 2]", "undefined"]
LONE_SURROGATES = ['"\\ud800"', '"a\\udc00b"', '"\\ud83dx"', '"\\ude00\\ud83d"', '"\\uDBFF"']
SYNTAX_TAILS = [b"x", b"}", b",", b"\x00", b"\x0c", b"]", b"{}", b'{"id":2,"method":"x"}', b"//"]


@st.composite
def deep_nesting(draw: st.DrawFn) -> str:
    """Arrays or objects nested far deeper than any server accepts (closed or not)."""
    depth = draw(st.sampled_from([DEEP_DEPTH + 1, 25_000, 40_000, 100_000]))
    if draw(st.booleans()):
        opening, closing = "[", "]"
    else:
        opening, closing = '{"k":', "}"
    inner = draw(st.sampled_from(["1", '"x"', "null"] + ([""] if opening == "[" else [])))
    text = opening * depth + inner + closing * depth
    return text if draw(st.integers(0, 4)) else text[: len(text) // 2]


@st.composite
def invalid_bodies(draw: st.DrawFn, paths: list[str]) -> bytes:
    """A body that is not a valid request at the JSON level, or not an object."""
    base_id = draw(valid_ids)
    kind = draw(st.integers(0, 10))
    where = draw(st.sampled_from(["id", "params", "extra", "method"]))

    def with_fragment(fragment: Raw) -> bytes:
        fields: dict[str, Any] = {"id": base_id, "method": "analyze"}
        fields["params"] = {"file_path": paths[0]}
        if where == "id":
            fields["id"] = fragment
        elif where == "params":
            fields["params"] = {"file_path": paths[0], "cursor_position": fragment}
        elif where == "method":
            fields["method"] = fragment
        else:
            fields["zz"] = fragment
        return encode_json(fields, draw(text_styles)).encode("utf-8")

    if kind == 0:  # invalid UTF-8 inside a string
        bad = draw(st.sampled_from(INVALID_UTF8))
        return with_fragment(Raw(json.dumps(MARKER))).replace(MARKER.encode(), bad)
    if kind == 1:
        return b"\xef\xbb\xbf" + with_fragment(Raw('"fine"'))
    if kind == 2:
        return with_fragment(Raw(draw(st.sampled_from(NOT_JSON_VALUES))))
    if kind == 3:
        return with_fragment(Raw(draw(st.sampled_from(LONE_SURROGATES))))
    if kind == 4:
        return with_fragment(Raw('"ok"')) + draw(st.sampled_from(SYNTAX_TAILS))
    if kind == 5:
        whole = with_fragment(Raw('"ok"'))
        return whole[: draw(st.integers(0, len(whole) - 1))]
    if kind == 6:
        if draw(st.booleans()):
            return draw(deep_nesting()).encode()
        return with_fragment(Raw(draw(deep_nesting())))
    if kind == 7:
        return draw(st.sampled_from([b"", b" ", b"\r\n", b"\t \n", b"{", b"}", b"\x00"]))
    if kind == 8:  # JSON, but not an object: -32600
        value = draw(non_object_json)
        return encode_json(value, draw(text_styles)).encode("utf-8")
    if kind == 9:  # valid JSON whose nesting is a string, not structure
        return with_fragment(Raw(json.dumps("[" * 30_000)))
    return draw(st.sampled_from([b"'{}'", b"{'id': 1}", b'{"id":1 /*c*/}', b"{id:1}", b"\x1b[0m"]))


json_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**20), 10**20),
    st.floats(allow_nan=False, allow_infinity=False),
    short_text,
)


_json_keys = st.sampled_from(["id", "method", "params", "file_path", "clientVersion"]) | short_text


def _json_level(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """Scalars, or arrays and objects of ``inner``: one more level of nesting."""
    return st.one_of(
        json_scalars,
        st.lists(inner, max_size=3),
        st.dictionaries(_json_keys, inner, max_size=3),
    )


#: Any JSON value at most three levels deep (well inside the shallow region).
json_values: st.SearchStrategy[Any] = _json_level(_json_level(_json_level(json_scalars)))


#: JSON that is not an object (a request must be one): -32600.
non_object_json: st.SearchStrategy[Any] = st.one_of(
    json_scalars,
    st.lists(json_values, max_size=3),
    st.just([{"id": 1, "method": "initialize", "params": {"clientVersion": "1.0"}}]),
    st.just([{"id": 2, "method": "gzguide/x"}, {"id": 3, "method": "y"}]),
)

#: Objects with their fields drawn at random: every combination of good and bad.
_random_fields = st.dictionaries(
    st.sampled_from(["id", "method", "params", "jsonrpc"]),
    st.one_of(
        json_values,
        st.sampled_from(["initialize", "analyze", "branchy.py"]),
        st.fixed_dictionaries(
            {},
            optional={
                "clientVersion": st.sampled_from([*VALID_VERSIONS, *BAD_VERSIONS[:4]]),
                "file_path": st.sampled_from(["branchy.py", "", "pkg", 3]),
                "cursor_position": st.sampled_from([None, 0, 5, -1, 2.5, "1"]),
            },
        ),
    ),
    max_size=4,
)


@st.composite
def random_objects(draw: st.DrawFn) -> bytes:
    """A JSON object with fields drawn at random, as text."""
    return encode_json(draw(_random_fields), draw(text_styles)).encode("utf-8")


# -- framing -------------------------------------------------------------------------------

CL_NAMES = [b"Content-Length", b"content-length", b"CONTENT-LENGTH", b"cOnTeNt-LeNgTh"]
UNKNOWN_HEADERS = [
    b"Content-Type: application/vscode-jsonrpc; charset=utf-8",
    b"Content-Type:application/json",
    b"X-Fuzz: \xff\xfe not utf-8",
    b"Content-Lengthy: 5",
    b"Content-Length-X: 99",
    b": an empty name",
    b"X-Empty:",
    b"X-Many-Colons: a:b:c",
    b"content-type:\t",
    b"X-Unicode: \xc3\xa9t\xc3\xa9",
]
BAD_LENGTHS = [b"", b" ", b"-5", b"+5", b"5.0", b"5e1", b"0x10", b"five", b"5 5", b"5,5"]
BAD_LENGTHS += [b"\xd9\xa5", b"\xef\xbc\x95", b"1" * 21, b"0" * 21, b"\x0b5", b"5\x0c", b"5\r"]
BAD_LENGTHS += [b"5\x00", b"\xc2\xb9", b"5\t5", b"- 5", b"12345678901234567890123"]


line_endings = st.sampled_from([b"\r\n", b"\r\n", b"\n"])


@st.composite
def length_lines(draw: st.DrawFn, length: int) -> bytes:
    """A Content-Length header line for ``length`` in any accepted spelling."""
    if draw(st.integers(0, 2)):
        return b"Content-Length: %d" % length
    name = draw(st.sampled_from(CL_NAMES))
    digits = b"%d" % length
    zeros = draw(st.integers(0, MAX_LENGTH_DIGITS - len(digits)))
    before = draw(st.sampled_from([b"", b" ", b"\t", b"  \t "]))
    after = draw(st.sampled_from([b"", b"", b" ", b"\t", b" \t"]))
    return name + b":" + before + b"0" * zeros + digits + after


@st.composite
def framed(draw: st.DrawFn, body: bytes) -> bytes:
    """``body`` behind a header section the contract accepts."""
    if draw(st.integers(0, 2)):
        return b"Content-Length: %d\r\n\r\n" % len(body) + body
    lines = [draw(length_lines(len(body)))]
    for _ in range(draw(st.integers(0, 3))):
        lines.insert(draw(st.integers(0, len(lines))), draw(st.sampled_from(UNKNOWN_HEADERS)))
    if draw(st.integers(0, 4)) == 0:
        lines.insert(draw(st.integers(0, len(lines))), draw(length_lines(len(body))))
    head = b"".join(line + draw(line_endings) for line in lines)
    lead = draw(st.sampled_from([b"", b"", b"\r\n", b"\n", b"\r\n\n"]))
    return lead + head + draw(line_endings) + body


drained_lines = st.sampled_from(
    [b"Content-Length: 7", b"no colon", b"x" * (MAX_HEADER_LINE + 5), b"X-A: b", b"\r"]
)


def filler_line(index: int) -> bytes:
    return b"X-Filler-%d: %d" % (index, index)


@st.composite
def bad_sections(draw: st.DrawFn, paths: list[str], initialized: bool) -> bytes:
    """A header section in error, drained up to its blank line (one -32700)."""
    kind = draw(st.integers(0, 6))
    before = [draw(st.sampled_from(UNKNOWN_HEADERS)) for _ in range(draw(st.integers(0, 2)))]
    if kind == 0:
        name = draw(st.sampled_from(CL_NAMES))
        cause = [
            name + b":" + draw(st.sampled_from([b"", b" "])) + draw(st.sampled_from(BAD_LENGTHS))
        ]
    elif kind == 1:
        first, second = draw(st.lists(st.integers(0, 99), min_size=2, max_size=2, unique=True))
        cause = [b"Content-Length: %d" % first, b"Content-Length: %d" % second]
    elif kind == 2:
        cause = [draw(st.sampled_from([b"no colon here", b"Content-Length 5", b"\r", b" ", b"{}"]))]
    elif kind == 3:
        count = draw(st.integers(MAX_HEADER_LINES + 1 - len(before), MAX_HEADER_LINES + 4))
        cause = [filler_line(i) for i in range(count - 1)] + [b"Content-Length: 2"]
    elif kind == 4:
        size = draw(st.sampled_from([MAX_HEADER_LINE + 1, MAX_HEADER_LINE + 2, 9000, 70_000]))
        prefix = draw(st.sampled_from([b"X-Long: ", b"Content-Length:", b"nocolon"]))
        if prefix == b"Content-Length:":  # a valid value, blanks making the line too long
            cause = [prefix + b" " * (size - len(prefix) - 1) + b"5"]
        else:
            cause = [prefix + b"a" * (size - len(prefix))]
    elif kind == 5:  # no Content-Length at all
        cause = [draw(st.sampled_from(UNKNOWN_HEADERS))]
    else:  # a valid Content-Length with a body that must NOT be skipped
        cause = [b"Content-Length: 40", b"oops"]
    # After the error, anything: the section is drained whatever its lines hold.
    after = [draw(drained_lines) for _ in range(draw(st.integers(0, 3)))]
    lines = before + cause + (after if kind != 5 else [])
    section = b"".join(line + draw(line_endings) for line in lines) + draw(line_endings)
    if kind == 6 or draw(st.integers(0, 3)) == 0:
        # Right after the blank line comes the next message, never a skipped body.
        body = draw(request_bodies(paths, initialized))
        section += b"Content-Length: %d\r\n\r\n" % len(body) + body
    return section


@st.composite
def limit_frames(draw: st.DrawFn, body: bytes) -> bytes:
    """``body`` behind a header section exactly at a limit (accepted)."""
    kind = draw(st.integers(0, 2))
    ending = draw(line_endings)
    if kind == 0:  # a header line of exactly 8 KiB (line ending not counted)
        prefix = b"X-Pad: "
        line = prefix + b"p" * (MAX_HEADER_LINE - len(prefix))
        head = line + ending + b"Content-Length: %d" % len(body) + ending
    elif kind == 1:  # the Content-Length line itself padded with blanks to 8 KiB
        value = b"%d" % len(body)
        pad = MAX_HEADER_LINE - len(b"Content-Length:") - len(value)
        head = b"Content-Length:" + b" " * pad + value + ending
    else:  # exactly 32 header lines
        head = b"".join(filler_line(i) + ending for i in range(MAX_HEADER_LINES - 1))
        head += b"Content-Length: %d" % len(body) + ending
    return head + ending + body


#: A body over the limit is filled with frames that must never be answered.
_DECOY = frame({"id": "decoy-never-answered", "method": "initialize", "params": {}})


@st.composite
def huge_frames(draw: st.DrawFn, paths: list[str], initialized: bool) -> bytes:
    """A body just over the limit (discarded in full) or exactly at it (answered)."""
    if draw(st.booleans()):
        size = MAX_BODY + draw(st.sampled_from([1, 2, 1000, 65_536, 65_537]))
        body = (_DECOY * (size // len(_DECOY) + 1))[:size]
        return b"Content-Length: %d\r\n\r\n" % size + body
    request = draw(request_bodies(paths, initialized))
    return frame(request + b" " * (MAX_BODY - len(request)))


RAW_TOKENS = [b"\r\n", b"\n", b"\r", b":", b"Content-Length: ", b"content-length:", b"1", b"7"]
RAW_TOKENS += [b"{", b"}", b'"id":1', b"\xff", b" ", b"\t", b"\x00", b"X-A: b\r\n", b"\r\n\r\n"]


@st.composite
def raw_garbage(draw: st.DrawFn) -> bytes:
    """Bytes with no structure promised: the stream may end up anywhere after them."""
    kind = draw(st.integers(0, 3))
    if kind == 0:
        return draw(st.binary(min_size=1, max_size=120))
    if kind == 1:
        return b"".join(draw(st.lists(st.sampled_from(RAW_TOKENS), min_size=1, max_size=16)))
    if kind == 2:  # random bytes as a correctly framed body
        return frame(draw(st.binary(max_size=80)))
    # random bytes as a header section: lines of random bytes, then a blank line
    chunks = draw(st.lists(st.binary(min_size=1, max_size=40), min_size=1, max_size=4))
    lines = [chunk.replace(b"\n", b"") or b"?" for chunk in chunks]
    return b"".join(line + b"\r\n" for line in lines) + b"\r\n"


@st.composite
def bursts(draw: st.DrawFn, paths: list[str], initialized: bool) -> bytes:
    """Tens to hundreds of requests in one write: the answers pile up while it is sent."""
    bodies = draw(st.lists(request_bodies(paths, initialized), min_size=1, max_size=3))
    count = draw(st.integers(10, 300))
    return b"".join(frame(bodies[index % len(bodies)]) for index in range(count))


#: How often each kind of unit is drawn (its share of this list).
UNIT_KINDS = (
    ["request"] * 10
    + ["invalid_body"] * 5
    + ["bad_section"] * 4
    + ["blank_lines"]
    + ["raw"] * 3
    + ["random_object"] * 2
    + ["limit"]
    + ["burst"]
)


@dataclass(frozen=True)
class FuzzStream:
    """A generated stream, the session state it starts in, and how to write it."""

    initialized_before: bool
    stream: bytes
    #: Offsets where one write ends and the next begins, and the pause between writes.
    cuts: tuple[int, ...] = ()
    pause: float = 0.0
    units: tuple[str, ...] = ()
    #: Read every owed answer before sending the sync request.
    await_answers: bool = False


def _unit(draw: st.DrawFn, kind: str, paths: list[str], initialized: bool) -> bytes:
    if kind == "request":
        return draw(framed(draw(request_bodies(paths, initialized))))
    if kind == "invalid_body":
        return draw(framed(draw(invalid_bodies(paths))))
    if kind == "bad_section":
        return draw(bad_sections(paths, initialized))
    if kind == "blank_lines":
        return b"".join(draw(st.lists(st.sampled_from([b"\r\n", b"\n"]), min_size=1, max_size=4)))
    if kind == "raw":
        return draw(raw_garbage())
    if kind == "random_object":
        return draw(framed(draw(random_objects())))
    if kind == "limit":
        return draw(limit_frames(draw(request_bodies(paths, initialized))))
    if kind == "burst":
        return draw(bursts(paths, initialized))
    if kind == "huge":
        return draw(huge_frames(paths, initialized))
    raise AssertionError(kind)


@st.composite
def fuzz_streams(
    draw: st.DrawFn, paths: list[str], initialized: bool, max_units: int = 8
) -> FuzzStream:
    """A stream of units, each drawn knowing the session state the model predicts there.

    Over-limit (and exactly-at-limit) bodies cost 10 MiB each, so only a few
    streams in a hundred open with one.
    """
    parts: list[bytes] = []
    kinds: list[str] = []
    state = initialized
    count = draw(st.integers(1, max_units))
    huge_at = draw(st.integers(0, 39))
    for index in range(count):
        kind = "huge" if huge_at == 39 and index == 0 else draw(st.sampled_from(UNIT_KINDS))
        parts.append(_unit(draw, kind, paths, state))
        kinds.append(kind)
        state = run_model(b"".join(parts), initialized).initialized
    stream = b"".join(parts)
    cuts: tuple[int, ...] = ()
    pause = 0.0
    if draw(st.integers(0, 3)) == 0:  # split into writes, with tiny pauses between them
        cuts = draw(write_cuts(stream))
        pause = draw(st.sampled_from([0.0, 0.0002, 0.001, 0.006]))
    await_answers = draw(st.integers(0, 3)) == 0
    return FuzzStream(initialized, stream, cuts, pause, tuple(kinds), await_answers)


_LINE_BYTES = re.compile(rb"[\r\n]")


@st.composite
def write_cuts(draw: st.DrawFn, stream: bytes) -> tuple[int, ...]:
    """Up to 24 offsets anywhere in ``stream``, many right after a CR or a LF.

    A write that ends between the CR and the LF of a line ending, or right after
    a header section, is where a reader that assumes whole lines goes wrong (the
    server reads what the pipe holds, so a pause makes a write boundary likely to
    be a read boundary too).
    """
    anywhere = st.integers(0, len(stream))
    ends = [match.end() for match in itertools.islice(_LINE_BYTES.finditer(stream), 400)]
    offsets = st.one_of(anywhere, st.sampled_from(ends)) if ends else anywhere
    return tuple(sorted(set(draw(st.lists(offsets, min_size=1, max_size=24)))))


def write_in_pieces(
    server: ServerProcess, data: bytes, cuts: tuple[int, ...], pause: float
) -> None:
    """Write ``data`` split at ``cuts`` (offsets), pausing between the writes."""
    start = 0
    for cut in cuts:
        if start < cut <= len(data):
            server.write(data[start:cut])
            start = cut
            if pause:
                time.sleep(pause)
    if start < len(data):
        server.write(data[start:])


def prepare(fuzz: FuzzStream) -> tuple[FuzzStream, ModelRun] | None:
    """The stream realigned, with the model's prediction; None when it cannot be judged.

    None when realigning would take more than :data:`REALIGN_CAP` bytes, when the
    model finds the stream outside the contract's words, or when the stream would
    end the session (a shutdown or a version mismatch hidden in random bytes).
    """
    suffix = realignment(fuzz.stream, fuzz.initialized_before)
    if suffix is None:
        return None
    whole = dataclasses.replace(fuzz, stream=fuzz.stream + suffix)
    run = run_model(whole.stream, whole.initialized_before)
    if run.unspecified or run.ending is not Ending.ALIGNED:
        return None
    return whole, run


class Finale(enum.Enum):
    """How a session on a fresh server ends."""

    EOF = "eof"  # stdin closed at an arbitrary byte: exit 0
    SHUTDOWN = "shutdown"  # a shutdown request, then junk that must be ignored: exit 0
    MISMATCH = "mismatch"  # initialize with another major, then junk: -32099, exit 1
    OUTPUT_CLOSED = "output_closed"  # the client closes its end of stdout: exit 0, quietly


@dataclass(frozen=True)
class EndingPlan:
    """A stream for a fresh server and how it ends."""

    fuzz: FuzzStream
    finale: Finale
    status: int


#: What may come right before EOF instead of a cut: a declared body far too large
#: for anyone to send, an over-limit one, a header line that never ends, an open
#: header section, a short body.
EOF_TAILS = [b"", b"", b"", b"Content-Length: 99999999999999999999\r\n\r\n" + b"x" * 100]
EOF_TAILS += [b"Content-Length: 10485761\r\n\r\n" + b"y" * 70_000, b"X-Long: " + b"z" * 20_000]
EOF_TAILS += [b"Content-Length: 5\r\n", b'Content-Length: 50\r\n\r\n{"id":1']

SHUTDOWN_PARAMS: list[Any] = [_ABSENT, {}, {"reason": "bye"}, None, []]
AFTER_THE_END = [b"", frame({"id": "after-the-end", "method": "gzguide/x"}), b"\xff\r\n\r\n"]


@st.composite
def ending_plans(draw: st.DrawFn, paths: list[str]) -> EndingPlan | None:
    """A stream from a fresh session, then EOF anywhere, a shutdown, or a version mismatch."""
    fuzz = draw(fuzz_streams(paths, initialized=False, max_units=5))
    finale = draw(st.sampled_from([Finale.EOF, *Finale]))
    stream = fuzz.stream
    if finale is Finale.OUTPUT_CLOSED:
        stream = stream[: draw(st.integers(0, len(stream)))]
        status = 0
    elif finale is Finale.EOF:
        tail = draw(st.sampled_from(EOF_TAILS))
        if tail:  # the stream whole and realigned, then the tail
            suffix = realignment(stream, False)
            if suffix is None:
                return None
            stream += suffix + tail
        else:  # the stream cut at any byte
            stream = stream[: draw(st.integers(0, len(stream)))]
        status = 0
    else:
        suffix = realignment(stream, False)
        if suffix is None:
            return None
        stream += suffix
        request_id = draw(valid_ids)
        if finale is Finale.SHUTDOWN:
            params = draw(st.sampled_from(SHUTDOWN_PARAMS))
            last = draw(request_object("shutdown", params, request_id))
            status = 0
        else:
            if run_model(stream, False).initialized:
                return None
            version = draw(st.sampled_from(OTHER_MAJORS))
            last = draw(request_object("initialize", {"clientVersion": version}, request_id))
            status = 1
        body = encode_json(last, draw(text_styles)).encode("utf-8")
        stream += draw(framed(body)) + draw(st.sampled_from(AFTER_THE_END))
    run = run_model(stream, False)
    ends_itself = finale in (Finale.SHUTDOWN, Finale.MISMATCH)
    if run.unspecified or (run.ending is Ending.SESSION_END) != ends_itself:
        return None
    return EndingPlan(FuzzStream(False, stream, fuzz.cuts, fuzz.pause, fuzz.units), finale, status)


# == The driver ============================================================================

_sync_ids = itertools.count(1)
SYNC_METHOD = "gzguide-fuzz/sync"


def sync_frame(sync_id: str) -> bytes:
    return frame({"id": sync_id, "method": SYNC_METHOD})


class ExampleFailed(AssertionError):
    """The server's answers to one stream differ from the model's."""


class FuzzDriver:
    """One long-lived server, fed stream after stream; restarted after any failure."""

    def __init__(self, cwd: Path, reference: ReferenceServer) -> None:
        self.cwd = cwd
        self.reference = reference
        self.server: ServerProcess | None = None
        self.initialized = False
        self.examples = 0
        self.restarts = 0
        #: Tracebacks and error-level log lines seen on the stderr of servers retired so far.
        self.log_problems: list[str] = []

    def _ensure(self) -> ServerProcess:
        if self.server is None or self.server.proc.poll() is not None:
            if self.server is not None:
                self.server.kill()
            self.server = ServerProcess(cwd=self.cwd)
            self.initialized = False
            self.restarts += 1
        return self.server

    def restart(self) -> None:
        """A fresh, uninitialized session (drawn now and then, and after failures)."""
        self.close()
        self._ensure()

    def _retire(self, server: ServerProcess) -> None:
        """Note what the server's stderr holds that no fuzzed input should cause."""
        for line in server.stderr().splitlines():
            if "Traceback" in line or '"level":"error"' in line:
                self.log_problems.append(f"pid {server.pid}: {line[:300]}")

    def begin(self, fresh: bool) -> bool:
        """Start an example in the drawn state: a new session, or an initialized one.

        The state is drawn, never read from the server, so that hypothesis sees the
        same generation when it replays an example. Returns whether the session is
        initialized.
        """
        if fresh:
            self.restart()
            return False
        server = self._ensure()
        if not self.initialized:
            server.initialize(id="driver-initialize")
            self.initialized = True
        return True

    def close(self) -> None:
        if self.server is not None:
            self._retire(self.server)
            self.server.kill()
            self.server = None

    def check(self, fuzz: FuzzStream, run: ModelRun) -> None:
        """Send the stream (realigned) and a sync request; compare every answer.

        With ``fuzz.await_answers`` every owed answer must arrive before the sync
        request is sent: each response is flushed at once, never held back until
        more input comes.
        """
        server = self._ensure()
        assert fuzz.initialized_before == self.initialized
        sync_id = f"sync-{os.getpid()}-{next(_sync_ids)}"
        expected = [*run.expected, Expected(sync_id, METHOD_NOT_FOUND, "the sync request")]
        got: list[Response] = []
        failure = None
        self.examples += 1
        try:
            write_in_pieces(server, fuzz.stream, fuzz.cuts, fuzz.pause)
            if fuzz.await_answers:
                while len(got) < len(run.expected):
                    got.append(server.read_response(timeout=10))
            server.write(sync_frame(sync_id))
            while len(got) <= len(expected) + 8:
                response = server.read_response(timeout=15)
                got.append(response)
                if response.message.get("id") == sync_id:
                    break
        except (ServerFailure, AssertionError, OSError) as exc:
            failure = f"the server failed: {exc}"
        problems = mismatches(expected, got, self.reference.hints)
        if failure is not None:
            problems.insert(0, failure)
        if problems:
            stderr = server.stderr()[-1500:]
            self.close()
            raise ExampleFailed(
                failure_report(fuzz.initialized_before, fuzz.stream, problems, expected, stderr)
            )
        self.initialized = run.initialized


def failure_report(
    initialized: bool, stream: bytes, problems: list[str], expected: list[Expected], stderr: str
) -> str:
    owed = "\n".join(f"  {e.describe()}" for e in expected[:60])
    return (
        f"server answers differ from the model (session initialized before: {initialized}):\n"
        + "\n".join(problems[:20])
        + f"\nowed:\n{owed}\n{describe_stream(stream)}\nserver stderr tail: {stderr}"
    )


def check_on_fresh_server(
    cwd: Path,
    reference: ReferenceServer,
    stream: bytes,
    initialized: bool = False,
    finale: Finale | None = None,
) -> None:
    """Replay one stream on a fresh server (the body of a regression test).

    ``initialized``: a valid initialize is sent first. ``finale`` None: the stream
    is realigned and followed by a sync request; else the stream is sent as given
    and must end the session that way (EOF: stdin is closed after it).
    """
    prelude = frame({"id": "pre", "method": "initialize", "params": {"clientVersion": "1.0"}})
    whole = (prelude if initialized else b"") + stream
    with ServerProcess(cwd=cwd) as server:
        if finale is None:
            prepared = prepare(FuzzStream(False, whole))
            assert prepared is not None, "the model cannot judge this stream"
            driver = FuzzDriver(cwd, reference)
            driver.server = server
            driver.check(*prepared)
            return
        status = run_model(whole, False).exit_status or 0
        check_ending(server, reference, EndingPlan(FuzzStream(False, whole), finale, status))


def check_ending(server: ServerProcess, reference: ReferenceServer, plan: EndingPlan) -> None:
    """Write the plan's stream; the session must end as planned, all owed answers given.

    EOF: stdin is closed after the stream. Shutdown and version mismatch: the
    server must exit by itself (bytes after the ending may meet a closed pipe).
    Either way it must exit with the planned status, leave no process behind, and
    have written exactly the owed responses.
    """
    fuzz = plan.fuzz
    if plan.finale is Finale.OUTPUT_CLOSED:
        check_output_closed(server, plan)
        return
    run = run_model(fuzz.stream, False)
    problems: list[str] = []
    try:
        try:
            write_in_pieces(server, fuzz.stream, fuzz.cuts, fuzz.pause)
        except (BrokenPipeError, ServerFailure):
            if plan.finale is Finale.EOF:
                raise
        if plan.finale is Finale.EOF:
            server.close_stdin()
        got = server.finish(plan.status)
        expected = run.expected
        if run.optional_error and len(got) == len(expected) + 1:
            expected = [*expected, Expected(None, PARSE_ERROR, "over-long partial line at EOF")]
        problems = mismatches(expected, got, reference.hints)
    except (ServerFailure, AssertionError, OSError) as exc:
        problems = [f"the server failed: {exc}"]
    if problems:
        raise ExampleFailed(
            failure_report(False, fuzz.stream, problems, run.expected, server.stderr()[-1500:])
            + f"\nfinale: {plan.finale.value}, status wanted {plan.status}"
        )


def check_output_closed(server: ServerProcess, plan: EndingPlan) -> None:
    """The client closes its end of the server's stdout: exit 0 promptly and quietly.

    Whatever was answered before is not checked (the client stopped listening);
    what is: the exit status, no traceback on stderr, no process left behind. A
    request sent afterwards makes sure the server has something to answer into
    the closed pipe, unless it has already left.
    """
    fuzz = plan.fuzz
    problems: list[str] = []
    try:
        write_in_pieces(server, fuzz.stream, fuzz.cuts, fuzz.pause)
        server.close_stdout()
        with contextlib.suppress(BrokenPipeError, ServerFailure):
            server.write(frame({"id": "into-the-void", "method": "gzguide/x"}))
        status = server.wait_exit()
        if status != 0:
            problems.append(f"exit status {status} after stdout was closed, wanted 0")
        server.assert_no_stray_processes()
        if "Traceback" in server.stderr():
            problems.append("a traceback on stderr after stdout was closed")
    except (ServerFailure, AssertionError, OSError) as exc:
        problems = [f"the server failed: {exc}"]
    if problems:
        raise ExampleFailed(
            "\n".join(problems)
            + f"\n{describe_stream(fuzz.stream)}\nserver stderr tail: {server.stderr()[-1500:]}"
        )
