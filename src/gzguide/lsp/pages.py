"""The hints page a diagnostic links to: which section explains a hint, and where the
page is.

The page is ``docs/hints.md``, shipped in the package as ``gzguide/data/hints.md``.
Its table of every move kind names each kind's section, so the links come from the
page itself and cannot point at a section it no longer has. Without a published copy
(``initializationOptions.hintsUrl``), a link opens the installed file.
"""

from __future__ import annotations

import functools
import re
from importlib import resources
from pathlib import Path
from typing import Final

#: A row of the table of every move kind: the kind, its family, the move, its section.
_ROW: Final = re.compile(
    r"^\| `([a-z_]+)` \| [a-z]+ \| .+ \| \[[^]]+\]\(#([a-z0-9_-]+)\) \|$", re.M
)
_HEADING: Final = re.compile(r"^#{2,6} (.+?)\s*$", re.M)

#: What a hint that carries no move is explained under (its heading's anchor).
CENSUS_SECTION: Final = "the-census"
#: Where the values of a module are explained.
MODULE_SECTION: Final = "module-metrics"


def _page() -> resources.abc.Traversable:
    return resources.files("gzguide").joinpath("data", "hints.md")


@functools.cache
def hints_text() -> str:
    """The hints page's text; empty when the package was installed without it."""
    try:
        return _page().read_text("utf-8")
    except OSError:
        return ""


@functools.cache
def installed_url() -> str:
    """The installed page as a ``file:`` URL."""
    return Path(str(_page())).resolve().as_uri()


def anchor(heading: str) -> str:
    """The anchor a heading gets where the page is published: lower case, punctuation
    dropped, blanks as ``-``."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


@functools.cache
def sections() -> dict[str, str]:
    """The section of each move kind, and of each metric that has one, by name."""
    text = hints_text()
    found = {anchor(h): anchor(h) for h in _HEADING.findall(text)}
    found.update(_ROW.findall(text))
    return found


def section_of(kind: str, metric: str, definition: bool) -> str:
    """The anchor of the section that explains a hint: its move's, or its metric's."""
    known = sections()
    if kind in known:
        return known[kind]
    if kind == "census":
        return CENSUS_SECTION
    return known.get(metric, MODULE_SECTION if not definition else metric)
