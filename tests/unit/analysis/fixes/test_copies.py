"""The fixer of a function another function of the file copies: the exact text after
(the second copy calls the first, or one helper serves both), radon's count measured
again (each copy 1, the helper the first copy's), and the copies it leaves for a
person, each beside the nearest one it fixes.

Every fix of this kind is unsafe: a call goes through one more frame (tracebacks,
``warnings.warn``'s ``stacklevel``, the recursion limit), and the function it calls is
looked up when the copy runs (patched, or overridden in a subclass).
"""

from __future__ import annotations

import textwrap

import pytest

from gzguide.analysis.engine import measure
from gzguide.analysis.facts.parsed import parse_module
from gzguide.analysis.fixes.planner import Offered
from gzguide.analysis.fixes.verify import CopyPromise, Values, definition_values, verify
from support.moves import kinds, radon_of
from unit.analysis.fixes.checks import fixed, offered

KIND = "copied_function"


def copy_fixes(source: str) -> list[Offered]:
    return [o for o in offered(source) if o.fix.kind == KIND]


def check(before: str, after: str) -> list[Offered]:
    """Both copies' hints offer the one unsafe fix, which gives ``after`` exactly."""
    found = copy_fixes(before)
    assert len(found) == 2
    assert {o.fix for o in found} == {found[0].fix}
    assert not found[0].fix.safe
    assert fixed(before, unsafe=True) == textwrap.dedent(after)
    return found


def test_a_word_for_word_function_calls_the_first_copy() -> None:
    # Its decorator and docstring stay; a parameter of its own name is passed in its
    # place, and the local named apart is the first's in the body that runs.
    before = """
        import functools


        def total(items, tax):
            sum_ = 0
            for item in items:
                sum_ += item.price
            return sum_ * tax


        @functools.cache
        def grand_total(items, rate):
            \"\"\"The total of the lines.\"\"\"
            acc = 0
            for item in items:
                acc += item.price
            return acc * rate
        """
    after = """
        import functools


        def total(items, tax):
            sum_ = 0
            for item in items:
                sum_ += item.price
            return sum_ * tax


        @functools.cache
        def grand_total(items, rate):
            \"\"\"The total of the lines.\"\"\"
            return total(items, rate)
        """
    found = check(before, after)
    assert found[0].summary == "Make `grand_total` call `total`: radon_cc 2 -> 1"
    assert radon_of(before) == {"total": 2, "grand_total": 2}
    assert radon_of(after) == {"total": 2, "grand_total": 1}


def test_a_word_for_word_method_calls_the_first_on_its_instance() -> None:
    # *rest and **options passed on, the keyword-only flag by keyword: the default of
    # the second (True) still applies, since the call passes what it received.
    before = """
        class Store:
            def load(self, key, *rest, strict=False, **options):
                found = self.table.get(key)
                if found is None and strict:
                    raise KeyError(key)
                return self.wrap(found, rest, options)

            def fetch(self, key, *rest, strict=True, **options):
                \"\"\"Fetch, strict unless told.\"\"\"
                found = self.table.get(key)
                if found is None and strict:
                    raise KeyError(key)
                return self.wrap(found, rest, options)
        """
    after = """
        class Store:
            def load(self, key, *rest, strict=False, **options):
                found = self.table.get(key)
                if found is None and strict:
                    raise KeyError(key)
                return self.wrap(found, rest, options)

            def fetch(self, key, *rest, strict=True, **options):
                \"\"\"Fetch, strict unless told.\"\"\"
                return self.load(key, *rest, strict=strict, **options)
        """
    check(before, after)
    assert radon_of(before) == {"Store.load": 3, "Store.fetch": 3}
    assert radon_of(after) == {"Store.load": 3, "Store.fetch": 1}


