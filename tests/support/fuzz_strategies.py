"""The fuzz run's strategies: streams of valid requests laced with every garbage the contract names.

Valid requests of every method the fuzzed session may see, framed with every
header variant the contract accepts, interleaved with every kind of garbage the
contract names (bad ``Content-Length`` values, lines without a colon, too many or
too long header lines, over-limit bodies, invalid UTF-8, invalid JSON, a BOM,
``NaN``, JSON that is not an object, bad ids, deep nesting) and raw random bytes.
Units are drawn one at a time, each knowing the session state the model predicts
at that point (:mod:`support.fuzz_model`), so a version-mismatch ``initialize`` is only
ever drawn where the session is already initialized (where it must be refused
with ``-32600``). Also here: how a stream is cut into writes, and how a fresh
session is made to end.
"""

from __future__ import annotations

import dataclasses
import enum
import itertools
import json
import re
import time
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from support.fuzz_model import (
    ABSENT,
    DEEP_DEPTH,
    MAX_BODY,
    MAX_HEADER_LINE,
    MAX_HEADER_LINES,
    MAX_LENGTH_DIGITS,
    Ending,
    ModelRun,
    Session,
    realignment,
    run_model,
)
from support.fuzz_workspace import CURSORS, TEXTS
from support.protocol_client import ServerProcess, frame

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
    [ABSENT, "", None, 1, True, [], {}, ["analyze"], {"name": "analyze"}, Raw("1.5")]
)

VALID_VERSIONS = ["1.0", "1.9", "01.2", "001.0", "1.0.3", "1.0-beta", "1.00", "1.0 extra"]
VALID_VERSIONS += ["1.2.3.4", "1.1", "1.01", "1.10", "1.1.0"]
BAD_VERSIONS: list[Any] = ["", "1", "v1.0", "1.", ".1", "1,0", " 1.0", "1 .0", "x1.0", "one.zero"]
BAD_VERSIONS += ["\u0661.\u0660", "\uff11.\uff10", 1, 1.0, None, True, [], {}, ["1.0"]]
OTHER_MAJORS = ["2.0", "0.9", "10.0", "11.1", "02.0", "99999999999999999999.0", "0.0"]

extra_fields: st.SearchStrategy[dict[str, Any]] = st.dictionaries(
    st.sampled_from(["jsonrpc", "x", "trace", "\u00e9", "params2", "Id", "METHOD"]),
    st.sampled_from(["2.0", 1, None, [], {"a": [1, {"b": None}]}, "\u00e9"]),
    max_size=2,
)


@st.composite
def request_object(draw: st.DrawFn, method: Any, params: Any, request_id: Any) -> dict[str, Any]:
    """A request with these fields (``ABSENT`` leaves one out), extras, shuffled keys."""
    fields: dict[str, Any] = {}
    if request_id is not ABSENT:
        fields["id"] = request_id
    if method is not ABSENT:
        fields["method"] = method
    if params is not ABSENT:
        fields["params"] = params
    if draw(st.integers(0, 3)) == 0:
        fields.update(draw(extra_fields))
    order = draw(st.permutations(list(fields)))
    return {key: fields[key] for key in order}


BAD_CURSORS: list[Any] = [-1, -(10**30), 1.5, Raw("1.0"), Raw("1E2"), Raw("-0.0"), Raw("0e0")]
BAD_CURSORS += ["5", True, False, [], {}, [0]]
#: What ``text`` may hold that is not a string: -32602 in a 1.1 session, ignored in 1.0.
BAD_TEXTS: list[Any] = [None, 5, 1.5, True, [], ["x = 1"], {"text": "x"}, Raw("1E2")]


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
        if draw(st.integers(0, 2)) == 0:  # the buffer's text (a 1.0 session ignores it)
            params["text"] = draw(st.sampled_from(TEXTS))
        return params
    kind = draw(st.integers(0, 3))
    if kind == 3:
        return {"file_path": draw(st.sampled_from(paths)), "text": draw(st.sampled_from(BAD_TEXTS))}
    if kind == 0:
        return draw(st.sampled_from([ABSENT, None, [], "branchy.py", 1, Raw("[{}]")]))
    if kind == 1:
        path = draw(st.sampled_from([ABSENT, "", None, 1, [], {}, True, ["a.py"]]))
        return {} if path is ABSENT else {"file_path": path}
    bad_cursor = draw(st.sampled_from(BAD_CURSORS))
    return {"file_path": draw(st.sampled_from(paths)), "cursor_position": bad_cursor}


