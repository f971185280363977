"""The fixer of adjacent ``except`` clauses with the same body: the exact text after,
why it is safe only for builtin classes, radon's count measured again, and the shapes
left to a person (each beside the nearest shape that is fixed, so that the test shows
the one difference that declines it)."""

from __future__ import annotations

import ast
import textwrap

import pytest

from gzguide.analysis.facts.walk import view_of
from gzguide.analysis.fixes.edits import Fix, Source
from gzguide.analysis.fixes.handlers import same_handlers
from gzguide.analysis.moves.catalog import function_moves
from gzguide.analysis.moves.kinds import Kind
from support.moves import kinds
from unit.analysis.fixes.checks import check, offered


def declined(source: str, fixable: str) -> None:
    """``source`` has the move and no fix; ``fixable``, the same but for one thing, has
    one."""
    assert kinds(source) == ["same_handlers"]
    assert offered(source) == []
    assert [o.fix.kind for o in offered(fixable)] == ["same_handlers"]


def test_two_clauses_of_builtin_classes_are_one_tuple() -> None:
    # Safe: a builtin class's name gives that class, so evaluating it ahead of its turn
    # changes nothing; the types are matched in the same order, the same body runs.
    found = check(
        """
        def first(items, key):
            try:
                return items[key]
            except KeyError as e:  # missing
                log(e)
                return None
            except IndexError as e:
                log(e)
                return None
        """,
        """
        def first(items, key):
            try:
                return items[key]
            except (KeyError, IndexError) as e:  # missing
                log(e)
                return None
        """,
        safe=True,
    )
    assert found.summary == "Join the except clauses: radon_cc 3 -> 2"


def test_a_tuple_already_written_takes_the_other_types() -> None:
    check(
        """
        def number(text):
            try:
                return int(text)
            except (TypeError, ValueError):
                return 0
            except OverflowError:
                return 0
        """,
        """
        def number(text):
            try:
                return int(text)
            except (TypeError, ValueError, OverflowError):
                return 0
        """,
        safe=True,
    )


def test_a_parenthesized_type_keeps_one_pair_of_parentheses() -> None:
    check(
        """
        def number(text):
            try:
                return int(text)
            except (ValueError):
                pass
            except OverflowError: pass
            return 0
        """,
        """
        def number(text):
            try:
                return int(text)
            except (ValueError, OverflowError):
                pass
            return 0
        """,
        safe=True,
    )


@pytest.mark.parametrize(
    ("header", "types"),
    [
        # A dotted name is read only when the first class did not match, before.
        ("import socket", "socket.error"),
        # An imported name may hold a tuple of classes, which a tuple refuses.
        ("from errors import Failed", "Failed"),
        # A class of the module's own may be read before its class statement ran.
        ("class Failed(Exception): pass", "Failed"),
        # A star import may have rebound a builtin's name.
        ("from errors import *", "ConnectionError"),
    ],
)
def test_names_that_may_not_be_a_class_yet_are_unsafe(header: str, types: str) -> None:
    before = f"""
        {header}


        def fetch(url):
            try:
                return get(url)
            except OSError:
                return None
            except {types}:
                return None
        """
    after = f"""
        {header}


        def fetch(url):
            try:
                return get(url)
            except (OSError, {types}):
                return None
        """
    check(textwrap.dedent(before), textwrap.dedent(after), safe=False)


FIXABLE = """
def fetch(url):
    try:
        return get(url)
    except OSError:
        return None
    except ValueError:
        return None
"""


def test_a_name_the_module_assigns_is_left_to_a_person() -> None:
    # `Failed = (OSError, EOFError)` would be a tuple inside the tuple: a TypeError
    # for every exception, where `except Failed:` accepted it.
    declined(
        "Failed = (OSError, EOFError)\n" + FIXABLE.replace("ValueError", "Failed"),
        "class Failed(Exception): pass\n" + FIXABLE.replace("ValueError", "Failed"),
    )


def test_a_rebound_builtin_is_left_to_a_person() -> None:
    declined("ValueError = (KeyError, IndexError)\n" + FIXABLE, FIXABLE)


def test_a_call_for_the_types_is_left_to_a_person() -> None:
    # The call would run for every exception, not only those OSError lets through.
    declined(FIXABLE.replace("except ValueError", "except errors()"), FIXABLE)


def test_a_comment_on_the_lines_that_go_is_left_to_a_person() -> None:
    declined(FIXABLE.replace("except ValueError:", "except ValueError:  # bad url"), FIXABLE)


def test_types_over_several_lines_are_left_to_a_person() -> None:
    spread = FIXABLE.replace("except ValueError:", "except (ValueError,\n            EOFError):")
    declined(spread, FIXABLE.replace("except ValueError:", "except (ValueError, EOFError):"))


def test_except_star_clauses_are_left_to_a_person() -> None:
    # Each except* clause runs for its part of a group: two run the body twice where a
    # tuple runs it once. (Radon counts no except* clause, so no hint of the corpus's
    # bands gives this move: the fixer is asked of the move itself.)
    source = """
    def fetch(url, seen):
        try:
            return get(url)
        except* OSError:
            seen.append(url)
        except* ValueError:
            seen.append(url)
    """
    assert _fix_of_move(source) is None
    assert _fix_of_move(source.replace("except*", "except")) is not None


def _fix_of_move(source: str) -> Fix | None:
    """The fix of the function's ``same_handlers`` move (there must be one)."""
    text = textwrap.dedent(source)
    tree = ast.parse(text)
    function = tree.body[0]
    assert isinstance(function, ast.FunctionDef)
    view = view_of(function)
    (move,) = (m for m in function_moves(view) if m.kind is Kind.SAME_HANDLERS)
    return same_handlers(move, view, Source(text, tree))
