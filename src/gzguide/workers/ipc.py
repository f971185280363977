"""Frontend <-> worker messages: msgpack-encoded msgspec Structs, length-prefixed.

Each message on a pipe is a 4-byte little-endian length, then that many bytes of
msgpack. Jobs and results are small typed records (a path and a threshold table's
fingerprint; a report of findings), never pickled objects.

A job names the threshold table its report must be computed under by fingerprint.
The frontend sends the table's document along with the first job of a worker
that names it (:class:`Table`); a worker keeps the last table it was sent, so
jobs, read in order, always name the table the worker holds.

A job for a buffer's text carries the text's digest and says how many bytes the
text has (``text_bytes``, zero for an empty buffer), and those bytes follow its
message on the pipe as they are, outside the msgpack: a text of megabytes is
written from the frontend's one copy of it (in the same gathering write as its
message) and read into the worker's, never encoded, framed or decoded on the way
(:class:`JobReader`).
"""

from __future__ import annotations

import struct
from typing import Any, Final

import msgspec

from gzguide.analysis.model import FileReport
from gzguide.freshness import CacheState, Identity
from gzguide.source import Buffer, Source

_LENGTH: Final = struct.Struct("<I")
HEADER_BYTES: Final = _LENGTH.size
#: No single IPC message may exceed this (a report is a few KiB at most).
MAX_MESSAGE_BYTES: Final = 64 * 1024 * 1024


class Table(msgspec.Struct, array_like=True):
    """A threshold table, as the frontend validated it."""

    #: Where it came from: a file path, or ``embedded``.
    source: str
    document: bytes


class Job(msgspec.Struct, tag="job", array_like=True):
    seq: int
    path: str
    #: The fingerprint of the threshold table to evaluate under.
    table: str
    #: That table, when this worker has not been sent it before.
    new_table: Table | None = None
    #: For a buffer's text (and only then): its content digest, and the length of
    #: the text, whose bytes follow this message.
    text_digest: bytes | None = None
    text_bytes: int = 0


class Ready(msgspec.Struct, tag="ready", array_like=True):
    pid: int


class Result(msgspec.Struct, tag="result", array_like=True):
    seq: int
    report: FileReport
    cache: CacheState
    #: The stat identity of the file version analyzed (None when unanalyzable).
    identity: Identity | None
    #: Wall-clock ns just before that version's bytes were read or verified.
    read_at_ns: int
    #: The content digest of the bytes analyzed (None when there were none).
    digest: bytes | None = None


ToWorker = Job
FromWorker = Ready | Result

_encoder: Final = msgspec.msgpack.Encoder()
_to_worker: Final = msgspec.msgpack.Decoder(ToWorker)
_from_worker: Final = msgspec.msgpack.Decoder(FromWorker)


def pack(message: ToWorker | FromWorker) -> bytes:
    payload = _encoder.encode(message)
    return _LENGTH.pack(len(payload)) + payload


class ProtocolError(Exception):
    """The other side sent something that is not a valid message."""


def job_message(
    seq: int, source: Source, table: str, new_table: Table | None
) -> tuple[Job, bytes | None]:
    """The job pipe's message for a job of ``source``, and the text bytes that follow it."""
    buffer = source.buffer
    if buffer is None:
        return Job(seq, source.path, table, new_table), None
    data = buffer.data()
    return Job(seq, source.path, table, new_table, buffer.digest(), len(data)), data


def source_of(job: Job, text: bytes | None) -> Source:
    """What a job read from the job pipe is of: its file, or the text that came behind it."""
    if text is None:
        return Source(job.path)
    if job.text_digest is None:
        raise ProtocolError(f"job {job.seq} carries a text without its digest")
    return Source(job.path, Buffer(text, job.text_digest))


