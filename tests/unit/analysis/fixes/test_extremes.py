"""The fixer of a loop that keeps a running minimum or maximum: the exact ``min()`` or
``max()`` call after, always unsafe (an item that is None restarts the loop's search;
``min()`` compares it), and radon's count measured again (the loop's ``for``, ``if``
and ``or`` go, 3 points)."""

from __future__ import annotations

import pytest

from support.moves import kinds
from unit.analysis.fixes.checks import check, offered


def test_a_running_minimum_is_min() -> None:
    found = check(
        """
        def least(xs):
            best = None
            for x in xs:
                if best is None or x < best:
                    best = x
            return best
        """,
        """
        def least(xs):
            best = min(xs, default=None)
            return best
        """,
        safe=False,
    )
    assert found.summary == "Use min(): radon_cc 4 -> 1"


def test_a_running_maximum_of_a_function_of_each_is_max_with_that_key() -> None:
    check(
        """
        def longest(self):
            kept = None
            for line in self.lines:
                if kept is None or len(line) > len(kept):
                    kept = line
            return kept
        """,
        """
        def longest(self):
            kept = max(self.lines, key=len, default=None)
            return kept
        """,
        safe=False,
    )


def test_a_running_maximum_of_an_attribute_is_max_with_a_lambda() -> None:
    check(
        """
        def top(players, out):
            best = None
            for p in players:
                if best is None or p.score > best.score:
                    best = p
            out.append(best)
        """,
        """
        def top(players, out):
            best = max(players, key=lambda p: p.score, default=None)
            out.append(best)
        """,
        safe=False,
    )


def test_a_method_of_the_item_itself_is_a_lambda_not_the_method() -> None:
    # `x.weight(x)` has no function apart from the item: `key=x.weight` would read an
    # unset name.
    check(
        """
        def lightest(xs):
            best = None
            for x in xs:
                if best is None or x.weight(x) < best.weight(best):
                    best = x
            return best
        """,
        """
        def lightest(xs):
            best = min(xs, key=lambda x: x.weight(x), default=None)
            return best
        """,
        safe=False,
    )


def test_a_tuple_of_items_and_a_tuple_key_keep_their_parentheses() -> None:
    check(
        """
        def first(a, b):
            best = None
            for x in a, b:
                if best is None or (x.year, x.day) < (best.year, best.day):
                    best = x
            return best
        """,
        """
        def first(a, b):
            best = min((a, b), key=lambda x: (x.year, x.day), default=None)
            return best
        """,
        safe=False,
    )


_LEAST = "    best = None\n    for x in xs:\n        if best is None or x < best:\n"
#: The running minimum each case below changes one thing of.
_PLAIN = "def f(xs):\n" + _LEAST + "            best = x\n    return best\n"


@pytest.mark.parametrize(
    "source",
    [
        # the kept value is compared first: its `__gt__` is asked before the item's
        # `__lt__`, where min() asks the item first
        "def f(xs):\n    best = None\n    for x in xs:\n        if best is None or best > x:\n"
        "            best = x\n    return best\n",
        # a comment on a line that goes
        "def f(xs):\n    best = None  # none yet\n    for x in xs:\n"
        "        if best is None or x < best:\n            best = x\n    return best\n",
        # min is rebound in the module
        "from mine import min\n\n\n" + _PLAIN,
        # a nested function reads the loop's variable after the loop
        "def f(xs):\n" + _LEAST + "            best = x\n    def g():\n        return x\n"
        "    return best, g\n",
        # the kept name is global: other code may see it while the loop runs
        "def f(xs):\n    global best\n" + _LEAST + "            best = x\n    return best\n",
        # a try around: its handler would see the best so far, the call leaves none
        "def f(xs):\n    try:\n    "
        + _LEAST.replace("\n    ", "\n        ")
        + "                best = x\n    except ValueError:\n        pass\n    return best\n",
        # a with around may swallow an error partway and leave the best so far
        "def f(xs, c):\n    with c:\n    "
        + _LEAST.replace("\n    ", "\n        ")
        + "                best = x\n    return best\n",
        # the test spans lines
        "def f(xs):\n    best = None\n    for x in xs:\n        if best is None or (x\n"
        "                            < best):\n            best = x\n    return best\n",
    ],
)
def test_a_running_minimum_the_call_would_change_is_left_to_a_person(source: str) -> None:
    assert [o.fix.kind for o in offered(_PLAIN)] == ["min_max"]
    assert "min_max" in kinds(source)
    assert [o for o in offered(source) if o.fix.kind == "min_max"] == []
