"""What a new version of a file takes from the versions measured before it.

An editor's buffer changes one definition at a time: the rest of each new version
is text the worker has measured already, maybe at other lines. :class:`PartMemo`
keeps, by the exact text of a part of a module, what was computed from that text
alone, so a new version computes it only for the parts whose text changed:

* the tokens of each *chunk*: a top-level statement (from its first decorator)
  with the comments and blank lines after it, up to the next one's first line;
  the first chunk starts at line 1. A chunk begins with no bracket, string or
  indentation open, so the tokenizer reads it alone exactly as it reads it in the
  file, but for where it stops: its rows start at 1 (they are shifted), and at
  its end it closes the indentation still open (``DEDENT`` tokens on the row
  after it, which is where the file's tokens close it too: on the next
  statement's first row, whose text those tokens carry) and ends the stream
  (``ENDMARKER``, kept for the last chunk only). The tokens are kept at the rows
  they were last used at, so the chunks before an edit are not even shifted;
* radon's raw counts of each chunk (a group of lines, as radon's ``analyze`` cuts
  them, ends before a top-level statement, so the module's counts are the sums of
  its chunks'; but for a backslash continuation ended by a blank line, whose group
  runs on into the next: a module with one is counted from its tokens);
* radon's cyclomatic complexity of each function (its lines decide it: 1 plus
  the decision points of its body);
* the Halstead counts radon's module visitor adds for each top-level ``def`` or
  ``class``: a function's body under its name, a class's whole statement. The
  module's total is their sum, and its distinct operators and operands the union
  of theirs (``h_visit_ast`` visits the module's statements one by one with one
  visitor, which adds them up the same way).

Every value is a function of its text alone (positions are no part of any: rows
of tokens are shifted, not kept), so an analysis that reuses them gives exactly
what a cold one gives. A module with a carriage return that does not end a CRLF
pair is tokenized whole: the parser counts such a character as a line end and the
tokenizer does not, so lines would not match chunks. Bounded by an estimate of the
bytes held, least recently used out.
"""

from __future__ import annotations

import ast
import io
import itertools
import re
import tokenize
from collections.abc import Callable, Iterable
from functools import partial
from typing import Final, NamedTuple, TypeVar

from radon.metrics import HalsteadReport, halstead_visitor_report
from radon.visitors import HalsteadVisitor

from gzguide.analysis.facts.parsed import ParsedModule
from gzguide.analysis.facts.scopes import Scope
from gzguide.analysis.metrics.cc import complexity
from gzguide.analysis.metrics.module import RawCounts, counted
from gzguide.lru import Lru

T = TypeVar("T")

#: Estimated bytes held per character of a chunk's text for its tokens and counts
#: (each token a tuple with two position tuples and its string; the lines shared):
#: what tracemalloc finds the memo holding after the first stdlib modules, as
#: ``benchmarks/README.md`` shows how to measure.
TOKEN_WEIGHT_FACTOR: Final = 45
#: What an entry holds besides its key's text: its value, the slot, the key tuple.
ENTRY_OVERHEAD: Final = 200
#: Most entries held whatever their weight (a module of many tiny functions).
MAX_PARTS: Final = 100_000

_DEDENT: Final = tokenize.DEDENT
_ENDMARKER: Final = tokenize.ENDMARKER
_DEFINITIONS: Final = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
#: What the tokenizer skips at the start of a line to find its indentation.
_LEADING_BLANKS: Final = " \t\f"
#: A backslash continuation ended by a blank line: radon's raw counts then join the
#: statement's group with the next one's, which may be the next chunk's (found here
#: also inside strings and comments: the counts are then only summed from the tokens).
_JOINED_ACROSS: Final = re.compile(r"\\\r?\n[ \t\f]*(?:\r?\n|$)")


class Chunk:
    """A chunk's tokens as the tokenizer gives them for its text alone, and its raw counts.

    The tokens are kept at the rows of the version that used them last: in the next
    version, the chunks before an edit are where they were, and their tokens are
    used as they are.
    """

    __slots__ = ("body", "offset", "raw", "tail")

    def __init__(
        self, body: list[tokenize.TokenInfo], tail: list[tokenize.TokenInfo], raw: RawCounts
    ) -> None:
        #: Every token before the closing ``DEDENT`` run and the ``ENDMARKER``.
        self.body = body
        #: The closing run and the ``ENDMARKER``, as read alone.
        self.tail = tail
        #: How many rows down from the chunk's own the tokens are placed.
        self.offset = 0
        #: ``radon.raw.analyze`` of the chunk's text (a module's are their sums).
        self.raw = raw

    def place(self, offset: int) -> None:
        """Move the tokens to ``offset`` rows down from the chunk's own."""
        by = offset - self.offset
        if by:
            self.body = _shifted(self.body, by)
            self.tail = _shifted(self.tail, by)
            self.offset = offset


