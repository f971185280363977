"""The protocol's messages as typed msgspec Structs, and the one decoding boundary.

A frame body becomes either a :class:`Request` (id, method, raw params) or an
:class:`ErrorResponse` ready to send, with the code the contract assigns:

* not UTF-8, not JSON (``NaN`` and a leading BOM included), nested too deep: ``-32700``;
* JSON that is not an object, or whose ``id`` is missing or not a string or an
  integer: ``-32600``, ``"id": null``;
* ``method`` missing, empty or not a string: ``-32601``, echoing the id.

Params are decoded per method by :func:`decode_params` into their Structs, whose
failures are ``-32602`` with msgspec's precise message. Unknown fields are ignored
everywhere (a 1.x client may send parameters a 1.0 server does not know). Which
Struct an ``analyze`` request is decoded into depends on the protocol version the
session runs at (:data:`PROTOCOLS`): :class:`AnalyzeParams` in 1.0, where
``text`` is just an unknown field, :class:`AnalyzeTextParams` from 1.1 on. A 1.1
session's ``analyze`` bodies go through its :class:`TextRequests`, which knows a
text it decoded a moment ago without decoding (or hashing) it again.

Responses are Structs too, so field order is fixed (hint fields in schema order),
output is compact, and ``result`` and ``error`` can never appear together. An
analyze answer is held as the service's :class:`~gzguide.answer.Answer` until it
is encoded: this module alone turns findings into hints and hints into bytes, and
its :class:`ResponseEncoder` keeps the encoded hints of unchanged file versions, so
an answer given again is spliced from bytes it already holds.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Final, NamedTuple, TypeVar

import msgspec

from gzguide.analysis.model import FileReport, Finding
from gzguide.answer import Answer, FileAnswer
from gzguide.lru import Lru
from gzguide.rpc.bodies import (
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    PARSE_ERROR,
    is_utf8,
    syntax_error,
)
from gzguide.source import Buffer

VERSION_MISMATCH: Final = -32099

RequestId = int | str

#: ``clientVersion`` must start with ASCII ``digits.digits`` (a prefix match).
VERSION_PATTERN: Final = r"^[0-9]+\.[0-9]+"


class Protocol(msgspec.Struct, frozen=True):
    """A protocol version this server speaks, and what a session at that version offers."""

    version: str
    capabilities: tuple[str, ...]
    #: Whether ``analyze`` takes the buffer's ``text`` (the ``analyze.text`` capability).
    text: bool


#: Every version implemented, by minor number: a client of major 1 gets the highest
#: one its minor version reaches, so a 1.0 client sees exactly what 1.0 servers say.
PROTOCOLS: Final = (
    Protocol("1.0", ("analyze",), text=False),
    Protocol("1.1", ("analyze", "analyze.text"), text=True),
)


# -- requests ----------------------------------------------------------------


class _Envelope(msgspec.Struct):
    id: RequestId
    method: msgspec.Raw = msgspec.Raw()
    params: msgspec.Raw = msgspec.Raw()


class InitializeParams(msgspec.Struct):
    clientVersion: Annotated[str, msgspec.Meta(pattern=VERSION_PATTERN)]


class AnalyzeParams(msgspec.Struct):
    file_path: Annotated[str, msgspec.Meta(min_length=1)]
    cursor_position: Annotated[int, msgspec.Meta(ge=0)] | None = None


class AnalyzeTextParams(AnalyzeParams):
    """``analyze`` params from protocol 1.1 on: the buffer's contents may come along."""

    #: The buffer's whole contents, analyzed instead of the file (which is not read);
    #: ``cursor_position`` is then a byte offset into its UTF-8 encoding.
    text: str | msgspec.UnsetType = msgspec.UNSET


class Request(msgspec.Struct, frozen=True):
    """A well-formed request: its id, its method name, and its params still raw."""

    id: RequestId
    method: str
    params: msgspec.Raw | None


# -- responses ---------------------------------------------------------------


class ErrorObject(msgspec.Struct):
    code: int
    message: str


class ErrorResponse(msgspec.Struct):
    id: RequestId | None
    error: ErrorObject


class InitializeResult(msgspec.Struct):
    version: str
    capabilities: list[str]


