"""The fixers of a key looked up or made with a branch: the exact ``d.get(k, x)`` and
``d.setdefault(k, ...)`` rewrites, safe only for a dict the function surely made
itself, and none where the key would be worked out once in place of several times
and could run code."""

from __future__ import annotations

from typing import Final

import pytest

from support.moves import kinds
from unit.analysis.fixes.checks import check, offered


def test_a_lookup_that_returns_is_a_get() -> None:
    # Safe: `found` is a plain dict made in the function, the key a name.
    check(
        """
        def find(names, key):
            found = {n.lower(): n for n in names}
            if key in found:
                return found[key]
            return None
        """,
        """
        def find(names, key):
            found = {n.lower(): n for n in names}
            return found.get(key, None)
        """,
        safe=True,
    )


def test_a_bare_return_falls_back_to_none() -> None:
    check(
        """
        def find(pairs, key):
            found = dict(pairs)
            if key in found:
                return found[key]
            return
        """,
        """
        def find(pairs, key):
            found = dict(pairs)
            return found.get(key, None)
        """,
        safe=True,
    )


def test_a_lookup_that_assigns_is_a_get() -> None:
    # Safe: a constant tuple key and a literal default cost nothing to work out.
    check(
        """
        def value(spare):
            table: dict[tuple[int, int], str] = {(0, 1): "a"}
            if (0, 1) in table:
                name = table[0, 1]
            else:
                name = spare
            return name
        """,
        """
        def value(spare):
            table: dict[tuple[int, int], str] = {(0, 1): "a"}
            name = table.get((0, 1), spare)
            return name
        """,
        safe=True,
    )


def test_a_lookup_in_a_parameter_is_unsafe() -> None:
    # Unsafe: `mapping` may be of a class whose `get` differs from `in` and `[]`
    # (a defaultdict's `[]` makes the entry).
    check(
        """
        def value(mapping, key):
            if key in mapping:
                return mapping[key]
            return 0
        """,
        """
        def value(mapping, key):
            return mapping.get(key, 0)
        """,
        safe=False,
    )


def test_a_key_or_default_read_from_an_attribute_is_unsafe() -> None:
    # Unsafe: `self.key` may be a property that runs on each read, and `.get` reads
    # `self.spare` even when the key is there.
    check(
        """
        def value(self):
            seen = {}
            if self.key in seen:
                return seen[self.key]
            return self.spare
        """,
        """
        def value(self):
            seen = {}
            return seen.get(self.key, self.spare)
        """,
        safe=False,
    )


def test_a_default_that_may_be_unbound_is_unsafe() -> None:
    # Unsafe: `.get` reads `fallback` even when the key is there, and a global of that
    # name may not be set yet.
    check(
        """
        def value(key):
            seen = {}
            if key in seen:
                return seen[key]
            return fallback
        """,
        """
        def value(key):
            seen = {}
            return seen.get(key, fallback)
        """,
        safe=False,
    )


def test_a_list_started_or_extended_is_a_setdefault() -> None:
    # Safe: the loop's variable is bound when the entry is made before it is read.
    check(
        """
        def group(pairs):
            groups = {}
            for key, item in pairs:
                if key in groups:
                    groups[key].append(item)
                else:
                    groups[key] = [item]
            return groups
        """,
        """
        def group(pairs):
            groups = {}
            for key, item in pairs:
                groups.setdefault(key, []).append(item)
            return groups
        """,
        safe=True,
    )


def test_the_arms_the_other_way_round_under_not_in() -> None:
    check(
        """
        def group(groups: dict[str, list[int]], key: str, item: int) -> None:
            if key not in groups:
                groups[key] = [item]
            else:
                groups[key].append(item)
        """,
        """
        def group(groups: dict[str, list[int]], key: str, item: int) -> None:
            groups.setdefault(key, []).append(item)
        """,
        safe=False,
    )


def test_an_item_worked_out_after_the_entry_is_made_is_unsafe() -> None:
    # Unsafe: the entry is made before `f(x)` runs now; if it raises, an empty list
    # stays behind.
    check(
        """
        def group(xs, key):
            groups = {}
            for x in xs:
                if key in groups:
                    groups[key].append(x.f())
                else:
                    groups[key] = [x.f()]
            return groups
        """,
        """
        def group(xs, key):
            groups = {}
            for x in xs:
                groups.setdefault(key, []).append(x.f())
            return groups
        """,
        safe=False,
    )


