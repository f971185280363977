"""The copy index gives exactly the answers of comparing every pair.

:class:`~gzguide.analysis.facts.twins.Twins` finds copies through an index (shapes,
then leaves told apart by bit operations) rather than by comparing each function
with every other of its bucket. The reference below is that straightforward search,
over the same comparison; random modules full of copies and near copies (names,
values, dotted names, stored attributes, parameters in other places, redefinitions)
must get the same answer from both, function by function and statement by statement.
"""

from __future__ import annotations

import ast
import re
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from gzguide.analysis.facts.astshape import code_lines
from gzguide.analysis.facts.scopes import Scope, collect_scopes
from gzguide.analysis.facts.twins import (
    _COMPOUND,
    MIN_LINES,
    FunctionCopy,
    Twins,
    _body_key,
    _index,
    _key,
    _overlap,
    differences,
    own_body,
)

# -- the reference: every pair of a bucket compared ------------------------------------


def reference_copy_of(twins: Twins, scope: Scope) -> FunctionCopy | None:
    node = scope.node
    assert not isinstance(node, ast.ClassDef)
    body = own_body(node)
    if code_lines(body) < MIN_LINES:
        return None
    copies = []
    for other in twins.functions:
        other_node = other.node
        assert not isinstance(other_node, ast.ClassDef)
        if other.qualname == scope.qualname or _body_key(own_body(other_node)) != _body_key(body):
            continue
        found = twins._compare(node, other_node)
        if found is not None:
            copies.append((other, found))
    if not copies:
        return None
    other, (differing, renames_only) = copies[0]
    return FunctionCopy(other, differing, renames_only, more=len(copies) - 1)


def reference_twin_of(tree: ast.Module, node: ast.stmt) -> tuple[ast.stmt, int] | None:
    if not isinstance(node, _COMPOUND) or code_lines([node]) < MIN_LINES:
        return None
    for other in _index(tree).get(_key(node), ()):
        if _overlap(node, other):
            continue
        found = differences(node, other)
        if found is not None:
            return other, len(found)
    return None


# -- random modules of copies and near copies ------------------------------------------

#: Bodies with holes: ``{s…}`` where a value is stored, ``{l…}`` where one is read.
TEMPLATES = (
    ["{s0} = {l0}", "if {l1} > {l2}:", "    {s1} = {l3}", "    {s0} += {l2}", "return {l0}"],
    ["for {s0} in {l0}:", "    if {s0} == {l1}:", "        {l2}({s0}, {l3})", "return {l1}"],
    ["try:", "    {s0} = {l0}.get({l1})", "except KeyError:", "    {s0} = {l2}", "return {s0}"],
    ["{s0} = {l0}", "{s1} = {l1}", "{s0} = {l2}", "{s1} = {l0} + {l3}", "return {l3}"],
)
HOLE = re.compile(r"\{([sl]\d)\}")
STORED = ("x", "y", "a", "b", "self.v", "obj.v")
READ = ("x", "y", "a", "b", "1", "2", "3", "'s'", "self.v", "obj.v", "g", "None")
PARAMETERS = ("a", "b", "c")


def _pool(hole: str) -> tuple[str, ...]:
    return STORED if hole.startswith("s") else READ


@st.composite
def families(draw: Any) -> tuple[list[str], dict[str, str]]:
    """A template and the value of each of its holes."""
    template = draw(st.sampled_from(TEMPLATES))
    holes = sorted({h for line in template for h in HOLE.findall(line)})
    return template, {h: draw(st.sampled_from(_pool(h))) for h in holes}


