"""Unit tests of the framing state machine (gzguide.framing.FrameDecoder).

Every row of the contract's Transport table that concerns framing, fed whole,
byte by byte and in odd-sized chunks; pipelined input; realignment after each
error kind; and the memory bound (``decoder.buffered``) while over-limit input
streams through in 64 KiB chunks.
"""

from __future__ import annotations

from collections.abc import Iterable

import pytest

from gzguide.framing import (
    DISCARD_CHUNK,
    MAX_BODY_BYTES,
    MAX_HEADER_LINE_BYTES,
    MAX_HEADER_LINES,
    NEED_DATA,
    EndOfStream,
    ErrorKind,
    Event,
    Frame,
    FrameDecoder,
    FramingError,
    Realigned,
    encode_frame,
    parse_length,
)

pytestmark = pytest.mark.timeout(60)

BODY = b'{"id":1,"method":"initialize","params":{"clientVersion":"1.0"}}'
VALID = b"Content-Length: %d\r\n\r\n%b" % (len(BODY), BODY)
CHUNKINGS = [None, 1, 3, 7, 64, DISCARD_CHUNK]


def drain(decoder: FrameDecoder) -> list[Event]:
    """All events available now (up to NEED_DATA or the end of the stream)."""
    events: list[Event] = []
    while True:
        event = decoder.next_event()
        if event is NEED_DATA:
            return events
        events.append(event)
        if isinstance(event, EndOfStream):
            return events


def feed(data: bytes, chunk: int | None = None, eof: bool = True) -> list[Event]:
    """Feed ``data`` (whole, or ``chunk`` bytes at a time) and collect every event."""
    decoder = FrameDecoder()
    events: list[Event] = []
    pieces: Iterable[bytes] = (
        [data] if chunk is None else (data[i : i + chunk] for i in range(0, len(data), chunk))
    )
    for piece in pieces:
        decoder.receive_data(piece)
        events.extend(drain(decoder))
    if eof:
        decoder.receive_eof()
        events.extend(drain(decoder))
    return events


def kinds(events: list[Event]) -> list[object]:
    """A compact view of events: frames by body, errors and realignments by kind."""
    view: list[object] = []
    for event in events:
        if isinstance(event, Frame):
            view.append(event.body)
        elif isinstance(event, FramingError):
            view.append(("error", event.kind))
        elif isinstance(event, Realigned):
            view.append(("realigned", event.kind))
        elif isinstance(event, EndOfStream):
            view.append(("eof", event.truncated))
    return view


def framed(headers: bytes, body: bytes = BODY) -> bytes:
    return headers + b"\r\n" + body


def error_then_valid(kind: ErrorKind) -> list[object]:
    """What a header section in error followed by VALID must decode to."""
    return [("error", kind), ("realigned", kind), BODY, ("eof", False)]


# -- header lines -----------------------------------------------------------------------


@pytest.mark.parametrize("chunk", CHUNKINGS)
@pytest.mark.parametrize(
    "data",
    [
        pytest.param(VALID, id="crlf"),
        pytest.param(b"Content-Length: %d\n\n%b" % (len(BODY), BODY), id="bare-lf"),
        pytest.param(b"Content-Length: %d\r\n\n%b" % (len(BODY), BODY), id="crlf-then-lf"),
        pytest.param(b"Content-Length: %d\n\r\n%b" % (len(BODY), BODY), id="lf-then-crlf"),
        pytest.param(b"content-length: %d\r\n\r\n%b" % (len(BODY), BODY), id="lowercase"),
        pytest.param(b"CONTENT-LENGTH: %d\r\n\r\n%b" % (len(BODY), BODY), id="uppercase"),
        pytest.param(b"cOnTeNt-LeNgTh: %d\r\n\r\n%b" % (len(BODY), BODY), id="mixed-case"),
        pytest.param(
            b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n"
            b"Content-Length: %d\r\n\r\n%b" % (len(BODY), BODY),
            id="unknown-header-first",
        ),
        pytest.param(
            b"Content-Length: %d\r\nX-Anything: at all\r\nX-Empty:\r\n\r\n%b" % (len(BODY), BODY),
            id="unknown-headers-after",
        ),
    ],
)
def test_header_lines_accepted(data: bytes, chunk: int | None) -> None:
    assert kinds(feed(data, chunk)) == [BODY, ("eof", False)]


