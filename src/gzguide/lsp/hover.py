"""A hover over flagged lines: the hints there, and what their archetypes mean.

The explanation of each archetype is its section of ``docs/hints.md`` (shipped in
the package as ``gzguide/data/hints.md``), read once on the first hover, so the
page and the hover never disagree.
"""

from __future__ import annotations

import functools
import re
from importlib import resources
from typing import Final

from gzguide.messages import Hint

_ARCHETYPES_HEADING: Final = "## Archetypes"
_SECTION: Final = re.compile(r"^### (.+?)\s*$", re.MULTILINE)


@functools.cache
def archetype_pages() -> dict[str, str]:
    """Each archetype's section of the hints page, by archetype name (heading left out)."""
    try:
        text = resources.files("gzguide").joinpath("data", "hints.md").read_text("utf-8")
    except OSError:
        return {}
    return parse_archetype_pages(text)


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
    """The hover's text for ``hints`` (at least one), in markdown or plain text."""
    parts: list[str] = []
    explained: list[str] = []
    for hint in hints:
        value = f"{hint.crossing_value:g}"
        if markdown:
            parts.append(
                f"**gzguide** `{hint.metric}` = {value} ({hint.precedence_band}), "
                f"archetype `{hint.archetype}`, lines {hint.start_line}-{hint.end_line}"
            )
        else:
            parts.append(
                f"gzguide {hint.metric} = {value} ({hint.precedence_band}), "
                f"archetype {hint.archetype}, lines {hint.start_line}-{hint.end_line}"
            )
        parts.append(hint.doctrinal_frame_headline + ".")
        parts.append(hint.recommended_move)
        if hint.archetype not in explained:
            explained.append(hint.archetype)
    pages = archetype_pages()
    for archetype in explained:
        page = pages.get(archetype)
        if page is None:
            continue
        parts.append("---" if markdown else "")
        parts.append(f"### {archetype}" if markdown else f"{archetype}:")
        parts.append(page)
    return "\n\n".join(part for part in parts if part)
