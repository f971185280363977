"""Property-based tests of the framing state machine (hypothesis).

The example-based tests in ``test_framing.py`` pin each row of the contract. These
let hypothesis search for the inputs nobody thought of:

* **arbitrary bytes**, split into arbitrary writes: the decoder never raises and
  never loops; every event is one it documents; after end of input it reports
  the end, once and for good;
* **split independence**: how the stream is cut into writes never changes the
  events it produces (the pipe decides the cuts, not the client);
* **recovery**: valid messages interleaved with every kind of garbage the contract
  names are each delivered exactly once, in order, and each garbage unit costs
  exactly one error of the right kind;
* **memory**: after the decoder has said "need more data" it holds at most one
  body or one header line, whatever lengths the input declares.

The limits are shrunk for these tests (a 10 MiB body is out of reach of thousands
of generated examples); the decoder reads them from its module at run time, so
the logic under test is the shipped one with smaller numbers.
"""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Iterator
from dataclasses import dataclass
from unittest import mock

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from gzguide import framing
from gzguide.framing import (
    NEED_DATA,
    EndOfStream,
    ErrorKind,
    Event,
    Frame,
    FrameDecoder,
    FramingError,
    Realigned,
)

pytestmark = pytest.mark.timeout(300)

#: Shrunk limits, so that generated input reaches past every one of them.
SMALL_BODY = 48
SMALL_LINE = 40
SMALL_LINES = 4
#: A generous bound on events per input byte: the decoder must make progress.
MAX_EVENTS_PER_BYTE = 2


@contextlib.contextmanager
def small_limits() -> Iterator[None]:
    with (
        mock.patch.object(framing, "MAX_BODY_BYTES", SMALL_BODY),
        mock.patch.object(framing, "MAX_HEADER_LINE_BYTES", SMALL_LINE),
        mock.patch.object(framing, "MAX_HEADER_LINES", SMALL_LINES),
    ):
        yield


def cut(data: bytes, cuts: list[int]) -> list[bytes]:
    """``data`` split at the given offsets (taken modulo its length, sorted)."""
    if not data:
        return []
    points = sorted({c % len(data) for c in cuts} | {0, len(data)})
    return [data[a:b] for a, b in itertools.pairwise(points)]


@dataclass
class Run:
    events: list[Event]
    #: ``decoder.buffered`` each time the decoder asked for more data.
    held: list[int]


def run(pieces: list[bytes], eof: bool = True) -> Run:
    """Feed ``pieces`` one write at a time, draining events after each; then EOF."""
    decoder = FrameDecoder()
    events: list[Event] = []
    held: list[int] = []
    budget = MAX_EVENTS_PER_BYTE * sum(map(len, pieces)) + 8

    def drain() -> None:
        nonlocal budget
        while True:
            event = decoder.next_event()
            if event is NEED_DATA:
                held.append(decoder.buffered)
                return
            budget -= 1
            assert budget >= 0, f"the decoder is not making progress: {events[-8:]}"
            events.append(event)
            if isinstance(event, EndOfStream):
                return

    for piece in pieces:
        decoder.receive_data(piece)
        drain()
    if eof:
        decoder.receive_eof()
        drain()
        # Once ended, it stays ended.
        assert decoder.next_event() == events[-1]
        assert decoder.next_event() == events[-1]
    return Run(events, held)


# -- input ------------------------------------------------------------------------

#: Bytes that matter to the framing grammar, so random input hits its branches often.
GRAMMAR_BYTES = [
    b"\r\n",
    b"\n",
    b"\r",
    b":",
    b" ",
    b"\t",
    b"Content-Length",
    b"content-LENGTH",
    b"Content-Length: 5",
    b"Content-Length: 99999999999999999999",
    b"Content-Length: 123456789012345678901",
    b"\r\n\r\n",
    b"0",
    b"7",
    b"{}",
    b"h" * (SMALL_LINE - 1),
    b"X-Long: " + b"v" * SMALL_LINE,
]

