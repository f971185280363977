"""Which messages each state of an LSP session admits: a pure state machine.

The table of ``seeds/lsp-stub-transport.md`` as the contract restates it:

===================  ======================================  =============================
state                message                                 answer
===================  ======================================  =============================
before initialize    ``initialize``                          handled (valid params: running)
before initialize    any other request (``shutdown`` too)    ``-32002`` ServerNotInitialized
before initialize    a notification other than ``exit``      ignored
running              ``initialize`` again                    ``-32600``
running              a request or notification it knows      handled
running              an unknown request / notification       ``-32601`` / ignored
running              ``shutdown``                            ``null``; now shut down
shut down            a request other than ``exit``           ``-32600``
shut down            a notification other than ``exit``      ignored
any                  ``exit``                                the process ends: status 0
                                                             after ``shutdown``, else 1
===================  ======================================  =============================

``exit`` ends the session whether it came as a notification (as LSP defines it) or
with an id; it is never answered. Messages that are not valid JSON-RPC at all are
answered by :mod:`~gzguide.lsp.jsonrpc` whatever the state.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from typing import Final

import msgspec

from gzguide.lsp.types import SERVER_NOT_INITIALIZED, ErrorMessage, RequestId, error_message
from gzguide.rpc.bodies import INVALID_REQUEST, METHOD_NOT_FOUND


class Phase(enum.Enum):
    NEW = "new"
    RUNNING = "running"
    SHUT_DOWN = "shut_down"


class Handle(msgspec.Struct, frozen=True):
    """The message is the server's to handle."""


class Ignore(msgspec.Struct, frozen=True):
    """A notification the state ignores."""


class Exit(msgspec.Struct, frozen=True):
    """The process ends with this status."""

    status: int


Gate = Handle | Ignore | Exit | ErrorMessage

HANDLE = Handle()
IGNORE = Ignore()


class Lifecycle:
    """The session's phase, and what it admits."""

    def __init__(self, requests: frozenset[str], notifications: frozenset[str]) -> None:
        #: The methods the server implements, besides initialize, shutdown and exit.
        self.requests = requests
        self.notifications = notifications
        self.phase = Phase.NEW

    def request(self, request_id: RequestId, method: str) -> Gate:
        if method == "exit":
            return self.exit()
        return _REQUEST_GATES[self.phase](self, request_id, method)

    def notification(self, method: str) -> Gate:
        if method == "exit":
            return self.exit()
        if self.phase is Phase.RUNNING and method in self.notifications:
            return HANDLE
        return IGNORE

    def exit(self) -> Exit:
        return Exit(0 if self.phase is Phase.SHUT_DOWN else 1)

    def initialized(self) -> None:
        """``initialize`` succeeded."""
        self.phase = Phase.RUNNING

    def shut_down(self) -> None:
        self.phase = Phase.SHUT_DOWN


def _before_initialize(lifecycle: Lifecycle, request_id: RequestId, method: str) -> Gate:
    if method == "initialize":
        return HANDLE
    message = f"Server not initialized: {method} before initialize"
    return error_message(request_id, SERVER_NOT_INITIALIZED, message)


def _running(lifecycle: Lifecycle, request_id: RequestId, method: str) -> Gate:
    if method == "initialize":
        message = "Invalid Request: the session is already initialized"
        return error_message(request_id, INVALID_REQUEST, message)
    if method == "shutdown" or method in lifecycle.requests:
        return HANDLE
    return error_message(request_id, METHOD_NOT_FOUND, f"Method not found: {method}")


def _after_shutdown(lifecycle: Lifecycle, request_id: RequestId, method: str) -> Gate:
    message = f"Invalid Request: {method} after shutdown (only exit is accepted)"
    return error_message(request_id, INVALID_REQUEST, message)


#: What a request other than ``exit`` gets in each phase.
_REQUEST_GATES: Final[dict[Phase, Callable[[Lifecycle, RequestId, str], Gate]]] = {
    Phase.NEW: _before_initialize,
    Phase.RUNNING: _running,
    Phase.SHUT_DOWN: _after_shutdown,
}
