"""Each fixer on the smallest code that shows its move: the exact text after the fix,
whether it is safe (and why), and radon's count of the function measured again.

The planner verifies every fix before it offers one; these tests also check its
figures against radon directly.
"""

from __future__ import annotations

import textwrap

import pytest

from gzguide.analysis.fixes.edits import Edit, apply_edits
from gzguide.analysis.fixes.planner import file_fixes, fix_text
from support.moves import OPEN
from unit.analysis.fixes.checks import check as _check
from unit.analysis.fixes.checks import fixed as _fixed


def test_else_holding_only_an_if_becomes_elif() -> None:
    # Safe: the same tests run in the same order; only the indentation changes.
    offered = _check(
        """
        def grade(score):
            if score > 90:
                return 'A'
            else:
                if score > 80:  # a B
                    return 'B'
                else:
                    return 'C'
        """,
        """
        def grade(score):
            if score > 90:
                return 'A'
            elif score > 80:  # a B
                return 'B'
            else:
                return 'C'
        """,
        safe=True,
    )
    assert offered.summary == "Use elif: lizard_nloc 8 -> 7"  # the depth lizard counts stays


def test_an_if_holding_only_an_if_is_one_test() -> None:
    # Safe: `a and b` asks a's truth once, and b's only when a holds, as the two ifs did.
    _check(
        """
        def ship(order, express):
            for line in order.lines:
                if order.paid:
                    if line.ready:  # ready now
                        line.ship(express)
                        '''a string
        keeps its lines'''
        """,
        """
        def ship(order, express):
            for line in order.lines:
                if order.paid and line.ready:  # ready now
                    line.ship(express)
                    '''a string
        keeps its lines'''
        """,
        safe=True,
    )


def test_a_walrus_test_keeps_its_parentheses_when_merged() -> None:
    assert "if (m := match(x)) and m.ok:\n" in _fixed(
        """
        def f(x):
            for y in x:
                if (m := match(x)):
                    if m.ok:
                        use(m, y)
        """
    )


def test_a_search_loop_is_any() -> None:
    # Safe: any() tests the items in order and stops at the first match, as the loop did.
    offered = _check(
        """
        def has_negative(xs):
            for x in xs:
                if x < 0:
                    return True
            return False
        """,
        """
        def has_negative(xs):
            return any(x < 0 for x in xs)
        """,
        safe=True,
    )
    assert offered.summary == "Use any(): radon_cc 3 -> 2"


def test_a_loop_that_fails_on_a_member_is_all_with_the_test_turned() -> None:
    _check(
        """
        def clean(xs, bad):
            for x in xs:
                if x in bad:
                    return False
            return True
        """,
        """
        def clean(xs, bad):
            return all(x not in bad for x in xs)
        """,
        safe=True,
    )


def test_all_of_an_equality_is_not_any_as_the_move_words_it() -> None:
    # `not a == b` is not `a != b` for a class whose __ne__ is its own; `all(not ...)`
    # says it less directly than the move's own `not any(...)` (a reviewer read the two
    # as disagreeing).
    assert "return not any(x == y for x in xs)" in _fixed(
        """
        def differ(xs, y):
            for x in xs:
                if x == y:
                    return False
            return True
        """
    )


def test_a_search_over_classes_is_one_isinstance() -> None:
    # Safe with a literal tuple: isinstance tests its classes in order, as the loop did.
    _check(
        """
        def known(v):
            for cls in (int, str):
                if isinstance(v, cls):
                    return True
            return False
        """,
        """
        def known(v):
            return isinstance(v, (int, str))
        """,
        safe=True,
    )


def test_a_search_over_a_collection_of_classes_is_unsafe() -> None:
    # tuple() reads every class first; the loop stopped at a match.
    _check(
        """
        def known(v, classes):
            for cls in classes:
                if isinstance(v, cls):
                    return True
            return False
        """,
        """
        def known(v, classes):
            return isinstance(v, tuple(classes))
        """,
        safe=False,
    )


def test_no_any_where_the_module_rebinds_it() -> None:
    source = """
    def has_negative(xs):
        for x in xs:
            if x < 0:
                return True
        return False
    any = print
    """
    assert file_fixes(textwrap.dedent(source), OPEN) == []


def test_a_loop_that_only_yields_is_yield_from_and_unsafe() -> None:
    # Unsafe: yield from passes send() and throw() on to the iterator.
    _check(
        """
        def each(xs):
            for x in xs:
                yield x
            print(1)
        """,
        """
        def each(xs):
            yield from xs
            print(1)
        """,
        safe=False,
    )
    assert (
        file_fixes(textwrap.dedent("def each(xs):\n    for x in xs:\n        yield x\n"), OPEN)[
            0
        ].fix.safe
        is False
    )