class Hint(msgspec.Struct, gc=False):
    """An authoring hint; fields in the order the hint schema lists them."""

    metric: str
    precedence_band: str
    crossing_value: float
    archetype: str
    doctrinal_frame_headline: str
    recommended_move: str
    file_path: str
    start_line: int
    end_line: int


class AnalyzeResult(msgspec.Struct):
    hints: list[Hint]


class EmptyResult(msgspec.Struct):
    pass


ResultBody = InitializeResult | AnalyzeResult | EmptyResult


class ResultResponse(msgspec.Struct):
    id: RequestId
    result: ResultBody


class AnalyzeResponse(msgspec.Struct, frozen=True):
    """An analyze request's result: its :class:`Answer`, as hints once encoded."""

    id: RequestId
    answer: Answer


Response = ResultResponse | ErrorResponse | AnalyzeResponse


def error_response(request_id: RequestId | None, code: int, message: str) -> ErrorResponse:
    return ErrorResponse(id=request_id, error=ErrorObject(code=code, message=message))


# -- decoding ----------------------------------------------------------------

_envelope_decoder: Final = msgspec.json.Decoder(_Envelope)
_method_decoder: Final = msgspec.json.Decoder(str)
_encoder: Final = msgspec.json.Encoder()

P = TypeVar("P", InitializeParams, AnalyzeParams, AnalyzeTextParams)
_param_decoders: Final[dict[type[Any], msgspec.json.Decoder[Any]]] = {
    InitializeParams: msgspec.json.Decoder(InitializeParams),
    AnalyzeParams: msgspec.json.Decoder(AnalyzeParams),
    AnalyzeTextParams: msgspec.json.Decoder(AnalyzeTextParams),
}


def decode_request(body: bytes) -> Request | ErrorResponse:
    """Validate a frame body as far as the envelope: JSON, object, id, method."""
    if not is_utf8(body):
        return error_response(None, PARSE_ERROR, "Parse error: body is not valid UTF-8")
    envelope = _decode_envelope(body)
    if isinstance(envelope, ErrorResponse):
        return envelope
    method = _decode_method(envelope.method)
    if method is None:
        return error_response(
            envelope.id, METHOD_NOT_FOUND, "Method not found: method must be a non-empty string"
        )
    params = envelope.params if envelope.params else None
    return Request(id=envelope.id, method=method, params=params)


def _decode_envelope(body: bytes) -> _Envelope | ErrorResponse:
    """The envelope of a UTF-8 body, or the error for a body that is not JSON or no request."""
    try:
        return _envelope_decoder.decode(body)
    except msgspec.ValidationError as exc:
        return _not_an_envelope(body, exc)
    except msgspec.DecodeError as exc:
        return error_response(None, PARSE_ERROR, f"Parse error: {exc}")
    except RecursionError:
        return error_response(None, PARSE_ERROR, "Parse error: JSON nested too deeply")


def _not_an_envelope(body: bytes, exc: msgspec.ValidationError) -> ErrorResponse:
    """A body the envelope decoder refused: not JSON after all, or JSON that is no request."""
    syntax = syntax_error(body)
    if syntax is not None:
        return error_response(None, PARSE_ERROR, f"Parse error: {syntax}")
    return error_response(None, INVALID_REQUEST, f"Invalid Request: {exc}")


class _TextAnalyzeEnvelope(msgspec.Struct):
    id: RequestId
    method: str
    params: AnalyzeTextParams


class _RawTextParams(AnalyzeParams):
    #: The ``text`` member's JSON token as received (empty when there is none).
    text: msgspec.Raw = msgspec.Raw()


class _RawTextAnalyzeEnvelope(msgspec.Struct):
    id: RequestId
    method: str
    params: _RawTextParams


_text_analyze_decoder: Final = msgspec.json.Decoder(_TextAnalyzeEnvelope)
_raw_text_analyze_decoder: Final = msgspec.json.Decoder(_RawTextAnalyzeEnvelope)
_text_decoder: Final = msgspec.json.Decoder(str)