# -- Content-Length values --------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "length"),
    [
        (b"5", 5),
        (b" 5", 5),
        (b"5 ", 5),
        (b"\t5\t", 5),
        (b"  \t 5 \t  ", 5),
        (b"0", 0),
        (b"00000000000000000005", 5),  # 20 digits: the most allowed
        (b"99999999999999999999", 99999999999999999999),
    ],
)
def test_parse_length_valid(value: bytes, length: int) -> None:
    assert parse_length(value) == length


@pytest.mark.parametrize(
    "value",
    [
        b"",
        b"   ",
        b"-5",
        b"+5",
        b"5a",
        b"a5",
        b"0x5",
        b"5.0",
        b"5e0",
        b"5 5",
        b"000000000000000000005",  # 21 digits
        "٥".encode(),  # a digit, but not an ASCII one
        "５".encode(),
        b"\xff",
        b"5\x00",
    ],
)
def test_parse_length_malformed(value: bytes) -> None:
    assert parse_length(value) is None


@pytest.mark.parametrize("chunk", [None, 1])
@pytest.mark.parametrize(
    "value", [b"", b" ", b"-5", b"+5", b"abc", b"5 5", b"1.5", b"000000000000000000063"]
)
def test_malformed_length_is_one_error_and_next_message_follows_blank_line(
    value: bytes, chunk: int | None
) -> None:
    # The bytes after the blank line are the next message, never a body.
    data = b"Content-Length:" + value + b"\r\n\r\n" + VALID
    assert kinds(feed(data, chunk)) == error_then_valid(ErrorKind.BAD_LENGTH)


@pytest.mark.parametrize("chunk", [None, 1])
def test_twenty_digit_length_is_accepted(chunk: int | None) -> None:
    data = b"Content-Length: %020d\r\n\r\n%b" % (len(BODY), BODY)
    assert kinds(feed(data, chunk)) == [BODY, ("eof", False)]


@pytest.mark.parametrize("chunk", [None, 1])
def test_missing_length_is_one_error(chunk: int | None) -> None:
    data = b"Content-Type: text/plain\r\nX-Other: 1\r\n\r\n" + VALID
    events = feed(data, chunk)
    # Only the blank line tells that the length is missing: nothing to realign after it.
    assert kinds(events) == [("error", ErrorKind.MISSING_LENGTH), BODY, ("eof", False)]


@pytest.mark.parametrize("chunk", [None, 1])
def test_conflicting_lengths_are_one_error(chunk: int | None) -> None:
    data = b"Content-Length: 5\r\nContent-Length: 6\r\n\r\n" + VALID
    assert kinds(feed(data, chunk)) == error_then_valid(ErrorKind.CONFLICTING_LENGTH)


def test_repeated_equal_lengths_are_fine() -> None:
    data = b"Content-Length: %d\r\ncontent-length:%03d \r\n\r\n%b" % (len(BODY), len(BODY), BODY)
    assert kinds(feed(data)) == [BODY, ("eof", False)]


@pytest.mark.parametrize("chunk", [None, 1])
@pytest.mark.parametrize(
    "line", [b"Content-Length 63", b"garbage", b"{", b"Content-Length=63", b" "]
)
def test_header_line_without_colon_is_one_error(line: bytes, chunk: int | None) -> None:
    data = b"Content-Length: 63\r\n" + line + b"\r\n\r\n" + VALID
    assert kinds(feed(data, chunk)) == error_then_valid(ErrorKind.NO_COLON)


def test_body_is_never_skipped_after_a_header_section_error() -> None:
    # A valid Content-Length was among the lines, yet after the error the next
    # message is expected right after the blank line, not len bytes later.
    data = b"Content-Length: %d\r\nbroken line\r\n\r\n" % len(VALID) + VALID
    assert kinds(feed(data)) == error_then_valid(ErrorKind.NO_COLON)


