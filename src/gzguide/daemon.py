"""The stdio server: a thin shell that moves bytes between the pipes and the state machines.

It claims file descriptor 1 for the protocol before anything else can write there:
the real stdout is duplicated to a private descriptor for frames, and fd 1 (with
``sys.stdout``) is pointed at stderr, so a stray ``print``, a library warning or a
child process's output can never reach the client's stream.

One request at a time: read until the decoder yields an event, answer it, flush,
repeat. Exit rules: ``shutdown`` -> 0 after its answer; EOF -> 0; a version
mismatch -> 1 after its answer; a closed stdout -> quietly, with 0.
"""

from __future__ import annotations

import gc
import os
import select
import signal
import sys
import time
from collections.abc import Callable, Sequence
from types import FrameType
from typing import Any, Final, Protocol

from gzguide import PROTOCOL_VERSION, __version__
from gzguide.framing import (
    DISCARD_CHUNK,
    NEED_DATA,
    EndOfStream,
    Frame,
    FrameDecoder,
    FramingError,
    Realigned,
    frame_parts,
)
from gzguide.messages import encode_response_parts
from gzguide.session import Analyzer, Reply, Session

#: stdin is read in the pieces the framing decoder is built around (constant memory).
READ_CHUNK: Final = DISCARD_CHUNK
#: How long without input before the server counts as idle.
IDLE_AFTER_MS: Final = 5


class OutputClosed(Exception):
    """The client closed our stdout."""


def claim_stdout() -> int:
    """Take fd 1 for frames only; return the descriptor frames are written to."""
    out_fd = os.dup(1)  # non-inheritable: child processes never see it
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return out_fd


def write_all(fd: int, parts: Sequence[bytes | memoryview]) -> None:
    """Write ``parts`` one after the other: one gathering write, unless it falls short.

    A descriptor left non-blocking by whoever started the server (a full pipe then
    answers ``EAGAIN`` instead of waiting) is waited on with ``poll``, as a blocking
    one would wait in the kernel: never a lost answer, never a busy loop.
    """
    try:
        try:
            written = os.writev(fd, parts)
        except BlockingIOError:
            written = 0
        if written < _size(parts):
            rest = memoryview(b"".join(parts))[written:]
            while rest:
                try:
                    rest = rest[os.write(fd, rest) :]
                except BlockingIOError:
                    _wait_writable(fd)
    except (BrokenPipeError, ConnectionResetError) as exc:
        raise OutputClosed from exc
    except OSError as exc:  # EBADF and friends: nobody is listening any more
        raise OutputClosed from exc


def _wait_writable(fd: int) -> None:
    """Block until ``fd`` takes data again, or reports an error (the next write raises)."""
    poller = select.poll()
    poller.register(fd, select.POLLOUT)
    poller.poll()


def _size(parts: Sequence[bytes | memoryview]) -> int:
    return sum(map(len, parts))


def _raise_exit(signum: int, _frame: FrameType | None) -> None:
    # Once: a second signal must not interrupt the orderly stop (reaping workers).
    signal.signal(signum, signal.SIG_IGN)
    raise SystemExit(128 + signum)


class Companion(Protocol):
    """Something that runs beside the server loop (the worker pool).

    While the server waits for input it also watches the companion's descriptors
    and hands each readable one back to it, so the companion notices events (a
    worker's death) at once, not at the next request.
    """

    def start(self) -> None: ...

    def watch_fds(self) -> list[int]: ...

    def service(self, fd: int) -> None: ...