tokens = st.one_of(st.sampled_from(GRAMMAR_BYTES), st.binary(max_size=12))
streams = st.lists(tokens, max_size=60).map(b"".join)
cut_points = st.lists(st.integers(min_value=0, max_value=10_000), max_size=12)


@given(data=st.binary(max_size=400), cuts=cut_points)
# Found by this test: after a truncated end, the next call reported an untruncated one.
@example(data=b"\x00", cuts=[])
def test_arbitrary_bytes_never_raise_or_stall(data: bytes, cuts: list[int]) -> None:
    with small_limits():
        result = run(cut(data, cuts))
    *middle, last = result.events
    assert isinstance(last, EndOfStream)
    for event in middle:
        assert isinstance(event, Frame | FramingError | Realigned)


@given(data=streams, cuts=cut_points)
def test_grammar_shaped_bytes_never_raise_or_stall(data: bytes, cuts: list[int]) -> None:
    with small_limits():
        result = run(cut(data, cuts))
    assert isinstance(result.events[-1], EndOfStream)
    assert not any(isinstance(e, EndOfStream) for e in result.events[:-1])


@given(data=streams, cuts=cut_points)
# Found by this test: an over-long header line counted in the bytes discarded only
# when it arrived in pieces.
@example(data=b"X: " + b"a" * (SMALL_LINE + 20) + b"\r\n\r\n", cuts=[5])
def test_how_the_stream_is_cut_never_changes_the_events(data: bytes, cuts: list[int]) -> None:
    with small_limits():
        whole = run([data]).events
        pieces = run(cut(data, cuts)).events
        bytewise = run([data[i : i + 1] for i in range(len(data))]).events
    assert pieces == whole
    assert bytewise == whole


@given(data=streams, cuts=cut_points)
def test_what_is_held_is_bounded_by_one_body_or_one_line(data: bytes, cuts: list[int]) -> None:
    with small_limits():
        result = run(cut(data, cuts), eof=False)
    bound = max(SMALL_BODY - 1, SMALL_LINE + 1)
    assert max(result.held, default=0) <= bound


@given(
    length=st.integers(min_value=0, max_value=10**20 - 1),
    payload=st.binary(max_size=300),
    cuts=cut_points,
)
def test_declared_lengths_never_make_it_hold_more(
    length: int, payload: bytes, cuts: list[int]
) -> None:
    data = b"Content-Length: %d\r\n\r\n%b" % (length, payload)
    with small_limits():
        result = run(cut(data, cuts), eof=False)
    assert max(result.held, default=0) <= max(SMALL_BODY - 1, SMALL_LINE + 1)
    if length > SMALL_BODY:
        # Over the limit: one error, reported before the body has arrived.
        assert result.events[0] == FramingError(ErrorKind.BODY_TOO_LARGE, length)


# -- valid messages among recoverable garbage -----------------------------------------


@dataclass(frozen=True)
class Unit:
    """A piece of the stream and the events it must produce (Realigned counts aside)."""

    data: bytes
    expected: tuple[object, ...]


def _line_end() -> st.SearchStrategy[bytes]:
    return st.sampled_from([b"\r\n", b"\n"])


#: Header text that is neither a line end nor a colon (so a line of it has no colon).
_plain = st.binary(min_size=1, max_size=SMALL_LINE).filter(
    lambda b: not any(c in b for c in b"\r\n:")
)
#: A header that is not Content-Length: the name can hold neither a colon nor a line end.
_other_header = st.builds(
    lambda name, value: b"X-" + name + b": " + value,
    st.binary(max_size=8).filter(lambda b: not any(c in b for c in b"\r\n:")),
    st.binary(max_size=8).filter(lambda b: not any(c in b for c in b"\r\n")),
)


