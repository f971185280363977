"""The authoring-guide protocol's front end: its session's shell on the shared loop.

One request at a time: read until the pump yields a frame, answer it, flush,
repeat. An analyze request's answer comes from the service, which may give it at
once or later; meanwhile nothing more is read. The session's reply says when to
stop (``shutdown``, a version mismatch); the server itself stops at EOF, when the
client closes its stdout, and on SIGTERM. Each reason has its exit status
(:class:`~gzguide.rpc.frontend.StopReason`). The loop, the frame pump, the
writes and the stop are the shared core's (:mod:`gzguide.rpc`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

from gzguide import PROTOCOL_VERSION
from gzguide.answer import Answer
from gzguide.framing import EndOfStream, Frame, FramingError
from gzguide.guide.messages import ResponseEncoder
from gzguide.guide.session import Pending, Reply, Session
from gzguide.rpc.frontend import StopReason, handle_sigterm, run_front_end
from gzguide.rpc.loop import Companion, FramePump, Incoming
from gzguide.rpc.stdio import write_frame
from gzguide.service import AnalysisService, Request
from gzguide.source import Source


def _request(step: Pending) -> Request:
    """The service's request for a pending ``analyze``: of the file it names, or of the
    buffer's text it sent."""
    params = step.params
    return Request(Source(params.file_path, step.text), params.cursor_position)


class Server:
    """Serves one client of the protocol over a pair of descriptors until the session ends."""

    def __init__(
        self,
        service: AnalysisService,
        in_fd: int,
        out_fd: int,
        log: Any,
        companions: Sequence[Companion] = (),
    ) -> None:
        self.session = Session()
        self.service = service
        self.encoder = ResponseEncoder()
        self.pump = FramePump(in_fd, out_fd, companions, log)
        self.loop = self.pump.loop
        self.out_fd = out_fd
        self.log = log
        self.requests = 0
        self.started = time.monotonic()
        #: The analyze request waiting for its answer, and when its frame arrived.
        self._pending: tuple[Pending, float] | None = None
        self._stop: StopReason | None = None

    def send(self, reply: Reply) -> None:
        write_frame(self.out_fd, self.encoder.parts(reply.response))

    def _frame(self, frame: Frame) -> None:
        started = time.perf_counter()
        step = self.session.handle_body(frame.body)
        if isinstance(step, Pending):
            self._pending = (step, started)
            self.service.analyze(_request(step), self._answered)
        else:
            self._finish(step, started)

    def _answered(self, answer: Answer) -> None:
        assert self._pending is not None, "an answer nobody asked for"
        pending, started = self._pending
        self._pending = None
        self._finish(self.session.answered(pending, answer), started)

    def _finish(self, reply: Reply, started: float) -> None:
        """Send a request's reply, then log it (the answer never waits for its log line)."""
        self.send(reply)
        duration_ms = round((time.perf_counter() - started) * 1000, 3)
        self.requests += 1
        if self.requests == 1:
            for companion in self.loop.companions:
                companion.start()
        if reply.record is not None:
            self.log.info("request", **reply.record.log_fields(duration_ms))
        if reply.stop is not None:
            self._stop = reply.stop

    def run(self) -> StopReason:
        """Serve until the session ends; why it ended."""
        while self._stop is None:
            if self._pending is not None:
                self.loop.turn(reading=False)  # an answer is owed: nothing more is read
                continue
            self._event(self.pump.next_event())
        return self._stop

    def _event(self, event: Incoming) -> None:
        """React to what the pump read: a request, a framing fault, the end."""
        match event:
            case Frame():
                self._frame(event)
            case FramingError():
                self.send(Session.framing_error(event.message))
                self.log.warning(
                    "framing_error",
                    kind=str(event.kind),
                    declared_length=event.declared_length,
                    outcome="-32700",
                )
            case EndOfStream():
                self._stop = StopReason.END_OF_INPUT


def serve(
    service: AnalysisService,
    log: Any,
    out_fd: int,
    in_fd: int = 0,
    companions: Sequence[Companion] = (),
    idle: Callable[[], None] | None = None,
) -> int:
    """Run the server on ``in_fd``/``out_fd``; returns the process exit status.

    ``idle`` is called whenever the server is about to wait for input.
    """
    handle_sigterm()
    server = Server(service, in_fd, out_fd, log, companions)

    def run() -> tuple[str, int]:
        reason = server.run()
        return reason.value, reason.exit_code

    return run_front_end(server, run, log, PROTOCOL_VERSION, idle)