class _Reader:
    """Accumulates bytes from a pipe and takes whole messages from them.

    Once the bytes stop making sense (a length past the limit, a payload that does
    not decode), :attr:`broken` is set: what came before is still returned, nothing
    after it ever is.
    """

    def __init__(self, decoder: msgspec.msgpack.Decoder[Any]) -> None:
        self._decoder = decoder
        self._buf = bytearray()
        self.broken: str | None = None

    def feed(self, data: bytes) -> None:
        if self.broken is None:
            self._buf += data

    def _next(self) -> object | None:
        """The next whole message, taken from the buffer; None until there is one."""
        buf = self._buf
        if len(buf) < HEADER_BYTES or self.broken is not None:
            return None
        (length,) = _LENGTH.unpack_from(buf)
        if length > MAX_MESSAGE_BYTES:
            self._break(f"message of {length} bytes")
            return None
        end = HEADER_BYTES + length
        if len(buf) < end:
            return None
        try:
            message: object = self._decoder.decode(bytes(buf[HEADER_BYTES:end]))
        except msgspec.MsgspecError as exc:
            self._break(str(exc))
            return None
        del buf[:end]
        return message

    def _break(self, why: str) -> None:
        self.broken = why
        self._buf.clear()


class MessageReader(_Reader):
    """Whole messages from a pipe that carries messages only (a worker's results)."""

    def messages(self) -> list[object]:
        out: list[object] = []
        while (message := self._next()) is not None:
            out.append(message)
        return out


class JobReader(_Reader):
    """Jobs from the job pipe, each with the text that follows it, if it has one.

    A text's bytes are kept as the reads delivered them and joined once when the
    last one arrives: the one copy the worker makes of a text.
    """

    def __init__(self) -> None:
        super().__init__(_to_worker)
        #: The job whose text is arriving, and the pieces of it so far.
        self._waiting: Job | None = None
        self._missing = 0
        self._pieces: list[bytes] = []
        #: Jobs whose texts were completed by :meth:`feed`, in order.
        self._done: list[tuple[Job, bytes | None]] = []

    def feed(self, data: bytes) -> None:
        if self.broken is None and self._waiting is not None and not self._buf:
            data = self._take(data)  # text bytes go to the text, not through the buffer
        super().feed(data)

    def jobs(self) -> list[tuple[Job, bytes | None]]:
        """Every job received whole (its text included), in order."""
        out, self._done = self._done, []
        while self.broken is None and self._next_step(out):
            pass
        return out

    def _next_step(self, out: list[tuple[Job, bytes | None]]) -> bool:
        """Take what the buffer holds next (a job, or text bytes of the waiting job), adding
        the jobs it completes to ``out``; whether it held anything."""
        if self._waiting is not None:
            return self._text_from_buffer(out)
        message = self._next()
        if message is None:
            return False
        assert isinstance(message, Job)  # what the job pipe's decoder decodes
        if message.text_bytes > MAX_MESSAGE_BYTES:
            self._break(f"a text of {message.text_bytes} bytes")
            return False
        self._arrived(message, out)
        return True

    def _text_from_buffer(self, out: list[tuple[Job, bytes | None]]) -> bool:
        """Give the buffered bytes to the waiting job's text; whether there were any."""
        if not self._buf:
            return False
        rest = self._take(bytes(self._buf))
        self._buf = bytearray(rest)
        out += self._done
        self._done = []
        return True

    def _arrived(self, job: Job, out: list[tuple[Job, bytes | None]]) -> None:
        """A job's message is in: the job is whole unless text bytes follow it."""
        if job.text_digest is None:
            out.append((job, None))
        elif not job.text_bytes:
            out.append((job, b""))
        else:
            self._waiting, self._missing, self._pieces = job, job.text_bytes, []

    def _take(self, data: bytes) -> bytes:
        """Take the waiting job's text bytes from the front of ``data``; what is left of it."""
        take = min(self._missing, len(data))
        self._pieces.append(data if take == len(data) else data[:take])
        self._missing -= take
        if not self._missing and self._waiting is not None:
            pieces = self._pieces
            text = pieces[0] if len(pieces) == 1 else b"".join(pieces)
            self._done.append((self._waiting, text))
            self._waiting, self._pieces = None, []
        return data[take:] if take < len(data) else b""


def result_reader() -> MessageReader:
    return MessageReader(_from_worker)


def job_reader() -> JobReader:
    return JobReader()
