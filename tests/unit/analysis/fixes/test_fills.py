"""The fixer of a loop that only fills a fresh collection: the exact comprehension
(or, for a copy, constructor call) after, why it is safe or not, and radon's count
measured again (a comprehension's ``for`` and ``if`` count as the loop's did; a
constructor takes the loop's point)."""

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


def test_a_loop_that_copies_is_the_constructor_unsafe_for_items_of_any_kind() -> None:
    # Unsafe: list() asks the length first, which a class may answer with an error.
    found = check(
        """
        def names(items):
            out = []
            for item in items:
                out.append(item)
            return out
        """,
        """
        def names(items):
            out = list(items)
            return out
        """,
        safe=False,
    )
    assert found.summary == "Use list(): radon_cc 2 -> 1"


def test_a_copy_of_a_mappings_items_is_dict_unsafe_for_a_mapping_of_any_kind() -> None:
    # Unsafe: dict() of a mapping that is no dict reads keys() and [], not items().
    check(
        """
        def table(found):
            out = {}
            for k, v in found.items():
                out[k] = v
            return out
        """,
        """
        def table(found):
            out = dict(found)
            return out
        """,
        safe=False,
    )


def test_a_copy_of_a_dicts_keys_unpacked_is_dict_of_it_unsafe() -> None:
    # Unsafe: the loop unpacks each key into two, dict() copies the dict (of pairs that
    # are not a mapping's items, dict() may take other ones than the loop).
    check(
        """
        def table(names):
            found = {n: n.lower() for n in names}
            out = {}
            for k, v in found:
                out[k] = v
            return out, found
        """,
        """
        def table(names):
            found = {n: n.lower() for n in names}
            out = dict(found)
            return out, found
        """,
        safe=False,
    )


def test_a_copy_of_a_dict_the_function_makes_is_safe() -> None:
    # Safe: a dict's pairs are the ones items() gives, in order.
    check(
        """
        def table(names):
            found = {n.lower(): n for n in names}
            out = {}
            for k, v in found.items():
                out[k] = v
            return out, found
        """,
        """
        def table(names):
            found = {n.lower(): n for n in names}
            out = dict(found)
            return out, found
        """,
        safe=True,
    )


def test_a_set_of_a_list_display_is_safe() -> None:
    # Safe: set() adds the items of a list one by one, as the loop did.
    check(
        """
        def both(a, b):
            seen = set()
            for x in [a, b]:
                seen.add(x)
            return seen
        """,
        """
        def both(a, b):
            seen = set([a, b])
            return seen
        """,
        safe=True,
    )


def test_a_set_of_a_set_is_unsafe() -> None:
    # Unsafe: set() of a set copies its table, in an order the loop's adds need not give.
    check(
        """
        def copied(a, b):
            given = {a, b}
            seen = set()
            for x in given:
                seen.add(x)
            return seen, given
        """,
        """
        def copied(a, b):
            given = {a, b}
            seen = set(given)
            return seen, given
        """,
        safe=False,
    )


def test_a_list_of_a_name_bound_twice_is_unsafe() -> None:
    # Unsafe: the second binding may be of any kind.
    check(
        """
        def names(xs, more):
            given = [x.name for x in xs]
            if more:
                given = more
            out = []
            for name in given:
                out.append(name)
            return out
        """,
        """
        def names(xs, more):
            given = [x.name for x in xs]
            if more:
                given = more
            out = list(given)
            return out
        """,
        safe=False,
    )


def test_a_list_of_unpacked_pairs_packed_again_is_a_comprehension() -> None:
    # Not a copy: the loop makes a tuple of each pair, whatever sequence it was.
    check(
        """
        def pairs(items):
            out = []
            for a, b in items:
                out.append((a, b))
            return out
        """,
        """
        def pairs(items):
            out = [(a, b) for a, b in items]
            return out
        """,
        safe=True,
    )


_COPY = "def f(xs):\n    s = set()\n    for x in xs:\n        s.add(x)\n    return s\n"


@pytest.mark.parametrize(
    "source",
    [
        # list() is rebound: the call would not make what the loop filled
        "from mine import list\n\n\n" + _COPY.replace("set()", "[]").replace("add", "append"),
        # the loop adds an attribute it sets, not a name
        _COPY.replace("for x in xs:\n        s.add(x)", "for self.x in xs:\n        s.add(self.x)"),
        # a comment on a line that goes
        _COPY.replace("s = set()", "s = set()  # seen"),
        # the loop's variable is read after it
        _COPY.replace("return s", "return s, x"),
    ],
)
def test_a_copy_the_constructor_would_change_is_left_to_a_person(source: str) -> None:
    assert [o.fix.kind for o in offered(_COPY)] == ["comprehension"]
    assert "comprehension" in kinds(source)
    assert [o for o in offered(source) if o.fix.kind == "comprehension"] == []
