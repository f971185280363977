"""File-level metrics, all read from the one shared parse: MI, Halstead totals, raw counts.

Radon computes the maintainability index from four inputs::

    mi_compute(halstead_volume, total_complexity, raw.lloc,
               (raw.comments + raw.multi) / raw.sloc * 100)   # 0 when sloc == 0

(``mi_parameters`` with ``count_multi=True``, which is what ``radon mi -s`` uses.)
The Halstead volume comes from ``h_visit_ast`` on the shared AST and the complexity
from the caller, so only the raw counts are left. ``radon.raw.analyze`` would
tokenize the source again, once per line group, so :func:`raw_counts` derives the
same figures from :attr:`ParsedModule.tokens`, the single tokenize pass.

How radon counts, restated for the one token stream
---------------------------------------------------
``analyze`` strips every line (``str.splitlines`` then ``str.strip``) and cuts the
file into *groups*: the smallest run of lines, starting after the previous group,
that tokenizes on its own. In the full token stream a group therefore ends on the
row of a NEWLINE token, or of an NL token outside brackets (a blank line, a
comment-only line, or the end of a statement). Per group, ignoring INDENT, DEDENT,
NL, NEWLINE and ENDMARKER tokens (the *significant* tokens):

* ``comments`` counts every COMMENT token.
* If the only significant token is a COMMENT: one ``single_comments`` line.
* Else if the only significant token is a STRING: one ``single_comments`` line when
  the string fits on one row; otherwise its non-blank lines are ``multi`` and its
  blank lines ``blank``.
* Otherwise each non-blank line of the group is ``sloc``, each blank one ``blank``.
* ``lloc``: the group's tokens are split at ``;`` operators. A part with no ``:``
  operator counts 1 if it holds any token other than comments and newlines, else
  0. A part with a ``:`` counts 1 when its last ``:`` sits at radon's "end of
  part" position, else 2. Radon takes that position as "second to last", counting
  the ENDMARKER that only the group's final part carries: so for the final part
  the ``:`` must be its last real token, for an earlier part the last but one (a
  quirk kept on purpose: ``if a: b; c`` counts 1 + 1 there).
* ``loc = sloc + blank + multi + single_comments``.

One more radon quirk: a backslash continuation followed by a blank line ends the
statement for the tokenizer (a NEWLINE token on the blank row), but radon's group,
whose stripped buffer then ends in a bare backslash, does not end there: it takes
in the next line and whatever group that line starts (a comment there is then
``sloc``, and the two statements share one ``lloc`` count).

Known, deliberate limits (radon's own line splitting, not reproducible from the
tokenizer's rows): a line holding a rare line-breaking character that
``str.splitlines`` honours but the tokenizer does not (form feed, vertical tab,
``\\x1c``-``\\x1e``, ``\\x85``, U+2028, U+2029, or a lone carriage return, as in
files with old Mac line endings) *between two non-blank pieces* of code, comment
or string may be grouped differently by radon, which often rejects such files
outright (``SyntaxError``). Blank pieces such lines produce, like a form feed on a
line of its own, are counted exactly as radon counts them.

The rules are checked against radon on Python 3.11, whose tokenizer radon and this
module then share. Later Pythons tokenize f-strings into several tokens; the
same rules apply to that stream, but agreement there is untested.
"""

from __future__ import annotations

import re
import tokenize
from typing import NamedTuple

from radon.metrics import HalsteadReport, h_visit_ast, mi_compute

from gzguide.analysis.facts.parsed import ParsedModule

_COMMENT = tokenize.COMMENT
_STRING = tokenize.STRING
_OP = tokenize.OP
_NL = tokenize.NL
_NEWLINE = tokenize.NEWLINE
#: Tokens that never count as content of a group.
_LAYOUT = frozenset({tokenize.INDENT, tokenize.DEDENT, _NL, _NEWLINE, tokenize.ENDMARKER})
_DEPTH = {"(": 1, "[": 1, "{": 1, ")": -1, "]": -1, "}": -1}
_COMMENT_OR_STRING = frozenset({_COMMENT, _STRING})
#: The operators that matter to a part's logical lines.
_PART_MARKS = frozenset({":", ";"})
#: A group's only significant token: (type, start row, end row); None if not one.
_Sole = tuple[int, int, int] | None

