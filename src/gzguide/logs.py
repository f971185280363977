"""Structured logs: one JSON object per line, to stderr or an appended file, never stdout.

Lines reach the descriptor (``O_APPEND`` for a file) in ``write`` calls that each
carry whole lines and, where there are several, at most ``PIPE_BUF`` bytes, so lines
from the frontend and its workers never interleave mid-line, on a pipe or a file.
Every line starts with ``ts`` (ISO-8601 UTC), ``level`` and ``event``; the rest are
the event's own fields.

A process may hold its lines back (:func:`configure` with ``deferred=True``) and
write them with :func:`flush`: the frontend does, flushing once it has had no
input for a few milliseconds (a group commit), so a burst of back-to-back requests
costs one write for many lines, while a line still reaches the log within a few
milliseconds of the server going idle, and never later than ``MAX_HELD_SECONDS``
under load.
"""

from __future__ import annotations

import io
import os
import select
import stat
import sys
import time
from collections.abc import Callable, MutableMapping
from datetime import UTC, datetime
from typing import Any, Final

import msgspec
import structlog

_encoder: Final = msgspec.json.Encoder(enc_hook=repr)


_second: list[Any] = [None, ""]  # the whole second last formatted, and its text


def _timestamp() -> str:
    """ISO-8601 UTC with microseconds; the whole-second part is formatted once a second."""
    now = time.time()
    second = int(now)
    if second != _second[0]:
        text = datetime.fromtimestamp(second, UTC).strftime("%Y-%m-%dT%H:%M:%S")
        _second[0], _second[1] = second, text
    micros = min(int((now - second) * 1_000_000), 999_999)
    return f"{_second[1]}.{micros:06d}Z"


def _render(_logger: Any, method_name: str, event_dict: MutableMapping[str, Any]) -> bytes:
    line: dict[str, Any] = {
        "ts": _timestamp(),
        "level": "warning" if method_name == "warn" else method_name,
        "event": event_dict.pop("event", ""),
    }
    line.update(event_dict)
    return _encoder.encode(line)


def open_log_fd(log_file: str | None) -> int:
    """The descriptor logs go to: an appended file, or stderr.

    When stderr is a pipe, the logs get a descriptor of their own on it, opened
    non-blocking (the flag belongs to that descriptor alone, not to the parent's or
    the workers'): a client that pipes our stderr and never reads it must cost log
    lines, never a server stuck in ``write`` (see :class:`LineSink`).
    """
    if log_file:
        return os.open(log_file, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o644)
    fd = _nonblocking_stderr_pipe()
    return os.dup(2) if fd is None else fd


