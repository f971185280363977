"""Text edits of one file, and the source text they are written against.

Positions are (line, column): lines from 1 as the tree counts them, columns in
characters of the decoded line (the tree's columns are UTF-8 bytes; :class:`Source`
converts). An edit replaces the text from ``start`` up to ``end``; the edits of one
fix never overlap.
"""

from __future__ import annotations

import ast
import io
import tokenize
from dataclasses import dataclass
from functools import cached_property
from itertools import pairwise

from gzguide.analysis.facts.lines import text_lines

#: A place in the text: line (from 1) and column (in characters, from 0).
Pos = tuple[int, int]


@dataclass(frozen=True, slots=True)
class Edit:
    start: Pos
    end: Pos
    text: str


@dataclass(frozen=True, slots=True)
class Fix:
    """The edits that make one move, and what they promise."""

    kind: str
    #: What the change is, in a few words (``Use any()``).
    title: str
    edits: tuple[Edit, ...]
    #: Whether the code behaves the same for every input after the edits.
    safe: bool


class Source:
    """The decoded text of a file, by line, with what fixers ask of it."""

    def __init__(self, text: str, tree: ast.Module) -> None:
        self.text = text
        self.tree = tree
        self.lines = text_lines(text)

    def line(self, number: int) -> str:
        return self.lines[number - 1]

    def column(self, line: int, byte_offset: int) -> int:
        """The character column of a tree's byte offset on ``line``."""
        return len(self.line(line).encode()[:byte_offset].decode(errors="replace"))

    def start(self, node: ast.expr | ast.stmt) -> Pos:
        return (node.lineno, self.column(node.lineno, node.col_offset))

    def end(self, node: ast.expr | ast.stmt) -> Pos:
        line = node.end_lineno or node.lineno
        return (line, self.column(line, node.end_col_offset or 0))

    def segment(self, node: ast.expr | ast.stmt) -> str:
        """The text of ``node`` as written (without any parentheses around it)."""
        return self.between(self.start(node), self.end(node))

    def between(self, start: Pos, end: Pos) -> str:
        if start[0] == end[0]:
            return self.line(start[0])[start[1] : end[1]]
        middle = self.lines[start[0] : end[0] - 1]
        return "\n".join([self.line(start[0])[start[1] :], *middle, self.line(end[0])[: end[1]]])

    def indent(self, line: int) -> str:
        text = self.line(line)
        return text[: len(text) - len(text.lstrip(" \t"))]

    @cached_property
    def comment_lines(self) -> frozenset[int]:
        """The lines holding a comment (an edit across one would lose it)."""
        if self._tokens is None:
            return frozenset(range(1, len(self.lines) + 1))
        return frozenset(t.start[0] for t in self._tokens if t.type == tokenize.COMMENT)

    def has_comment(self, first: int, last: int) -> bool:
        return any(first <= line <= last for line in self.comment_lines)

    def comments(self, first: int, last: int) -> list[str] | None:
        """The comments from line ``first`` to ``last``, in order (None when the text
        does not tokenize)."""
        if self._tokens is None:
            return None
        return [
            t.string
            for t in self._tokens
            if t.type == tokenize.COMMENT and first <= t.start[0] <= last
        ]

    @cached_property
    def newline(self) -> str:
        """The line ending the text uses (``\\n`` when it has none)."""
        return next((e for e in ("\r\n", "\n", "\r") if e in self.text), "\n")

    @cached_property
    def bound_names(self) -> frozenset[str]:
        """Every name the module binds anywhere (a builtin of such a name may not be the
        builtin)."""
        return frozenset(filter(None, map(_bound, ast.walk(self.tree))))

    def binds(self, name: str) -> bool:
        return name in self.bound_names

    @cached_property
    def _tokens(self) -> list[tokenize.TokenInfo] | None:
        try:
            return list(tokenize.generate_tokens(io.StringIO(self.text).readline))
        except (tokenize.TokenError, SyntaxError):
            return None

    @cached_property
    def string_lines(self) -> frozenset[int]:
        """The lines that start inside a string literal: their text is the string's, and
        changing their indentation would change its value (a line that starts the next
        literal of an implicit concatenation is not one)."""
        if self._tokens is None:
            return frozenset(range(1, len(self.lines) + 1))
        spans = _string_spans(self._tokens)
        return frozenset(n for first, last in spans for n in range(first + 1, last + 1))

    def dedent(self, first: int, last: int, keep: str, drop: str) -> list[Edit]:
        """The edits that take ``drop`` out after the indentation ``keep`` on each line
        from ``first`` to ``last`` that has both (blank lines, lines less indented and
        lines inside a string stay as they are)."""
        start, end = len(keep), len(keep) + len(drop)
        return [
            Edit((n, start), (n, end), "")
            for n in range(first, last + 1)
            if n not in self.string_lines and self.line(n).startswith(keep + drop)
        ]


def _string_spans(tokens: list[tokenize.TokenInfo]) -> list[tuple[int, int]]:
    """The first and last line of each string literal (an f-string is several tokens
    from Python 3.12 on, between its start and its end)."""
    spans: list[tuple[int, int]] = []
    opened: list[int] = []
    for token in tokens:
        name = tokenize.tok_name[token.type]
        if name == "STRING":
            spans.append((token.start[0], token.end[0]))
        elif name == "FSTRING_START":
            opened.append(token.start[0])
        elif name == "FSTRING_END" and opened:
            spans.append((opened.pop(), token.end[0]))
    return spans


def _bound(node: ast.AST) -> str | None:
    """The name ``node`` binds, if it binds one."""
    match node:
        case ast.Name(id=name, ctx=ast.Store() | ast.Del()):
            return name
        case ast.FunctionDef(name=name) | ast.AsyncFunctionDef(name=name) | ast.ClassDef(name=name):
            return name
        case ast.alias(name=name, asname=alias):
            return (alias or name).partition(".")[0]
        case ast.arg(arg=name):
            return name
    return None


def apply_edits(text: str, edits: tuple[Edit, ...] | list[Edit]) -> str:
    """``text`` with ``edits`` made (they must not overlap)."""
    offsets = _line_offsets(text)
    out = text
    for edit in sorted(edits, key=lambda e: e.start, reverse=True):
        start = _offset(offsets, edit.start)
        end = _offset(offsets, edit.end)
        out = out[:start] + edit.text + out[end:]
    return out


def _line_offsets(text: str) -> list[int]:
    """Where each line starts in ``text``, and one more past its end."""
    starts = [0]
    for line in text_lines(text)[:-1]:
        # A line ends at \r\n, \r or \n: find which one follows it.
        after = starts[-1] + len(line)
        starts.append(after + (2 if text.startswith("\r\n", after) else 1))
    starts.append(len(text) + 1)
    return starts


def _offset(offsets: list[int], pos: Pos) -> int:
    line, column = pos
    return min(offsets[min(line, len(offsets)) - 1] + column, offsets[-1] - 1)


def overlap(edits: tuple[Edit, ...]) -> bool:
    ordered = sorted(edits, key=lambda e: e.start)
    return any(a.end > b.start for a, b in pairwise(ordered))


def spans_of(text: str, edits: tuple[Edit, ...]) -> list[tuple[int, int, str]]:
    """Each edit as the string indexes of ``text`` it replaces, and its new text."""
    offsets = _line_offsets(text)
    return [(_offset(offsets, e.start), _offset(offsets, e.end), e.text) for e in edits]