def test_error_in_section_is_reported_when_detected_not_at_its_end() -> None:
    decoder = FrameDecoder()
    decoder.receive_data(b"Content-Length: 12x\r\n")
    assert kinds(drain(decoder)) == [("error", ErrorKind.BAD_LENGTH)]
    decoder.receive_data(b"More: lines\r\nno colon here\r\n")
    assert drain(decoder) == []  # still the same section: no second error
    decoder.receive_data(b"\r\n")
    assert kinds(drain(decoder)) == [("realigned", ErrorKind.BAD_LENGTH)]


def test_one_error_per_section_whatever_else_is_wrong() -> None:
    section = (
        b"no colon\r\n"
        + b"Content-Length: abc\r\n"
        + b"Content-Length: 1\r\nContent-Length: 2\r\n"
        + b"X: " + b"y" * (MAX_HEADER_LINE_BYTES + 10) + b"\r\n"
        + b"X: y\r\n" * (MAX_HEADER_LINES + 5)
        + b"\r\n"
    )  # fmt: skip
    assert kinds(feed(section + VALID)) == error_then_valid(ErrorKind.NO_COLON)


# -- blank lines and bodies ------------------------------------------------------------


@pytest.mark.parametrize("chunk", [None, 1])
def test_blank_lines_between_messages_are_skipped(chunk: int | None) -> None:
    data = b"\r\n\n\r\n" + VALID + b"\r\n\r\n\n" + VALID + b"\n"
    assert kinds(feed(data, chunk)) == [BODY, BODY, ("eof", False)]


def test_many_blank_lines_are_not_a_header_section() -> None:
    data = b"\r\n" * (MAX_HEADER_LINES * 10) + VALID
    assert kinds(feed(data)) == [BODY, ("eof", False)]


@pytest.mark.parametrize("chunk", CHUNKINGS)
def test_body_is_exactly_length_bytes_and_next_message_starts_right_after(
    chunk: int | None,
) -> None:
    tricky = b'{"s":"\r\n\r\nContent-Length: 3\r\n\r\n"}'
    second = b'{"id":2}'
    data = encode_frame(tricky) + encode_frame(second) + encode_frame(b"")
    assert kinds(feed(data, chunk)) == [tricky, second, b"", ("eof", False)]


def test_body_bytes_are_passed_through_untouched() -> None:
    body = bytes(range(256)) * 3  # not JSON, not UTF-8: framing does not care
    assert kinds(feed(encode_frame(body), 5)) == [body, ("eof", False)]


def test_utf8_length_counts_bytes() -> None:
    body = '{"p":"/tmp/é/日本/🐍.py"}'.encode()
    assert len(body) > len(body.decode())
    assert kinds(feed(encode_frame(body), 1)) == [body, ("eof", False)]


@pytest.mark.parametrize("chunk", [None, 1, 13])
def test_pipelined_messages(chunk: int | None) -> None:
    bodies = [b'{"id":%d}' % i for i in range(200)]
    data = b"".join(encode_frame(b) for b in bodies)
    assert kinds(feed(data, chunk)) == [*bodies, ("eof", False)]


def test_frames_are_available_before_more_input_arrives() -> None:
    decoder = FrameDecoder()
    decoder.receive_data(VALID + VALID[:10])
    assert kinds(drain(decoder)) == [BODY]
    decoder.receive_data(VALID[10:])
    assert kinds(drain(decoder)) == [BODY]


def test_encode_frame() -> None:
    assert encode_frame(b'{"a":"\xc3\xa9"}') == b'Content-Length: 10\r\n\r\n{"a":"\xc3\xa9"}'


# -- limits ----------------------------------------------------------------------------


def test_body_at_the_limit_is_accepted() -> None:
    body = b"{}" + b" " * (MAX_BODY_BYTES - 2)
    events = feed(encode_frame(body) + VALID, DISCARD_CHUNK)
    assert [len(e.body) for e in events if isinstance(e, Frame)] == [MAX_BODY_BYTES, len(BODY)]
    assert not [e for e in events if isinstance(e, FramingError)]


