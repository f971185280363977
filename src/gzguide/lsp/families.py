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

from collections.abc import Iterable, Sequence
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


#: The hint kept when a definition has several that propose a change: complexity's,
#: the one the census and the gate speak of.
_FIRST_METRIC: Final = "radon_cc"


def second_hints(findings: Sequence[Finding]) -> set[Finding]:
    """The hints not to show because another hint of the same definition that proposes
    a change is shown: one diagnostic on a name, as a linter marks a function once (a
    fresh review read a nesting hint beside a complexity hint of one function as a
    duplicate, and its "depth 2" as false beside code four levels deep). The
    ``radon_cc`` one is kept, else the first; hover still shows them all."""
    groups = _proposing_by_definition(findings)
    return {f for group in groups for f in group if f is not _kept(group)}


def _proposing_by_definition(findings: Iterable[Finding]) -> list[list[Finding]]:
    by_place: dict[tuple[int, int], list[Finding]] = {}
    for f in findings:
        if f.proposes and f.definition:
            by_place.setdefault((f.start_line, f.end_line), []).append(f)
    return list(by_place.values())


def _kept(group: list[Finding]) -> Finding:
    return next((f for f in group if f.metric == _FIRST_METRIC), group[0])
