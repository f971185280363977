"""Byte offsets of line starts, counted the way the contract and Python's tokenizer count.

A line ends at ``\\n``, ``\\r\\n`` or a lone ``\\r``. Offsets are into the raw file
bytes (a BOM, when present, is byte 0..2 of line 1).
"""

from __future__ import annotations

import re
from bisect import bisect_right

_LINE_END = re.compile(rb"\r\n|\r|\n")
_TEXT_LINE_END = re.compile(r"\r\n|\r|\n")


def text_lines(text: str) -> list[str]:
    """The lines of decoded source ``text``, counted the same way, without their ends.

    Line ``n`` of the tree is item ``n - 1``; a final line end leaves one empty item.
    """
    return _TEXT_LINE_END.split(text)


class LineIndex:
    """Maps between 1-based line numbers and byte offsets of one file version."""

    __slots__ = ("_starts", "size")

    def __init__(self, data: bytes) -> None:
        self.size = len(data)
        starts = [0]
        starts.extend(m.end() for m in _LINE_END.finditer(data))
        if len(starts) > 1 and starts[-1] == self.size:
            # A final terminator ends the last line; it does not start a new one.
            starts.pop()
        self._starts = starts

    @property
    def line_count(self) -> int:
        return len(self._starts)

    def start_of(self, line: int) -> int:
        """Offset of the first byte of ``line`` (1-based; clamped to the file)."""
        index = min(max(line, 1), len(self._starts)) - 1
        return self._starts[index]

    def end_of(self, line: int) -> int:
        """Offset just past ``line`` and its terminator; one past the size for the last line."""
        if line >= len(self._starts):
            return self.size + 1
        return self._starts[max(line, 1)]

    def line_of(self, offset: int) -> int | None:
        """The 1-based line holding byte ``offset``; None past the end of the file."""
        if offset < 0 or offset > self.size:
            return None
        return bisect_right(self._starts, offset)
