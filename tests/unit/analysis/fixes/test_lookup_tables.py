"""The fixer of a chain that maps values to values: the exact text after (a module
table of literals, or a dict written in place where a key or value is a name), why it
is never safe, radon's count measured again, and the shapes left to a person (each
beside the nearest shape that is fixed, so that the test shows the one difference
that declines it)."""

from __future__ import annotations

import textwrap

from radon.complexity import ComplexityVisitor

from support.moves import kinds
from unit.analysis.fixes.checks import check, fixed, offered

# Every fix here is unsafe: a dict finds keys by hash, so 1, 1.0 and True are one key,
# a subject that cannot be hashed raises TypeError, and a class may define __eq__ and
# __hash__ apart.


def declined(source: str, fixable: str) -> None:
    """``source`` has the move and no fix; ``fixable``, the same but for one thing, has
    one."""
    assert kinds(source) == ["dict_lookup"]
    assert offered(source) == []
    assert [o.fix.kind for o in offered(fixable)] == ["dict_lookup"]


def test_returns_of_literals_are_a_module_table_and_its_get() -> None:
    # The return after the chain is the default, and goes with it.
    found = check(
        """
        import math


        # The English ordinal suffix.
        def suffix(n):
            if n == 1:
                return "st"
            elif n == 2:
                return "nd"
            elif n == 3:
                return "rd"
            return "th"
        """,
        """
        import math


        _SUFFIX_BY_N = {1: "st", 2: "nd", 3: "rd"}


        # The English ordinal suffix.
        def suffix(n):
            return _SUFFIX_BY_N.get(n, "th")
        """,
        safe=False,
    )
    assert found.summary == "Look the value up in a dict: radon_cc 4 -> 1"


def test_a_method_s_table_goes_before_its_class_and_an_else_is_the_default() -> None:
    # (check() measures a top-level function: a method's figures are read here.)
    before = """
    @register
    class Symbol:
        def get_kind(self):
            if self.type == "m":
                return "module"
            elif self.type == "f" or self.type == "l":
                return "function"
            elif self.type in ("c", "k"):
                return "class"
            else:
                return None
    """
    after = """
    _KIND_BY_TYPE = {
        "m": "module",
        "f": "function",
        "l": "function",
        "c": "class",
        "k": "class",
    }


    @register
    class Symbol:
        def get_kind(self):
            return _KIND_BY_TYPE.get(self.type)
    """
    (found,) = offered(before)
    assert not found.fix.safe
    assert found.summary == "Look the value up in a dict: radon_cc 5 -> 1"
    assert fixed(before, unsafe=True) == textwrap.dedent(after)
    assert [_method_cc(before), _method_cc(after)] == [5, 1]


def _method_cc(source: str) -> int:
    value: int = (
        ComplexityVisitor.from_code(textwrap.dedent(source)).classes[0].methods[0].complexity
    )
    return value


def test_assignments_with_an_else_are_one_assignment() -> None:
    check(
        """
        def level(name):
            if name == "debug":
                number = 10
            elif name == "info":
                number = 20
            elif name == "error":
                number = -40
            else:
                number = 0
            return number
        """,
        """
        _NUMBER_BY_NAME = {"debug": 10, "info": 20, "error": -40}


        def level(name):
            number = _NUMBER_BY_NAME.get(name, 0)
            return number
        """,
        safe=False,
    )


def test_a_subject_assigned_a_new_value_keeps_its_own_otherwise() -> None:
    # Where no arm matches, `letter` keeps its value: the default is the subject. The
    # table is written an entry a line, as it would not fit on one.
    check(
        """
        def normalized(letter):
            if letter == "alpha":
                letter = "a"
            elif letter == "beta":
                letter = "b"
            elif letter in ["c", "pre", "preview"]:
                letter = "rc"
            elif letter in ["rev", "r"]:
                letter = "post"
            return letter
        """,
        """
        _LETTER_REPLACEMENTS = {
            "alpha": "a",
            "beta": "b",
            "c": "rc",
            "pre": "rc",
            "preview": "rc",
            "rev": "post",
            "r": "post",
        }


        def normalized(letter):
            letter = _LETTER_REPLACEMENTS.get(letter, letter)
            return letter
        """,
        safe=False,
    )


