"""Running a front end: SIGTERM, why it stopped, its exit status and its stop's log line.

A front end runs until its session says to stop (the guide's ``shutdown`` or a
version mismatch, the LSP's ``exit``) or the process has to: the end of input,
a client that closed our stdout, an interrupt, SIGTERM. Each reason has its exit
status (:class:`StopReason`); whatever it was, one ``server_stop`` line says so.
"""

from __future__ import annotations

import enum
import gc
import signal
import time
from collections.abc import Callable
from types import FrameType
from typing import Any, Final, Protocol

from gzguide import __version__
from gzguide.rpc.loop import Loop
from gzguide.rpc.stdio import OutputClosed


class StopReason(enum.Enum):
    """Why the server stops, and the exit status that goes with it."""

    SHUTDOWN = "shutdown"
    VERSION_MISMATCH = "version_mismatch"
    END_OF_INPUT = "end_of_input"
    OUTPUT_CLOSED = "output_closed"
    INTERRUPTED = "interrupted"
    TERMINATED = "terminated"

    @property
    def exit_code(self) -> int:
        return _EXIT_CODES[self]


_EXIT_CODES: Final = {
    StopReason.SHUTDOWN: 0,
    StopReason.VERSION_MISMATCH: 1,
    StopReason.END_OF_INPUT: 0,
    StopReason.OUTPUT_CLOSED: 0,
    StopReason.INTERRUPTED: 130,
    StopReason.TERMINATED: 128 + 15,  # SIGTERM, the one signal the server handles
}


def raise_exit(signum: int, _frame: FrameType | None) -> None:
    """The SIGTERM handler: the stop becomes a ``SystemExit`` with the signal's status."""
    # Once: a second signal must not interrupt the orderly stop (reaping workers).
    signal.signal(signum, signal.SIG_IGN)
    raise SystemExit(128 + signum)


def handle_sigterm() -> None:
    """Have SIGTERM stop the server in order (its ``finally`` blocks run, workers are reaped)."""
    signal.signal(signal.SIGTERM, raise_exit)


class FrontEnd(Protocol):
    """What :func:`run_front_end` needs of a protocol's server on the :class:`Loop`."""

    loop: Loop
    started: float

    @property
    def requests(self) -> int:
        """Requests answered so far."""
        ...


def run_front_end(
    server: FrontEnd,
    run: Callable[[], tuple[str, int]],
    log: Any,
    protocol: str,
    idle: Callable[[], None] | None = None,
) -> int:
    """Run ``server`` (``run`` gives its stop reason and exit status) and log its stop;
    returns the process exit status. The caller installs the SIGTERM handler first."""
    if idle is not None:
        server.loop.idle = idle
    gc.freeze()  # what start-up loaded lives for good: keep it out of every collection
    try:
        reason, code = run()
    except OutputClosed:
        reason, code = StopReason.OUTPUT_CLOSED.value, StopReason.OUTPUT_CLOSED.exit_code
    except KeyboardInterrupt:
        reason, code = StopReason.INTERRUPTED.value, StopReason.INTERRUPTED.exit_code
    except SystemExit as exc:
        reason, code = StopReason.TERMINATED.value, exc.code if isinstance(exc.code, int) else 1
    log.info(
        "server_stop",
        reason=reason,
        exit_code=code,
        requests=server.requests,
        uptime_s=round(time.monotonic() - server.started, 3),
        protocol=protocol,
        version=__version__,
    )
    return code
