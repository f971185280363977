"""Hints as LSP diagnostics.

Each shown hint becomes one diagnostic:

* ``range``: the name in the definition's header (``def name``, ``class name``), as
  linters mark a function, so that a long function is not a wall of underlines; a
  module's hint sits on line 1;
* ``severity``: **Information** for a hint that proposes a change, whichever part of
  the advise band its value is in (the message says which: a value below warn is
  no warning, and reviewers read a Warning that says "closing in on the warn
  threshold" as a contradiction); **Hint** for a hint whose move proposes no change
  (the census), which editors show quietly. Never Warning or Error: a hint is
  advice, and a value at or past warn gets no hint at all;
* ``code``: the metric, with ``codeDescription.href`` the section of the hints page
  that explains the move (:mod:`gzguide.lsp.pages`); ``source``: ``gzguide``;
* ``message``: the recommended move, then the headline, one line;
* ``relatedInformation`` (for a client that takes it): the places the move names,
  each with a few words: the lines it changes, a copy, the comment naming a block,
  the census's decision points;
* ``data``: the hint object exactly as the authoring-guide protocol sends it.
"""

from __future__ import annotations

import re
from typing import Final

from gzguide.analysis.model import Finding
from gzguide.guide.messages import Hint
from gzguide.lsp.pages import section_of
from gzguide.lsp.positions import LineIndex, units_of
from gzguide.lsp.types import (
    HINT,
    INFORMATION,
    CodeDescription,
    Diagnostic,
    DiagnosticRelatedInformation,
    Location,
    Position,
    Range,
)

SOURCE: Final = "gzguide"
#: A definition's header up to its name (the name is group 1).
_HEADER: Final = re.compile(r"\s*(?:async\s+)?(?:def|class)\s+(\w+)")


def lines_range(start_line: int, end_line: int, index: LineIndex, encoding: str) -> Range:
    """The range of lines ``start_line`` to ``end_line`` (1-based, inclusive)."""
    last = index.line_count - 1
    first = min(max(start_line - 1, 0), last)
    final = min(max(end_line - 1, first), last)
    return Range(Position(first, 0), Position(final, index.line_units(final, encoding)))


def name_range(finding: Finding, index: LineIndex, encoding: str) -> Range:
    """The definition's name in its header; for the module, line 1's text."""
    line = min(max(finding.start_line - 1, 0), index.line_count - 1) if finding.definition else 0
    text = index.line(line)
    header = _HEADER.match(text) if finding.definition else None
    start, end = header.span(1) if header else (len(text) - len(text.lstrip()), len(text))
    return Range(
        Position(line, units_of(text[:start], encoding)),
        Position(line, units_of(text[:end], encoding)),
    )


def message_of(hint: Hint) -> str:
    """The move, then the headline: what to do is what an editor's line should lead
    with (three fresh reviews in a row read the band's words first, on short
    functions, as alarm where the rewrite was the worth)."""
    return f"{hint.recommended_move} {hint.doctrinal_frame_headline}."


class Presenter:
    """How one session's diagnostics are drawn: its position encoding, where the hints
    page is, and whether the client takes related places."""

    def __init__(self, encoding: str, hints_url: str, related: bool) -> None:
        self.encoding = encoding
        self.hints_url = hints_url
        self.related = related

    def diagnostic(self, finding: Finding, hint: Hint, uri: str, index: LineIndex) -> Diagnostic:
        proposes = finding.proposes
        shown = Diagnostic(
            range=name_range(finding, index, self.encoding),
            severity=INFORMATION if proposes else HINT,
            code=hint.metric,
            source=SOURCE,
            message=message_of(hint),
            data=hint,
            codeDescription=CodeDescription(self._href(finding)),
        )
        if self.related and finding.related:
            shown.relatedInformation = self._places(finding, uri, index)
        return shown

    def _href(self, finding: Finding) -> str:
        return f"{self.hints_url}#{section_of(finding.kind, finding.metric, finding.definition)}"

    def _places(
        self, finding: Finding, uri: str, index: LineIndex
    ) -> list[DiagnosticRelatedInformation]:
        return [
            DiagnosticRelatedInformation(
                Location(uri, lines_range(first, last, index, self.encoding)), note
            )
            for first, last, note in finding.related
        ]