def _nonblocking_stderr_pipe() -> int | None:
    """A non-blocking descriptor of our own on stderr, when stderr is a pipe."""
    try:
        if stat.S_ISFIFO(os.fstat(2).st_mode):
            return os.open("/proc/self/fd/2", os.O_WRONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        pass  # no /proc, or nobody reads the pipe any more: plain stderr will do
    return None


class _StrayOutput(io.TextIOBase):
    """Where Python's own stray output goes (a warning, a traceback): never blocking.

    What a full pipe cannot take is dropped: such output is for a person reading
    stderr, and with nobody reading, waiting for room would stop the process.
    """

    encoding = "utf-8"

    def __init__(self, fd: int) -> None:
        super().__init__()
        self._fd = fd

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self._fd

    def write(self, text: str) -> int:
        view = memoryview(text.encode("utf-8", "backslashreplace"))
        try:
            while view:
                view = view[os.write(self._fd, view) :]
        except OSError:  # BlockingIOError included: a full pipe that nobody reads
            pass
        return len(text)


def quiet_stray_output() -> None:
    """On a stderr pipe, point ``sys.stderr`` and ``sys.stdout`` at :class:`_StrayOutput`.

    Logs already never wait for a reader (:func:`open_log_fd`); this covers what
    Python itself prints. Elsewhere (a terminal, a file) nothing changes.
    """
    fd = _nonblocking_stderr_pipe()
    if fd is not None:
        sys.stderr = sys.stdout = _StrayOutput(fd)


#: Whole lines that may share one write: PIPE_BUF, the size a pipe writes atomically.
ATOMIC_WRITE: Final = getattr(select, "PIPE_BUF", 4096)
#: Held-back lines are written once this many are waiting, idle or not.
MAX_HELD_LINES: Final = 256
#: ... or once the oldest has waited this long.
MAX_HELD_SECONDS: Final = 0.2


class LineSink:
    """Writes rendered lines to a descriptor, at once or held back until :meth:`flush`."""

    def __init__(self, fd: int, deferred: bool) -> None:
        self.fd = fd
        self.deferred = deferred
        self._held: list[bytes] = []
        self._since = 0.0
        #: Lines lost to a full pipe since the last that got through.
        self.dropped = 0

    def msg(self, message: bytes) -> None:
        if not self._held:
            self._since = time.monotonic()
        self._held.append(message + b"\n")
        if (
            not self.deferred
            or len(self._held) >= MAX_HELD_LINES
            or time.monotonic() - self._since > MAX_HELD_SECONDS
        ):
            self.flush()

    log = debug = info = warning = warn = error = critical = exception = fatal = msg

    def flush(self) -> None:
        held, self._held = self._held, []
        chunk: list[bytes] = []
        size = 0
        for line in held:
            if chunk and size + len(line) > ATOMIC_WRITE:
                self._write(b"".join(chunk))
                chunk, size = [], 0
            chunk.append(line)
            size += len(line)
        if chunk:
            self._write(b"".join(chunk))

    def _write(self, data: bytes) -> None:
        """Write whole lines; on a full non-blocking pipe, count them as dropped.

        A write of at most ``PIPE_BUF`` bytes to a pipe is all or nothing, so lines
        are dropped whole. Once a write goes through again, a ``log_lines_dropped``
        line says how many were lost (while the pipe stays stuck, that short line
        may fit where the next does not: the counts of all such lines add up to
        the lines lost). Only a single line longer than ``PIPE_BUF`` can be cut:
        its rest gets ``LONG_LINE_WAIT_S`` to find room.
        """
        if self.dropped:
            notice = _notice(self.dropped)
            if not self._attempt(notice):
                self.dropped += data.count(b"\n")
                return
            self.dropped = 0
        if not self._attempt(data):
            self.dropped += data.count(b"\n")

    def _attempt(self, data: bytes) -> bool:
        """Write all of ``data``; False when the pipe stayed full before the end."""
        view = memoryview(data)
        try:
            while view:
                try:
                    view = view[os.write(self.fd, view) :]
                except BlockingIOError:
                    # Nothing went out yet: drop it whole. Part of a long line went
                    # out: its rest may wait a little, or the line ends up cut.
                    untouched = len(view) == len(data)
                    if untouched or not _writable_within(self.fd, LONG_LINE_WAIT_S):
                        return False
        except OSError:
            pass  # a log that cannot be written must never take the server down
        return True


#: How long the rest of a line longer than PIPE_BUF may wait for room in the pipe.
LONG_LINE_WAIT_S: Final = 1.0


def _writable_within(fd: int, seconds: float) -> bool:
    poller = select.poll()
    poller.register(fd, select.POLLOUT)
    return bool(poller.poll(int(seconds * 1000)))


def _notice(dropped: int) -> bytes:
    """The line that reports lines lost to a full pipe."""
    line = {
        "ts": _timestamp(),
        "level": "warning",
        "event": "log_lines_dropped",
        **_context,
        "count": dropped,
    }
    return _encoder.encode(line) + b"\n"


_context: dict[str, Any] = {}
_sinks: list[LineSink] = []


def configure(
    level: str = "info", log_fd: int | None = None, deferred: bool = False, **context: Any
) -> None:
    """Route structlog to ``log_fd`` (stderr when None) at ``level`` and above.

    ``context`` (e.g. ``process="frontend"``) and the process id are carried by
    every line of loggers from :func:`get_logger`. With ``deferred``, lines wait
    for :func:`flush` (or for ``MAX_HELD_LINES`` of them).
    """
    fd = os.dup(2) if log_fd is None else log_fd
    sink = LineSink(fd, deferred)
    _sinks[:] = [sink]
    structlog.configure(
        processors=[_render],
        wrapper_class=structlog.make_filtering_bound_logger(level),
        logger_factory=lambda *args: sink,
        cache_logger_on_first_use=True,
    )
    _context.clear()
    _context.update(context, pid=os.getpid())


def flush() -> None:
    """Write every held-back line now."""
    for sink in _sinks:
        sink.flush()


def get_logger() -> Any:
    return structlog.get_logger().bind(**_context)


#: Events from the pool and the analysis that deserve attention: logged at warning.
WARNING_EVENTS: Final = frozenset(
    {
        "thresholds_rejected",
        "job_failed",
        "worker_replaced",
        "pool_unavailable",
        "analysis_out_of_memory",
        "memory_limit_unavailable",
    }
)


def event_sink(log: Any) -> Callable[..., None]:
    """A callback for the pool and the analyst: each event at its level."""

    def emit(event: str, **fields: Any) -> None:
        if event in WARNING_EVENTS:
            log.warning(event, **fields)
        else:
            log.info(event, **fields)

    return emit