#: Characters ``str.splitlines`` breaks on besides ``\n`` (and ``\r`` not before ``\n``).
_EXTRA_BREAKS = re.compile("[\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]|\r(?!\n)")


class RawCounts(NamedTuple):
    """The figures of ``radon.raw.analyze``, same names, same meanings."""

    loc: int
    lloc: int
    sloc: int
    comments: int
    multi: int
    blank: int
    single_comments: int


class ModuleValues(NamedTuple):
    #: Radon's maintainability index of the file (``radon mi -s``: multi-line
    #: strings counted as comments).
    mi: float
    hal_volume: float
    hal_difficulty: float
    hal_effort: float
    sloc: int
    lloc: int


def module_metrics(
    module: ParsedModule,
    total_complexity: int,
    halstead: HalsteadReport | None = None,
    raw: RawCounts | None = None,
) -> ModuleValues:
    """MI, Halstead totals and raw line counts of ``module``.

    ``total_complexity`` is radon's total complexity of the module
    (:func:`gzguide.analysis.metrics.cc.total_complexity`), which the caller has computed;
    ``halstead`` and ``raw``, radon's Halstead total and raw counts of the module, when
    the caller has them.
    """
    if halstead is None:
        halstead = h_visit_ast(module.tree).total
    volume = float(halstead.volume)
    if raw is None:
        raw = raw_counts(module)
    return ModuleValues(
        mi=maintainability_index(volume, total_complexity, raw),
        hal_volume=volume,
        hal_difficulty=float(halstead.difficulty),
        hal_effort=float(halstead.effort),
        sloc=raw.sloc,
        lloc=raw.lloc,
    )


def maintainability_index(volume: float, total_complexity: int, raw: RawCounts) -> float:
    """Radon's MI from its inputs, in the very arithmetic order of ``mi_parameters``."""
    comment_lines = raw.comments + raw.multi
    comments_percent = comment_lines / float(raw.sloc) * 100 if raw.sloc != 0 else 0
    return float(mi_compute(volume, total_complexity, raw.lloc, comments_percent))


def raw_counts(module: ParsedModule) -> RawCounts:
    """``radon.raw.analyze(module.text)``, computed from the shared tokens.

    All zeros when the tokenizer rejected the text (``module.tokens`` empty).
    """
    tokens = module.tokens
    if not tokens:
        return RawCounts(0, 0, 0, 0, 0, 0, 0)
    return counted(module.text, tokens)


def counted(text: str, tokens: list[tokenize.TokenInfo]) -> RawCounts:
    """:func:`raw_counts` of a text its tokens cover."""
    filled, pieces = _line_shapes(text)
    totals = _Totals(filled, pieces)
    # The hot loop: one pass, local variables only. Per group: ``significant``
    # counts its significant tokens, ``last`` is the latest of them (the group's
    # only one, when it has one); per ';' part: ``size`` counts content tokens (no
    # comments), ``colon`` is the index among them of the last ':' (-1: none).
    depth = significant = size = 0
    colon = -1
    last: tokenize.TokenInfo | None = None
    lloc = comments = 0
    for tok in tokens:
        kind = tok[0]
        if kind in _LAYOUT:
            if _ends_group(kind, tok[2][0], depth, filled):
                lloc += _end_group(totals, tok[2][0], size, colon, last, significant)
                depth = significant = size = 0
                colon = -1
            continue
        last = tok
        significant += 1
        is_comment = kind == _COMMENT
        comments += is_comment
        if kind == _OP:
            text = tok[1]
            depth += _DEPTH.get(text, 0)
            if text in _PART_MARKS:
                added, size, colon = _part_mark(text, size, colon)
                lloc += added
                continue
        size += not is_comment
    # Rows after the last group end (not produced by the tokenizer, kept for safety).
    lloc += _end_group(totals, len(filled) - 1, size, colon, last, significant)
    return totals.result(lloc, comments)


def _ends_group(kind: int, row: int, depth: int, filled: list[int]) -> bool:
    """Whether a layout token ends a group: a NEWLINE, or an NL outside brackets."""
    if kind == _NEWLINE:
        # Not a NEWLINE on a blank row: a backslash continuation ended by a blank
        # line. Radon's stripped, joined buffer then ends in a bare continuation and
        # fails to tokenize, so its group runs on through the next line's group.
        return row >= len(filled) or filled[row] != 0
    return kind == _NL and depth == 0