class BufferText(Buffer):
    """The ``text`` of a 1.1 ``analyze`` request: its UTF-8 form, its size and its digest.

    One that came as a JSON token (:func:`decode_text_analyze`) keeps the token, and
    may let go of its UTF-8 form (:meth:`release`) while :class:`TextRequests` holds
    it for the next request: that form is decoded again from the token if a request
    needs it (a worker has to analyze the text again), and the size and digest stay.
    """

    __slots__ = ("token",)

    def __init__(self, data: bytes, token: msgspec.Raw | None = None) -> None:
        super().__init__(data)
        #: The JSON string token it came as (a view into its request's body), if any.
        self.token = token

    def data(self) -> bytes:
        """The text's UTF-8 form (what is hashed, analyzed, and what the cursor is into)."""
        data = self._data
        if data is None:
            assert self.token is not None, "only a text with its token lets go of its bytes"
            # Decoded once already when it arrived: neither step can fail now.
            data = _text_decoder.decode(self.token).encode("utf-8")
        return data

    def release(self) -> None:
        """Let go of the UTF-8 form, when the JSON token can give it again."""
        if self.token is not None:
            self._data = None


class TextAnalyze(NamedTuple):
    """A valid 1.1 ``analyze`` request: its id, its params, and its ``text`` if it sent one."""

    id: RequestId
    params: AnalyzeParams
    text: BufferText | None


def decode_text_analyze(body: bytes) -> TextAnalyze | None:
    """A valid 1.1 ``analyze`` request, decoded in one pass; else None.

    What a 1.1 session sends most, often with a buffer of hundreds of KiB: decoding
    it as :func:`decode_request` and :func:`decode_params` do would read the body
    twice (once to skip the params, once to decode them). This decodes it once, and
    only answers for a body that those two would accept as such a request: JSON
    that is UTF-8, an object whose every ``id``, ``method`` and ``params`` member
    is valid (the last of each counting), ``method`` being ``analyze``. For anything
    else it says None, and the caller takes the general way, which decides the
    error (or the other method) exactly as before. The text keeps its JSON token
    (a view into ``body``), which is how :class:`TextRequests` knows it again.
    """
    if not is_utf8(body):
        return None
    try:
        envelope = _raw_text_analyze_decoder.decode(body)
        if envelope.method != "analyze":
            return None
        params = envelope.params
        token = params.text
        text = BufferText(_text_decoder.decode(token).encode("utf-8"), token) if token else None
    except (msgspec.MsgspecError, RecursionError):
        return None
    return TextAnalyze(envelope.id, AnalyzeParams(params.file_path, params.cursor_position), text)


def _decode_probe(body: bytes) -> tuple[RequestId, AnalyzeTextParams] | None:
    """:func:`decode_text_analyze` for a small body, whose text is decoded as a string."""
    if not is_utf8(body):
        return None
    try:
        envelope = _text_analyze_decoder.decode(body)
    except (msgspec.MsgspecError, RecursionError):
        return None
    if envelope.method != "analyze":
        return None
    return envelope.id, envelope.params


#: How many places :func:`_find_token` tries, and how long a beginning it looks for.
_FIND_TRIES: Final = 4
_PROBE_BYTES: Final = 32


def _find_token(body: bytes, token: msgspec.Raw) -> int | None:
    """Where ``token`` (a view into ``body``) starts in ``body``, or None if not found soon.

    The token starts no later than ``len(body) - len(token)``: its first bytes are
    looked for in that much of the body only, and a few places that have them are
    compared in full (``bytes.find`` of the whole token would read it twice over).
    A place that is not the text's (another member with the same string before
    it) only means the text is not known again later (see :class:`TextRequests`).
    """
    length = len(token)
    probe = bytes(memoryview(token)[:_PROBE_BYTES])
    end = len(body) - length + len(probe)
    start = body.find(probe, 0, end)
    for _ in range(_FIND_TRIES):
        if start < 0:
            return None
        if body.startswith(token, start):
            return start
        start = body.find(probe, start + 1, end)
    return None


#: How many texts a :class:`TextRequests` holds, and how many bytes of JSON tokens.
MAX_HELD_TEXTS: Final = 8
MAX_HELD_TEXT_BYTES: Final = 8 * 1024 * 1024


