"""The stdio server: a thin shell that moves bytes between the pipes and the state machines.

It claims file descriptor 1 for the protocol before anything else can write there:
the real stdout is duplicated to a private descriptor for frames, and fd 1 (with
``sys.stdout``) is pointed at stderr, so a stray ``print``, a library warning or a
child process's output can never reach the client's stream.

One request at a time: read until the decoder yields an event, answer it, flush,
repeat. An analyze request's answer comes from the service, which may give it at
once or later; meanwhile nothing more is read. The session's reply says when to
stop (``shutdown``, a version mismatch); the server itself stops at EOF, when the
client closes its stdout, and on SIGTERM. Each reason has its exit status
(:class:`~gzguide.session.StopReason`).

There is one loop and one wait (:class:`Loop`). Each wait polls stdin (when a
request may be read), stdout for its hang-up alone (so a client that closed it is
noticed at once, also in the middle of a long request), and every descriptor of
the companions (the worker pool's pipes, busy or idle), up to the earliest of
their deadlines; whatever happened is handed to its owner. :class:`Server` is the
protocol's front end on that loop.
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
from typing import Any, Final, NamedTuple, Protocol

from gzguide import PROTOCOL_VERSION, __version__
from gzguide.answer import Answer
from gzguide.framing import (
    DISCARD_CHUNK,
    EndOfStream,
    Event,
    Frame,
    FrameDecoder,
    FramingError,
    Realigned,
    frame_parts,
)
from gzguide.messages import ResponseEncoder
from gzguide.service import AnalysisService
from gzguide.session import Pending, Reply, Session, StopReason

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
        written = _gathering_write(fd, parts)
        if written < _size(parts):
            _write_rest(fd, memoryview(b"".join(parts))[written:])
    except OSError as exc:  # a broken pipe, a reset, EBADF: nobody is listening any more
        raise OutputClosed from exc


def _gathering_write(fd: int, parts: Sequence[bytes | memoryview]) -> int:
    """How much of ``parts`` one ``writev`` took (nothing, when the pipe is full)."""
    try:
        return os.writev(fd, parts)
    except BlockingIOError:
        return 0


def _write_rest(fd: int, rest: memoryview) -> None:
    """Write what the gathering write left, waiting whenever the pipe is full."""
    while rest:
        try:
            rest = rest[os.write(fd, rest) :]
        except BlockingIOError:
            _wait_writable(fd)


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
    """Something the server's loop watches besides stdin and stdout (the worker pool)."""

    def start(self) -> None:
        """Called once the first answer is out: start-up never waits on it."""
        ...

    def watch(self) -> list[tuple[int, int]]:
        """Descriptors to poll now, with their poll events."""
        ...

    def ready(self, fd: int, events: int) -> None:
        """A descriptor of :meth:`watch` reported ``events``."""
        ...

    def next_deadline(self) -> float | None:
        """When :meth:`tick` is due (``time.monotonic()`` seconds), if ever."""
        ...

    def tick(self, now: float) -> None:
        """Its deadline was reached."""
        ...


def _timeout_ms(deadline: float | None, now: float, cap_ms: int | None) -> int | None:
    """How long a poll may wait: until ``deadline`` (rounded up), at most ``cap_ms``."""
    if deadline is None:
        return cap_ms
    wait = max(0, int((deadline - now) * 1000) + 1)
    return wait if cap_ms is None else min(wait, cap_ms)


def _earlier(deadline: float | None, due: float | None) -> float | None:
    """The earlier of two deadlines, either of which may be absent."""
    if due is None:
        return deadline
    return due if deadline is None or due < deadline else deadline


class _Watch(NamedTuple):
    """One turn's poll set and what answering it needs."""

    poller: select.poll
    owners: dict[int, Companion]
    deadline: float | None


