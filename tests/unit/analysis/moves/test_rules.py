"""The registry of rules against the page that explains them: every kind of move is
given by a registered rule, and docs/hints.md lists every kind with the family and
the section its rule names."""

from __future__ import annotations

import re
from pathlib import Path

from gzguide.analysis.moves.catalog import RULES
from gzguide.analysis.moves.kinds import Kind
from support.paths import DOCS

HINTS_PAGE = DOCS / "hints.md"
_HEADING = re.compile(r"^#{1,6} (.+)$", re.M)
_ROW = re.compile(r"^\| `([a-z_]+)` \| ([a-z]+) \| .+ \| \[[^]]+\]\(#([a-z0-9_-]+)\) \|$", re.M)


def slug(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, blanks as ``-``."""
    kept = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return kept.replace(" ", "-")


def page() -> str:
    return HINTS_PAGE.read_text("utf-8")


def test_slug_follows_github() -> None:
    assert slug("any, all, next") == "any-all-next"
    assert slug("membership, isinstance_tuple, startswith_tuple") == (
        "membership-isinstance_tuple-startswith_tuple"
    )
    assert slug("Every move kind") == "every-move-kind"


def test_every_rule_names_a_section_of_the_hints_page() -> None:
    anchors = {slug(h) for h in _HEADING.findall(page())}
    missing = {r.name: r.doc for r in RULES if r.doc not in anchors}
    assert not missing


def test_every_kind_is_given_by_a_rule() -> None:
    given = {kind for r in RULES for kind in r.kinds}
    assert set(Kind) - given == set()


def test_every_rule_is_registered_once() -> None:
    names = [(r.family, r.name) for r in RULES]
    assert len(names) == len(set(names))


def test_the_hints_page_lists_every_kind_with_its_family_and_section() -> None:
    text = page()
    anchors = {slug(h) for h in _HEADING.findall(text)}
    rows = {kind: (family, anchor) for kind, family, anchor in _ROW.findall(text)}
    assert set(rows) == {k.value for k in Kind}
    for kind in Kind:
        family, anchor = rows[kind.value]
        rules = [r for r in RULES if kind in r.kinds]
        assert family in {r.family for r in rules}, kind
        # The rule's section, or one of the kind's own within it.
        assert anchor in {r.doc for r in rules} | {kind.value}, kind
        assert anchor in anchors, kind


def test_every_kind_has_a_test_in_its_familys_test_file() -> None:
    """Adding a rule is one function, one decorator, one test file, one doc section:
    the family's test file names each kind its rules give (``Kind.NAME``)."""
    here = Path(__file__).resolve().parent
    missing = []
    for kind in Kind:
        files = {here / f"test_{r.family}.py" for r in RULES if kind in r.kinds}
        texts = [f.read_text("utf-8") for f in files if f.exists()]
        if not any(f"Kind.{kind.name}" in t for t in texts):
            missing.append(kind.value)
    assert not missing
