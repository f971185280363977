"""Where the keywords the syntax tree does not place are found."""

from __future__ import annotations

from gzguide.analysis.facts.keywords import keyword_lines


def test_leading_and_trailing_keywords_by_line() -> None:
    found = keyword_lines(
        "if (a and  # why\n"
        "        b\n"
        "        or c):\n"
        "    pass\n"
        "x = (p or \\\n"
        "     q)\n"
        "for i in r:\n"
        "    pass\n"
        "else:\n"
        "    pass\n"
    )
    assert found.boolop_line("and", 1, 2) == 1  # 'a and' ends line 1, before a comment
    assert found.boolop_line("or", 2, 3) == 3  # 'or c' starts line 3
    assert found.boolop_line("or", 5, 6) == 5  # before a backslash continuation
    assert found.boolop_line("and", 4, 4) == 4  # one line: nothing to look up
    assert found.else_line(8, 10) == 9


def test_windows_line_ends() -> None:
    found = keyword_lines(
        "x = (a and\r\n     b)\r\ntry:\r\n    f()\r\nexcept E:\r\n    g()\r\nelse:\r\n    h()\r\n"
    )
    assert found.boolop_line("and", 1, 2) == 1
    assert found.else_line(6, 8) == 7


def test_an_else_on_the_line_of_its_body() -> None:
    found = keyword_lines("for x in y: f(x)\nelse: g()\n")
    assert found.else_line(1, 2) == 2


def test_without_a_keyword_line_the_operand_is_cited() -> None:
    found = keyword_lines("")
    assert found.boolop_line("and", 3, 5) == 5
    assert found.else_line(3, 5) == 5


def test_elses_after_a_leaving_branch_are_counted_by_their_words() -> None:
    text = (
        "def f(x):\n"
        "    if x:\n        return 1\n    else:\n        pass\n"  # counted
        "    if x:\n        returned = 1\n    else:\n        pass\n"  # `returned` stays
        "    if x:\n        return\n    elsewhere = 2\n"  # `elsewhere` is no else
        "    for a in x:\n        if a:\n            break\n        else :\n            pass\n"
    )
    assert keyword_lines(text).elses_after_leaving == 2
