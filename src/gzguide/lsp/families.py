"""Copies shown once: a function copied once or more is one change to make, so the
editor shows its hint on the first copy only.

Each copy's hint names one other copy among its related places; the copies that name
each other, directly or through others, are one family, shown on its first member,
whose message names (and counts) the others: a hint on each of two copies says the
same thing twice (a fresh review counted five such mirrored pairs as noise in 38
diagnostics), and seven stat predicates drew seven. Hover still shows every hint of a
line.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from gzguide.analysis.model import Finding
from gzguide.analysis.moves.partition import Partition

COPIED: Final = "copied_function"
#: A family of this many copies or more is shown on its first member only.
SHOWN_ONCE_FROM: Final = 2


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


#: The hint kept when a function's hints carry one move: complexity's, the metric the
#: move's rewrite is measured by first.
_FIRST_METRIC: Final = "radon_cc"


def repeated_moves(findings: Sequence[Finding]) -> set[Finding]:
    """The hints not to show because another hint of the same definition carries the
    same move (a nesting and a complexity hint both proposing the one ``elif``: a
    fresh review read the second as a duplicate, its two code actions titled alike):
    the ``radon_cc`` one is kept, else the first."""
    kept: dict[tuple[int, int, str], Finding] = {}
    hidden: set[Finding] = set()
    for f in findings:
        if not f.proposes:
            continue
        key = (f.start_line, f.end_line, f.move)
        earlier = kept.setdefault(key, f)
        if earlier is not f:
            loser = earlier if f.metric == _FIRST_METRIC else f
            kept[key] = f if loser is earlier else earlier
            hidden.add(loser)
    return hidden