def test_methods_differing_in_one_value_share_a_helper_method() -> None:
    # The helper, named for the words the two names share, goes before the first copy,
    # so that it is defined before anything could call either.
    before = """
        class Opener:
            def retry_http(self, url, realm):
                host = self.auth_host(url, realm)
                if host is None:
                    return None
                return self.open("http://" + host)

            def retry_https(self, url, realm):
                host = self.auth_host(url, realm)
                if host is None:
                    return None
                return self.open("https://" + host)
        """
    after = """
        class Opener:
            def _retry(self, url, realm, text):
                host = self.auth_host(url, realm)
                if host is None:
                    return None
                return self.open(text + host)

            def retry_http(self, url, realm):
                return self._retry(url, realm, "http://")

            def retry_https(self, url, realm):
                return self._retry(url, realm, "https://")
        """
    found = check(before, after)
    assert found[0].summary == "Share one helper, `_retry`: radon_cc 2 -> 1"
    assert radon_of(after) == {"Opener._retry": 2, "Opener.retry_http": 1, "Opener.retry_https": 1}


def test_functions_differing_in_two_values_share_a_typed_helper() -> None:
    # Annotated copies get annotated parameters; a value passed by keyword names its
    # parameter; where it is written the same in both (`0` below) it stays a literal.
    before = """
        def nonnegative(argument: str) -> int:
            \"\"\"A number, zero or more.\"\"\"
            value = int(argument, base=10)
            if value < 0:
                raise ValueError("negative")
            return value


        def positive(argument: str) -> int:
            value = int(argument, base=16)
            if value < 0:
                raise ValueError("not positive")
            return value
        """
    after = """
        def _nonnegative_or_positive(argument: str, base: int, text: str) -> int:
            value = int(argument, base=base)
            if value < 0:
                raise ValueError(text)
            return value


        def nonnegative(argument: str) -> int:
            \"\"\"A number, zero or more.\"\"\"
            return _nonnegative_or_positive(argument, 10, "negative")


        def positive(argument: str) -> int:
            return _nonnegative_or_positive(argument, 16, "not positive")
        """
    check(before, after)
    assert radon_of(after) == {"_nonnegative_or_positive": 2, "nonnegative": 1, "positive": 1}


def test_class_methods_share_a_class_method_helper() -> None:
    before = """
        class Reader:
            @classmethod
            def from_text(cls, data):
                parts = data.split(",")
                if not parts:
                    raise ValueError(data)
                return cls(parts, 1)

            @classmethod
            def from_line(cls, data):
                parts = data.split(",")
                if not parts:
                    raise ValueError(data)
                return cls(parts, 2)
        """
    after = """
        class Reader:
            @classmethod
            def _from(cls, data, number):
                parts = data.split(",")
                if not parts:
                    raise ValueError(data)
                return cls(parts, number)

            @classmethod
            def from_text(cls, data):
                return cls._from(data, 1)

            @classmethod
            def from_line(cls, data):
                return cls._from(data, 2)
        """
    check(before, after)


FUNCTIONS = """
def first(a, b):
    x = a.get(b)
    if x is None:
        return 0
    return x + 1


def second(a, b):
    x = a.get(b)
    if x is None:
        return 0
    return x + 1
"""

METHODS = """
class Table:
    def first(self, key):
        found = self.rows.get(key)
        if found is None:
            return 0
        return found + 1

    def second(self, key):
        found = self.rows.get(key)
        if found is None:
            return 0
        return found + 1
"""

KWARGS = FUNCTIONS.replace("(a, b)", "(a, b, **kw)")


def _last(text: str, old: str, new: str) -> str:
    head, found, tail = text.rpartition(old)
    assert found
    return head + new + tail


