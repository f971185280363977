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
``text`` is just an unknown field, :class:`AnalyzeTextParams` from 1.1 on.

Responses are Structs too, so field order is fixed (hint fields in schema order),
output is compact, and ``result`` and ``error`` can never appear together. An
analyze answer is held as the service's :class:`~gzguide.answer.Answer` until it
is encoded: this module alone turns findings into hints and hints into bytes, and
its :class:`ResponseEncoder` keeps the encoded hints of unchanged file versions, so
an answer given again is spliced from bytes it already holds.
"""

from __future__ import annotations

import codecs
from collections import OrderedDict
from typing import Annotated, Any, Final, TypeVar

import msgspec

from gzguide.analysis.model import FileReport, Finding
from gzguide.answer import Answer

PARSE_ERROR: Final = -32700
INVALID_REQUEST: Final = -32600
METHOD_NOT_FOUND: Final = -32601
INVALID_PARAMS: Final = -32602
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
_syntax_decoder: Final = msgspec.json.Decoder(msgspec.Raw)
_encoder: Final = msgspec.json.Encoder()

P = TypeVar("P", InitializeParams, AnalyzeParams, AnalyzeTextParams)
_param_decoders: Final[dict[type[Any], msgspec.json.Decoder[Any]]] = {
    InitializeParams: msgspec.json.Decoder(InitializeParams),
    AnalyzeParams: msgspec.json.Decoder(AnalyzeParams),
    AnalyzeTextParams: msgspec.json.Decoder(AnalyzeTextParams),
}


def decode_request(body: bytes) -> Request | ErrorResponse:
    """Validate a frame body as far as the envelope: JSON, object, id, method."""
    if not _is_utf8(body):
        return error_response(None, PARSE_ERROR, "Parse error: body is not valid UTF-8")
    try:
        envelope = _envelope_decoder.decode(body)
    except msgspec.ValidationError as exc:
        syntax = _syntax_error(body)
        if syntax is not None:
            return error_response(None, PARSE_ERROR, f"Parse error: {syntax}")
        return error_response(None, INVALID_REQUEST, f"Invalid Request: {exc}")
    except msgspec.DecodeError as exc:
        return error_response(None, PARSE_ERROR, f"Parse error: {exc}")
    except RecursionError:
        return error_response(None, PARSE_ERROR, "Parse error: JSON nested too deeply")
    method = _decode_method(envelope.method)
    if method is None:
        return error_response(
            envelope.id, METHOD_NOT_FOUND, "Method not found: method must be a non-empty string"
        )
    params = envelope.params if envelope.params else None
    return Request(id=envelope.id, method=method, params=params)


class _TextAnalyzeEnvelope(msgspec.Struct):
    id: RequestId
    method: str
    params: AnalyzeTextParams


_text_analyze_decoder: Final = msgspec.json.Decoder(_TextAnalyzeEnvelope)


def decode_text_analyze(body: bytes) -> tuple[RequestId, AnalyzeTextParams] | None:
    """A valid 1.1 ``analyze`` request's id and params, decoded in one pass; else None.

    What a 1.1 session sends most, often with a buffer of hundreds of KiB: decoding
    it as :func:`decode_request` and :func:`decode_params` do would read the body
    twice (once to skip the params, once to decode them). This decodes it once, and
    only answers for a body that those two would accept as such a request: JSON
    that is UTF-8, an object whose every ``id``, ``method`` and ``params`` member
    is valid (the last of each counting), ``method`` being ``analyze``. For anything
    else it says None, and the caller takes the general way, which decides the
    error (or the other method) exactly as before.
    """
    if not _is_utf8(body):
        return None
    try:
        envelope = _text_analyze_decoder.decode(body)
    except (msgspec.MsgspecError, RecursionError):
        return None
    if envelope.method != "analyze":
        return None
    return envelope.id, envelope.params


def _syntax_error(body: bytes) -> str | None:
    """Why ``body`` is not JSON at all, or None when it is well-formed.

    The envelope decoder stops at the first value of the wrong type (``[`` where
    an object belongs, ``true`` where an id belongs) without reading the rest, so
    before a body is called an invalid request it is checked to be JSON; decoding
    it as ``Raw`` checks the syntax without building anything.
    """
    try:
        _syntax_decoder.decode(body)
    except msgspec.DecodeError as exc:
        return str(exc)
    except RecursionError:
        return "JSON nested too deeply"
    return None


#: How much of a body is checked for UTF-8 at a time (see :func:`_is_utf8`).
_UTF8_CHUNK: Final = 1 << 16


def _is_utf8(body: bytes) -> bool:
    """Whether all of ``body`` is UTF-8.

    msgspec checks the strings it decodes, but not those inside ``Raw`` fields
    (``params``) or inside fields it skips (unknown ones), so the check is made
    once for the whole body here. It decodes a piece at a time, never the whole
    body at once: a buffer's text may take megabytes, and its decoded form up to
    four times as many, which the check has no use for.
    """
    if body.isascii():
        return True
    decoder = codecs.getincrementaldecoder("utf-8")()
    view = memoryview(body)
    try:
        for start in range(0, len(view), _UTF8_CHUNK):
            decoder.decode(view[start : start + _UTF8_CHUNK])
        decoder.decode(b"", True)
    except UnicodeDecodeError:
        return False
    return True


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
        if kind is AnalyzeParams and _is_cursor_out_of_range(exc):
            return _analyze_params_far_cursor(params)  # type: ignore[return-value]
        if kind is AnalyzeTextParams and _is_cursor_out_of_range(exc):
            return _analyze_text_params_far_cursor(params)  # type: ignore[return-value]
        raise ParamsError(f"Invalid params: {_params_path(exc)}") from None
    except (msgspec.DecodeError, RecursionError):
        raise ParamsError("Invalid params: params could not be decoded") from None
    return result


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


def answer_hints(answer: Answer) -> list[Hint]:
    """The hints an answer stands for, in the order they are sent."""
    if not answer.directory:
        return [
            to_hint(f, part.hint_path)
            for part in answer.files
            for f in part.report.at_cursor(answer.cursor)
        ]
    return [to_hint(f, part.hint_path) for part in answer.files for f in part.report.findings]


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
        self._held: OrderedDict[tuple[str, int | None], tuple[FileReport, bytes]] = OrderedDict()

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
        part = files[0]
        key = (part.hint_path, answer.cursor)
        held = self._held.get(key)
        if held is not None and held[0] is part.report:
            self._held.move_to_end(key)
            return held[1]
        encoded = _encoder.encode(answer_hints(answer))
        self._held[key] = (part.report, encoded)
        self._held.move_to_end(key)
        while len(self._held) > self.max_answers:
            self._held.popitem(last=False)
        return encoded


_plain: Final = ResponseEncoder(max_answers=0)


def encode_response(response: Response) -> bytes:
    """The JSON body of ``response``, compact, fields in schema order."""
    return _plain.encode(response)
