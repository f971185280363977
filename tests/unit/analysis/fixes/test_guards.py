"""The fixers of guard clauses: the exact text after, whether each is safe (and why),
radon's count measured again (a guard moves code out a level and keeps the count)."""

from __future__ import annotations

import ast

import pytest

from gzguide.analysis.fixes.edits import Source
from gzguide.analysis.fixes.tests import plain_negation
from gzguide.analysis.moves.rendering import render
from gzguide.analysis.moves.syntax import negation
from support.moves import kinds
from unit.analysis.fixes.checks import check, offered

#: Work enough for any guard: twelve lines of code (what an if wrapping the rest of a
#: function or loop body needs), one of them a loop.
_WORK = """\
    a = job.a
    b = job.b
    for c in job.parts:
        a.append(c)
    b.sort()
    b.reverse()
    a.sort()
    a.reverse()
    job.log(a)
    job.log(b)
    job.count(a)
    job.count(b)"""


def _indented(text: str, prefix: str) -> str:
    return "\n".join(prefix + line for line in text.splitlines())


def test_an_if_wrapping_the_rest_of_a_loop_body_continues_early() -> None:
    # Safe: a pass that skips the body goes on to the next one, as falling through the
    # if did; `not in` is `not (... in ...)`.
    found = check(
        f"""
        def each(jobs, done):
            for job in jobs:
                if job in done:  # done already
{_indented(_WORK, "                ")}
        """,
        f"""
        def each(jobs, done):
            for job in jobs:
                if job not in done:  # done already
                    continue
{_indented(_WORK, "            ")}
        """,
        safe=True,
    )
    assert found.fix.title == "Guard with continue"


def test_a_comment_above_the_wrapped_work_leaves_the_guard_to_a_person() -> None:
    # It speaks of the case the `if` tests; under `continue` it would read as the code
    # after it (a fresh review's falcon `before._before`: "the comment stranded").
    source = f"""
    def each(jobs, done):
        for job in jobs:
            if job in done:
                # only the jobs done already
{_indented(_WORK, "                ")}
    """
    assert "continue_guard" in [k for k in kinds(source)]
    assert offered(source) == []
    assert len(offered(source.replace("                # only the jobs done already\n", ""))) == 1


def test_an_if_wrapping_the_rest_of_a_function_returns_early() -> None:
    # Safe: the function returned None at its end when the test failed; it returns
    # None first now.
    check(
        f"""
        def run(job):
            if job.ready:
{_indented(_WORK, "            ")}
        """,
        f"""
        def run(job):
            if not job.ready:
                return
{_indented(_WORK, "        ")}
        """,
        safe=True,
    )


def test_an_if_before_the_last_return_puts_that_return_first() -> None:
    # Safe: the same return runs when the test fails, before the work instead of after.
    check(
        f"""
        def run(job):
            if job is not None:
{_indented(_WORK, "            ")}
                return b

            return []
        """,
        f"""
        def run(job):
            if job is None:
                return []
{_indented(_WORK, "        ")}
            return b
        """,
        safe=True,
    )


def test_a_guard_that_turns_an_equality_around_is_unsafe() -> None:
    # Unsafe: `!=` asks __ne__, which a class may define apart from __eq__.
    check(
        f"""
        def run(job):
            if job.state == 'ready':
{_indented(_WORK, "            ")}
        """,
        f"""
        def run(job):
            if job.state != 'ready':
                return
{_indented(_WORK, "        ")}
        """,
        safe=False,
    )


def test_an_else_that_only_leaves_goes_first() -> None:
    # Safe: the else's statements run under the turned test, and the work, a level
    # out, then goes on to what followed the if, as before.
    check(
        f"""
        def run(job):
            if job:
{_indented(_WORK, "            ")}
            else:
                log(job)
                raise ValueError(job)
            return job
        """,
        f"""
        def run(job):
            if not job:
                log(job)
                raise ValueError(job)
{_indented(_WORK, "        ")}
            return job
        """,
        safe=True,
    )


def test_the_short_else_that_ends_a_function_goes_first_and_returns() -> None:
    # Safe: after the else's line the function returned None at its end; it returns
    # None right after it now.
    check(
        f"""
        def run(job):
            if job:
{_indented(_WORK, "            ")}
            else:
                print(job)
        """,
        f"""
        def run(job):
            if not job:
                print(job)
                return
{_indented(_WORK, "        ")}
        """,
        safe=True,
    )


def test_a_test_over_several_lines_is_left_to_a_person() -> None:
    source = f"""
    def run(job):
        if (job.ready
                and job.open):
{_indented(_WORK, "        ")}
    """
    assert [o for o in offered(source) if "guard" in o.fix.kind] == []


def test_a_comment_on_the_else_line_is_left_to_a_person() -> None:
    source = f"""
    def run(job):
        if job:
{_indented(_WORK, "        ")}
        else:  # no job
            raise ValueError(job)
        return job
    """
    assert [o for o in offered(source) if "guard" in o.fix.kind] == []


@pytest.mark.parametrize(
    ("test", "negated", "safe"),
    [
        ("not (a or b)", "a or b", True),
        ("a is not None and b in c", "a is None or b not in c", True),
        ("a == 1 or not (b or c)", "a != 1 and (b or c)", False),
        ("a and b > 1", "not (a and b > 1)", True),
        ("x < y", "not x < y", True),
    ],
)
def test_a_guard_says_the_test_the_way_the_move_words_it(
    test: str, negated: str, safe: bool
) -> None:
    tree = ast.parse(test)
    expr = tree.body[0]
    assert isinstance(expr, ast.Expr)
    assert plain_negation(Source(test, tree), expr.value)[:2] == (negated, safe)
    assert render(negation(expr.value)) == negated