class _Held:
    """A text held for the next request, and where its token was in its body."""

    __slots__ = ("after", "start", "text", "token")

    def __init__(self, text: BufferText, token: msgspec.Raw, start: int, after: int) -> None:
        self.text = text
        self.token = token
        #: The token's offset in its body, and how many bytes followed it.
        self.start = start
        self.after = after

    def known_in(self, body: bytes) -> TextAnalyze | None:
        """``body`` as a request whose text is this one, if it is (see :class:`TextRequests`).

        The token is looked for where it was in its body, counting from either end;
        where it is found and the body stands for the text, that place is remembered.
        """
        token = self.token
        length = len(token)
        for start in {self.start, len(body) - self.after - length}:
            if not _token_at(body, token, start):
                continue
            head, tail = body[:start], body[start + length :]
            small = _small_request(head, tail)
            if small is None:
                continue
            self.start, self.after = start, len(tail)
            request_id, params = small
            path_params = AnalyzeParams(params.file_path, params.cursor_position)
            return TextAnalyze(request_id, path_params, self.text)
        return None


def _token_at(body: bytes, token: msgspec.Raw, start: int) -> bool:
    """Whether ``token`` is in ``body``, byte for byte, at ``start``."""
    return start >= 0 and start + len(token) <= len(body) and body.startswith(token, start)


def _small_request(head: bytes, tail: bytes) -> tuple[RequestId, AnalyzeTextParams] | None:
    """The request ``head``, a short text, ``tail`` make, when the text's place is the
    text's string: its id and params with ``""`` for the text; else None."""
    empty = _probe_text(head, tail, b"")
    if empty is None or _probe_text(head, tail, b"a") is None:
        return None
    return empty


def _probe_text(
    head: bytes, tail: bytes, text: bytes
) -> tuple[RequestId, AnalyzeTextParams] | None:
    """The request with ``text`` between ``head`` and ``tail``, if it is valid and that text is
    its ``text``."""
    probe = _decode_probe(b'%b"%b"%b' % (head, text, tail))
    if probe is None or probe[1].text != text.decode("ascii"):
        return None
    return probe


class TextRequests:
    """1.1 ``analyze`` bodies decoded, knowing a text sent again without reading it.

    An editor sends its buffer again unchanged (another cursor, another moment),
    and decoding the text (its JSON escapes) and hashing it cost more than all
    the rest of the answer. So the last few texts are held, each with its JSON
    token as it arrived and the size and digest of its UTF-8 form. A body that
    holds one of those tokens byte for byte (a ``memcmp``), where the token was
    in the body it came with (counting from either end), is decoded with the
    token replaced by a short string instead: once by ``""`` and once by ``"a"``.
    When those two decode as valid requests whose text is ``""`` and ``"a"``, the
    token stands exactly where the text's string stands (the member that counts,
    in any other place one of the two texts would be the same in both), so the
    body is that small one with its text being the held one: every other member
    (id, path, cursor, unknown ones) is decoded from the small body, UTF-8 is
    checked on it, and the token was checked when it first came. Anything else
    is decoded in full (:func:`decode_text_analyze`) and held.
    """

    def __init__(
        self, max_texts: int = MAX_HELD_TEXTS, max_bytes: int = MAX_HELD_TEXT_BYTES
    ) -> None:
        self.max_texts = max_texts
        self.max_bytes = max_bytes
        self._held: list[_Held] = []  # most recent last

    def decode(self, body: bytes) -> TextAnalyze | None:
        """:func:`decode_text_analyze`'s answer, without reading a text held already."""
        known = self._known(body)
        if known is not None:
            return known
        decoded = decode_text_analyze(body)
        if decoded is not None and decoded.text is not None:
            self._hold(body, decoded.text)
        return decoded

    def _known(self, body: bytes) -> TextAnalyze | None:
        """The most recent held text ``body`` sends again, as its request; it becomes the
        most recent."""
        held_texts = self._held
        for index in range(len(held_texts) - 1, -1, -1):
            known = held_texts[index].known_in(body)
            if known is not None:
                held_texts.append(held_texts.pop(index))
                return known
        return None

    def _hold(self, body: bytes, text: BufferText) -> None:
        token = text.token
        assert token is not None
        start = _find_token(body, token) if len(token) <= self.max_bytes else None
        if start is None:
            return
        for held in self._held:
            held.text.release()  # a request holds its text's bytes while it is answered
        self._held.append(_Held(text, token, start, len(body) - start - len(token)))
        self._trim()

    def _trim(self) -> None:
        """Let go of the oldest texts until as many and as large as are held remain."""
        total = sum(len(held.token) for held in self._held)
        while len(self._held) > self.max_texts or total > self.max_bytes:
            total -= len(self._held.pop(0).token)


