"""Lines of a text, and LSP positions in each of the three encodings.

An LSP position is a line and a character offset into that line, counted in the
code units of the session's position encoding: UTF-16 code units by default (a
character beyond the Basic Multilingual Plane counts two), UTF-8 bytes, or UTF-32
code points (Python's own string indexes). Lines end at ``\\r\\n``, ``\\n`` or a lone
``\\r``, as in LSP and in the analysis's line numbers.

What the specification leaves to the server, decided here:

* a character past the end of its line means the end of the line (the line's
  terminator is never inside a line), as the specification asks;
* a line past the last one means the end of the text;
* a character offset that falls inside one character's code units (the second
  half of a surrogate pair, the middle of a UTF-8 sequence) means the start of
  that character: an edit never splits a character.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from typing import Final

from gzguide.lsp.types import UTF8, UTF16, UTF32

_LINE_BREAK: Final = re.compile(r"\r\n|\r|\n")


def _utf8_width(char: str) -> int:
    code = ord(char)
    return 1 if code < 0x80 else 2 if code < 0x800 else 3 if code < 0x10000 else 4


def _utf16_width(char: str) -> int:
    return 2 if ord(char) > 0xFFFF else 1


def index_in_line(line: str, character: int, encoding: str) -> int:
    """The string index in ``line`` (no terminator) that ``character`` code units reach."""
    if encoding == UTF32 or line.isascii():
        return min(character, len(line))
    width = _utf8_width if encoding == UTF8 else _utf16_width
    units = 0
    for index, char in enumerate(line):
        units += width(char)
        if units > character:
            return index
    return len(line)


def units_of(line: str, encoding: str) -> int:
    """How many code units of ``encoding`` the string ``line`` takes."""
    if encoding == UTF32 or line.isascii():
        return len(line)
    if encoding == UTF8:
        return len(line.encode("utf-8"))
    return len(line.encode("utf-16-le")) // 2


class LineIndex:
    """Where each line of a text starts and where its content ends (before its terminator)."""

    __slots__ = ("ends", "starts", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        starts = [0]
        ends = []
        for match in _LINE_BREAK.finditer(text):
            ends.append(match.start())
            starts.append(match.end())
        ends.append(len(text))
        self.starts = starts
        self.ends = ends

    @property
    def line_count(self) -> int:
        return len(self.starts)

    def line(self, number: int) -> str:
        """Line ``number`` (0-based) without its terminator."""
        return self.text[self.starts[number] : self.ends[number]]

    def offset(self, line: int, character: int, encoding: str) -> int:
        """The string index of a position."""
        if line >= len(self.starts):
            return len(self.text)
        return self.starts[line] + index_in_line(self.line(line), character, encoding)

    def position(self, offset: int, encoding: str) -> tuple[int, int]:
        """The (line, character) of the string index ``offset``; an index inside a line's
        terminator is the end of that line."""
        line = bisect_right(self.starts, offset) - 1
        column = min(offset, self.ends[line]) - self.starts[line]
        return line, units_of(self.line(line)[:column], encoding)

    def line_units(self, line: int, encoding: str) -> int:
        """The length of line ``line`` (0-based, terminator excluded) in code units."""
        return units_of(self.line(line), encoding)


ENCODINGS: Final = (UTF8, UTF16, UTF32)
