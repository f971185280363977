"""The lines of the keywords the syntax tree does not place.

An ``and``/``or`` has no node of its own, and neither has the ``else:`` of a loop or
a ``try``: the tree only places their operands and bodies. A hint that names the line
of such a decision point must cite the keyword's line, which may differ: an operand
in parentheses starts a line after its ``and``; an ``else:`` sits on its own line
above its body. Only lines where a keyword starts or ends the code are recorded
(the ambiguous cases); a keyword between two operands on one line needs no lookup.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Final

#: A line whose code starts with the keyword (``and b``, ``else:``), found from the
#: line break before it (a literal first character keeps the scan fast).
_LEADING: Final = re.compile(r"\n[ \t]*(and|or|else)\b")
#: A line whose code ends with the keyword (``a and``, maybe before an opening
#: bracket, a comment or a ``\\``); one pattern per word, each starting with its
#: literal, for the same reason (the word's start is checked apart).
_TRAILING: Final = {
    word: re.compile(word + r"[ \t]*[([{]*[ \t]*\\?[ \t]*(?:#[^\n]*)?\r?$", re.MULTILINE)
    for word in ("and", "or")
}


@dataclass(frozen=True)
class KeywordLines:
    """Per keyword, the lines where it leads or ends the code."""

    leading: dict[str, frozenset[int]] = field(default_factory=dict)
    trailing: dict[str, frozenset[int]] = field(default_factory=dict)
    #: The lines of a comment that says the code is written for speed (``# Explicit
    #: loop for performance reasons.``): a rewrite that reads better may run slower.
    tuned: frozenset[int] = frozenset()
    #: How many times the module writes an ``else:`` right after a branch that leaves
    #: (``return``, ``raise``, ``continue``, ``break``): many, and it is the house style.
    elses_after_leaving: int = 0

    def boolop_line(self, word: str, left_end: int, right_start: int) -> int:
        """The line of the ``word`` between an operand ending on ``left_end`` and the
        next one starting on ``right_start``."""
        if left_end == right_start or left_end in self.trailing.get(word, ()):
            return left_end
        leading = self.leading.get(word, frozenset())
        for line in range(left_end + 1, right_start + 1):
            if line in leading:  # ``and`` first on its line, maybe before a bracket
                return line
        return right_start

    def else_line(self, after: int, body_start: int) -> int:
        """The line of the ``else:`` whose body starts on ``body_start``, below the
        code that ends on ``after``."""
        leading = self.leading.get("else", frozenset())
        for line in range(body_start, after, -1):
            if line in leading:
                return line
        return body_start


NO_KEYWORDS: Final = KeywordLines()


def keyword_lines(text: str) -> KeywordLines:
    """Find the keyword lines of ``text`` (strings and comments may match too: a
    lookup only asks about lines between the two parts of one construct, where no
    string can be)."""
    return KeywordLines(
        _leading_lines(text), _trailing_lines(text), _tuned_lines(text), _elses_after(text)
    )


#: An ``else:`` line (not ``elsewhere = ...``).
_ELSE: Final = re.compile(r"else\s*:")
#: A line that leaves its block (not ``returned = ...``).
_LEAVING: Final = re.compile(r"(?:return|raise|continue|break)\b(?!\s*=[^=])")


def _elses_after(text: str) -> int:
    """How many ``else:`` lines follow a leaving line written further in (a line's text
    only: a string that looks like one may count, which only makes the style seem
    commoner)."""
    count, before = 0, (0, "")
    for line in text.splitlines():
        code = line.strip()
        if not code or code.startswith("#"):
            continue
        indent = len(line) - len(line.lstrip())
        if _ELSE.match(code) and _leaves_above(before, indent):
            count += 1
        before = (indent, code)
    return count


def _leaves_above(before: tuple[int, str], indent: int) -> bool:
    return before[0] > indent and _LEAVING.match(before[1]) is not None


#: A comment that speaks of speed: its ``#``, then one of the words.
_TUNED: Final = re.compile(
    r"#[^\n]*?\b(?:perf|performance|speed|speedup|faster|fast path|optimi[sz]\w*"
    r"|hot (?:path|loop))\b",
    re.IGNORECASE,
)


def _tuned_lines(text: str) -> frozenset[int]:
    if "#" not in text:
        return frozenset()
    return frozenset(text.count("\n", 0, m.start()) + 1 for m in _TUNED.finditer(text))


def _leading_lines(text: str) -> dict[str, frozenset[int]]:
    leading: dict[str, set[int]] = {}
    line, counted = 1, 0
    for match in _LEADING.finditer(text):
        start = match.start()
        line += text.count("\n", counted, start) + 1
        counted = start + 1
        leading.setdefault(match.group(1), set()).add(line)
    return {k: frozenset(v) for k, v in leading.items()}


def _trailing_lines(text: str) -> dict[str, frozenset[int]]:
    trailing: dict[str, frozenset[int]] = {}
    for word, pattern in _TRAILING.items():
        found = _line_ends(pattern, text)
        if found:
            trailing[word] = frozenset(found)
    return trailing


def _line_ends(pattern: re.Pattern[str], text: str) -> set[int]:
    """The lines where ``pattern`` (a word, then the end of the code) matches."""
    found: set[int] = set()
    line, counted = 1, 0
    for match in pattern.finditer(text):
        start = match.start()
        if start and (text[start - 1].isalnum() or text[start - 1] == "_"):
            continue  # the end of another word (``for``, ``brand``)
        line += text.count("\n", counted, start)
        counted = start
        found.add(line)
    return found
