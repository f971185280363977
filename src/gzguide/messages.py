"""The protocol's messages as typed msgspec Structs, and the one decoding boundary.

A frame body becomes either a :class:`Request` (id, method, raw params) or an
:class:`ErrorResponse` ready to send, with the code the contract assigns:

* not UTF-8, not JSON (``NaN`` and a leading BOM included), nested too deep: ``-32700``;
* JSON that is not an object, or whose ``id`` is missing or not a string or an
  integer: ``-32600``, ``"id": null``;
* ``method`` missing, empty or not a string: ``-32601``, echoing the id.

Params are decoded per method by :func:`decode_params` into their Structs, whose
failures are ``-32602`` with msgspec's precise message. Unknown fields are ignored
everywhere (a 1.x client may send parameters a 1.0 server does not know).

Responses are Structs too, so field order is fixed (hint fields in schema order),
output is compact, and ``result`` and ``error`` can never appear together.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, Final, TypeVar

import msgspec

PARSE_ERROR: Final = -32700
INVALID_REQUEST: Final = -32600
METHOD_NOT_FOUND: Final = -32601
INVALID_PARAMS: Final = -32602
VERSION_MISMATCH: Final = -32099

RequestId = int | str

#: ``clientVersion`` must start with ASCII ``digits.digits`` (a prefix match).
VERSION_PATTERN: Final = r"^[0-9]+\.[0-9]+"


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


@dataclass(frozen=True, slots=True)
class EncodedHints:
    """A hint array already encoded as JSON, for an answer given again verbatim."""

    raw: msgspec.Raw
    count: int


class AnalyzeResult(msgspec.Struct):
    hints: list[Hint] | msgspec.Raw


class EmptyResult(msgspec.Struct):
    pass


ResultBody = InitializeResult | AnalyzeResult | EmptyResult


class ResultResponse(msgspec.Struct):
    id: RequestId
    result: ResultBody


Response = ResultResponse | ErrorResponse


def error_response(request_id: RequestId | None, code: int, message: str) -> ErrorResponse:
    return ErrorResponse(id=request_id, error=ErrorObject(code=code, message=message))


# -- decoding ----------------------------------------------------------------

_envelope_decoder: Final = msgspec.json.Decoder(_Envelope)
_method_decoder: Final = msgspec.json.Decoder(str)
_syntax_decoder: Final = msgspec.json.Decoder(msgspec.Raw)
_encoder: Final = msgspec.json.Encoder()

P = TypeVar("P", InitializeParams, AnalyzeParams)
_param_decoders: Final[dict[type[Any], msgspec.json.Decoder[Any]]] = {
    InitializeParams: msgspec.json.Decoder(InitializeParams),
    AnalyzeParams: msgspec.json.Decoder(AnalyzeParams),
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


def _is_utf8(body: bytes) -> bool:
    """Whether all of ``body`` is UTF-8.

    msgspec checks the strings it decodes, but not those inside ``Raw`` fields
    (``params``) or inside fields it skips (unknown ones), so the check is made
    once for the whole body here.
    """
    if body.isascii():
        return True
    try:
        body.decode("utf-8")
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


_raw_cursor_decoder: Final = msgspec.json.Decoder(_AnalyzeParamsRawCursor)


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


def _params_path(exc: msgspec.ValidationError) -> str:
    text = str(exc)
    if text.startswith("Expected `object`"):
        return "params must be an object"
    return text.replace("`$.", "`params.").replace("`$`", "`params`")


def encode_response(response: Response) -> bytes:
    return _encoder.encode(response)


def encode_response_parts(response: Response) -> list[bytes | memoryview]:
    """The bytes of :func:`encode_response`, as pieces that join to exactly them.

    An analyze answer whose hints are encoded already (a whole file's answer is tens
    of KiB) is not copied into a new buffer: its pieces are the envelope's opening,
    the hints as they are held, and the envelope's closing.
    """
    if isinstance(response, ResultResponse):
        result = response.result
        if isinstance(result, AnalyzeResult) and isinstance(result.hints, msgspec.Raw):
            opening = b'{"id":%b,"result":{"hints":' % _encoder.encode(response.id)
            return [opening, memoryview(result.hints), b"}}"]
    return [_encoder.encode(response)]


def encode_hints(hints: list[Hint]) -> EncodedHints:
    return EncodedHints(msgspec.Raw(_encoder.encode(hints)), len(hints))