def _end_group(
    totals: _Totals,
    row: int,
    size: int,
    colon: int,
    last: tokenize.TokenInfo | None,
    significant: int,
) -> int:
    """Count the group's rows up to ``row``; the logical lines of its final part."""
    sole = (last[0], last[2][0], last[3][0]) if significant == 1 and last is not None else None
    totals.end_group(row, sole)
    return _part_lloc(size, colon, final=True)


def _part_mark(text: str, size: int, colon: int) -> tuple[int, int, int]:
    """A ':' (it is content, and now the last colon) or a ';' (it ends a part, whose
    logical lines it adds): (logical lines added, size and colon after it)."""
    if text == ":":
        return 0, size + 1, size
    return _part_lloc(size, colon, final=False), 0, -1


def _part_lloc(size: int, colon: int, *, final: bool) -> int:
    """Radon's logical lines of one ';' part of a group.

    ``size``: content tokens of the part; ``colon``: index of its last ``:`` or -1.
    Radon puts "the colon ends the part" at ``len(processed) - 2``, where only the
    group's final part ends with an ENDMARKER token.
    """
    if colon < 0:
        return 1 if size else 0
    at_end = size - 1 if final else size - 2
    return 1 if colon == at_end else 2


def _line_shapes(text: str) -> tuple[list[int], list[int]]:
    """Per tokenizer row (index 0 unused): non-blank and total pieces of the line.

    A piece is what ``str.splitlines`` yields; a row is what the tokenizer reads
    (up to and including ``\\n``). Both agree except for rare line-breaking
    characters, which make one row several pieces.
    """
    rows = text.split("\n")
    if rows[-1] == "":
        rows.pop()  # the text ends with a terminator: no further line
    if _EXTRA_BREAKS.search(text) is None:
        return _plain_shapes(rows)
    return _broken_shapes(rows)


def _plain_shapes(rows: list[str]) -> tuple[list[int], list[int]]:
    """:func:`_line_shapes` when each row is one piece."""
    filled = [0]
    filled.extend(1 if row.strip() else 0 for row in rows)
    return filled, [0] + [1] * len(rows)


def _broken_shapes(rows: list[str]) -> tuple[list[int], list[int]]:
    """:func:`_line_shapes` when line-breaking characters split some rows."""
    filled = [0]
    pieces = [0]
    last = len(rows) - 1
    for index, row in enumerate(rows):
        parts = row.splitlines() if index == last else (row + "\n").splitlines()
        filled.append(sum(1 for part in parts if part.strip()))
        pieces.append(len(parts))
    return filled, pieces


class _Totals:
    """Line counts, accumulated group by group."""

    __slots__ = ("blank", "filled", "first_row", "multi", "pieces", "single_comments", "sloc")

    def __init__(self, filled: list[int], pieces: list[int]) -> None:
        self.filled = filled
        self.pieces = pieces
        self.first_row = 1
        self.sloc = self.multi = self.blank = self.single_comments = 0

    def end_group(self, last_row: int, sole: _Sole) -> None:
        """Count rows ``first_row..last_row``; ``sole``: the group's only significant token."""
        last_row = min(last_row, len(self.filled) - 1)
        first_row = self.first_row
        if last_row < first_row:
            return
        self.first_row = last_row + 1
        if last_row == first_row:
            filled = self.filled[first_row]
            empty = self.pieces[first_row] - filled
        else:
            filled = sum(self.filled[first_row : last_row + 1])
            empty = sum(self.pieces[first_row : last_row + 1]) - filled
        self.blank += empty
        self._count_filled(filled, sole)

    def _count_filled(self, filled: int, sole: _Sole) -> None:
        """A group of only a comment, or a one-line string, is one single comment; of
        only a multi-line string, multi-line string rows; any other, source rows."""
        if sole is None or sole[0] not in _COMMENT_OR_STRING:
            self.sloc += filled
        elif sole[0] == _COMMENT or sole[1] == sole[2]:
            self.single_comments += 1
        else:
            self.multi += filled

    def result(self, lloc: int, comments: int) -> RawCounts:
        return RawCounts(
            loc=self.sloc + self.blank + self.multi + self.single_comments,
            lloc=lloc,
            sloc=self.sloc,
            comments=comments,
            multi=self.multi,
            blank=self.blank,
            single_comments=self.single_comments,
        )