@pytest.mark.parametrize("chunk", [None, DISCARD_CHUNK, 1000])
def test_body_over_the_limit_is_one_error_and_is_discarded_in_full(chunk: int | None) -> None:
    size = MAX_BODY_BYTES + 1
    data = b"Content-Length: %d\r\n\r\n" % size + b"\r\n" * (size // 2) + b"x" + VALID
    events = feed(data, chunk)
    assert kinds(events) == [
        ("error", ErrorKind.BODY_TOO_LARGE),
        ("realigned", ErrorKind.BODY_TOO_LARGE),
        BODY,
        ("eof", False),
    ]
    error, realigned = events[0], events[1]
    assert isinstance(error, FramingError) and error.declared_length == size
    assert isinstance(realigned, Realigned) and realigned.discarded_bytes == size


def test_over_limit_body_is_reported_before_any_of_it_arrives() -> None:
    decoder = FrameDecoder()
    decoder.receive_data(b"Content-Length: %d\r\n\r\n" % (MAX_BODY_BYTES + 1))
    events = drain(decoder)
    assert kinds(events) == [("error", ErrorKind.BODY_TOO_LARGE)]
    assert events[0].message  # type: ignore[union-attr]


@pytest.mark.parametrize("chunk", [None, 1])
def test_header_lines_up_to_the_limit_are_accepted(chunk: int | None) -> None:
    headers = b"X-Filler: 1\r\n" * (MAX_HEADER_LINES - 1) + b"Content-Length: %d\r\n" % len(BODY)
    assert kinds(feed(framed(headers), chunk)) == [BODY, ("eof", False)]


@pytest.mark.parametrize("chunk", [None, 1])
def test_one_header_line_too_many_is_one_error(chunk: int | None) -> None:
    headers = b"X-Filler: 1\r\n" * MAX_HEADER_LINES + b"Content-Length: %d\r\n" % len(BODY)
    data = headers + b"\r\n" + VALID
    assert kinds(feed(data, chunk)) == error_then_valid(ErrorKind.TOO_MANY_HEADERS)


def test_too_many_header_lines_is_reported_at_the_first_line_over() -> None:
    decoder = FrameDecoder()
    decoder.receive_data(b"X: 1\r\n" * MAX_HEADER_LINES)
    assert drain(decoder) == []
    decoder.receive_data(b"X: 1\r\n")
    assert kinds(drain(decoder)) == [("error", ErrorKind.TOO_MANY_HEADERS)]


@pytest.mark.parametrize("ending", [b"\r\n", b"\n"])
@pytest.mark.parametrize("chunk", [None, 1, 1000])
def test_header_line_at_the_limit_is_accepted(ending: bytes, chunk: int | None) -> None:
    pad = b"X-Pad: " + b"p" * (MAX_HEADER_LINE_BYTES - 7)
    assert len(pad) == MAX_HEADER_LINE_BYTES
    data = pad + ending + b"Content-Length: %d" % len(BODY) + ending + ending + BODY
    assert kinds(feed(data, chunk)) == [BODY, ("eof", False)]


@pytest.mark.parametrize("ending", [b"\r\n", b"\n"])
@pytest.mark.parametrize("chunk", [None, 1, 1000])
def test_header_line_over_the_limit_is_one_error(ending: bytes, chunk: int | None) -> None:
    pad = b"X-Pad: " + b"p" * (MAX_HEADER_LINE_BYTES - 6)
    assert len(pad) == MAX_HEADER_LINE_BYTES + 1
    data = b"Content-Length: %d" % len(BODY) + ending + pad + ending + ending + VALID
    assert kinds(feed(data, chunk)) == error_then_valid(ErrorKind.LINE_TOO_LONG)


def test_over_long_line_is_reported_before_it_ends() -> None:
    decoder = FrameDecoder()
    decoder.receive_data(b"X" * MAX_HEADER_LINE_BYTES)
    assert drain(decoder) == []  # may still be a line at the limit
    decoder.receive_data(b"XX")
    assert kinds(drain(decoder)) == [("error", ErrorKind.LINE_TOO_LONG)]
    decoder.receive_data(b"X" * 100_000 + b"\r\n\r\n" + VALID)
    assert kinds(drain(decoder)) == [("realigned", ErrorKind.LINE_TOO_LONG), BODY]


def test_over_long_first_line_without_colon_still_one_error() -> None:
    data = b"{" * (3 * MAX_HEADER_LINE_BYTES) + b"\r\nX: 1\r\n\r\n" + VALID
    assert kinds(feed(data, 4096)) == error_then_valid(ErrorKind.LINE_TOO_LONG)


# -- realignment after every kind of error ----------------------------------------------

SECTIONS_IN_ERROR = {
    ErrorKind.MISSING_LENGTH: b"X-Only: 1\r\n\r\n",
    ErrorKind.BAD_LENGTH: b"Content-Length: x\r\n\r\n",
    ErrorKind.CONFLICTING_LENGTH: b"Content-Length: 1\r\nContent-Length: 2\r\n\r\n",
    ErrorKind.NO_COLON: b"Content-Length: 2\r\nnope\r\n\r\n",
    ErrorKind.TOO_MANY_HEADERS: b"X: 1\r\n" * (MAX_HEADER_LINES + 1) + b"\r\n",
    ErrorKind.LINE_TOO_LONG: b"X: " + b"x" * MAX_HEADER_LINE_BYTES + b"\r\n\r\n",
    ErrorKind.BODY_TOO_LARGE: b"Content-Length: %d\r\n\r\n" % (MAX_BODY_BYTES + 1)
    + b"}" * (MAX_BODY_BYTES + 1),
}


@pytest.mark.parametrize("kind", list(ErrorKind))
@pytest.mark.parametrize("chunk", [None, 7, DISCARD_CHUNK])
def test_realigns_after_each_error_kind(kind: ErrorKind, chunk: int | None) -> None:
    if kind is ErrorKind.BODY_TOO_LARGE and chunk == 7:
        chunk = 4099  # 7-byte pieces of 20 MiB would only make the test slow
    data = VALID + SECTIONS_IN_ERROR[kind] + VALID + SECTIONS_IN_ERROR[kind] + VALID
    events = feed(data, chunk)
    errors = [e for e in events if isinstance(e, FramingError)]
    assert [e.kind for e in errors] == [kind, kind]
    assert [e.body for e in events if isinstance(e, Frame)] == [BODY, BODY, BODY]
    assert events[-1] == EndOfStream(truncated=False)


def test_realigned_reports_discarded_bytes_of_a_drained_section() -> None:
    section = b"Content-Length: 1\r\nno colon\r\nX: 1\r\n\r\n"
    events = feed(section)
    realigned = [e for e in events if isinstance(e, Realigned)]
    assert len(realigned) == 1
    # The failing line and what followed it, up to the blank line that ends the section.
    assert realigned[0].discarded_bytes == len(b"no colon\r\nX: 1\r\n")


@pytest.mark.parametrize("kind", list(ErrorKind))
def test_every_error_has_a_message(kind: ErrorKind) -> None:
    assert FramingError(kind).message


# -- end of input ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "truncated"),
    [
        pytest.param(b"", False, id="nothing"),
        pytest.param(VALID, False, id="after-a-message"),
        pytest.param(VALID + b"\r\n\r\n", False, id="after-blank-lines"),
        pytest.param(b"Content-Len", True, id="mid-header-line"),
        pytest.param(b"Content-Length: 63\r\n", True, id="mid-header-section"),
        pytest.param(b"Content-Length: 63\r\n\r\n", True, id="before-body"),
        pytest.param(VALID[:-1], True, id="mid-body"),
        pytest.param(b"Content-Length: 99999999999\r\n\r\nabc", True, id="mid-discard"),
        pytest.param(b"nope\r\nmore", True, id="mid-drain"),
        pytest.param(b"X: " + b"x" * 20_000, True, id="mid-long-line"),
    ],
)
def test_end_of_input(data: bytes, truncated: bool) -> None:
    events = feed(data)
    assert events[-1] == EndOfStream(truncated=truncated)
    assert not [e for e in events if isinstance(e, Frame) and e.body != BODY]


