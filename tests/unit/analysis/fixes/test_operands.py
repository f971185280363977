"""The fixers of runs of tests on one subject, and of an ``or`` that changes nothing:
the exact text after, whether each is safe (and why), radon's count measured again."""

from __future__ import annotations

import pytest

from unit.analysis.fixes.checks import check, fixed, offered


def test_equal_to_one_of_some_literals_is_in_a_tuple() -> None:
    # Safe: a plain name against literal constants, in an if's test: each constant's
    # __eq__ defers to x's for any other type, and only the truth of the or is asked.
    found = check(
        """
        def kind(x):
            if x == 'a' or x == 2 or x is None:  # a or 2
                return 1
            return 0
        """,
        """
        def kind(x):
            if x in ('a', 2) or x is None:  # a or 2
                return 1
            return 0
        """,
        safe=True,
    )
    assert found.summary == "Use in (...): radon_cc 4 -> 3"


def test_not_of_a_membership_or_is_not_in() -> None:
    # Safe: `x not in t` is `not (x in t)`, and under `not` only the or's truth counts.
    check(
        """
        def other(x):
            while not (x == 0 or x == 1):
                x = x // 2
        """,
        """
        def other(x):
            while x not in (0, 1):
                x = x // 2
        """,
        safe=True,
    )


@pytest.mark.parametrize(
    ("before", "after"),
    [
        # Returned, the or gives whatever x.__eq__ returns; `in` gives a bool.
        ("return x == 1 or x == 2", "return x in (1, 2)"),
        # An attribute is read once instead of twice (a property may change).
        ("return not (x.k == 1 or x.k == 2)", "return x.k not in (1, 2)"),
        # A name is evaluated before the first comparison, and compared the other way.
        ("return (x == A or x == B) and x", "return x in (A, B) and x"),
        # `not in` asks __eq__ where `!=` asked __ne__.
        ("return not (x != 1 and x != 2)", "return x in (1, 2)"),
    ],
)
def test_membership_is_unsafe_where_it_may_not_be_the_same_test(before: str, after: str) -> None:
    check(f"def f(x):\n    {before}\n", f"def f(x):\n    {after}\n", safe=False)


def test_a_parenthesized_subject_keeps_its_parentheses() -> None:
    assert "return (not a) in (1, 2)\n" in fixed(
        "def f(a):\n    return (not a) == 1 or (not a) == 2\n", unsafe=True
    )


def test_membership_over_several_lines_is_left_to_a_person() -> None:
    source = """
    def f(x):
        if (x == 1 or
                x == 2):
            return 1
    """
    assert offered(source) == []


def test_isinstance_of_builtin_classes_is_one_call() -> None:
    # Safe: isinstance tests the classes in order and stops at the first match, as the
    # or did; a builtin class the module does not rebind evaluates ahead to itself.
    check(
        """
        def number(x):
            if isinstance(x, int) or isinstance(x, (float, complex)):
                return True
        """,
        """
        def number(x):
            if isinstance(x, (int, float, complex)):
                return True
        """,
        safe=True,
    )


def test_isinstance_of_other_classes_is_unsafe() -> None:
    # Unsafe: ast.Attribute is evaluated even when x is an ast.Name.
    check(
        """
        def simple(x):
            return isinstance(x, ast.Name) or isinstance(x, ast.Attribute)
        """,
        """
        def simple(x):
            return isinstance(x, (ast.Name, ast.Attribute))
        """,
        safe=False,
    )


def test_prefixes_tested_one_by_one_are_one_tuple_and_unsafe() -> None:
    # Unsafe: s may be of a class whose startswith takes no tuple, and a prefix that is
    # a name may hold a tuple, which str.startswith refuses inside one.
    check(
        """
        def hidden(name, mark):
            if not name.startswith('_') and not name.startswith(('.', mark)):
                return False
        """,
        """
        def hidden(name, mark):
            if not name.startswith(('_', '.', mark)):
                return False
        """,
        safe=False,
    )


def test_an_or_after_a_join_on_a_literal_is_dropped() -> None:
    # Safe: str.join gives a plain str, empty exactly when the or would give "".
    check(
        """
        def words(xs):
            if xs:
                return ' '.join(xs) or ''
        """,
        """
        def words(xs):
            if xs:
                return ' '.join(xs)
        """,
        safe=True,
    )


def test_a_dead_or_across_lines_is_left_to_a_person() -> None:
    source = """
    def words(xs):
        if xs:
            return (' '.join(xs)
                    or '')
    """
    assert offered(source) == []