class HalsteadPart(NamedTuple):
    """What radon's module visitor adds for one top-level statement.

    radon's distinct operands are ``(context, operand)`` pairs, the operand a name,
    an attribute's name, a constant's value, or else the node itself (a call, a
    subscript...), which equals nothing but itself: such pairs are counted here,
    not kept, so that a part holds no syntax tree and a part used twice in one
    module (two definitions of the same text) counts them twice, as the cold visit
    of two trees does.
    """

    operators: int
    operands: int
    operators_seen: frozenset[str]
    #: The operands that are a name or a value, each with its context.
    operands_seen: frozenset[tuple[object, object]]
    #: How many operands were a node.
    node_operands: int


class _Stats:
    __slots__ = ("hits", "misses")

    def __init__(self) -> None:
        self.hits = 0
        self.misses = 0


def _weight(entry: tuple[int, object]) -> int:
    return entry[0]


class PartMemo:
    """Values of parts of modules, by kind and exact text, within ``max_bytes`` (which
    its holder may change: :meth:`limit`)."""

    def __init__(self, max_bytes: int, max_parts: int = MAX_PARTS) -> None:
        self.max_bytes = max_bytes
        self.stats = _Stats()
        self._parts: Lru[tuple[str, str], tuple[int, object]] = Lru(
            max_parts, max_weight=max_bytes, weigh=_weight
        )

    def __len__(self) -> int:
        return len(self._parts)

    @property
    def bytes(self) -> int:
        """The estimated bytes the values held take."""
        return self._parts.weight

    def limit(self, max_bytes: int) -> None:
        """Hold at most ``max_bytes`` from now on, the least recently used let go first."""
        parts = self._parts
        self.max_bytes = parts.max_weight = max(0, max_bytes)
        while parts.weight > self.max_bytes:
            parts.pop(next(iter(parts)))

    def value(self, kind: str, text: str, compute: Callable[[], T], factor: int = 1) -> T:
        """The value of ``kind`` for ``text``: held, or computed now and held."""
        key = (kind, text)
        held = self._parts.get(key)
        if held is not None:
            self.stats.hits += 1
            found: T = held[1]  # type: ignore[assignment]
            return found
        self.stats.misses += 1
        value = compute()
        self._parts.put(key, (len(text) * factor + ENTRY_OVERHEAD, value))
        return value


class Reuse:
    """One module version's look-ups in a :class:`PartMemo`."""

    def __init__(self, memo: PartMemo, module: ParsedModule, starts: list[int]) -> None:
        self.memo = memo
        self.module = module
        #: Where each line starts in the text (0-based by line), and the text's end.
        self.starts = starts
        #: The module's raw counts, summed from its chunks' once they are known.
        self.raw: RawCounts | None = None

    def text_of(self, first: int, last: int) -> str:
        """Lines ``first`` to ``last`` (1-based, inclusive), each with its line end."""
        starts = self.starts
        return self.module.text[starts[first - 1] : starts[min(last, len(starts) - 1)]]

    def chunks(self) -> list[tuple[int, int, Chunk]] | None:
        """Each chunk's first line, the line after it, and its tokens and counts; None
        when a chunk does not tokenize alone."""
        bounds = _chunk_bounds(self.module.tree, len(self.starts) - 1)
        found: list[tuple[int, int, Chunk]] = []
        value = self.memo.value
        for first, after in itertools.pairwise(bounds):
            text = self.text_of(first, after - 1)
            chunk = value("chunk", text, partial(_chunk_of, text), TOKEN_WEIGHT_FACTOR)
            if chunk is None:
                return None
            found.append((first, after, chunk))
        return found

    def lend_tokens(self) -> None:
        """Give the module its tokens from the chunks' (``ParsedModule.tokens`` is computed
        on first use and kept: this sets it before anything reads it), and keep the sum
        of the chunks' raw counts."""
        chunks = self.chunks()
        if chunks is None:
            return
        out: list[tokenize.TokenInfo] = []
        for first, after, chunk in chunks:
            chunk.place(first - 1)
            out.extend(chunk.body)
            self._close(out, chunk, after)
        self.module.__dict__["tokens"] = out
        if _JOINED_ACROSS.search(self.module.text) is None:
            self.raw = _summed(chunk.raw for _, _, chunk in chunks)

    def raw_counts(self) -> RawCounts | None:
        """The module's raw counts from its chunks' (None: count them from its tokens)."""
        return self.raw

    def _close(self, out: list[tokenize.TokenInfo], chunk: Chunk, after: int) -> None:
        """Append the chunk's closing tokens as the whole file's stream has them."""
        if after > len(self.starts) - 1:  # the last chunk: the file ends as it does
            out.extend(chunk.tail)
            return
        line = self.text_of(after, after)
        # Where the tokenizer puts them: past the line's blanks (form feeds, at column 0).
        at = (after, len(line) - len(line.lstrip(_LEADING_BLANKS)))
        out.extend(
            tokenize.TokenInfo(_DEDENT, "", at, at, line) for t in chunk.tail if t.type == _DEDENT
        )

    def complexities(self, scopes: list[Scope]) -> dict[tuple[int, int], int]:
        """radon's complexity of each function scope, keyed by its (line, column)."""
        found: dict[tuple[int, int], int] = {}
        value = self.memo.value
        for scope in scopes:
            node = scope.node
            if not isinstance(node, ast.ClassDef):
                text = self.text_of(scope.start_line, scope.end_line)
                found[scope.key] = value("cc", text, _complexity_of(node))
        return found

    def halstead(self) -> HalsteadReport:
        """radon's ``h_visit_ast(tree).total`` of the module, from its statements' parts."""
        total = HalsteadVisitor()
        nodes = 0
        for statement in self.module.tree.body:
            if isinstance(statement, _DEFINITIONS):
                text = self.text_of(_first_line(statement), _last_line(statement))
                part = self.memo.value("halstead", text, _halstead_of(statement), 2)
            else:
                part = _halstead_of(statement)()
            total.operators += part.operators
            total.operands += part.operands
            total.operators_seen.update(part.operators_seen)
            total.operands_seen.update(part.operands_seen)
            nodes += part.node_operands
        return halstead_visitor_report(_Distinct(total, nodes))


