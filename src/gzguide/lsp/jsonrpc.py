"""A frame body in, one JSON-RPC 2.0 message (or the error it earns) out.

What a body is, by the rules of JSON-RPC 2.0 and of the project's contract:

* not UTF-8, not JSON (``NaN``, a leading BOM, a lone surrogate escape), nested too
  deep: ``-32700`` with a null id;
* JSON that is not an object, an ``id`` that is not a string or an integer (``null``,
  ``true``, ``1.5``), a ``method`` that is not a non-empty string, an object with
  neither a method nor a result or error: ``-32600`` (Invalid Request), with the
  id when it was a valid one, else null;
* a ``method`` and a valid ``id``: a :class:`Request`; a ``method`` and no ``id``: a
  :class:`Notification`; an ``id`` with a ``result`` or an ``error`` and no
  ``method``: a :class:`ClientResponse` (an answer to a request of ours: the
  server sends none, so it is dropped).

The ``jsonrpc`` member is not checked on input (clients that leave it out are
served); every message the server writes carries ``"jsonrpc": "2.0"``.
"""

from __future__ import annotations

from typing import Final

import msgspec

from gzguide.lsp.types import ErrorMessage, RequestId, error_message
from gzguide.rpc.bodies import INVALID_REQUEST, PARSE_ERROR, is_utf8, syntax_error


class Request(msgspec.Struct, frozen=True):
    id: RequestId
    method: str
    params: msgspec.Raw | None


class Notification(msgspec.Struct, frozen=True):
    method: str
    params: msgspec.Raw | None


class ClientResponse(msgspec.Struct, frozen=True):
    id: RequestId


Incoming = Request | Notification | ClientResponse


class _Envelope(msgspec.Struct):
    id: msgspec.Raw = msgspec.Raw()
    method: msgspec.Raw = msgspec.Raw()
    params: msgspec.Raw = msgspec.Raw()
    result: msgspec.Raw = msgspec.Raw()
    error: msgspec.Raw = msgspec.Raw()


_envelope_decoder: Final = msgspec.json.Decoder(_Envelope)
_id_decoder: Final = msgspec.json.Decoder(RequestId)
_method_decoder: Final = msgspec.json.Decoder(str)


def _invalid(request_id: RequestId | None, why: str) -> ErrorMessage:
    return error_message(request_id, INVALID_REQUEST, f"Invalid Request: {why}")


def decode(body: bytes) -> Incoming | ErrorMessage:
    """What ``body`` is, or the error message it is answered with."""
    envelope = _envelope(body)
    if isinstance(envelope, ErrorMessage):
        return envelope
    request_id = _id_of(envelope)
    if isinstance(request_id, ErrorMessage):
        return request_id
    if envelope.method:
        return _with_method(envelope, request_id)
    return _without_method(envelope, request_id)


def _envelope(body: bytes) -> _Envelope | ErrorMessage:
    """The message's members, undecoded, or why it is not a JSON object."""
    if not is_utf8(body):
        return error_message(None, PARSE_ERROR, "Parse error: body is not valid UTF-8")
    try:
        return _envelope_decoder.decode(body)
    except msgspec.ValidationError:
        return _not_an_object(body)
    except msgspec.DecodeError as exc:
        return error_message(None, PARSE_ERROR, f"Parse error: {exc}")
    except RecursionError:
        return error_message(None, PARSE_ERROR, "Parse error: JSON nested too deeply")


def _not_an_object(body: bytes) -> ErrorMessage:
    """The answer to a body that did not decode as an object: not JSON, or not an object."""
    syntax = syntax_error(body)
    if syntax is not None:
        return error_message(None, PARSE_ERROR, f"Parse error: {syntax}")
    return _invalid(None, "a message must be a JSON object")


def _id_of(envelope: _Envelope) -> RequestId | ErrorMessage | None:
    if not envelope.id:
        return None
    try:
        return _id_decoder.decode(envelope.id)
    except msgspec.ValidationError:
        return _invalid(None, "id must be a string or an integer")


def _with_method(envelope: _Envelope, request_id: RequestId | None) -> Incoming | ErrorMessage:
    """A request (with an id) or a notification, if its method is a non-empty string."""
    params = envelope.params if envelope.params else None
    try:
        method = _method_decoder.decode(envelope.method)
    except msgspec.ValidationError:
        method = ""
    if not method:
        return _invalid(request_id, "method must be a non-empty string")
    return (
        Notification(method, params) if request_id is None else Request(request_id, method, params)
    )


def _without_method(envelope: _Envelope, request_id: RequestId | None) -> Incoming | ErrorMessage:
    """A response from the client (an id and a result or an error), or no message at all."""
    if request_id is not None and (envelope.result or envelope.error):
        return ClientResponse(request_id)
    return _invalid(request_id, "a message needs a method")
