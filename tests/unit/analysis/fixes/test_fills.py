"""The fixer of a loop that only fills a fresh collection: the exact comprehension
after, why it is safe or not, and radon's count measured again (a comprehension's
``for`` and ``if`` count as the loop's did)."""

from __future__ import annotations

import pytest

from support.moves import kinds
from unit.analysis.fixes.checks import check, offered


def test_a_loop_that_fills_a_list_is_a_list_comprehension() -> None:
    # Safe: the same items are added to a fresh list in the same order.
    check(
        """
        def names(items, skip):
            out = []
            for item in items:
                if item not in skip:
                    out.append((item.name, item))
            return out
        """,
        """
        def names(items, skip):
            out = [(item.name, item) for item in items if item not in skip]
            return out
        """,
        safe=True,
    )


def test_a_dict_whose_value_is_a_name_is_a_dict_comprehension() -> None:
    # Safe: the key is worked out before the value now, but the value is a name.
    check(
        """
        def table(pairs):
            found = {}
            for k, v in pairs:
                found[k.lower()] = v
            return found
        """,
        """
        def table(pairs):
            found = {k.lower(): v for k, v in pairs}
            return found
        """,
        safe=True,
    )


def test_a_dict_of_two_calls_is_unsafe() -> None:
    # Unsafe: `d[k()] = v()` calls v first, `{k(): v() ...}` calls k first.
    check(
        """
        def table(pairs):
            found = dict()
            for k, v in pairs:
                found[k.lower()] = v.upper()
            return found
        """,
        """
        def table(pairs):
            found = {k.lower(): v.upper() for k, v in pairs}
            return found
        """,
        safe=False,
    )


@pytest.mark.parametrize(
    "source",
    [
        # a copy: list(xs) takes the loop's radon point, which the move does not count
        "def f(xs):\n    s = set()\n    for x in xs:\n        s.add(x)\n    return s\n",
        # the loop's variable is read after the loop
        "def f(xs):\n    s = []\n    for x in xs:\n        s.append(x.a)\n    return s, x\n",
        # a with around may swallow an error and leave the list partly filled
        "def f(xs, c):\n    with c:\n        s = []\n        for x in xs:\n"
        "            s.append(x.a)\n    return s\n",
        # a nested function may see the list while it fills
        "def f(xs):\n    g = lambda: len(s)\n    s = []\n    for x in xs:\n"
        "        s.append(g())\n    return s\n",
        # a comment on a line that goes
        "def f(xs):\n    s = []  # the names\n    for x in xs:\n        s.append(x.a)\n"
        "    return s\n",
    ],
)
def test_a_fill_the_comprehension_would_change_is_left_to_a_person(source: str) -> None:
    assert "comprehension" in kinds(source)
    assert [o for o in offered(source) if o.fix.kind == "comprehension"] == []
