"""The fixer of one value or many handled alike: the exact text after, why it is safe,
radon's count measured again, and each shape it leaves to a person beside a shape
just like it that it fixes."""

from __future__ import annotations

import textwrap

import pytest

from support.moves import kinds
from unit.analysis.fixes.checks import check, offered

_ONE = """
def add(seen, names):
    if isinstance(names, str):
        seen.add(names)
    else:
        for name in names:
            seen.add(name)
"""


def test_one_value_becomes_a_list_of_one_and_the_loop_moves_out() -> None:
    # Safe: the loop over a list of one runs its body once with `name` bound to the
    # value, as the arm ran it with the value itself; `names` (now the list) and `name`
    # (now bound on that path too) are read nowhere after.
    check(
        _ONE,
        """
        def add(seen, names):
            if isinstance(names, str):
                names = [names]
            for name in names:
                seen.add(name)
        """,
        safe=True,
    )


def test_a_tuple_of_types_and_an_arm_with_its_own_decisions() -> None:
    # Safe, as above: what the test holds does not change which path runs; the arm's
    # `if` goes, and radon's count with it.
    found = check(
        """
        def add(seen, names, log):
            if isinstance(names, (str, bytes)):  # one name
                if names not in seen:
                    seen.add(names)
                log(names)
            else:
                for name in names:
                    if name not in seen:
                        seen.add(name)
                    log(name)
        """,
        """
        def add(seen, names, log):
            if isinstance(names, (str, bytes)):  # one name
                names = [names]
            for name in names:
                if name not in seen:
                    seen.add(name)
                log(name)
        """,
        safe=True,
    )
    assert found.before - found.after == 1


def test_a_bytes_test() -> None:
    check(
        _ONE.replace("str", "bytes"),
        """
        def add(seen, names):
            if isinstance(names, bytes):
                names = [names]
            for name in names:
                seen.add(name)
        """,
        safe=True,
    )


def _fixed_kinds(source: str) -> list[str]:
    return [o.fix.kind for o in offered(source)]


def _left_to_a_person(source: str, twin: str) -> None:
    """``source`` gets the move and no fix; ``twin``, a shape just like it, the fix."""
    assert "one_or_many" in kinds(source)
    assert offered(source) == []
    assert _fixed_kinds(twin) == ["one_or_many"]


@pytest.mark.parametrize(
    ("old", "new"),
    [
        # a comment in the arm would go with it
        ("seen.add(names)", "seen.add(names)  # the one"),
        # and one on the `else:` line
        ("else:", "else:  # many"),
        # the test spans lines
        ("isinstance(names, str)", "isinstance(\n        names, str\n    )"),
        # the loop's header spans lines
        ("for name in names:", "for name in (\n        names\n    ):"),
        # the arm is on the `if`'s line
        ("str):\n        seen.add(names)", "str): seen.add(names)"),
    ],
)
def test_a_shape_written_otherwise_is_left(old: str, new: str) -> None:
    assert old in _ONE
    _left_to_a_person(_ONE.replace(old, new), _ONE)


def test_a_global_value_is_left() -> None:
    # Another function would see the list.
    source = _ONE.replace("(seen, names):\n", "(seen):\n    global names\n")
    twin = source.replace("global names", "names = seen.pop()")
    _left_to_a_person(source, twin)


def test_a_nonlocal_loop_variable_is_left() -> None:
    # The enclosing function's `name` would be set on the path that did not set it.
    source = textwrap.indent(_ONE.replace("names):\n", "names):\n    nonlocal name\n"), "    ")
    source = "def outer(name):\n" + source
    twin = source.replace("nonlocal name", "name = None")
    _left_to_a_person(source, twin)


def test_a_value_a_nested_function_reads_is_left() -> None:
    # Called later, it would see the list.
    source = _ONE.replace("names):\n", "names):\n    show = lambda: print(names)\n")
    twin = source.replace("print(names)", "print(seen)")
    _left_to_a_person(source, twin)


def test_a_module_that_binds_isinstance_is_left() -> None:
    source = "from checks import isinstance\n" + _ONE
    twin = "from checks import instance\n" + _ONE
    _left_to_a_person(source, twin)


def test_a_loop_variable_read_by_a_later_loop_header_is_left() -> None:
    # `order(name)` reads what the arm's path left in `name`: now the value.
    tail = "    for name in order(name):\n        print(name)\n"
    source = _ONE + tail
    twin = _ONE + tail.replace("order(name)", "order(seen)")
    _left_to_a_person(source, twin)


def test_a_function_that_reads_its_frame_is_left() -> None:
    source = _ONE + "    print(locals())\n"
    twin = _ONE + "    print(seen)\n"
    _left_to_a_person(source, twin)


def test_a_name_bound_where_the_swap_does_not_look_is_left() -> None:
    # `except ... as name` is a string in the tree: the arm and the loop's body compare
    # equal with the name swapped, yet bind it in different places.
    source = _ONE.replace(
        "seen.add(names)",
        "try:\n            seen.add(names)\n        except KeyError as name:\n            pass",
    ).replace(
        "seen.add(name)\n",
        "try:\n                seen.add(name)\n            except KeyError as name:\n"
        "                pass\n",
    )
    twin = source.replace("as name", "as error")
    _left_to_a_person(source, twin)


def test_the_loop_keeps_its_comments_and_its_strings_lines() -> None:
    # Only the arm and the `else:` go: a comment in the loop moves out with its line,
    # and a line inside a string keeps its text (its indentation is the string's).
    check(
        '''
        def add(seen, names):
            if isinstance(names, str):
                seen.add(names, """one
            two""")
            else:
                for name in names:  # each
                    seen.add(name, """one
            two""")
        ''',
        '''
        def add(seen, names):
            if isinstance(names, str):
                names = [names]
            for name in names:  # each
                seen.add(name, """one
            two""")
        ''',
        safe=True,
    )