@st.composite
def valid_units(draw: st.DrawFn, serial: int) -> Unit:
    body = b"%d:" % serial + draw(st.binary(max_size=SMALL_BODY - 8))
    end = draw(_line_end())
    name = draw(st.sampled_from([b"Content-Length", b"content-length", b"CONTENT-LENGTH"]))
    blanks = draw(st.sampled_from([b"", b" ", b"\t", b"  "]))
    length_line = name + b":" + blanks + b"%d" % len(body) + blanks
    extra = draw(st.lists(_other_header, max_size=SMALL_LINES - 1))
    at = draw(st.integers(0, len(extra)))
    lines = [*extra[:at], length_line, *extra[at:]]
    lead = draw(st.lists(_line_end(), max_size=2))  # blank lines between messages
    head = b"".join(lead) + b"".join(line + end for line in lines) + end
    return Unit(head + body, (Frame(body),))


@st.composite
def garbage_units(draw: st.DrawFn) -> Unit:
    """One recoverable error of each kind the contract names."""
    kind = draw(st.sampled_from(list(ErrorKind)))
    end = draw(_line_end())
    if kind is ErrorKind.BODY_TOO_LARGE:
        length = draw(st.integers(SMALL_BODY + 1, SMALL_BODY * 4))
        data = b"Content-Length: %d%b%b" % (length, end, end) + draw(
            st.binary(min_size=length, max_size=length)
        )
        return Unit(data, (FramingError(kind, length), Realigned(kind, length)))
    if kind is ErrorKind.MISSING_LENGTH:
        lines = draw(st.lists(_other_header, min_size=1, max_size=SMALL_LINES))
        return Unit(b"".join(x + end for x in lines) + end, (FramingError(kind),))
    if kind is ErrorKind.BAD_LENGTH:
        bad = draw(
            st.sampled_from([b"", b"-5", b"+5", b"5.0", b"0x10", b"1 2", b"123456789012345678901"])
        )
        lines = [b"Content-Length: " + bad]
    elif kind is ErrorKind.CONFLICTING_LENGTH:
        lines = [b"Content-Length: 3", b"Content-Length: 4"]
    elif kind is ErrorKind.NO_COLON:
        lines = [draw(_plain)]
    elif kind is ErrorKind.TOO_MANY_HEADERS:
        lines = [b"X-N: %d" % i for i in range(draw(st.integers(SMALL_LINES + 1, 12)))]
    else:
        lines = [b"X-Long: " + b"a" * draw(st.integers(SMALL_LINE - 7, SMALL_LINE * 3))]
    data = b"".join(line + end for line in lines) + end
    return Unit(data, (FramingError(kind), Realigned.__name__))


@st.composite
def mixed_streams(draw: st.DrawFn) -> list[Unit]:
    count = draw(st.integers(1, 14))
    return [draw(st.one_of(valid_units(serial), garbage_units())) for serial in range(count)]


def _matches(events: list[Event], expected: list[object]) -> bool:
    if len(events) != len(expected):
        return False
    for event, want in zip(events, expected, strict=True):
        if want == Realigned.__name__:
            if not isinstance(event, Realigned):
                return False
        elif event != want:
            return False
    return True


@given(units=mixed_streams(), cuts=cut_points)
def test_every_valid_message_after_garbage_is_delivered_once_in_order(
    units: list[Unit], cuts: list[int]
) -> None:
    data = b"".join(u.data for u in units)
    with small_limits():
        events = run(cut(data, cuts)).events
    expected = [e for u in units for e in u.expected] + [EndOfStream(truncated=False)]
    assert _matches(events, expected), f"{events} != {expected}"
    # Each garbage unit cost exactly one error; each message arrived exactly once.
    frames = [e.body for e in events if isinstance(e, Frame)]
    assert frames == [e.body for u in units for e in u.expected if isinstance(e, Frame)]
    errors = sum(isinstance(e, FramingError) for e in events)
    assert errors == sum(any(isinstance(x, FramingError) for x in u.expected) for u in units)