@pytest.mark.parametrize(
    ("test", "returned", "safe"),
    [
        # A membership test is always a bool: safe.
        ("x in (1, 3)", "x in (1, 3)", True),
        # Any other value goes through bool(), as the if asked its truth: safe.
        ("x.count", "bool(x.count)", True),
        # A comparison may return what its class likes: returned as written, unsafe.
        ("x > 3", "x > 3", False),
    ],
)
def test_an_if_returning_true_or_false_returns_the_test(
    test: str, returned: str, safe: bool
) -> None:
    _check(
        f"""
        def odd(x):
            if {test}:
                return True
            return False
        """,
        f"""
        def odd(x):
            return {returned}
        """,
        safe=safe,
    )


def test_an_if_returning_false_returns_the_negation() -> None:
    _check(
        """
        def fresh(x, seen):
            if x in seen:
                return False
            else:
                return True
        """,
        """
        def fresh(x, seen):
            return x not in seen
        """,
        safe=True,
    )


def test_a_comment_the_edit_would_drop_leaves_the_move_to_a_person() -> None:
    source = """
    def has_negative(xs):
        for x in xs:
            # negative
            if x < 0:
                return True
        return False
    """
    assert file_fixes(textwrap.dedent(source), OPEN) == []


def test_fixing_is_repeated_until_none_is_left_and_is_idempotent() -> None:
    source = """
    def pick(xs, ys):
        for x in xs:
            if x < 0:
                return True
        return False

    def other(score):
        if score > 90:
            return 'A'
        else:
            if score > 80:
                return 'B'
    """
    once, made = fix_text(textwrap.dedent(source), OPEN)
    assert [o.fix.kind for o in made] == ["any", "else_if"]
    assert fix_text(once, OPEN) == (once, [])


def test_edits_keep_the_line_ends_of_the_text() -> None:
    text = "a = 1\r\nb = 2\r\n"
    assert apply_edits(text, [Edit((2, 0), (2, 1), "c")]) == "a = 1\r\nc = 2\r\n"
    assert apply_edits(text, [Edit((1, 0), (2, 0), "")]) == "b = 2\r\n"


def test_a_fix_names_the_value_it_lowers() -> None:
    """Merged ifs keep a complexity hint's count: the title names the nesting they lower
    (the suites' run read 'Merge the ifs: radon_cc 5 -> 5')."""
    source = textwrap.dedent("""
    def f(a, b, c, d):
        if a:
            print(a)
        for x in b:
            if c:
                if d:
                    x.go()
        return 1
    """)
    (offered,) = file_fixes(source, OPEN)
    assert offered.summary == "Merge the ifs: lizard_nesting_depth 4 -> 3"


def test_no_fix_writes_a_line_longer_than_the_file_has() -> None:
    """A person keeps to the file's width (PEP 8's 79 when all its lines are shorter: a
    reviewer would not take an 86-column line into a file kept under 79)."""
    source = textwrap.dedent("""
    def f(items, a, b):
        if a:
            print(a)
        if b:
            print(b)
        for item in items:
            if item.is_admin_of(the_organisation_of_the_current_request_x):
                return True
        return False
    """)
    assert file_fixes(source, OPEN) == []
    eighty_four = source.replace("the_organisation_of_the_current_request_x", "o" * 32)
    assert file_fixes(eighty_four, OPEN) == []
    shorter = source.replace("the_organisation_of_the_current_request_x", "org")
    assert [o.summary for o in file_fixes(shorter, OPEN)] == ["Use any(): radon_cc 5 -> 4"]
    wide = source + "\n# " + "x" * 120 + "\n"
    assert len(file_fixes(wide, OPEN)) == 1


def test_a_guard_that_leaves_lizards_depth_is_titled_with_the_levels_it_takes() -> None:
    # lizard's depth rises at every branch, so `if not x: return` + `if b:` is 2 as the
    # nested pair was: a title `2 -> 2` reads as no change; the levels fall from 2 to 1.
    body = "".join(f"            'rule{n}',\n" for n in range(14))
    source = (
        "class V:\n"
        "    def check(self, nullable, field, value):\n"
        "        if value is None:\n"
        "            if not nullable:\n"
        "                self.error(field)\n"
        "            self.drop(\n" + body + "            )\n"
    )
    (offered,) = file_fixes(source, OPEN)
    assert offered.summary == "Guard with return: nesting levels 2 -> 1"