def _decode_method(raw: msgspec.Raw) -> str | None:
    if not raw:
        return None
    try:
        method = _method_decoder.decode(raw)
    except msgspec.MsgspecError:
        return None
    return method or None


class ParamsError(Exception):
    """Params that fail validation; the message is meant for the client."""


def decode_params(params: msgspec.Raw | None, kind: type[P]) -> P:
    """Decode raw params into ``kind``; :class:`ParamsError` when they do not fit."""
    if params is None:
        raise ParamsError("Invalid params: params must be an object")
    try:
        result: P = _param_decoders[kind].decode(params)
    except msgspec.ValidationError as exc:
        return _invalid_params(params, kind, exc)
    except (msgspec.DecodeError, RecursionError):
        raise ParamsError("Invalid params: params could not be decoded") from None
    return result


def _invalid_params(params: msgspec.Raw, kind: type[P], exc: msgspec.ValidationError) -> P:
    """Params of ``kind`` the decoder refused: valid after all if the cursor was only too long
    an integer (:data:`FAR_CURSOR`); else :class:`ParamsError` saying what is wrong."""
    far_cursor = _far_cursor_decoders.get(kind)
    if far_cursor is not None and _is_cursor_out_of_range(exc):
        result: P = far_cursor(params)
        return result
    raise ParamsError(f"Invalid params: {_params_path(exc)}") from None


#: What a ``cursor_position`` too long for Python's int conversion (more than 4300
#: digits) becomes: it is past the end of any file the server analyzes (at most
#: 4 MiB), which is all that matters about it.
FAR_CURSOR: Final = 1 << 64


class _AnalyzeParamsRawCursor(msgspec.Struct):
    file_path: Annotated[str, msgspec.Meta(min_length=1)]
    cursor_position: msgspec.Raw = msgspec.Raw()


class _AnalyzeTextParamsRawCursor(_AnalyzeParamsRawCursor):
    text: str | msgspec.UnsetType = msgspec.UNSET


_raw_cursor_decoder: Final = msgspec.json.Decoder(_AnalyzeParamsRawCursor)
_raw_cursor_text_decoder: Final = msgspec.json.Decoder(_AnalyzeTextParamsRawCursor)


def _is_cursor_out_of_range(exc: msgspec.ValidationError) -> bool:
    return str(exc) == "Integer value out of range - at `$.cursor_position`"


def _analyze_params_far_cursor(params: msgspec.Raw) -> AnalyzeParams:
    """Analyze params whose cursor is an integer too long to convert: a cursor past the end.

    Any size of integer >= 0 is a valid cursor; only a non-negative one (digits
    alone, as JSON writes it) is accepted here.
    """
    try:
        wire = _raw_cursor_decoder.decode(params)
    except msgspec.ValidationError as exc:
        raise ParamsError(f"Invalid params: {_params_path(exc)}") from None
    if not bytes(wire.cursor_position).isdigit():
        raise ParamsError("Invalid params: `params.cursor_position` must be >= 0")
    return AnalyzeParams(file_path=wire.file_path, cursor_position=FAR_CURSOR)


def _analyze_text_params_far_cursor(params: msgspec.Raw) -> AnalyzeTextParams:
    """:func:`_analyze_params_far_cursor` for 1.1 params, whose ``text`` must be valid too."""
    try:
        wire = _raw_cursor_text_decoder.decode(params)
    except msgspec.ValidationError as exc:
        raise ParamsError(f"Invalid params: {_params_path(exc)}") from None
    if not bytes(wire.cursor_position).isdigit():
        raise ParamsError("Invalid params: `params.cursor_position` must be >= 0")
    return AnalyzeTextParams(file_path=wire.file_path, cursor_position=FAR_CURSOR, text=wire.text)