def test_end_of_input_is_sticky_and_frees_the_buffer() -> None:
    decoder = FrameDecoder()
    decoder.receive_data(b"Content-Length: 10\r\n\r\nabc")
    decoder.receive_eof()
    assert decoder.next_event() == EndOfStream(truncated=True)
    assert decoder.buffered == 0
    assert isinstance(decoder.next_event(), EndOfStream)
    assert isinstance(decoder.next_event(), EndOfStream)
    with pytest.raises(RuntimeError):
        decoder.receive_data(b"more")


def test_messages_before_eof_are_all_delivered() -> None:
    decoder = FrameDecoder()
    decoder.receive_data(VALID * 3)
    decoder.receive_eof()
    assert kinds(drain(decoder)) == [BODY, BODY, BODY, ("eof", False)]


# -- constant memory ----------------------------------------------------------------------

#: What the decoder may hold beyond the chunk just handed to it.
SLACK = MAX_HEADER_LINE_BYTES + 2


def stream_chunks(decoder: FrameDecoder, chunks: Iterable[bytes]) -> tuple[list[Event], int]:
    """Feed chunks, draining events after each; the most the decoder ever buffered."""
    events: list[Event] = []
    peak = 0
    for piece in chunks:
        decoder.receive_data(piece)
        events.extend(drain(decoder))
        peak = max(peak, decoder.buffered)
    return events, peak