def test_values_that_read_locals_are_a_dict_in_place() -> None:
    # A module table would read v, t and p where they are not bound; a ladder that ends
    # the function gives None where no arm matches.
    check(
        """
        def rgb(i, v, t, p):
            i = i % 3
            if i == 0:
                return v, t, p
            if i == 1:
                return t, v, p
            if i == 2:
                return p, v, t
        """,
        """
        def rgb(i, v, t, p):
            i = i % 3
            return {0: (v, t, p), 1: (t, v, p), 2: (p, v, t)}.get(i)
        """,
        safe=False,
    )


def test_keys_held_in_names_are_a_dict_in_place_an_entry_a_line() -> None:
    # OPTIONAL and the others may be bound after the function, or rebound: read where
    # the chain read them.
    check(
        """
        def pattern(nargs):
            if nargs == OPTIONAL:
                return "(-*A?-*)"
            elif nargs == ZERO_OR_MORE:
                return "(-*[A-]*)"
            elif nargs == ONE_OR_MORE:
                return "(-*A[A-]*)"
            elif nargs == consts.REMAINDER:
                return "([-AO]*)"
            return None
        """,
        """
        def pattern(nargs):
            return {
                OPTIONAL: "(-*A?-*)",
                ZERO_OR_MORE: "(-*[A-]*)",
                ONE_OR_MORE: "(-*A[A-]*)",
                consts.REMAINDER: "([-AO]*)",
            }.get(nargs)
        """,
        safe=False,
    )


SUFFIX = """
def suffix(n):
    if n == 1:
        return "st"
    elif n == 2:
        return "nd"
    elif n == 3:
        return "rd"
    return "th"
"""


def test_keys_a_dict_would_make_one_are_left_to_a_person() -> None:
    # 1.0 == 1: the chain gives "st" for both, a dict keeps the last value given.
    declined(SUFFIX.replace("n == 3", "n == 1.0"), SUFFIX)
    declined(SUFFIX.replace("n == 3", "n in (3, 2)"), SUFFIX.replace("n == 3", "n in (3, 4)"))


def test_a_table_name_the_module_uses_is_left_to_a_person() -> None:
    declined("_SUFFIX_BY_N = None\n" + SUFFIX, SUFFIX)
    declined("def f():\n    return _SUFFIX_BY_N\n" + SUFFIX, SUFFIX)


def test_more_code_after_the_chain_is_left_to_a_person() -> None:
    # Where no arm matches the code goes on: a lookup cannot say that without a test.
    declined(
        SUFFIX.replace('return "th"', 'log(n)\n    return "th"'),
        SUFFIX,
    )


def test_an_arm_testing_something_else_is_left_to_a_person() -> None:
    tested = SUFFIX.replace('return "th"', 'elif n > 20:\n        return "x"\n    return "th"')
    keyed = SUFFIX.replace('return "th"', 'elif n == 20:\n        return "x"\n    return "th"')
    declined(tested, keyed)


def test_a_comment_in_the_chain_is_left_to_a_person() -> None:
    declined(SUFFIX.replace('return "nd"', 'return "nd"  # second'), SUFFIX)


LEVEL = """
def level(name):
    number = 0
    if name == "debug":
        number = 10
    elif name == "info":
        number = 20
    elif name == "error":
        number = 40
    else:
        number = 0
    return number
"""


def test_assignments_without_an_else_to_another_name_are_left_to_a_person() -> None:
    # Where no arm matches, `number` keeps a value the chain does not show.
    declined(LEVEL.replace("    else:\n        number = 0\n", ""), LEVEL)


def test_a_table_in_a_file_of_crlf_lines_breaks_its_lines_so() -> None:
    before = LEVEL.replace("    number = 0\n", "", 1).replace("\n", "\r\n")
    text = fixed(before, unsafe=True)
    assert text.count("\r\n") == text.count("\n")
    assert '_NUMBER_BY_NAME = {"debug": 10, "info": 20, "error": 40}\r\n\r\n\r\ndef' in text
