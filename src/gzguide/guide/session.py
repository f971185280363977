"""The protocol lifecycle as a pure state machine: a frame body in, a reply out.

States and answers follow the contract's lifecycle table:

================  ===========================  ==========================================
state             request                      answer
================  ===========================  ==========================================
new               initialize, same major       version and capabilities; now ready, at
                                               the version answered (see below)
new               initialize, bad params       -32602; still new, the client may retry
new               initialize, other major      -32099, then exit with status 1
new               analyze                      -32601 (not initialized)
ready             initialize                   -32600; the session is unchanged
any               method missing / unknown     -32601
ready             analyze                      the analyzer's hints, or -32602
any               shutdown                     ``{}``, then exit with status 0
================  ===========================  ==========================================

**Versions.** The server implements protocol 1.1 (:data:`~gzguide.guide.messages.PROTOCOLS`).
A client of major 1 and minor 0 is answered exactly as a 1.0 server answers
(``"1.0"``, ``["analyze"]``), and its session reads ``analyze`` params as 1.0
defines them, so a ``text`` there is an unknown field and ignored. A client of
minor 1 or more gets ``"1.1"`` and ``["analyze", "analyze.text"]``, and its
``analyze`` may send the buffer's ``text`` (a string, else ``-32602``).

The session does no I/O and no analysis. A valid ``analyze`` request becomes a
:class:`Pending` step: whoever drives the session has the service answer its
params, then hands the :class:`~gzguide.answer.Answer` to :meth:`Session.answered`
for the reply. Every reply carries its response, the reason to stop after it
(if any) and the request's log record, so nothing about a request travels on the
side.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Callable
from typing import Final

import msgspec

from gzguide import PROTOCOL_VERSION
from gzguide.answer import Answer, WorkerRef
from gzguide.guide.messages import (
    PROTOCOLS,
    VERSION_MISMATCH,
    AnalyzeParams,
    AnalyzeResponse,
    AnalyzeTextParams,
    BufferText,
    EmptyResult,
    ErrorResponse,
    InitializeParams,
    InitializeResult,
    ParamsError,
    Protocol,
    Request,
    RequestId,
    Response,
    ResultResponse,
    TextAnalyze,
    TextRequests,
    decode_params,
    decode_request,
    error_response,
)
from gzguide.rpc.bodies import INVALID_PARAMS, INVALID_REQUEST, METHOD_NOT_FOUND, PARSE_ERROR
from gzguide.rpc.frontend import StopReason

SERVER_MAJOR: Final = int(PROTOCOL_VERSION.split(".")[0])
_MAJOR_MINOR: Final = re.compile(r"([0-9]+)\.([0-9]+)")


def _canonical(digits: str) -> str:
    return digits.lstrip("0") or "0"


def _major_of(version: str) -> str:
    """The major version's digits as a canonical decimal (``01.2`` -> ``1``).

    Compared as text so that a major of thousands of digits cannot trip Python's
    limit on converting long digit strings to int.
    """
    match = _MAJOR_MINOR.match(version)
    return _canonical(match.group(1) if match else "")


def negotiate(version: str) -> Protocol:
    """The protocol a client of ``version`` (of the server's major) gets: the highest
    implemented one whose minor its own minor reaches (``1.0`` -> 1.0, ``1.7`` -> 1.1)."""
    match = _MAJOR_MINOR.match(version)
    minor = _canonical(match.group(2) if match else "")
    best = PROTOCOLS[0]
    for protocol in PROTOCOLS:
        implemented = protocol.version.split(".")[1]
        # Canonical decimals compare as integers by length first, then digit by digit.
        if (len(implemented), implemented) <= (len(minor), minor):
            best = protocol
    return best


class State(enum.Enum):
    NEW = "new"
    READY = "ready"


class RequestRecord(msgspec.Struct, frozen=True):
    """What a request's log line says; its duration is added by whoever timed it."""

    request_id: RequestId | None
    #: The method when it was a valid one; None otherwise (unknown, missing, not JSON).
    method: str | None
    #: ``ok``, or the error code.
    outcome: str
    bytes_in: int
    #: An analyze request's answer, whose facts the line reports.
    answer: Answer | None = None
    #: The protocol version a successful ``initialize`` set the session to.
    protocol: str | None = None

    def log_fields(self, duration_ms: float) -> dict[str, object]:
        fields: dict[str, object] = {
            "request_id": self.request_id,
            "method": self.method,
            "outcome": self.outcome,
            "duration_ms": duration_ms,
            "bytes_in": self.bytes_in,
            "hints": None,
        }
        if self.protocol is not None:
            fields["protocol"] = self.protocol
        if self.answer is not None:
            fields.update(_answer_fields(self.answer))
        return fields


def _answer_fields(answer: Answer) -> dict[str, object]:
    """What a request's log line says about its answer."""
    fields: dict[str, object] = {"hints": answer.hint_count(), "file_path": answer.path}
    if answer.text_bytes is not None:
        fields.update(source="text", text_bytes=answer.text_bytes)
    if answer.directory:
        fields.update(_directory_fields(answer))
    elif answer.files:
        (part,) = answer.files
        fields.update(cache=part.cache.value, worker=_worker_field(part.worker))
    return fields


def _directory_fields(answer: Answer) -> dict[str, object]:
    """How many files a directory answer has, how many of each cache state, whether the
    listing was cut short."""
    states: dict[str, int] = {}
    for part in answer.files:
        states[part.cache.value] = states.get(part.cache.value, 0) + 1
    fields: dict[str, object] = {"files": len(answer.files), "cache": states}
    if not answer.walk_complete:
        fields["walk_complete"] = False
    return fields


def _worker_field(worker: WorkerRef | None) -> object:
    return worker.as_log() if worker is not None else None


class Reply(msgspec.Struct, frozen=True):
    """What to send, whether to stop once it is sent, and what to log about it."""

    response: Response
    #: None for a framing error, which is logged as such, not as a request.
    record: RequestRecord | None
    stop: StopReason | None = None


class Pending(msgspec.Struct, frozen=True):
    """A valid analyze request: its answer comes from the service (see :meth:`Session.answered`)."""

    request_id: RequestId
    params: AnalyzeParams
    bytes_in: int
    #: The buffer's text, when a 1.1 session sent one: what is analyzed instead of
    #: the file at ``params.file_path``.
    text: BufferText | None = None


def _outcome(response: Response) -> str:
    if isinstance(response, ErrorResponse):
        return str(response.error.code)
    return "ok"


class Session:
    """One client's session: the lifecycle state and the dispatch of its requests."""

    def __init__(self) -> None:
        self.state = State.NEW
        #: The version the session runs at, once initialized.
        self.protocol: Protocol | None = None
        #: The texts of its last analyze requests (a 1.1 session's), known when sent again.
        self.texts = TextRequests()

    def handle_body(self, body: bytes) -> Reply | Pending:
        """Answer one complete frame body, or say that its answer is the service's to give."""
        size = len(body)
        fast = self._text_analyze(body)
        if fast is not None:
            return Pending(fast.id, fast.params, size, fast.text)
        decoded = decode_request(body)
        if isinstance(decoded, ErrorResponse):
            return Reply(decoded, RequestRecord(decoded.id, None, _outcome(decoded), size))
        handler = _HANDLERS.get(decoded.method)
        if handler is None:
            return self._unknown_method(decoded, size)
        return handler(self, decoded, size)

    def _text_analyze(self, body: bytes) -> TextAnalyze | None:
        """A 1.1 session's analyze request (what it sends most), decoded in one pass."""
        if self.protocol is None or not self.protocol.text:
            return None
        return self.texts.decode(body)

    def _initialize_reply(self, request: Request, size: int) -> Reply:
        response, stop, protocol = self._initialize(request)
        record = RequestRecord(
            request.id, request.method, _outcome(response), size, protocol=protocol
        )
        return Reply(response, record, stop)

    def _shutdown(self, request: Request, size: int) -> Reply:
        bye = ResultResponse(request.id, EmptyResult())
        return self._reply(request, size, bye, StopReason.SHUTDOWN)

    @staticmethod
    def _unknown_method(request: Request, size: int) -> Reply:
        message = f"Method not found: {request.method!r}"
        unknown = error_response(request.id, METHOD_NOT_FOUND, message)
        return Reply(unknown, RequestRecord(request.id, None, _outcome(unknown), size))

    def answered(self, pending: Pending, answer: Answer) -> Reply:
        """The reply to a pending analyze request, once the service has answered it."""
        response = AnalyzeResponse(pending.request_id, answer)
        record = RequestRecord(pending.request_id, "analyze", "ok", pending.bytes_in, answer)
        return Reply(response, record)

    @staticmethod
    def framing_error(message: str) -> Reply:
        """The answer to a framing error: one parse error with a null id."""
        return Reply(error_response(None, PARSE_ERROR, f"Parse error: {message}"), None)

    @staticmethod
    def _reply(
        request: Request, size: int, response: Response, stop: StopReason | None = None
    ) -> Reply:
        record = RequestRecord(request.id, request.method, _outcome(response), size)
        return Reply(response, record, stop)

    def _initialize(self, request: Request) -> tuple[Response, StopReason | None, str | None]:
        """The answer, the reason to stop, and the version the session now runs at."""
        if self.state is State.READY:
            message = "Invalid Request: the session is already initialized"
            return error_response(request.id, INVALID_REQUEST, message), None, None
        try:
            params = decode_params(request.params, InitializeParams)
        except ParamsError as exc:
            return error_response(request.id, INVALID_PARAMS, str(exc)), None, None
        client_major = _major_of(params.clientVersion)
        if client_major != str(SERVER_MAJOR):
            message = (
                f"VERSION_MISMATCH: client major version {client_major} "
                f"is incompatible with server major version {SERVER_MAJOR}"
            )
            response = error_response(request.id, VERSION_MISMATCH, message)
            return response, StopReason.VERSION_MISMATCH, None
        self.state = State.READY
        self.protocol = protocol = negotiate(params.clientVersion)
        result = InitializeResult(protocol.version, list(protocol.capabilities))
        return ResultResponse(request.id, result), None, protocol.version

    def _analyze(self, request: Request, size: int) -> Reply | Pending:
        if self.state is not State.READY:
            message = "Method not found: the session is not initialized (send initialize first)"
            return self._reply(request, size, error_response(request.id, METHOD_NOT_FOUND, message))
        protocol = self.protocol
        try:
            if protocol is None or not protocol.text:
                return Pending(request.id, decode_params(request.params, AnalyzeParams), size)
            params = decode_params(request.params, AnalyzeTextParams)
        except ParamsError as exc:
            return self._reply(request, size, error_response(request.id, INVALID_PARAMS, str(exc)))
        path_params = AnalyzeParams(params.file_path, params.cursor_position)
        if isinstance(params.text, str):
            # The text's only copy from here on is its UTF-8 form: what is hashed, sent
            # to a worker and analyzed, and what the cursor is an offset into.
            text = BufferText(params.text.encode("utf-8"))
            return Pending(request.id, path_params, size, text)
        return Pending(request.id, path_params, size)


#: What answers each method the protocol has.
_HANDLERS: Final[dict[str, Callable[[Session, Request, int], Reply | Pending]]] = {
    "initialize": Session._initialize_reply,
    "analyze": Session._analyze,
    "shutdown": Session._shutdown,
}