#: How each kind of params with a cursor is decoded when its cursor is too long to convert.
_far_cursor_decoders: Final[dict[type[Any], Callable[[msgspec.Raw], Any]]] = {
    AnalyzeParams: _analyze_params_far_cursor,
    AnalyzeTextParams: _analyze_text_params_far_cursor,
}


def _params_path(exc: msgspec.ValidationError) -> str:
    text = str(exc)
    if text.startswith("Expected `object`"):
        return "params must be an object"
    return text.replace("`$.", "`params.").replace("`$`", "`params`")


def to_hint(finding: Finding, file_path: str) -> Hint:
    return Hint(
        metric=finding.metric,
        precedence_band=finding.precedence_band,
        crossing_value=finding.crossing_value,
        archetype=finding.archetype,
        doctrinal_frame_headline=finding.headline,
        recommended_move=finding.move,
        file_path=file_path,
        start_line=finding.start_line,
        end_line=finding.end_line,
    )


def answer_findings(answer: Answer) -> list[tuple[Finding, str]]:
    """The findings an answer stands for, each with the path its hint names, in the
    order they are sent."""
    if not answer.directory:
        return [
            (f, part.hint_path)
            for part in answer.files
            for f in part.report.at_cursor(answer.cursor)
        ]
    return [(f, part.hint_path) for part in answer.files for f in part.report.findings]


def answer_hints(answer: Answer) -> list[Hint]:
    """The hints an answer stands for, in the order they are sent."""
    return [to_hint(f, path) for f, path in answer_findings(answer)]


#: How many encoded answers a :class:`ResponseEncoder` keeps (a few KiB each).
MAX_ENCODED_ANSWERS: Final = 256

_CLOSE_ANALYZE: Final = b"}}"


class ResponseEncoder:
    """Turns responses into the pieces of their JSON body, remembering encoded answers.

    An editor asks about the same unchanged file again and again, and its answer
    (tens of KiB of hints for a whole file) would be encoded anew each time. The
    encoder keeps the encoded hints of each (path, cursor) for as long as the
    answer carries the very same report object, which the backends hand back for
    an unchanged file version; such an answer is then spliced from the held bytes
    (the envelope's opening, the hints, its closing) without copying them.
    """

    def __init__(self, max_answers: int = MAX_ENCODED_ANSWERS) -> None:
        self.max_answers = max_answers
        self._held: Lru[tuple[str, int | None], tuple[FileReport, bytes]] = Lru(max_answers)

    def encode(self, response: Response) -> bytes:
        return b"".join(self.parts(response))

    def parts(self, response: Response) -> list[bytes | memoryview]:
        """The bytes of ``response``'s body, as pieces that join to exactly them."""
        if not isinstance(response, AnalyzeResponse):
            return [_encoder.encode(response)]
        opening = b'{"id":%b,"result":{"hints":' % _encoder.encode(response.id)
        return [opening, self._hints(response.answer), _CLOSE_ANALYZE]

    def _hints(self, answer: Answer) -> bytes:
        files = answer.files
        if answer.directory or len(files) != 1 or not self.max_answers:
            return _encoder.encode(answer_hints(answer))
        return self._file_hints(answer, files[0])

    def _file_hints(self, answer: Answer, part: FileAnswer) -> bytes:
        """The encoded hints of a one-file answer: those held for its report, if any."""
        key = (part.hint_path, answer.cursor)
        held = self._held.peek(key)
        if held is not None and held[0] is part.report:
            self._held.touch(key)
            return held[1]
        encoded = _encoder.encode(answer_hints(answer))
        self._hold(key, part.report, encoded)
        return encoded

    def _hold(self, key: tuple[str, int | None], report: FileReport, encoded: bytes) -> None:
        """Keep ``encoded`` as the hints of ``key`` for ``report``, the oldest let go."""
        self._held.put(key, (report, encoded))


_plain: Final = ResponseEncoder(max_answers=0)


def encode_response(response: Response) -> bytes:
    """The JSON body of ``response``, compact, fields in schema order."""
    return _plain.encode(response)
