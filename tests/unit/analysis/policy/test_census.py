"""The census: the budget of decision points left under warn, and where each point is,
on the line of its keyword.

Each detector on the smallest code that shows its shape, and on the code that looks
like it but is not (a move must be true of the code it is about). Where a move claims
points off radon's complexity, the test writes the rewrite the move describes and
measures both versions with radon: the claim is the difference.
"""

from __future__ import annotations

import textwrap

from gzguide.analysis.engine import analyze_bytes
from gzguide.analysis.policy.census import MAX_CENSUS_CHARS
from gzguide.analysis.policy.thresholds import default_thresholds
from support.moves import move, moves


def test_an_and_is_cited_on_its_own_line() -> None:
    source = """
    def ready(order, stock):
        if order.paid:
            log(order)
        if (order.lines and
                (stock.has(order)
                 or order.backorder)):
            ship(order)
        log(stock)
    """
    text = moves(source)
    assert "`and` (line 5)" in text and "`or` (line 7)" in text


def test_a_loop_else_is_not_a_second_loop() -> None:
    source = """
    def find(items, key):
        for item in items:
            if item.key == key:
                log(item)
                break
        else:
            raise KeyError(key)
        if key is None:
            log(key)
    """
    text = moves(source)
    assert "loop `else` (line 7)" in text and "2 loops" not in text


def test_a_try_else_is_cited_at_its_keyword() -> None:
    source = """
    def load(path):
        try:
            data = read(path)
        except OSError:
            return None
        else:
            check(data)
        if data:
            log(data)
        return data
    """
    assert "`try` `else` (line 7)" in moves(source)


def census_of(source: str) -> str:
    """The census of the one function of ``source`` under the default table (radon_cc
    advise at 4, warn at 7)."""
    (only,) = analyze_bytes(textwrap.dedent(source).encode(), default_thresholds()).findings
    assert only.kind == "census"
    return only.move


FOUR = """
def ship(order, log):
    if order.paid:
        log(order)
    for line in order.lines:
        log(line)
    if order.urgent:
        log("urgent")
"""


def test_the_census_is_the_budget_left_under_warn_and_where_the_points_are() -> None:
    assert census_of(FOUR) == (
        "2 more decision points stay under warn at 7; now: 2 `if`s (lines 3 and 7), loop (line 5)."
    )


def test_the_budget_counts_down_to_the_point_that_reaches_warn() -> None:
    five = FOUR.replace("log(line)", "if line:\n            log(line)")
    assert census_of(five) == (
        "1 more decision point stays under warn at 7; "
        "now: 3 `if`s (lines 3, 6 and 8), loop (line 5)."
    )
    six = five.replace("if order.urgent:", "if order.urgent and order.paid:")
    assert census_of(six) == (
        "One more decision point reaches warn at 7; "
        "now: 3 `if`s (lines 3, 6 and 8), loop (line 5), `and` (line 8)."
    )


def test_a_census_fits_one_line_beside_the_code() -> None:
    source = """
    def f(a, b, d, e):
        x = [i for i in a if i]
        z = a.x and b.y
        assert d, "d"
        w = 1 if e else 2
        return x, z, w
    """
    text = census_of(source)
    assert len(text) <= MAX_CENSUS_CHARS
    assert text == (
        "One more decision point reaches warn at 7; now: comprehension `for` (line 3), "
        "comprehension `if` (line 3), `and` (line 4), `assert` (line 5) and 1 more kind."
    )


def test_each_case_of_a_match_is_counted_on_its_own_line() -> None:
    source = """
    def mode(config):
        value = config.getini("strict")
        match value:
            case "all":
                return ALL
            case "some":
                return SOME
            case "none":
                return NONE
            case other:
                raise ValueError(other)
    """
    assert "3 `case`s (lines 5, 7 and 9)" in move(source).move
