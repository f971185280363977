"""The fixers of loops that look for the first match: ``return next(...)`` and
``if any(...):``, the exact text after, why each is safe or not, and radon's count
measured again (neither changes it: the generator's ``for`` and ``if`` count as the
loop's did)."""

from __future__ import annotations

from support.moves import kinds
from unit.analysis.fixes.checks import check, offered


def test_a_loop_that_returns_the_first_match_is_next() -> None:
    # Safe: the generator tests the items in order and computes the value of the first
    # match only, as the loop did; None, the default, costs nothing to evaluate first.
    found = check(
        """
        def tag(value, tags):
            for t in tags:
                if t.check(value):
                    return t.tag(value), t
            return None
        """,
        """
        def tag(value, tags):
            return next(((t.tag(value), t) for t in tags if t.check(value)), None)
        """,
        safe=True,
    )
    assert found.summary == "Use next(): lizard_nloc 5 -> 2"


def test_a_search_whose_default_is_a_name_is_unsafe() -> None:
    # Unsafe: next() evaluates its default before it looks, and a name may not be set.
    check(
        """
        def first(xs, missing):
            for x in xs:
                if x > 0:
                    return x
            return missing
        """,
        """
        def first(xs, missing):
            return next((x for x in xs if x > 0), missing)
        """,
        safe=False,
    )


def test_a_search_whose_lines_hold_a_comment_is_left_to_a_person() -> None:
    source = """
    def first(xs):
        for x in xs:
            if x > 0:  # positive
                return x
        return None
    """
    assert kinds(source) == ["next"]
    assert offered(source) == []


def test_a_loop_that_acts_once_on_a_match_is_if_any() -> None:
    # Safe: the same items are tested up to the first match, then the action runs
    # once, as before; the loop's variable is read nowhere else.
    check(
        """
        def mark(xs, out, seen):
            for x in xs:
                if x.bad and x not in seen:  # a bad one
                    out.append(1)
                    # sorted for the report
                    out.sort()
                    break
            return out
        """,
        """
        def mark(xs, out, seen):
            if any(x.bad and x not in seen for x in xs):  # a bad one
                out.append(1)
                # sorted for the report
                out.sort()
            return out
        """,
        safe=True,
    )


def test_an_action_that_continues_the_loop_keeps_its_loop() -> None:
    # The continue would go on with the loop around, not with this one.
    source = """
    def mark(groups, out):
        for xs in groups:
            for x in xs:
                if x.bad:
                    out.append(1)
                    if out:
                        continue
                    break
    """
    assert "any" in kinds(source)
    assert [o for o in offered(source) if o.fix.kind == "any"] == []