#: Copies left for a person, each as a change of code the fixer does fix.
LEFT: list[tuple[str, str]] = [
    # word for word, the first decorated: calling it is not running its body
    (FUNCTIONS, FUNCTIONS.replace("def first", "@register\ndef first")),
    # the first's name is bound again: the copy would call whatever it holds then
    (FUNCTIONS, FUNCTIONS + "\n\nfirst = traced(first)\n"),
    # a family of three is left for a person
    (FUNCTIONS, FUNCTIONS + FUNCTIONS.split("\n\n\n")[1].replace("second", "third")),
    # parameters that change places do different things
    (FUNCTIONS, FUNCTIONS.replace("def second(a, b)", "def second(b, a)")),
    # a differing global or dotted name, not a constant
    (_last(FUNCTIONS, "x + 1", "x + 2"), _last(FUNCTIONS, "x + 1", "x + ONE")),
    (FUNCTIONS, _last(FUNCTIONS, "a.get(b)", "a.find(b)")),
    # a constant in an f-string
    (
        _last(FUNCTIONS.replace("x + 1", "str(x) + '+1'"), "+1", "+2"),
        _last(FUNCTIONS.replace("x + 1", "f'{x}+1'"), "+1", "+2"),
    ),
    # what reads the frame, or binds outside
    (FUNCTIONS, FUNCTIONS.replace("a.get(b)", "locals().get(b)")),
    (FUNCTIONS, FUNCTIONS.replace("a.get(b)", "sys._getframe().f_locals.get(b)")),
    (FUNCTIONS, FUNCTIONS.replace("    x = a.get(b)", "    global x\n    x = a.get(b)")),
    (METHODS, METHODS.replace("self.rows.get", "super().get")),
    # async, and a match whose patterns a parameter would capture
    (FUNCTIONS, FUNCTIONS.replace("def ", "async def ")),
    (
        FUNCTIONS,
        FUNCTIONS.replace(
            "    if x is None:\n        return 0",
            "    match x:\n        case None:\n            return 0",
        ),
    ),
    # a comment only the second has would be lost
    (FUNCTIONS, _last(FUNCTIONS, "x + 1", "x + 1  # one more")),
    # with **kwargs, parameters of other names (a keyword of the first's could be in it)
    (KWARGS, _last(KWARGS, "(a, b, **kw):\n    x = a.get", "(c, b, **kw):\n    x = c.get")),
    # methods of two classes, a static method, a method of another decorator
    (METHODS, METHODS.replace("    def second", "class Other:\n    def second")),
    (METHODS, METHODS.replace("    def ", "    @staticmethod\n    def ")),
    (METHODS, METHODS.replace("    def ", "    @validator('key')\n    def ")),
]


@pytest.mark.parametrize(("fixed_one", "left"), LEFT)
def test_copies_that_cannot_be_made_one_exactly_are_left(fixed_one: str, left: str) -> None:
    assert copy_fixes(fixed_one)
    assert KIND in kinds(left)
    assert not copy_fixes(left)


def _values(text: str) -> Values:
    module = parse_module(text.encode())
    assert module is not None
    return definition_values(measure(module))


OTHER = "\n\ndef other(x):\n    return x\n"
#: The word for word fix of FUNCTIONS, and one with a helper of the first's body.
CALLED = _last(
    FUNCTIONS,
    "x = a.get(b)\n    if x is None:\n        return 0\n    return x + 1",
    "return first(a, b)",
)
HELPED = (
    "def _helper(a, b, number):\n    x = a.get(b)\n    if x is None:\n        return 0\n"
    "    return x + number\n\n\n"
    + CALLED.replace(
        "x = a.get(b)\n    if x is None:\n        return 0\n    return x + 1",
        "return _helper(a, b, 1)",
    ).replace("return first(a, b)", "return _helper(a, b, 1)")
)


@pytest.mark.parametrize(
    ("edited", "kept"),
    [
        (CALLED + OTHER, True),
        (HELPED + OTHER, True),
        # another definition changed
        (CALLED + OTHER.replace("return x", "return x or 0"), False),
        # the copy not a plain call
        (CALLED.replace("return first(a, b)", "return first(a, b) if a else 0") + OTHER, False),
        # word for word, but the first changed too
        (CALLED.replace("return x + 1", "return x + 2 if b else 1") + OTHER, False),
        # the helper not the first's body (one branch fewer), or no parameter more
        (
            HELPED.replace(
                "    if x is None:\n        return 0\n    return x + number",
                "    return x + number",
                1,
            )
            + OTHER,
            False,
        ),
        (HELPED.replace(", number)", ")").replace(", 1)", ")") + OTHER, False),
        # a second new definition
        (HELPED + OTHER + "\n\ndef more():\n    pass\n", False),
    ],
)
def test_the_verifier_holds_a_copy_fix_to_its_promise(edited: str, kept: bool) -> None:
    promise = CopyPromise(("first", 0), ("second", 0), None)
    assert (verify(_values(FUNCTIONS + OTHER), edited, promise) is not None) is kept
