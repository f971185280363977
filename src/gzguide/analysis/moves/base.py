"""A move: one refactoring that is possible on the code as it stands, located and worded.

Every detector returns moves. A move knows what it is (``kind``, which names its
rule page in ``docs/hints.md``), which archetype it is evidence of, the lines it is
about, and how much of each concern's value it removes, so that the engine can pick
the strongest move per hint and never let two hints give the same one.
"""

from __future__ import annotations

import ast
import enum
import re
from dataclasses import dataclass, field
from typing import Final

from gzguide.analysis.moves.kinds import Kind
from gzguide.analysis.moves.rendering import render

UNCLASSIFIED: Final = "unclassified"

#: A place a hint points at besides its own lines: first line, last line, and what is
#: there in a few words (``(9, 14, "the copy of this block")``).
Related = tuple[int, int, str]

#: An inline move is at most this long (an editor shows it beside the code).
MAX_MOVE_CHARS: Final = 240


class Concern(enum.Enum):
    """What a hint is about; at most one hint per definition and concern."""

    COMPLEXITY = "complexity"
    SIZE = "size"
    PARAMETERS = "parameters"
    NESTING = "nesting"
    COHESION = "cohesion"
    MODULE_SIZE = "module size"
    HALSTEAD = "halstead"
    MAINTAINABILITY = "maintainability"


#: Which concern each metric speaks for.
CONCERNS: Final[dict[str, Concern]] = {
    "radon_cc": Concern.COMPLEXITY,
    "lizard_ccn": Concern.COMPLEXITY,
    "lizard_nloc": Concern.SIZE,
    "lizard_param_count": Concern.PARAMETERS,
    "lizard_nesting_depth": Concern.NESTING,
    "cohesion_lcom4": Concern.COHESION,
    "radon_raw_nloc": Concern.MODULE_SIZE,
    "radon_raw_lloc": Concern.MODULE_SIZE,
    "radon_hal_volume": Concern.HALSTEAD,
    "radon_hal_difficulty": Concern.HALSTEAD,
    "radon_hal_effort": Concern.HALSTEAD,
    "radon_mi": Concern.MAINTAINABILITY,
}


@dataclass(frozen=True, slots=True)
class Move:
    kind: Kind
    archetype: str
    #: The recommended move, one or two sentences; ``{points}`` and similar
    #: placeholders are never left in it.
    text: str
    #: The first and last line the move is about.
    span: tuple[int, int]
    #: How much of each concern's value the move removes (radon points for
    #: complexity, real nesting levels, lines of code); absent: it does not lower it.
    gains: dict[Concern, int] = field(default_factory=dict)
    #: Ranking among moves of equal gain: higher first.
    priority: int = 0
    #: The lines whose nesting the move lowers, where that is not all of ``span``'s
    #: statement (an ``elif`` flattens its own branch only); None: the whole statement.
    region: tuple[int, int] | None = None
    #: Other places the move names (the copy it would share code with, ...).
    related: tuple[Related, ...] = ()

    def gain(self, concern: Concern) -> int:
        return self.gains.get(concern, 0)

    @property
    def key(self) -> tuple[Kind, tuple[int, int]]:
        """Two hints with the same key would say the same thing about the same lines."""
        return (self.kind, self.span)


def lines(start: int, end: int) -> str:
    return f"line {start}" if start == end else f"lines {start}-{end}"


def line_list(numbers: list[int], limit: int = 4) -> str:
    unique = sorted(set(numbers))
    if len(unique) == limit + 1:
        limit += 1  # "and 1 more" would take the place of the one number left
    shown = ", ".join(str(n) for n in unique[:limit])
    more = len(unique) - limit
    if more > 0:
        return f"{shown} and {more} more"
    if len(unique) > 1:
        head, _, last = shown.rpartition(", ")
        return f"{head} and {last}"
    return shown


def code(node: ast.AST, limit: int = 48) -> str:
    """``node`` as source, shortened to ``limit`` characters, in backticks."""
    try:
        text = render(node)
    except (ValueError, RecursionError):
        text = "…"
    return snippet(text, limit)


def snippet(text: str, limit: int = 60) -> str:
    """Source text in backticks, on one line, shortened to ``limit`` characters (never
    in the middle of a name or number: a cut one reads as another)."""
    # Line breaks and the indentation after them go; spaces within a line stay, as
    # they may be inside a string (a literal of sixteen spaces is not one space).
    text = _LINE_BREAKS.sub(" ", text.strip())
    if len(text) > limit:
        cut = text[: limit - 1]
        whole = cut.rstrip(_WORD) if text[limit - 1 : limit] in _WORD else cut
        text = (whole or cut).rstrip() + "…"
    return f"`{text}`"


_LINE_BREAKS: Final = re.compile(r"[ \t]*(?:\r\n|\r|\n)\s*")
#: The characters of a name or number.
_WORD: Final = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_"


def names(items: list[str] | tuple[str, ...], limit: int = 4) -> str:
    """Identifiers in backticks, as an English list: `a`, `b` and `c`."""
    return listing([f"`{n}`" for n in items], limit)


def listing(items: list[str], limit: int = 4, total: int | None = None) -> str:
    """Items as an English list, at most ``limit`` of them: a, b and 2 more (of
    ``total`` when ``items`` holds only the first of them)."""
    shown = items[:limit]
    count = len(items) if total is None else total
    if count > limit:
        shown = [*shown, f"{count - limit} more"]
    if len(shown) <= 2:
        return " and ".join(shown)
    return ", ".join(shown[:-1]) + f" and {shown[-1]}"


def plural(n: int, word: str, words: str | None = None) -> str:
    return f"{n} {word if n == 1 else (words or word + 's')}"


def fit(text: str) -> str:
    """``text`` within :data:`MAX_MOVE_CHARS`: cut at the last full sentence that fits."""
    if len(text) <= MAX_MOVE_CHARS:
        return text
    cut = text.rfind(". ", 0, MAX_MOVE_CHARS)
    if cut > 0:
        return text[: cut + 1]
    return text[: MAX_MOVE_CHARS - 1] + "…"