def reuse(memo: PartMemo, module: ParsedModule) -> Reuse | None:
    """The look-ups of this module version in ``memo``; None when its lines are not the
    parser's (a carriage return alone)."""
    text = module.text
    if text.count("\r") != text.count("\r\n"):
        return None
    starts = [0, *itertools.accumulate(len(row) + 1 for row in text.split("\n"))]
    starts.pop()  # past the end: the last row has no line end, or is the empty one after it
    if starts[-1] != len(text):
        starts.append(len(text))  # the last line has no line end
    return Reuse(memo, module, starts)


def _chunk_bounds(tree: ast.Module, lines: int) -> list[int]:
    """The first line of each chunk, then the line after the last one."""
    firsts = sorted({_first_line(s) for s in tree.body} | {1})
    return [*firsts, lines + 1]


def _first_line(statement: ast.stmt) -> int:
    """The statement's first line: its first decorator's, when it has any."""
    decorators: list[ast.expr] = getattr(statement, "decorator_list", [])
    return min((d.lineno for d in decorators), default=statement.lineno)


def _last_line(statement: ast.stmt) -> int:
    return statement.end_lineno or statement.lineno


def _chunk_of(text: str) -> Chunk | None:
    """The tokens and raw counts of a chunk's text read alone; None when it does not
    tokenize alone."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError):
        return None
    end = len(tokens)
    while end and tokens[end - 1].type in (_DEDENT, _ENDMARKER):
        end -= 1
    return Chunk(tokens[:end], tokens[end:], counted(text, tokens))


def _summed(parts: Iterable[RawCounts]) -> RawCounts:
    return RawCounts(*(sum(values) for values in zip(*parts, strict=True)))


def _shifted(tokens: list[tokenize.TokenInfo], by: int) -> list[tokenize.TokenInfo]:
    """``tokens`` with their rows moved down by ``by``."""
    make = tuple.__new__
    info = tokenize.TokenInfo
    return [
        make(info, (kind, string, (sr + by, sc), (er + by, ec), line))
        for kind, string, (sr, sc), (er, ec), line in tokens
    ]


def _complexity_of(node: ast.FunctionDef | ast.AsyncFunctionDef) -> Callable[[], int]:
    return lambda: complexity(node)


def _halstead_of(statement: ast.stmt) -> Callable[[], HalsteadPart]:
    def visit() -> HalsteadPart:
        visitor = HalsteadVisitor()
        visitor.visit(statement)
        seen = visitor.operands_seen
        values = frozenset(pair for pair in seen if not isinstance(pair[1], ast.AST))
        return HalsteadPart(
            visitor.operators,
            visitor.operands,
            frozenset(visitor.operators_seen),
            values,
            len(seen) - len(values),
        )

    return visit


class _Distinct(NamedTuple):
    """A module's Halstead counts as ``halstead_visitor_report`` reads them off a visitor."""

    visitor: HalsteadVisitor
    node_operands: int

    @property
    def distinct_operators(self) -> int:
        return len(self.visitor.operators_seen)

    @property
    def distinct_operands(self) -> int:
        return len(self.visitor.operands_seen) + self.node_operands

    @property
    def operators(self) -> int:
        return int(self.visitor.operators)

    @property
    def operands(self) -> int:
        return int(self.visitor.operands)