def test_over_limit_body_streams_through_in_constant_memory() -> None:
    decoder = FrameDecoder()
    size = 4 * MAX_BODY_BYTES
    header = b"Content-Length: %d\r\n\r\n" % size
    chunk = b"z" * DISCARD_CHUNK

    def pieces() -> Iterable[bytes]:
        yield header
        remaining = size
        while remaining:
            take = min(remaining, DISCARD_CHUNK)
            remaining -= take
            yield chunk[:take]
        yield VALID

    events, peak = stream_chunks(decoder, pieces())
    assert peak <= DISCARD_CHUNK
    assert kinds(events) == [
        ("error", ErrorKind.BODY_TOO_LARGE),
        ("realigned", ErrorKind.BODY_TOO_LARGE),
        BODY,
    ]


def test_endless_header_line_in_constant_memory() -> None:
    decoder = FrameDecoder()
    chunk = b"A" * DISCARD_CHUNK
    events, peak = stream_chunks(decoder, (chunk for _ in range(400)))  # 25 MiB, no line end
    assert peak <= DISCARD_CHUNK + SLACK
    assert kinds(events) == [("error", ErrorKind.LINE_TOO_LONG)]
    more, _ = stream_chunks(decoder, [b"\r\n\r\n" + VALID])
    assert kinds(more) == [("realigned", ErrorKind.LINE_TOO_LONG), BODY]


def test_endless_header_lines_in_constant_memory() -> None:
    decoder = FrameDecoder()
    lines = b"X-Never-Ending: header\r\n" * (DISCARD_CHUNK // 24)
    events, peak = stream_chunks(decoder, (lines for _ in range(48)))
    assert peak <= len(lines) + SLACK
    assert kinds(events) == [("error", ErrorKind.TOO_MANY_HEADERS)]
    more, _ = stream_chunks(decoder, [b"\r\n" + VALID])
    assert kinds(more) == [("realigned", ErrorKind.TOO_MANY_HEADERS), BODY]


def test_endless_blank_lines_in_constant_memory() -> None:
    decoder = FrameDecoder()
    blanks = b"\r\n" * (DISCARD_CHUNK // 2)
    events, peak = stream_chunks(decoder, (blanks for _ in range(8)))
    assert events == []
    assert peak <= len(blanks)
    more, _ = stream_chunks(decoder, [VALID])
    assert kinds(more) == [BODY]


def test_long_lines_of_a_failed_section_are_drained_in_constant_memory() -> None:
    decoder = FrameDecoder()
    long_line = b"Y" * (DISCARD_CHUNK - 2) + b"\r\n"
    events, peak = stream_chunks(
        decoder, [b"bad\r\n", *(long_line for _ in range(100)), b"\r\n", VALID]
    )
    assert peak <= DISCARD_CHUNK + SLACK
    assert kinds(events) == [
        ("error", ErrorKind.NO_COLON),
        ("realigned", ErrorKind.NO_COLON),
        BODY,
    ]


def test_header_line_trickled_byte_by_byte() -> None:
    # Every prefix of a line at the limit is still "need more data", never an error.
    decoder = FrameDecoder()
    line = b"X-Pad: " + b"p" * (MAX_HEADER_LINE_BYTES - 7) + b"\r\n"
    for byte in line:
        decoder.receive_data(bytes([byte]))
        assert decoder.next_event() is NEED_DATA
    decoder.receive_data(VALID)
    assert kinds(drain(decoder)) == [BODY]
