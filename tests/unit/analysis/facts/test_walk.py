"""The one walk of a function: real nesting depth, what it walks and what it leaves.

Each detector on the smallest code that shows its shape, and on the code that looks
like it but is not (a move must be true of the code it is about). Where a move claims
points off radon's complexity, the test writes the rewrite the move describes and
measures both versions with radon: the claim is the difference.
"""

from __future__ import annotations

import ast
import textwrap

from gzguide.analysis.facts.walk import real_depth, view_of


def test_real_depth_from_statements_matches_the_walk() -> None:
    import sysconfig
    from pathlib import Path

    path = Path(sysconfig.get_paths()["stdlib"]) / "argparse.py"
    for node in ast.walk(ast.parse(path.read_bytes())):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            assert real_depth(node.body) == view_of(node).max_depth, node.lineno


def test_with_and_try_add_no_level_and_elif_continues_its_if() -> None:
    source = textwrap.dedent(
        """
        def f(a, b):
            with a:
                try:
                    if a:
                        pass
                    elif b:
                        if b:
                            pass
                except KeyError:
                    pass
        """
    )
    node = ast.parse(source).body[0]
    assert isinstance(node, ast.FunctionDef)
    assert view_of(node).max_depth == 2


def test_nested_definitions_are_not_walked() -> None:
    source = textwrap.dedent(
        """
        def outer(a):
            def inner(b):
                if b:
                    return 1
            return inner
        """
    )
    node = ast.parse(source).body[0]
    assert isinstance(node, ast.FunctionDef)
    view = view_of(node)
    assert view.points == [] and view.max_depth == 0
    assert [j.kind for j in view.jumps] == ["return"]