def test_an_entry_made_then_extended_is_a_setdefault() -> None:
    check(
        """
        def index(pairs):
            seen = {}
            for initial, word in pairs:
                if initial not in seen:
                    seen[initial] = set()
                seen[initial].add(word)
            return seen
        """,
        """
        def index(pairs):
            seen = {}
            for initial, word in pairs:
                seen.setdefault(initial, set()).add(word)
            return seen
        """,
        safe=True,
    )


def test_an_entry_made_then_read_is_a_setdefault() -> None:
    check(
        """
        def entry(key):
            table = {}
            if key not in table:
                table[key] = []

            found = table[key]
            return found
        """,
        """
        def entry(key):
            table = {}
            found = table.setdefault(key, [])
            return found
        """,
        safe=True,
    )


def test_an_entry_made_then_stored_into_is_safe_with_a_plain_value() -> None:
    # Safe: `value` is evaluated before the target, but it is a bound name.
    check(
        """
        def pair(pairs):
            table = {}
            for key, i, value in pairs:
                if key not in table:
                    table[key] = [None, None]
                table[key][i] = value
            return table
        """,
        """
        def pair(pairs):
            table = {}
            for key, i, value in pairs:
                table.setdefault(key, [None, None])[i] = value
            return table
        """,
        safe=True,
    )


def test_an_entry_read_after_other_code_is_unsafe() -> None:
    # Unsafe: `out.append` is looked up before the entry is made now.
    check(
        """
        def entry(key, out):
            table = {}
            if key not in table:
                table[key] = 0
            out.append(table[key])
        """,
        """
        def entry(key, out):
            table = {}
            out.append(table.setdefault(key, 0))
        """,
        safe=False,
    )


def test_an_entry_made_before_anything_else_is_a_setdefault_alone() -> None:
    # Safe: the keyword parameter is a fresh plain dict on every call.
    check(
        """
        def count(key, **counts):
            if key not in counts:
                counts[key] = 0
            counts[key] += 1
            return counts
        """,
        """
        def count(key, **counts):
            counts.setdefault(key, 0)
            counts[key] += 1
            return counts
        """,
        safe=True,
    )


def test_a_dict_bound_again_is_not_surely_a_dict() -> None:
    # Unsafe: the loop rebinds `current` to whatever the entry holds.
    check(
        """
        def walk(parts):
            current = {}
            for part in parts:
                if part not in current:
                    current[part] = {}
                current = current[part]
            return current
        """,
        """
        def walk(parts):
            current = {}
            for part in parts:
                current = current.setdefault(part, {})
            return current
        """,
        safe=False,
    )


@pytest.mark.parametrize(
    "source",
    [
        # made in one arm of an if: not surely made when the lookup runs
        "def f(k, c):\n    if c:\n        d = {}\n    if k in d:\n        return d[k]\n"
        "    return 0\n",
        # made after the lookup, in a loop
        "def f(ks):\n    for k in ks:\n        if k in d:\n            v = d[k]\n"
        "        else:\n            v = 0\n        d = {}\n    return v\n",
        # a builtin the module rebinds
        "dict = list\n\n\ndef f(k):\n    d = dict()\n    if k in d:\n        return d[k]\n"
        "    return 0\n",
        # a name a nested function may rebind
        "def f(k):\n    d = {}\n    def g():\n        nonlocal d\n        d = []\n"
        "    if k in d:\n        return d[k]\n    return 0\n",
        # global
        "def f(k):\n    global d\n    d = {}\n    if k in d:\n        return d[k]\n    return 0\n",
    ],
)
def test_a_dict_not_surely_plain_gives_an_unsafe_get(source: str) -> None:
    (found,) = [o for o in offered(source) if o.fix.kind == "dict_get"]
    assert not found.fix.safe


