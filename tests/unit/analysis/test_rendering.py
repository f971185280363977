"""How moves quote code: the source a person would type, the same tree as the node."""

from __future__ import annotations

import ast

import pytest

from gzguide.analysis.moves.base import snippet
from gzguide.analysis.moves.rendering import render


def expr(text: str) -> ast.expr:
    return ast.parse(text, mode="eval").body


@pytest.mark.parametrize(
    ("written", "quoted"),
    [
        ("a and (not b)", "a and not b"),
        ("(not a) or (not (b and c))", "not a or not (b and c)"),
        ("any((x for x in y))", "any(x for x in y)"),
        ("[h for h in v if any((i.p for i in h))]", "[h for h in v if any(i.p for i in h)]"),
        ("(a and b) and (not c)", "a and b and not c"),
        ("a or (b or c)", "a or b or c"),
    ],
)
def test_redundant_parentheses_are_not_quoted(written: str, quoted: str) -> None:
    assert render(expr(written)) == quoted


@pytest.mark.parametrize(
    "needed",
    [
        "x == (not a) and b",
        "f((a, b))",
        "a and (b or c)",
        "(not a) == b",
        "f('((not x))')",
        "not (a and b)",
    ],
)
def test_parentheses_that_change_the_meaning_stay(needed: str) -> None:
    quoted = render(expr(needed))
    assert ast.dump(expr(quoted)) == ast.dump(expr(needed))
    assert quoted == ast.unparse(expr(needed))


def test_the_tree_quoted_is_left_as_it_was() -> None:
    tree = expr("(a and b) and c")
    before = ast.dump(tree)
    render(ast.BoolOp(ast.And(), [tree, expr("not d")]))
    assert ast.dump(tree) == before


def test_a_merged_if_is_quoted_as_written() -> None:
    merged = ast.BoolOp(ast.And(), [expr("klass != Logger"), expr("not issubclass(klass, Logger)")])
    assert render(merged) == "klass != Logger and not issubclass(klass, Logger)"


def test_a_shortened_snippet_never_ends_inside_a_name() -> None:
    """A cut name reads as another (the seventh fresh review: ``== v…`` for ``== value``)."""
    code = "return next((item for item in members if item.value == value), None)"
    assert snippet(code, 58) == "`return next((item for item in members if item.value ==…`"
    assert snippet(code, 200) == f"`{code}`"
    assert snippet("abcdefgh", 5) == "`abcd…`"  # one name longer than the limit: cut
