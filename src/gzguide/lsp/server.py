"""The LSP front end: the session's shell on the shared loop.

Bytes from stdin go through the one framing decoder (:mod:`gzguide.framing`, with its
limits and realignment); each frame, framing error, analysis answer and due debounce
goes to the :class:`~gzguide.lsp.session.LspSession`, which decides everything, and
this shell carries out the actions it returns: it writes messages to stdout, starts
analyses through the service (the same service, memo and worker pool as an
``analyze`` request with ``text``), has the fixes of a document worked out on the
fix runner's thread (:mod:`gzguide.lsp.fixrunner`) under the service's threshold
table, reads baselines with git, logs, and starts the companions after the first
answer. Unlike the authoring-guide front end, input is
read all the time: an editor sends changes while a document is being analyzed, and
answers may go out in any order.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any, Final, Protocol

from gzguide.analysis.fixes.document import DocumentFixes
from gzguide.answer import Answer
from gzguide.framing import EndOfStream, Frame, FramingError
from gzguide.lsp.actions import (
    Action,
    Analyze,
    ComputeFixes,
    Log,
    ReadBaseline,
    Send,
    StartCompanions,
)
from gzguide.lsp.fixrunner import FixJob, FixRunner
from gzguide.lsp.newcode import Baselines
from gzguide.lsp.session import LspSession
from gzguide.lsp.types import Outgoing, encode
from gzguide.rpc.frontend import StopReason, handle_sigterm, run_front_end
from gzguide.rpc.loop import Companion, FramePump
from gzguide.rpc.stdio import write_frame
from gzguide.service import Request
from gzguide.source import Buffer, Source
from gzguide.workspace import ThresholdSource

PROTOCOL: Final = "lsp-3.17"


class Analyzer(Protocol):
    """What the front end needs of the service: a buffer's text analyzed, answered later,
    and the workspace's threshold table (which the fixes are worked out under)."""

    thresholds: ThresholdSource

    def analyze(self, request: Request, done: Callable[[Answer], None]) -> None: ...


class _Debounces:
    """The session's debounce deadlines as a companion of the loop."""

    def __init__(self, server: LspServer) -> None:
        self._server = server

    def start(self) -> None:
        pass

    def watch(self) -> list[tuple[int, int]]:
        return []

    def ready(self, fd: int, events: int) -> None:
        raise AssertionError("the debounces watch no descriptor")

    def next_deadline(self) -> float | None:
        return self._server.session.next_deadline()

    def tick(self, now: float) -> None:
        self._server.perform(self._server.session.tick(now))


class LspServer:
    """Serves one LSP client over a pair of descriptors until ``exit`` or the end of input."""

    def __init__(
        self,
        service: Analyzer,
        in_fd: int,
        out_fd: int,
        log: Any,
        companions: Sequence[Companion] = (),
    ) -> None:
        self.service = service
        self.out_fd = out_fd
        self.log = log
        self.session = LspSession()
        self.companions = tuple(companions)
        self.fixes = FixRunner(log)
        self.pump = FramePump(in_fd, out_fd, [*self.companions, _Debounces(self), self.fixes], log)
        self.loop = self.pump.loop
        self.baselines = Baselines()
        self.started = time.monotonic()
        #: How each kind of action is carried out.
        self._performers: dict[type[Any], Callable[[Any], None]] = {
            Send: self._send,
            Log: self._log,
            Analyze: self._analyze,
            ComputeFixes: self._compute_fixes,
            ReadBaseline: self._read_baseline,
            StartCompanions: self._start_companions,
        }

    @property
    def requests(self) -> int:
        """Requests answered (the stop record counts them)."""
        return self.session.requests

    # -- transport ------------------------------------------------------------------

    def send(self, message: Outgoing) -> None:
        write_frame(self.out_fd, [encode(message)])

    def run(self) -> tuple[str, int]:
        """Serve until ``exit`` or the end of input; the reason and the exit status."""
        pump, session = self.pump, self.session
        while session.exit_status is None:
            match pump.next_event():
                case Frame(body=body):
                    self.perform(session.frame(body, time.monotonic()))
                case FramingError() as error:
                    self.perform(session.framing_error(error, time.monotonic()))
                case EndOfStream():
                    stop = StopReason.END_OF_INPUT
                    return stop.value, stop.exit_code
        return "exit", session.exit_status

    # -- the session's actions -----------------------------------------------------

    def perform(self, actions: list[Action]) -> None:
        for action in actions:
            self._performers[type(action)](action)

    def _send(self, action: Send) -> None:
        self.send(action.message)

    def _log(self, action: Log) -> None:
        getattr(self.log, action.level)(action.event, **action.fields)

    def _read_baseline(self, asked: ReadBaseline) -> None:
        self.session.baseline_read(asked.uri, self.baselines.of(asked.path, asked.opened))

    def _start_companions(self, _: StartCompanions | None = None) -> None:
        for companion in self.companions:
            companion.start()

    def _analyze(self, job: Analyze) -> None:
        def done(answer: Answer) -> None:
            self.perform(self.session.analyzed(job.uri, job.ticket, answer, time.monotonic()))

        self.service.analyze(Request(Source(job.path, Buffer(job.data))), done)

    def _compute_fixes(self, job: ComputeFixes) -> None:
        def done(fixes: DocumentFixes) -> None:
            self.perform(self.session.fixes_ready(job.uri, job.ticket, fixes, time.monotonic()))

        table = self.service.thresholds.current()
        self.fixes.submit(FixJob(job.text, table, job.unsafe, done, job.path))


def serve_lsp(
    service: Analyzer,
    log: Any,
    out_fd: int,
    in_fd: int = 0,
    companions: Sequence[Companion] = (),
    idle: Callable[[], None] | None = None,
) -> int:
    """Run the LSP server on ``in_fd``/``out_fd``; returns the process exit status."""
    handle_sigterm()
    server = LspServer(service, in_fd, out_fd, log, companions)
    try:
        return run_front_end(server, server.run, log, PROTOCOL, idle)
    finally:
        server.fixes.close()