#: Code each fix leaves for a person, with the same code changed only where it
#: matters, which has its fix: (kind, declined, fixed).
_DECLINED: Final = [
    # a comment on a line that goes
    (
        "dict_get",
        "def f(k):\n    d = {}\n    if k in d:  # cached\n        return d[k]\n    return 0\n",
        "def f(k):\n    d = {}  # cached\n    if k in d:\n        return d[k]\n    return 0\n",
    ),
    (
        "setdefault",
        "def f(k):\n    d = {}\n    if k not in d:\n        d[k] = []\n    # add it\n"
        "    d[k].append(1)\n",
        "def f(k):\n    d = {}\n    # add it\n    if k not in d:\n        d[k] = []\n"
        "    d[k].append(1)\n",
    ),
    # a key that calls: worked out once instead of twice
    (
        "dict_get",
        "def f(k):\n    d = {}\n    if k.lower() in d:\n        return d[k.lower()]\n"
        "    return 0\n",
        "def f(k):\n    d = {}\n    if k.lower in d:\n        return d[k.lower]\n    return 0\n",
    ),
    # a key that reads another subscript, once instead of three times
    (
        "setdefault",
        "def f(ks, v):\n    d = {}\n    if ks[0] in d:\n        d[ks[0]].append(v)\n"
        "    else:\n        d[ks[0]] = [v]\n",
        "def f(ks, v):\n    d = {}\n    if ks in d:\n        d[ks].append(v)\n"
        "    else:\n        d[ks] = [v]\n",
    ),
    # a mapping that calls
    (
        "setdefault",
        "def f(k, g):\n    if k not in g():\n        g()[k] = []\n    return g()[k]\n",
        "def f(k, g):\n    if k not in g.d:\n        g.d[k] = []\n    return g.d[k]\n",
    ),
    # a default a class of the module makes in place of the builtin
    (
        "setdefault",
        "class list:\n    pass\n\n\ndef f(k):\n    d = {}\n    if k not in d:\n"
        "        d[k] = list()\n",
        "class List:\n    pass\n\n\ndef f(k):\n    d = {}\n    if k not in d:\n"
        "        d[k] = list()\n",
    ),
    # a global key the call before the read may rebind
    (
        "setdefault",
        "def f(out):\n    d = {}\n    if k not in d:\n        d[k] = []\n    out.append(d[k])\n",
        "def f(out, k):\n    d = {}\n    if k not in d:\n        d[k] = []\n    out.append(d[k])\n",
    ),
    # a walrus before the read
    (
        "setdefault",
        "def f(k, out):\n    d = {}\n    if k not in d:\n        d[k] = []\n"
        "    out.append((k := 2), d[k])\n",
        "def f(k, out):\n    d = {}\n    if k not in d:\n        d[k] = []\n"
        "    out.append(2, d[k])\n",
    ),
]


@pytest.mark.parametrize(("kind", "declined", "fixed"), _DECLINED)
def test_a_lookup_the_fix_could_change_is_left_to_a_person(
    kind: str, declined: str, fixed: str
) -> None:
    assert kind in kinds(declined)
    assert [o for o in offered(declined) if o.fix.kind == kind] == []
    assert [o.fix.kind for o in offered(fixed)] == [kind]


@pytest.mark.parametrize(
    "source",
    [
        # assigned in one arm of an if only
        "def f(k, c):\n    d = {}\n    if c:\n        v = 1\n    if k in d:\n"
        "        return d[k]\n    return v\n",
        # a handler of that name unbinds it when it ends
        "def f(k, g):\n    d = {}\n    v = 1\n    try:\n        g()\n"
        "    except ValueError as v:\n        pass\n    if k in d:\n        return d[k]\n"
        "    return v\n",
        # deleted
        "def f(k, c):\n    d = {}\n    v = 1\n    if c:\n        del v\n    if k in d:\n"
        "        return d[k]\n    return v\n",
    ],
)
def test_a_default_that_may_be_unbound_gives_an_unsafe_get(source: str) -> None:
    # `.get` reads the default even when the key is there, the branch did not.
    (found,) = [o for o in offered(source) if o.fix.kind == "dict_get"]
    assert not found.fix.safe
    bound = source.replace("return v\n", "return 2\n")
    (control,) = [o for o in offered(bound) if o.fix.kind == "dict_get"]
    assert control.fix.safe