@st.composite
def functions(draw: Any, family: tuple[list[str], dict[str, str]]) -> list[str]:
    """A function of ``family``: some holes changed in every place they are, some
    places changed alone."""
    template, values = family
    values = dict(values)
    for hole in draw(st.lists(st.sampled_from(sorted(values)), max_size=3)):
        values[hole] = draw(st.sampled_from(_pool(hole)))
    text = "\n".join(template)
    places = [(m.start(), m.end(), m.group(1)) for m in HOLE.finditer(text)]
    filled = [values[hole] for _, _, hole in places]
    for place in draw(st.lists(st.integers(0, len(places) - 1), max_size=2)):
        filled[place] = draw(st.sampled_from(_pool(places[place][2])))
    for (start, end, _), value in reversed(list(zip(places, filled, strict=True))):
        text = text[:start] + value + text[end:]
    name = draw(st.sampled_from(("f", "g", "h", "k")))
    parameters = draw(st.permutations(PARAMETERS))[: draw(st.integers(1, 3))]
    header = f"def {name}(self, {', '.join(parameters)}):"
    docstring = ['    """Do it."""'] if draw(st.booleans()) else []
    return [header, *docstring, *("    " + line for line in text.split("\n"))]


@st.composite
def modules(draw: Any) -> str:
    """Functions of a few families, many near copies of each other, some in classes
    (methods of the same name in two classes are no redefinition)."""
    shapes = draw(st.lists(families(), min_size=1, max_size=3))
    lines: list[str] = []
    for _ in range(draw(st.integers(2, 14))):
        function = draw(functions(draw(st.sampled_from(shapes))))
        in_class = draw(st.sampled_from(("", "", "class A:", "class B:")))
        indent = "    " if in_class else ""
        lines += ["", in_class] if in_class else [""]
        lines += [indent + line for line in function]
    return "\n".join(lines) + "\n"


def _parses(text: str) -> ast.Module | None:
    try:
        return ast.parse(text)
    except SyntaxError:
        return None


def _copy_facts(found: FunctionCopy | None) -> object:
    if found is None:
        return None
    return (found.other.key, found.differing, found.renames_only, found.more)


@settings(max_examples=300, deadline=None)
@given(modules())
def test_the_index_finds_the_copies_comparing_every_pair_finds(text: str) -> None:
    tree = _parses(text)
    if tree is None:
        return
    functions = [s for s in collect_scopes(tree) if s.is_function]
    indexed, reference = Twins(tree, functions), Twins(tree, functions)
    for scope in functions:
        expected = _copy_facts(reference_copy_of(reference, scope))
        assert _copy_facts(indexed.copy_of(scope)) == expected, (scope.qualname, text)
    for node in ast.walk(tree):
        if isinstance(node, ast.stmt):
            assert indexed.twin_of(node) == reference_twin_of(tree, node), (node.lineno, text)


def test_many_near_copies_in_values_are_counted_as_comparing_every_pair_counts() -> None:
    body = "    total = {0}\n    if total > {1}:\n        total -= {1}\n    total += {2}\n"
    body += "    return total\n"
    text = "".join(
        f"def f{i}(a):\n" + body.format(i % 4, i % 3 if i % 5 else i, 7) for i in range(60)
    )
    tree = ast.parse(text)
    functions = collect_scopes(tree)
    indexed, reference = Twins(tree, functions), Twins(tree, functions)
    answers = [_copy_facts(indexed.copy_of(s)) for s in functions]
    assert answers == [_copy_facts(reference_copy_of(reference, s)) for s in functions]
    assert any(isinstance(a, tuple) and a[3] > 10 for a in answers)


def test_a_statement_of_another_tree_is_compared_with_its_whole_bucket() -> None:
    text = "def f(a):\n    if a:\n        a = 1\n        a += 2\n        return a\n"
    tree = ast.parse(text)
    twins = Twins(tree, collect_scopes(tree))
    other = ast.parse("\n" * 9 + text.replace("1", "5")).body[0]
    assert isinstance(other, ast.FunctionDef)
    statement = other.body[0]
    assert twins.twin_of(statement) == reference_twin_of(tree, statement)
    found = twins.twin_of(statement)
    assert found is not None and found[1] == 1
