"""Copies shown once: a function copied three times or more is one change to make, so
the editor shows its hint on the first copy only.

Each copy's hint names one other copy among its related places; the copies that name
each other, directly or through others, are one family. A pair stays shown on both
functions (each reads as the other's twin, as reviewers judged), a family of three or
more on its first member, whose message counts the others; hover still shows every
hint of a line.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from gzguide.analysis.model import Finding
from gzguide.analysis.moves.partition import Partition

COPIED: Final = "copied_function"
#: A family of this many copies or more is shown on its first member only.
SHOWN_ONCE_FROM: Final = 3


def hidden_copies(findings: Sequence[Finding]) -> set[Finding]:
    """The copied-function hints not to show: all but the first of each family of
    :data:`SHOWN_ONCE_FROM` copies or more."""
    copies = {f.start_line: f for f in findings if f.kind == COPIED}
    if len(copies) < SHOWN_ONCE_FROM:
        return set()
    groups = _families(copies).groups(sorted(copies), str)
    return {copies[line] for group in groups for line in _all_but_first(group)}


def _families(copies: dict[int, Finding]) -> Partition:
    """The copies joined to every other copy their hints name."""
    family = Partition(map(str, copies))
    for line, f in copies.items():
        for other in _named(f) & copies.keys() - {line}:
            family.join(str(line), str(other))
    return family


def _named(finding: Finding) -> set[int]:
    return {first for first, _, _ in finding.related}


def _all_but_first(group: list[int]) -> list[int]:
    return group[1:] if len(group) >= SHOWN_ONCE_FROM else []
