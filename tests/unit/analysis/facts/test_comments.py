"""The comments on lines of their own, and which of them name a step."""

from __future__ import annotations

from gzguide.analysis.facts.comments import Comment, comment_lines

SOURCE = """\
def f(x):
    # Parse the header
    #   and the rest
    y = 1  # not on a line of its own
    # the server may close early
        # noqa: E501
    # TODO: check it later
    # get(x)
    # Check validity of raw XML:
"""


def test_every_comment_line_is_found_with_its_column() -> None:
    found = comment_lines(SOURCE)
    assert sorted(found) == [2, 3, 5, 6, 7, 8, 9]
    assert found[2] == Comment(4, True)
    assert found[6].column == 8


def test_a_comment_names_a_step_when_it_starts_with_a_verb_of_one() -> None:
    found = comment_lines(SOURCE)
    assert [line for line, c in sorted(found.items()) if c.names_a_step] == [2, 9]
    # An explanation, a pragma, a task marker and commented-out code name nothing.
    assert not any(found[line].names_a_step for line in (3, 5, 6, 7, 8))


def test_lines_are_counted_as_the_tokenizer_counts_them() -> None:
    for ending in ("\n", "\r\n", "\r"):
        text = ending.join(["x = 1", "# read the rest", "y = 2", ""])
        assert comment_lines(text) == {2: Comment(0, True)}
