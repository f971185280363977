"""Boolean moves: membership, isinstance tuples, tuple comparisons, returned tests.

Each detector on the smallest code that shows its shape, and on the code that looks
like it but is not (a move must be true of the code it is about). Where a move claims
points off radon's complexity, the test writes the rewrite the move describes and
measures both versions with radon: the claim is the difference.
"""

from __future__ import annotations

import pytest

from gzguide.analysis.moves.kinds import Kind
from support.moves import hints, kinds, move, moves, radon


def test_chained_equality_is_membership() -> None:
    source = """
    def is_vowel(c):
        return c == 'a' or c == 'e' or c == 'i'
    """
    f = move(source)
    assert f.kind == Kind.MEMBERSHIP
    assert "`c in ('a', 'e', 'i')`" in f.move and "2 points less" in f.move
    assert radon(source) - radon("def is_vowel(c):\n    return c in ('a', 'e', 'i')\n") == 2
    # A tested value with an `or` of its own: its points count once per test, so the
    # move would promise too few, and `a or b in (...)` is another test (the fixers
    # helper found both: verification rejected the fix, the message stayed wrong).
    assert Kind.MEMBERSHIP not in kinds(source.replace("c ==", "(c or d) =="))
    called = move(source.replace("c ==", "c.lower() =="))
    assert "`c.lower() in ('a', 'e', 'i')`" in called.move


def test_isinstance_tests_become_one() -> None:
    source = """
    def numeric(v):
        return isinstance(v, int) or isinstance(v, float)
    """
    assert Kind.ISINSTANCE_TUPLE in kinds(source)
    assert "`isinstance(v, (int, float))`" in move(source).move


def test_if_return_true_else_false_is_return_the_test() -> None:
    source = """
    def adult(p):
        if p.age >= 18:
            return True
        return False
    """
    f = move(source)
    assert f.kind == Kind.BOOL_RETURN
    assert "`return p.age >= 18`" in f.move and "1 point less" in f.move


def test_a_non_boolean_test_is_wrapped_in_bool() -> None:
    source = """
    def named(p):
        if p.name:
            return True
        else:
            return False
    """
    assert "`return bool(p.name)`" in move(source).move
    # Predicates that return a bool need no wrapping; a method of the same name on an
    # object the code does not know might not.
    predicate = source.replace("p.name", "os.path.isfile(p)")
    assert "`return os.path.isfile(p)`" in move(predicate).move
    assert (
        "`return p.name.startswith('_')`"
        in move(source.replace("p.name", "p.name.startswith('_')")).move
    )
    assert "`return bool(p.exists())`" in move(source.replace("p.name", "p.exists()")).move


def test_field_by_field_equality_gets_no_move() -> None:
    source = """
    def same(a, b):
        return a.x == b.x and a.y == b.y and a.z == b.z
    """
    assert "tuple" not in moves(source)


def test_an_and_or_whose_middle_is_always_true_is_a_conditional_expression() -> None:
    source = """
    def label(count):
        return count == 1 and "item" or "items"
    """
    f = move(source)
    assert f.kind == Kind.CONDITIONAL
    assert f.move == (
        "`count == 1 and 'item' or 'items'` on line 3 is a conditional expression: "
        "`'item' if count == 1 else 'items'`, 1 point less."
    )
    after = 'def label(count):\n    return "item" if count == 1 else "items"\n'
    assert radon(source) - radon(after) == 1
    # A middle value that may be false makes `a and b or c` differ from `b if a else c`.
    maybe_false = source.replace('"item"', "name").replace("(count)", "(count, name)")
    assert Kind.CONDITIONAL not in kinds(maybe_false)


def test_an_or_after_a_join_that_gives_its_empty_literal_is_dead() -> None:
    source = """
    def label(parts):
        return ", ".join(parts) or ""
    """
    f = move(source)
    assert f.kind == Kind.DEAD_OR
    assert f.move == (
        "`', '.join(parts) or ''` on line 3: a join of nothing is `''` already, so the "
        "`or` changes nothing: drop it, 1 point less."
    )
    assert radon(source) - radon('def label(parts):\n    return ", ".join(parts)\n') == 1
    joined = source.replace('", "', 'b""').replace('or ""', 'or b""')
    assert Kind.DEAD_OR in kinds(joined)
    # The dead `or` in the middle of a longer one: the rest stays.
    longer = source.replace('or ""', 'or "" or default').replace("l(parts)", "l(parts, default)")
    assert "`', '.join(parts) or ''` on line 3" in move(longer).move


@pytest.mark.parametrize(
    "value",
    [
        '", ".join(parts) or "-"',  # a fallback of its own
        'sep.join(parts) or ""',  # the separator may be bytes: then the `or` gives a str
        '"".join(parts) or b""',  # a value of another type
        'str(parts) or ""',  # `str()` may give a falsy subclass of str, not `""`
    ],
)
def test_an_or_that_can_change_the_value_is_not_dead(value: str) -> None:
    source = f"""
    def label(parts, sep):
        return {value}
    """
    assert Kind.DEAD_OR not in kinds(source)


def test_prefix_tests_of_one_string_are_one_call_with_a_tuple() -> None:
    source = """
    def payload(lines):
        kept = []
        for line in lines:
            if not line.startswith('-----BEGIN') and not line.startswith('-----END'):
                kept.append(line)
            elif line.endswith('#') or line.endswith(('//', ';')):
                kept.append(line[:-1])
        return kept
    """
    found = [f for f in hints(source) if f.kind == Kind.STARTSWITH_TUPLE]
    assert found, moves(source)
    text = moves(source)
    assert "is `not line.startswith(('-----BEGIN', '-----END'))`: 1 point less." in text
    after = source.replace(
        "not line.startswith('-----BEGIN') and not line.startswith('-----END')",
        "not line.startswith(('-----BEGIN', '-----END'))",
    )
    assert radon(source) - radon(after) == 1
    other = source.replace("line.startswith('-----END')", "other.startswith('-----END')")
    assert "startswith(('-----BEGIN'" not in moves(other)


def test_the_last_of_a_list_of_false_cases_is_no_negated_return() -> None:
    source = """
    def interesting(node, value):
        if is_literal(node):
            return False
        if (
            isinstance(node, Name)
            and getattr(builtins, node.id, None) is value
        ):
            return False
        return True
    """
    assert Kind.BOOL_RETURN not in kinds(source)
    # Any last case of a list of returning ifs stays one (the eighth fresh review's pip
    # `_should_fetch` and `is_installable_dir`: folding it into the return breaks the list) ...
    single = source.replace("isinstance(node, Name)\n            and ", "")
    assert Kind.BOOL_RETURN not in kinds(single)
    # ... while one case after other work is the test itself.
    alone = single.replace("if is_literal(node):\n            return False", "log(node)")
    assert Kind.BOOL_RETURN in kinds(alone)
