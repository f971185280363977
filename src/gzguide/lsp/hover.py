"""A hover over flagged lines: the hints there, and what their archetypes mean.

The explanation of each archetype is its section of ``docs/hints.md`` (shipped in
the package as ``gzguide/data/hints.md``), read once on the first hover, so the
page and the hover never disagree.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from typing import Final

from gzguide.guide.messages import Hint
from gzguide.lsp.pages import hints_text

_ARCHETYPES_HEADING: Final = "## Archetypes"
#: The archetype of a hint that names no smell: nothing to explain, nor to name.
_NO_SMELL: Final = "unclassified"
_SECTION: Final = re.compile(r"^### (.+?)\s*$", re.MULTILINE)


@functools.cache
def archetype_pages() -> dict[str, str]:
    """Each archetype's section of the hints page, by archetype name (heading left out)."""
    return parse_archetype_pages(hints_text())


def parse_archetype_pages(text: str) -> dict[str, str]:
    start = text.find(_ARCHETYPES_HEADING + "\n")
    if start < 0:
        return {}
    body = text[start + len(_ARCHETYPES_HEADING) :]
    next_part = re.search(r"^## ", body, re.MULTILINE)
    if next_part is not None:
        body = body[: next_part.start()]
    pages: dict[str, str] = {}
    headings = list(_SECTION.finditer(body))
    for number, heading in enumerate(headings):
        end = headings[number + 1].start() if number + 1 < len(headings) else len(body)
        title = heading.group(1)
        if " " not in title:  # an archetype's own section (others say things about several)
            pages[title] = body[heading.end() : end].strip()
    return pages


def covering(hints: list[Hint], line: int) -> list[Hint]:
    """The hints whose lines hold ``line`` (1-based), the narrowest first."""
    found = [h for h in hints if h.start_line <= line <= h.end_line]
    found.sort(key=lambda h: (h.end_line - h.start_line, h.start_line, h.metric))
    return found


def hover_text(hints: list[Hint], markdown: bool) -> str:
    """The hover's text for ``hints`` (at least one), in markdown or plain text: each
    hint, then what each of their archetypes means (once each, in order of first use)."""
    parts = [part for hint in hints for part in _hint_parts(hint, markdown)]
    parts.extend(_explanations(dict.fromkeys(hint.archetype for hint in hints), markdown))
    return "\n\n".join(part for part in parts if part)


def _explanations(archetypes: Iterable[str], markdown: bool) -> list[str]:
    """The page of each archetype that has one, in the order given."""
    pages = archetype_pages()
    named = (a for a in archetypes if a in pages and a != _NO_SMELL)
    return [part for a in named for part in _page_parts(a, pages[a], markdown)]


def _hint_parts(hint: Hint, markdown: bool) -> tuple[str, str, str]:
    """A hint's summary line, headline and move."""
    value = f"{hint.crossing_value:g}"
    lines = f"lines {hint.start_line}-{hint.end_line}"
    smell = hint.archetype != _NO_SMELL
    if markdown:
        archetype = f"archetype `{hint.archetype}`, " if smell else ""
        summary = (
            f"**gzguide** `{hint.metric}` = {value} ({hint.precedence_band}), {archetype}{lines}"
        )
    else:
        archetype = f"archetype {hint.archetype}, " if smell else ""
        summary = f"gzguide {hint.metric} = {value} ({hint.precedence_band}), {archetype}{lines}"
    return summary, hint.doctrinal_frame_headline + ".", hint.recommended_move


def _page_parts(archetype: str, page: str, markdown: bool) -> tuple[str, str, str]:
    """An archetype's explanation, under a rule and a heading."""
    if markdown:
        return "---", f"### {archetype}", page
    return "", f"{archetype}:", page
