"""Content-Length framing as a pure state machine: bytes in, events out.

Nothing here touches a file descriptor, and nothing here knows what a method or a
request is. The caller feeds whatever bytes arrive with :meth:`FrameDecoder.receive_data`
(and :meth:`FrameDecoder.receive_eof` at the end of input), then calls
:meth:`FrameDecoder.next_event` until it returns :data:`NEED_DATA`.

The rules, as the contract's transport table sets them:

* header lines end in CRLF, or a bare LF; names are case-insensitive; unknown
  headers are ignored; blank lines between messages are skipped;
* ``Content-Length`` is 1 to 20 ASCII digits, blanks around it allowed; missing,
  empty, signed, non-numeric, longer, or two that disagree is a framing error,
  and so is a header line without a colon;
* a body is at most 10 MiB, a header section at most 32 lines (the blank line
  that ends it not counted), a header line at most 8 KiB (its line ending not
  counted);
* each framing error yields exactly one :class:`FramingError`, reported as soon
  as it is detected; the decoder then realigns in constant memory: a body over
  the limit is discarded in full (its declared length), a header section in
  error is drained up to its blank line and the next message is expected right
  after that blank line. A :class:`Realigned` event reports how many bytes the
  recovery discarded.

Memory is bounded by the largest accepted body plus whatever a single
``receive_data`` call hands over: over-long lines and over-limit bodies are
dropped as they arrive, never accumulated.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from typing import Final, NamedTuple

MAX_BODY_BYTES: Final = 10 * 1024 * 1024
MAX_HEADER_LINES: Final = 32
MAX_HEADER_LINE_BYTES: Final = 8 * 1024
MAX_LENGTH_DIGITS: Final = 20
#: The size of the pieces in which an over-limit body is read and dropped.
DISCARD_CHUNK: Final = 64 * 1024

_BLANKS: Final = b" \t"


class Frame(NamedTuple):
    """A complete message body (exactly Content-Length bytes)."""

    body: bytes


class ErrorKind(enum.StrEnum):
    MISSING_LENGTH = "missing_content_length"
    BAD_LENGTH = "malformed_content_length"
    CONFLICTING_LENGTH = "conflicting_content_length"
    NO_COLON = "header_without_colon"
    TOO_MANY_HEADERS = "too_many_header_lines"
    LINE_TOO_LONG = "header_line_too_long"
    BODY_TOO_LARGE = "body_too_large"


_MESSAGES: Final = {
    ErrorKind.MISSING_LENGTH: "header section has no Content-Length",
    ErrorKind.BAD_LENGTH: "Content-Length must be 1 to 20 ASCII digits",
    ErrorKind.CONFLICTING_LENGTH: "Content-Length headers disagree",
    ErrorKind.NO_COLON: "header line without a colon",
    ErrorKind.TOO_MANY_HEADERS: f"more than {MAX_HEADER_LINES} header lines",
    ErrorKind.LINE_TOO_LONG: f"header line longer than {MAX_HEADER_LINE_BYTES} bytes",
    ErrorKind.BODY_TOO_LARGE: f"body larger than {MAX_BODY_BYTES} bytes",
}


class FramingError(NamedTuple):
    """One framing error; answer it with one parse error, then keep reading."""

    kind: ErrorKind
    #: For an over-limit body, its declared length (all of it will be discarded).
    declared_length: int | None = None

    @property
    def message(self) -> str:
        return _MESSAGES[self.kind]


class Realigned(NamedTuple):
    """Recovery from a framing error finished; the next byte starts a message.

    ``discarded_bytes`` counts what the recovery dropped: the whole body that was
    over the limit, or, for a header section in error, the failing line and the
    lines after it (the blank line that ends the section not counted). It does not
    depend on how the input was split into reads.
    """

    kind: ErrorKind
    discarded_bytes: int


class EndOfStream(NamedTuple):
    """Input ended. ``truncated`` when it ended inside a message."""

    truncated: bool


class _NeedData:
    def __repr__(self) -> str:
        return "NEED_DATA"


NEED_DATA: Final = _NeedData()

Event = Frame | FramingError | Realigned | EndOfStream | _NeedData


class _State(enum.Enum):
    HEADERS = enum.auto()
    DRAIN_LINE = enum.auto()
    BODY = enum.auto()
    DISCARD = enum.auto()
    CLOSED = enum.auto()


def parse_length(value: bytes) -> int | None:
    """A Content-Length value as an int, or None when it is malformed."""
    digits = value.strip(_BLANKS)
    if not 0 < len(digits) <= MAX_LENGTH_DIGITS or not digits.isdigit():
        return None
    return int(digits)


class FrameDecoder:
    """Turns a byte stream into :class:`Frame` and error events, in constant memory."""

    def __init__(self) -> None:
        self._buf = bytearray()
        self._eof = False
        self._state = _State.HEADERS
        #: The end of the stream, once reported: every later call reports it again.
        self._end = EndOfStream(truncated=False)
        #: How far into ``_buf`` a line end has already been looked for.
        self._scanned = 0
        self._reset_section()

    def _reset_section(self) -> None:
        self._in_section = False
        self._lines = 0
        self._length: int | None = None
        self._failure: ErrorKind | None = None
        self._remaining = 0
        self._discarded = 0

    # -- input -------------------------------------------------------------

    def receive_data(self, data: bytes) -> None:
        if self._eof:
            raise RuntimeError("receive_data after receive_eof")
        self._buf += data

    def receive_eof(self) -> None:
        self._eof = True

    @property
    def buffered(self) -> int:
        """Bytes held right now (for tests of the memory bound)."""
        return len(self._buf)

    # -- output ------------------------------------------------------------

    def next_event(self) -> Event:
        """The next event, or :data:`NEED_DATA` until more input arrives."""
        while True:
            step = _STEPS.get(self._state)
            if step is None:  # closed
                return self._end
            event = step(self)
            if event is not None:
                return event

    def _end_of_input(self) -> Event:
        truncated = self._in_section or bool(self._buf) or self._state is not _State.HEADERS
        self._state = _State.CLOSED
        self._buf.clear()
        self._end = EndOfStream(truncated=truncated)
        return self._end

    def _step_body(self) -> Event | None:
        need = self._remaining
        if len(self._buf) < need:
            return self._end_of_input() if self._eof else NEED_DATA
        with memoryview(self._buf) as whole, whole[:need] as view:
            body = view.tobytes()  # one copy; a slice of the bytearray would make two
        del self._buf[:need]
        self._state = _State.HEADERS
        self._reset_section()
        return Frame(body)

    def _step_discard(self) -> Event | None:
        take = min(len(self._buf), self._remaining)
        if take:
            del self._buf[:take]
            self._remaining -= take
            self._discarded += take
        if self._remaining:
            return self._end_of_input() if self._eof else NEED_DATA
        kind, discarded = ErrorKind.BODY_TOO_LARGE, self._discarded
        self._state = _State.HEADERS
        self._reset_section()
        return Realigned(kind, discarded)

    def _step_drain_line(self) -> Event | None:
        end = self._buf.find(b"\n")
        if end < 0:
            self._discarded += len(self._buf)
            self._buf.clear()
            return self._end_of_input() if self._eof else NEED_DATA
        del self._buf[: end + 1]
        self._discarded += end + 1
        self._state = _State.HEADERS
        return None

    def _fail(self, kind: ErrorKind, declared: int | None = None) -> FramingError | None:
        """Mark the section failed; the first failure of a section is reported."""
        if self._failure is not None:
            return None
        self._failure = kind
        return FramingError(kind, declared)

    def _step_headers(self) -> Event | None:
        buf = self._buf
        end = buf.find(b"\n", self._scanned)
        if end < 0:
            return self._await_line_end()
        self._scanned = 0
        line_end = end - 1 if end and buf[end - 1] == 0x0D else end
        line = bytes(buf[:line_end])
        del buf[: end + 1]
        if not line:
            return self._end_section() if self._in_section else None
        return self._section_line(line, end + 1)

    def _await_line_end(self) -> Event | None:
        """No line end yet: an over-long line is dropped from here on."""
        buf = self._buf
        if len(buf) > MAX_HEADER_LINE_BYTES + 1:
            self._in_section = True
            self._discarded += len(buf)
            buf.clear()
            self._scanned = 0
            self._state = _State.DRAIN_LINE
            return self._fail(ErrorKind.LINE_TOO_LONG)
        self._scanned = len(buf)
        return self._end_of_input() if self._eof else NEED_DATA

    def _section_line(self, line: bytes, taken: int) -> Event | None:
        """A line of a header section (``taken`` bytes with its line end)."""
        self._in_section = True
        event = self._check_line(line) if self._failure is None else None
        if self._failure is not None:
            # The failing line and every line after it, up to the blank line, are dropped.
            self._discarded += taken
        return event

    def _check_line(self, line: bytes) -> Event | None:
        if len(line) > MAX_HEADER_LINE_BYTES:
            return self._fail(ErrorKind.LINE_TOO_LONG)
        self._lines += 1
        if self._lines > MAX_HEADER_LINES:
            return self._fail(ErrorKind.TOO_MANY_HEADERS)
        return self._header(line)

    def _header(self, line: bytes) -> Event | None:
        name, colon, value = line.partition(b":")
        if not colon:
            return self._fail(ErrorKind.NO_COLON)
        if name.strip(_BLANKS).lower() != b"content-length":
            return None
        length = parse_length(value)
        if length is None:
            return self._fail(ErrorKind.BAD_LENGTH)
        if self._length is not None and self._length != length:
            return self._fail(ErrorKind.CONFLICTING_LENGTH)
        self._length = length
        return None

    def _end_section(self) -> Event | None:
        """The blank line that ends a header section."""
        if self._failure is not None:
            kind, discarded = self._failure, self._discarded
            self._reset_section()
            return Realigned(kind, discarded)
        length = self._length
        if length is None:
            self._reset_section()
            return FramingError(ErrorKind.MISSING_LENGTH)
        self._reset_section()
        self._remaining = length
        if length > MAX_BODY_BYTES:
            self._state = _State.DISCARD
            return FramingError(ErrorKind.BODY_TOO_LARGE, length)
        self._state = _State.BODY
        return None


def encode_frame(body: bytes) -> bytes:
    """One framed message: the Content-Length header, the blank line, the body."""
    return b"Content-Length: %d\r\n\r\n%b" % (len(body), body)


def frame_parts(parts: Sequence[bytes | memoryview]) -> list[bytes | memoryview]:
    """One framed message whose body is ``parts`` one after the other, as pieces to write.

    Nothing is copied: the header goes in front of the body's own pieces, so a body
    held in memory already (an answer given again) reaches the descriptor with one
    gathering write instead of being joined first.
    """
    length = sum(map(len, parts))
    return [b"Content-Length: %d\r\n\r\n" % length, *parts]


#: What the decoder does next in each state; none in the closed state.
_STEPS: Final[dict[_State, Callable[[FrameDecoder], Event | None]]] = {
    _State.HEADERS: FrameDecoder._step_headers,
    _State.BODY: FrameDecoder._step_body,
    _State.DISCARD: FrameDecoder._step_discard,
    _State.DRAIN_LINE: FrameDecoder._step_drain_line,
}
