"""Frontend <-> worker messages: msgpack-encoded msgspec Structs, length-prefixed.

Each message on a pipe is a 4-byte little-endian length, then that many bytes of
msgpack. Jobs and results are small typed records (a path and a threshold table's
fingerprint; a report of findings), never pickled objects.

A job names the threshold table its report must be computed under by fingerprint.
The frontend sends the table's document along with the first job of a worker
that names it (:class:`Table`); a worker keeps the last table it was sent, so
jobs, read in order, always name the table the worker holds.
"""

from __future__ import annotations

import struct
from typing import Any, Final

import msgspec

from gzguide.analysis.model import FileReport
from gzguide.freshness import CacheState, Identity

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


class MessageReader:
    """Accumulates bytes from a pipe and yields whole messages.

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

    def messages(self) -> list[object]:
        out: list[object] = []
        buf = self._buf
        while len(buf) >= HEADER_BYTES and self.broken is None:
            (length,) = _LENGTH.unpack_from(buf)
            if length > MAX_MESSAGE_BYTES:
                self._break(f"message of {length} bytes")
                break
            end = HEADER_BYTES + length
            if len(buf) < end:
                break
            try:
                out.append(self._decoder.decode(bytes(buf[HEADER_BYTES:end])))
            except msgspec.MsgspecError as exc:
                self._break(str(exc))
                break
            del buf[:end]
        return out

    def _break(self, why: str) -> None:
        self.broken = why
        self._buf.clear()


def result_reader() -> MessageReader:
    return MessageReader(_from_worker)


def job_reader() -> MessageReader:
    return MessageReader(_to_worker)