class Loop:
    """The server's one wait, turn by turn: stdin, stdout's hang-up, the companions.

    A front end calls :meth:`turn` whenever it has nothing else to do. A turn is
    one ``poll`` over stdin (when ``reading``), the output descriptor (polled for
    no event at all: only an error or hang-up is reported, which is how a client
    that closed our stdout shows up) and every companion descriptor, up to the
    earliest companion deadline. Bytes from stdin go to ``on_input`` (``b""`` at
    its end), every other event to its companion, and companions whose deadline
    has come are ticked. Each wait starts with a short one (``IDLE_AFTER_MS``);
    only when nothing arrived is :attr:`idle` called (held-back log lines written)
    before the real wait.
    """

    def __init__(
        self,
        in_fd: int,
        out_fd: int,
        companions: Sequence[Companion],
        on_input: Callable[[bytes], None],
    ) -> None:
        self.in_fd = in_fd
        self.out_fd = out_fd
        self.companions = tuple(companions)
        self.on_input = on_input
        self.idle: Callable[[], None] = lambda: None

    def turn(self, reading: bool) -> None:
        watch = self._watch(reading)
        for fd, events in self._wait(watch):
            self._hand_over(fd, events, watch.owners)
        self._tick_due(time.monotonic())

    def _watch(self, reading: bool) -> _Watch:
        """This turn's poll set, who owns each companion descriptor, the earliest deadline."""
        poller = select.poll()
        if reading:
            poller.register(self.in_fd, select.POLLIN)
        poller.register(self.out_fd, 0)
        owners: dict[int, Companion] = {}
        deadline: float | None = None
        for companion in self.companions:
            for fd, events in companion.watch():
                poller.register(fd, events)
                owners[fd] = companion
            deadline = _earlier(deadline, companion.next_deadline())
        return _Watch(poller, owners, deadline)

    def _wait(self, watch: _Watch) -> list[tuple[int, int]]:
        """Poll briefly; if nothing came and nothing is due, call :attr:`idle`, then wait."""
        deadline = watch.deadline
        ready = watch.poller.poll(_timeout_ms(deadline, time.monotonic(), IDLE_AFTER_MS))
        if not ready and (deadline is None or time.monotonic() < deadline):
            self.idle()  # nothing to do for a moment: write what was held back
            ready = watch.poller.poll(_timeout_ms(deadline, time.monotonic(), None))
        return ready

    def _hand_over(self, fd: int, events: int, owners: dict[int, Companion]) -> None:
        """Give one reported descriptor to whoever reads it."""
        if fd == self.out_fd:
            raise OutputClosed
        if fd == self.in_fd:
            self.read_input()
        else:
            owners[fd].ready(fd, events)

    def _tick_due(self, now: float) -> None:
        for companion in self.companions:
            due = companion.next_deadline()
            if due is not None and due <= now:
                companion.tick(now)

    def read_input(self) -> None:
        try:
            chunk = os.read(self.in_fd, READ_CHUNK)
        except BlockingIOError:
            return  # a non-blocking stdin whose data another reader took: wait again
        except OSError:
            chunk = b""
        self.on_input(chunk)


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
        self.decoder = FrameDecoder()
        self.out_fd = out_fd
        self.log = log
        self.loop = Loop(in_fd, out_fd, companions, self._input)
        self.requests = 0
        self.started = time.monotonic()
        #: The analyze request waiting for its answer, and when its frame arrived.
        self._pending: tuple[Pending, float] | None = None
        self._stop: StopReason | None = None

    def send(self, reply: Reply) -> None:
        write_all(self.out_fd, frame_parts(self.encoder.parts(reply.response)))

    def _input(self, chunk: bytes) -> None:
        if chunk:
            self.decoder.receive_data(chunk)
        else:
            self.decoder.receive_eof()

    def _frame(self, frame: Frame) -> None:
        started = time.perf_counter()
        step = self.session.handle_body(frame.body)
        if isinstance(step, Pending):
            self._pending = (step, started)
            if step.text is None:
                self.service.analyze(step.params, self._answered)
            else:
                params = step.params
                self.service.analyze_text(
                    params.file_path, step.text, params.cursor_position, self._answered
                )
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
            self._event(self.decoder.next_event())
        return self._stop

    def _event(self, event: Event) -> None:
        """React to one decoder event: a request, a framing fault, more reading, the end."""
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
            case Realigned():
                self.log.info(
                    "framing_realigned", kind=str(event.kind), bytes_discarded=event.discarded_bytes
                )
            case EndOfStream():
                self.log.info("end_of_input", truncated=event.truncated)
                self._stop = StopReason.END_OF_INPUT
            case _:  # NEED_DATA
                self.loop.turn(reading=True)


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
    signal.signal(signal.SIGTERM, _raise_exit)
    server = Server(service, in_fd, out_fd, log, companions)

    def run() -> tuple[str, int]:
        reason = server.run()
        return reason.value, reason.exit_code

    return run_front_end(server, run, log, PROTOCOL_VERSION, idle)