@st.composite
def request_bodies(draw: st.DrawFn, paths: list[str], session: Session) -> bytes:
    """One request body: any method the fuzzed session may see, ids good and bad."""
    kind = draw(st.integers(0, 9))
    request_id = draw(valid_ids)
    if kind == 0:  # initialize (a version mismatch only where it must be refused)
        versions = VALID_VERSIONS + BAD_VERSIONS + (OTHER_MAJORS if session else [])
        version = draw(st.sampled_from([*versions, ABSENT]))
        params: Any = {} if version is ABSENT else {"clientVersion": version}
        if draw(st.integers(0, 4)) == 0:  # a 1.x client's optional parameters are ignored
            params["clientName"] = draw(st.sampled_from(["vim", None, {"x": [1]}]))
        if draw(st.integers(0, 5)) == 0:
            params = draw(st.sampled_from([ABSENT, None, [], "1.0", Raw('["1.0"]')]))
        obj = draw(request_object("initialize", params, request_id))
    elif kind <= 4:  # analyze, mostly valid
        valid = draw(st.integers(0, 3)) > 0
        obj = draw(request_object("analyze", draw(analyze_params(paths, valid)), request_id))
    elif kind <= 6:
        params = draw(st.sampled_from([ABSENT, {}, None, [1], {"file_path": "x.py"}]))
        obj = draw(request_object(draw(unknown_methods), params, request_id))
    elif kind == 7:
        obj = draw(request_object(draw(bad_methods), {}, request_id))
    else:  # a bad or missing id on an otherwise sensible request
        method = draw(st.sampled_from(["initialize", "analyze", "nope", ABSENT]))
        params = {"clientVersion": "1.0"} if method == "initialize" else {"file_path": paths[0]}
        obj = draw(request_object(method, params, draw(st.one_of(bad_ids, st.just(ABSENT)))))
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
def bad_sections(draw: st.DrawFn, paths: list[str], session: Session) -> bytes:
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
        body = draw(request_bodies(paths, session))
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
def huge_frames(draw: st.DrawFn, paths: list[str], session: Session) -> bytes:
    """A body just over the limit (discarded in full) or exactly at it (answered)."""
    if draw(st.booleans()):
        size = MAX_BODY + draw(st.sampled_from([1, 2, 1000, 65_536, 65_537]))
        body = (_DECOY * (size // len(_DECOY) + 1))[:size]
        return b"Content-Length: %d\r\n\r\n" % size + body
    request = draw(request_bodies(paths, session))
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
def bursts(draw: st.DrawFn, paths: list[str], session: Session) -> bytes:
    """Tens to hundreds of requests in one write: the answers pile up while it is sent."""
    bodies = draw(st.lists(request_bodies(paths, session), min_size=1, max_size=3))
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

    session_before: Session
    stream: bytes
    #: Offsets where one write ends and the next begins, and the pause between writes.
    cuts: tuple[int, ...] = ()
    pause: float = 0.0
    units: tuple[str, ...] = ()
    #: Read every owed answer before sending the sync request.
    await_answers: bool = False


def _unit(draw: st.DrawFn, kind: str, paths: list[str], session: Session) -> bytes:
    if kind == "request":
        return draw(framed(draw(request_bodies(paths, session))))
    if kind == "invalid_body":
        return draw(framed(draw(invalid_bodies(paths))))
    if kind == "bad_section":
        return draw(bad_sections(paths, session))
    if kind == "blank_lines":
        return b"".join(draw(st.lists(st.sampled_from([b"\r\n", b"\n"]), min_size=1, max_size=4)))
    if kind == "raw":
        return draw(raw_garbage())
    if kind == "random_object":
        return draw(framed(draw(random_objects())))
    if kind == "limit":
        return draw(limit_frames(draw(request_bodies(paths, session))))
    if kind == "burst":
        return draw(bursts(paths, session))
    if kind == "huge":
        return draw(huge_frames(paths, session))
    raise AssertionError(kind)


@st.composite
def fuzz_streams(
    draw: st.DrawFn, paths: list[str], session: Session, max_units: int = 8
) -> FuzzStream:
    """A stream of units, each drawn knowing the session state the model predicts there.

    Over-limit (and exactly-at-limit) bodies cost 10 MiB each, so only a few
    streams in a hundred open with one.
    """
    parts: list[bytes] = []
    kinds: list[str] = []
    state = session
    count = draw(st.integers(1, max_units))
    huge_at = draw(st.integers(0, 39))
    for index in range(count):
        kind = "huge" if huge_at == 39 and index == 0 else draw(st.sampled_from(UNIT_KINDS))
        parts.append(_unit(draw, kind, paths, state))
        kinds.append(kind)
        state = run_model(b"".join(parts), session).session
    stream = b"".join(parts)
    cuts: tuple[int, ...] = ()
    pause = 0.0
    if draw(st.integers(0, 3)) == 0:  # split into writes, with tiny pauses between them
        cuts = draw(write_cuts(stream))
        pause = draw(st.sampled_from([0.0, 0.0002, 0.001, 0.006]))
    await_answers = draw(st.integers(0, 3)) == 0
    return FuzzStream(session, stream, cuts, pause, tuple(kinds), await_answers)


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
    suffix = realignment(fuzz.stream, fuzz.session_before)
    if suffix is None:
        return None
    whole = dataclasses.replace(fuzz, stream=fuzz.stream + suffix)
    run = run_model(whole.stream, whole.session_before)
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

SHUTDOWN_PARAMS: list[Any] = [ABSENT, {}, {"reason": "bye"}, None, []]
AFTER_THE_END = [b"", frame({"id": "after-the-end", "method": "gzguide/x"}), b"\xff\r\n\r\n"]


@st.composite
def ending_plans(draw: st.DrawFn, paths: list[str]) -> EndingPlan | None:
    """A stream from a fresh session, then EOF anywhere, a shutdown, or a version mismatch."""
    fuzz = draw(fuzz_streams(paths, session=None, max_units=5))
    finale = draw(st.sampled_from([Finale.EOF, *Finale]))
    stream = fuzz.stream
    if finale is Finale.OUTPUT_CLOSED:
        stream = stream[: draw(st.integers(0, len(stream)))]
        status = 0
    elif finale is Finale.EOF:
        tail = draw(st.sampled_from(EOF_TAILS))
        if tail:  # the stream whole and realigned, then the tail
            suffix = realignment(stream, None)
            if suffix is None:
                return None
            stream += suffix + tail
        else:  # the stream cut at any byte
            stream = stream[: draw(st.integers(0, len(stream)))]
        status = 0
    else:
        suffix = realignment(stream, None)
        if suffix is None:
            return None
        stream += suffix
        request_id = draw(valid_ids)
        if finale is Finale.SHUTDOWN:
            params = draw(st.sampled_from(SHUTDOWN_PARAMS))
            last = draw(request_object("shutdown", params, request_id))
            status = 0
        else:
            if run_model(stream, None).session:
                return None
            version = draw(st.sampled_from(OTHER_MAJORS))
            last = draw(request_object("initialize", {"clientVersion": version}, request_id))
            status = 1
        body = encode_json(last, draw(text_styles)).encode("utf-8")
        stream += draw(framed(body)) + draw(st.sampled_from(AFTER_THE_END))
    run = run_model(stream, None)
    ends_itself = finale in (Finale.SHUTDOWN, Finale.MISMATCH)
    if run.unspecified or (run.ending is Ending.SESSION_END) != ends_itself:
        return None
    return EndingPlan(FuzzStream(None, stream, fuzz.cuts, fuzz.pause, fuzz.units), finale, status)
