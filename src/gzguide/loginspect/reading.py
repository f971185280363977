"""Reading server logs: lines in, records out, with what could not be used counted.

A line is *parsed* when it is a JSON object (decoded with msgspec) whose ``event``
is a string and whose ``ts`` is an ISO-8601 timestamp (one without an offset is
taken as UTC). Anything else is *malformed* and only counted: text that is not
JSON (invalid UTF-8 and blank lines included), JSON that is not an object, an
object without ``event``/``ts``, and any line longer than :data:`MAX_LINE_BYTES`
(skipped as it is read, never held). The final line of a file without a newline
(the server may be writing it) is used when it decodes as JSON, and counted as
*truncated* (not malformed) when it does not.

The field helpers do not trust a parsed line's fields: a value of an unexpected
type reads as None (or, for a grouping key, ``unknown``).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import IO, Any, Final

import msgspec

#: A line longer than this is malformed; it is skipped without being held.
MAX_LINE_BYTES: Final = 64 * 1024 * 1024

_decoder: Final = msgspec.json.Decoder()

#: A parsed line.
Record = dict[str, Any]


class LogFileError(Exception):
    """A log file could not be opened or read."""


def iter_lines(handle: IO[bytes]) -> Iterator[tuple[bytes | None, bool]]:
    """Each line of ``handle`` without its newline, and whether it had one.

    A line longer than :data:`MAX_LINE_BYTES` is skipped as it is read and
    yielded as ``None``.
    """
    while True:
        line = handle.readline(MAX_LINE_BYTES + 1)
        if not line:
            return
        if line.endswith(b"\n"):
            yield line[:-1], True
        elif len(line) <= MAX_LINE_BYTES:
            yield line, False  # the end of the file came first
        else:
            yield None, _skip_rest(handle, line)


def _skip_rest(handle: IO[bytes], line: bytes) -> bool:
    """Read past the rest of an over-long line; whether it ended in a newline."""
    while line and not line.endswith(b"\n"):
        line = handle.readline(MAX_LINE_BYTES)
    return bool(line)


class LineReader:
    """Records from lines, counting every line and what became of it."""

    def __init__(self) -> None:
        self.total = self.parsed = self.malformed = self.truncated = 0

    def read_file(self, path: str) -> Iterator[tuple[Record, datetime]]:
        """The records of the file at ``path``; :class:`LogFileError` if it cannot be read."""
        try:
            with open(path, "rb") as handle:
                yield from self.read(handle)
        except OSError as exc:
            raise LogFileError(f"cannot read {path}: {exc.strerror or exc}") from exc

    def read(self, handle: IO[bytes]) -> Iterator[tuple[Record, datetime]]:
        for line, terminated in iter_lines(handle):
            record = self.line(line, terminated)
            if record is not None:
                yield record

    def line(self, line: bytes | None, terminated: bool = True) -> tuple[Record, datetime] | None:
        """One line without its newline (None: an over-long line that was skipped)."""
        self.total += 1
        try:
            record = _decoder.decode(line) if line is not None else None
        except msgspec.DecodeError:
            self._broken(terminated)
            return None
        found = _record_of(record)
        if found is None:
            self.malformed += 1
            return None
        self.parsed += 1
        return found

    def _broken(self, terminated: bool) -> None:
        """A line that is not JSON: malformed, or cut short by the end of the file."""
        if terminated:
            self.malformed += 1
        else:
            self.truncated += 1


def _record_of(decoded: object) -> tuple[Record, datetime] | None:
    """A decoded line that is a record: an object with an event and a time stamp."""
    if not isinstance(decoded, dict) or not isinstance(decoded.get("event"), str):
        return None
    moment = parse_ts(decoded.get("ts"))
    return None if moment is None else (decoded, moment)


# -- fields of a parsed line, not trusted ------------------------------------------------


def parse_ts(value: object) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def as_int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def as_number(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    number = float(value)
    return number if math.isfinite(number) else None


def as_str(value: object) -> str | None:
    return value if isinstance(value, str) else None


def label(value: object, default: str = "unknown") -> str:
    """A field used as a grouping key: itself when a string, else ``default``."""
    return value if isinstance(value, str) else default


def worker_ref(value: object) -> tuple[int | None, int | None]:
    if isinstance(value, dict):
        return as_int(value.get("index")), as_int(value.get("pid"))
    return None, None
