"""Hints as LSP diagnostics.

Each hint becomes one diagnostic:

* ``range``: the hint's lines, from the start of ``start_line`` to the end of
  ``end_line``'s content (its terminator excluded), in the session's encoding;
* ``severity``: **Information** for ``approaching``, **Warning** for
  ``approaching_warn`` (the value is past the midpoint of the advise band, closer
  to the warn threshold that gatekeeping tools enforce); **Hint** for a hint whose
  move proposes no change (the census a ``radon_cc`` hint gives where no move is
  true of the code), which editors show quietly. Never Error: a hint is advice, and
  a value at or past warn gets no hint at all;
* ``code``: the metric; ``source``: ``gzguide``;
* ``message``: the headline and the recommended move, one line;
* ``data``: the hint object exactly as the authoring-guide protocol sends it.
"""

from __future__ import annotations

from typing import Final

from gzguide.lsp.positions import LineIndex
from gzguide.lsp.types import HINT, INFORMATION, WARNING, Diagnostic, Position, Range
from gzguide.messages import Hint

SOURCE: Final = "gzguide"
SEVERITIES: Final = {"approaching": INFORMATION, "approaching_warn": WARNING}


def lines_range(start_line: int, end_line: int, index: LineIndex, encoding: str) -> Range:
    """The range of lines ``start_line`` to ``end_line`` (1-based, inclusive)."""
    last = index.line_count - 1
    first = min(max(start_line - 1, 0), last)
    final = min(max(end_line - 1, first), last)
    return Range(Position(first, 0), Position(final, index.line_units(final, encoding)))


def message_of(hint: Hint) -> str:
    return f"{hint.doctrinal_frame_headline}. {hint.recommended_move}"


def diagnostic(hint: Hint, index: LineIndex, encoding: str, proposes: bool = True) -> Diagnostic:
    return Diagnostic(
        range=lines_range(hint.start_line, hint.end_line, index, encoding),
        severity=SEVERITIES.get(hint.precedence_band, INFORMATION) if proposes else HINT,
        code=hint.metric,
        source=SOURCE,
        message=message_of(hint),
        data=hint,
    )


def diagnostics(
    hints: list[Hint], index: LineIndex, encoding: str, proposes: list[bool] | None = None
) -> list[Diagnostic]:
    """One diagnostic per hint; ``proposes`` says, hint by hint, whether its move
    proposes a change (all do when it is absent)."""
    flags = proposes if proposes is not None else [True] * len(hints)
    return [diagnostic(h, index, encoding, p) for h, p in zip(hints, flags, strict=True)]