class Server:
    """Serves one client over a pair of descriptors until the session ends."""

    def __init__(
        self,
        analyzer: Analyzer,
        in_fd: int,
        out_fd: int,
        log: Any,
        companion: Companion | None = None,
        request_fields: Callable[[], dict[str, Any]] | None = None,
    ) -> None:
        self.session = Session(analyzer)
        self.decoder = FrameDecoder()
        self.in_fd = in_fd
        self.out_fd = out_fd
        self.log = log
        self.companion = companion
        self.request_fields = request_fields
        self.requests = 0
        self.started = time.monotonic()
        #: Called whenever the server is about to wait for input (it flushes logs).
        self.idle: Callable[[], None] = lambda: None

    def send(self, reply: Reply) -> None:
        write_all(self.out_fd, frame_parts(encode_response_parts(reply.response)))

    def _wait_for_input(self) -> None:
        """Block until stdin is readable, watching stdout and the companion meanwhile.

        The output descriptor is polled for no event at all: only an error or hang-up
        is reported, which is how a client that closed our stdout shows up, so an idle
        server notices at once instead of at its next write. Each wait starts with a
        short one (``IDLE_AFTER_MS``); only when nothing arrived is :attr:`idle` called
        (held-back log lines written) and the wait made open-ended.
        """
        companion = self.companion
        while True:
            poller = select.poll()
            poller.register(self.in_fd, select.POLLIN)
            poller.register(self.out_fd, 0)
            watched = companion.watch_fds() if companion is not None else []
            for fd in watched:
                poller.register(fd, select.POLLIN)
            events = poller.poll(IDLE_AFTER_MS)
            if not events:
                self.idle()  # nothing to do for a moment: write what was held back
                events = poller.poll(None)
            ready = False
            for fd, _mask in events:
                if fd == self.in_fd:
                    ready = True
                elif fd == self.out_fd:
                    raise OutputClosed
                elif companion is not None:
                    companion.service(fd)
            if ready:
                return

    def _read(self) -> None:
        self._wait_for_input()
        try:
            chunk = os.read(self.in_fd, READ_CHUNK)
        except BlockingIOError:
            return  # a non-blocking stdin whose data another reader took: wait again
        except OSError:
            chunk = b""
        if chunk:
            self.decoder.receive_data(chunk)
        else:
            self.decoder.receive_eof()

    def _request(self, frame: Frame) -> Reply:
        started = time.perf_counter()
        reply = self.session.handle_body(frame.body)
        self.send(reply)
        duration_ms = round((time.perf_counter() - started) * 1000, 3)
        self.requests += 1
        if self.requests == 1 and self.companion is not None:
            self.companion.start()  # after the first answer: start-up never waits on it
        extra = self.request_fields() if reply.hints is not None and self.request_fields else {}
        self.log.info(
            "request",
            request_id=reply.response.id,
            method=reply.method,
            outcome=reply.outcome,
            duration_ms=duration_ms,
            bytes_in=len(frame.body),
            hints=reply.hints,
            **extra,
        )
        return reply

    def run(self) -> tuple[int, str]:
        """Serve until the session ends; the exit status and why it ended."""
        decoder = self.decoder
        while True:
            event = decoder.next_event()
            if event is NEED_DATA:
                self._read()
            elif isinstance(event, Frame):
                reply = self._request(event)
                if reply.exit_code is not None:
                    return (
                        reply.exit_code,
                        "shutdown" if reply.exit_code == 0 else "version_mismatch",
                    )
            elif isinstance(event, FramingError):
                self.send(Session.framing_error(event.message))
                self.log.warning(
                    "framing_error",
                    kind=str(event.kind),
                    declared_length=event.declared_length,
                    outcome="-32700",
                )
            elif isinstance(event, Realigned):
                self.log.info(
                    "framing_realigned", kind=str(event.kind), bytes_discarded=event.discarded_bytes
                )
            elif isinstance(event, EndOfStream):
                self.log.info("end_of_input", truncated=event.truncated)
                return 0, "end_of_input"


def serve(
    analyzer: Analyzer,
    log: Any,
    out_fd: int,
    in_fd: int = 0,
    companion: Companion | None = None,
    request_fields: Callable[[], dict[str, Any]] | None = None,
    idle: Callable[[], None] | None = None,
) -> int:
    """Run the server on ``in_fd``/``out_fd``; returns the process exit status.

    ``idle`` is called whenever the server is about to wait for input.
    """
    signal.signal(signal.SIGTERM, _raise_exit)
    server = Server(analyzer, in_fd, out_fd, log, companion, request_fields)
    if idle is not None:
        server.idle = idle
    gc.freeze()  # what start-up loaded lives for good: keep it out of every collection
    reason = "unknown"
    code = 0
    try:
        code, reason = server.run()
    except OutputClosed:
        reason, code = "output_closed", 0
    except KeyboardInterrupt:
        reason, code = "interrupted", 130
    except SystemExit as exc:
        reason, code = "terminated", exc.code if isinstance(exc.code, int) else 1
    log.info(
        "server_stop",
        reason=reason,
        exit_code=code,
        requests=server.requests,
        uptime_s=round(time.monotonic() - server.started, 3),
        protocol=PROTOCOL_VERSION,
        version=__version__,
    )
    return code
