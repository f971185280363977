"""The protocol lifecycle as a pure state machine: a frame body in, a reply out.

States and answers follow the contract's lifecycle table:

================  ===========================  ==========================================
state             request                      answer
================  ===========================  ==========================================
new               initialize, same major       version and capabilities; now ready
new               initialize, bad params       -32602; still new, the client may retry
new               initialize, other major      -32099, then exit with status 1
new               analyze                      -32601 (not initialized)
ready             initialize                   -32600; the session is unchanged
any               method missing / unknown     -32601
ready             analyze                      the analyzer's hints, or -32602
any               shutdown                     ``{}``, then exit with status 0
================  ===========================  ==========================================

The session does no I/O. Analysis is a callable handed in by the caller, so the
session neither knows nor cares whether hints come from this process or a pool.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Callable
from typing import Final, NamedTuple

from gzguide import PROTOCOL_VERSION
from gzguide.messages import (
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    PARSE_ERROR,
    VERSION_MISMATCH,
    AnalyzeParams,
    AnalyzeResult,
    EmptyResult,
    EncodedHints,
    ErrorResponse,
    Hint,
    InitializeParams,
    InitializeResult,
    ParamsError,
    Request,
    Response,
    ResultResponse,
    decode_params,
    decode_request,
    error_response,
)

CAPABILITIES: Final = ("analyze",)
SERVER_MAJOR: Final = int(PROTOCOL_VERSION.split(".")[0])
_MAJOR: Final = re.compile(r"[0-9]+")

Analyzer = Callable[[AnalyzeParams], list[Hint] | EncodedHints]


def _major_of(version: str) -> str:
    """The major version's digits as a canonical decimal (``01.2`` -> ``1``).

    Compared as text so that a major of thousands of digits cannot trip Python's
    limit on converting long digit strings to int.
    """
    match = _MAJOR.match(version)
    digits = match.group() if match else ""
    return digits.lstrip("0") or "0"


class State(enum.Enum):
    NEW = "new"
    READY = "ready"


class Reply(NamedTuple):
    """What to send, and whether to exit (with which status) once it is sent."""

    response: Response
    exit_code: int | None = None
    #: The request's method when it had a valid one (for logs); None otherwise.
    method: str | None = None
    #: How many hints an analyze answer carries (for logs).
    hints: int | None = None

    @property
    def outcome(self) -> str:
        if isinstance(self.response, ErrorResponse):
            return str(self.response.error.code)
        return "ok"


class Session:
    """One client's session: the lifecycle state and the dispatch of its requests."""

    def __init__(self, analyzer: Analyzer) -> None:
        self._analyzer = analyzer
        self.state = State.NEW

    def handle_body(self, body: bytes) -> Reply:
        """Answer one complete frame body."""
        decoded = decode_request(body)
        if isinstance(decoded, ErrorResponse):
            return Reply(decoded)
        return self.handle_request(decoded)

    def handle_request(self, request: Request) -> Reply:
        method = request.method
        if method == "initialize":
            return self._initialize(request)
        if method == "analyze":
            return self._analyze(request)
        if method == "shutdown":
            return Reply(ResultResponse(request.id, EmptyResult()), exit_code=0, method=method)
        message = f"Method not found: {method!r}"
        return Reply(error_response(request.id, METHOD_NOT_FOUND, message), method=None)

    @staticmethod
    def framing_error(message: str) -> Reply:
        """The answer to a framing error: one parse error with a null id."""
        return Reply(error_response(None, PARSE_ERROR, f"Parse error: {message}"))

    def _initialize(self, request: Request) -> Reply:
        method = request.method
        if self.state is State.READY:
            message = "Invalid Request: the session is already initialized"
            return Reply(error_response(request.id, INVALID_REQUEST, message), method=method)
        try:
            params = decode_params(request.params, InitializeParams)
        except ParamsError as exc:
            return Reply(error_response(request.id, INVALID_PARAMS, str(exc)), method=method)
        client_major = _major_of(params.clientVersion)
        if client_major != str(SERVER_MAJOR):
            message = (
                f"VERSION_MISMATCH: client major version {client_major} "
                f"is incompatible with server major version {SERVER_MAJOR}"
            )
            return Reply(
                error_response(request.id, VERSION_MISMATCH, message), exit_code=1, method=method
            )
        self.state = State.READY
        result = InitializeResult(version=PROTOCOL_VERSION, capabilities=list(CAPABILITIES))
        return Reply(ResultResponse(request.id, result), method=method)

    def _analyze(self, request: Request) -> Reply:
        method = request.method
        if self.state is not State.READY:
            message = "Method not found: the session is not initialized (send initialize first)"
            return Reply(error_response(request.id, METHOD_NOT_FOUND, message), method=method)
        try:
            params = decode_params(request.params, AnalyzeParams)
        except ParamsError as exc:
            return Reply(error_response(request.id, INVALID_PARAMS, str(exc)), method=method)
        hints = self._analyzer(params)
        if isinstance(hints, EncodedHints):
            result, count = AnalyzeResult(hints=hints.raw), hints.count
        else:
            result, count = AnalyzeResult(hints=hints), len(hints)
        return Reply(ResultResponse(request.id, result), method=method, hints=count)
