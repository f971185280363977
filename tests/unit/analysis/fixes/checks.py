"""What the tests of fixers share: the one fix of a piece of code, the text after every
fix is made, and the check of both against radon."""

from __future__ import annotations

import textwrap

from gzguide.analysis.fixes.planner import Offered, file_fixes, fix_text
from support.moves import OPEN, radon


def offered(source: str) -> list[Offered]:
    return file_fixes(textwrap.dedent(source), OPEN)


def only(source: str) -> Offered:
    (found,) = offered(source)
    return found


def fixed(source: str, unsafe: bool = False) -> str:
    return fix_text(textwrap.dedent(source), OPEN, unsafe=unsafe)[0]


def check(before: str, after: str, safe: bool, unsafe: bool = False) -> Offered:
    """The one fix of ``before`` gives ``after`` exactly, radon agrees with its figures."""
    found = only(before)
    assert found.fix.safe is safe
    assert fixed(before, unsafe=unsafe or not safe) == textwrap.dedent(after)
    lowered = radon(before) - radon(after)
    if found.metric == "radon_cc":
        assert found.before - found.after == lowered
    else:  # the title names another value only where the fix leaves radon's as it is
        assert lowered == 0 or found.finding.metric != "radon_cc"
    return found
