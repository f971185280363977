"""The server's one wait, and the frame pump on it.

There is one loop and one wait (:class:`Loop`). Each wait polls stdin (when a
request may be read), stdout for its hang-up alone (so a client that closed it is
noticed at once, also in the middle of a long request), and every descriptor of
the companions (the worker pool's pipes, busy or idle; the LSP mode's debounces),
up to the earliest of their deadlines; whatever happened is handed to its owner.
:class:`FramePump` puts the framing decoder on it: a front end asks it for the
next frame and it reads as long as the decoder needs bytes.
"""

from __future__ import annotations

import os
import select
import time
from collections.abc import Callable, Sequence
from typing import Any, Final, NamedTuple, Protocol

from gzguide.framing import (
    DISCARD_CHUNK,
    EndOfStream,
    Frame,
    FrameDecoder,
    FramingError,
    Realigned,
)
from gzguide.rpc.stdio import OutputClosed

#: stdin is read in the pieces the framing decoder is built around (constant memory).
READ_CHUNK: Final = DISCARD_CHUNK
#: How long without input before the server counts as idle.
IDLE_AFTER_MS: Final = 5


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


#: What a front end is handed by :meth:`FramePump.next_event`.
Incoming = Frame | FramingError | EndOfStream


class FramePump:
    """Frames from stdin: the framing decoder, fed by the reads of its :class:`Loop`.

    Both front ends react to the decoder the same way but for a frame and a framing
    error, which are theirs to answer: the pump reads whenever the decoder needs
    bytes, and logs a realignment and the end of input, so each front end sees only
    the events it answers.
    """

    def __init__(self, in_fd: int, out_fd: int, companions: Sequence[Companion], log: Any) -> None:
        self.decoder = FrameDecoder()
        self.loop = Loop(in_fd, out_fd, companions, self._input)
        self.log = log

    def _input(self, chunk: bytes) -> None:
        if chunk:
            self.decoder.receive_data(chunk)
        else:
            self.decoder.receive_eof()

    def next_event(self) -> Incoming:
        """The next frame, framing error or end of input, read for as long as it takes."""
        while True:
            event = self.decoder.next_event()
            match event:
                case Frame() | FramingError():
                    return event
                case Realigned():
                    self.log.info(
                        "framing_realigned",
                        kind=str(event.kind),
                        bytes_discarded=event.discarded_bytes,
                    )
                case EndOfStream():
                    self.log.info("end_of_input", truncated=event.truncated)
                    return event
                case _:  # NEED_DATA
                    self.loop.turn(reading=True)
