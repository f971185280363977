"""Copies: a block or a function the file writes twice.

Each detector on the smallest code that shows its shape, and on the code that looks
like it but is not (a move must be true of the code it is about). Where a move claims
points off radon's complexity, the test writes the rewrite the move describes and
measures both versions with radon: the claim is the difference.
"""

from __future__ import annotations

import ast
import textwrap

import pytest

from gzguide.analysis.engine import analyze_bytes
from gzguide.analysis.facts.twins import differences
from gzguide.analysis.moves.kinds import Kind
from gzguide.analysis.policy.thresholds import default_thresholds
from support.moves import hints, kinds, moves


def test_a_block_written_twice_is_one_helper_for_both() -> None:
    source = """
    class Parser:
        def set(self, section, option, value):
            if option is None:
                log(option)
            if not section or section == self.default:
                sectdict = self._defaults
            else:
                try:
                    sectdict = self._sections[section]
                except KeyError:
                    raise NoSectionError(section) from None
            sectdict[self.xform(option)] = value
            self.changed = True
            self.notify(section)
            self.count += 1

        def remove(self, section, option):
            if option is None:
                log(option)
            if not section or section == self.default:
                sectdict = self._defaults
            else:
                try:
                    sectdict = self._sections[section]
                except KeyError:
                    raise NoSectionError(section) from None
            existed = option in sectdict
            self.changed = True
            self.notify(section)
            self.count += 1
            return existed
    """
    found = {f.start_line: f.move for f in hints(source, "radon_cc")}
    assert found[3].startswith(
        "Lines 6-12 (the `if`/`else`) repeat lines 21-27 (in `remove`) word for"
    )
    assert "one helper that takes `section` and returns `sectdict` can serve both" in found[3]
    assert "repeat lines 6-12 (in `set`)" in found[18]


def test_copies_differing_in_more_than_two_places_are_not_twins() -> None:
    def loop(name: str, attr: str, value: int) -> ast.AST:
        return ast.parse(f"for {name} in xs:\n    if {name}.{attr}:\n        f({value})\n").body[0]

    assert differences(loop("x", "a", 1), loop("x", "a", 1)) == set()
    assert differences(loop("x", "a", 1), loop("x", "a", 2)) == {("1", "2")}
    assert differences(loop("x", "a", 1), loop("y", "b", 2)) is None


#: Two methods that differ only in the header they read and the prefix they build.
AUTH = """
class Opener:
    def on_401(self, url, headers, retry=False):
        if "www-authenticate" not in headers:
            return self.default(url)
        scheme, realm = parse(headers["www-authenticate"])
        if scheme.lower() != "basic" or not retry:
            return self.default(url)
        return getattr(self, "retry_" + self.type)(url, realm)

    def on_407(self, url, headers, retry=False):
        if "proxy-authenticate" not in headers:
            return self.default(url)
        scheme, realm = parse(headers["proxy-authenticate"])
        if scheme.lower() != "basic" or not retry:
            return self.default(url)
        return getattr(self, "retry_proxy_" + self.type)(url, realm)
"""


def test_a_function_written_twice_is_one_helper_taking_what_differs() -> None:
    assert {f.kind for f in hints(AUTH, "radon_cc")} == {Kind.COPIED_FUNCTION}
    found = {f.start_line: f.move for f in hints(AUTH, "radon_cc")}
    assert found[3] == (
        "`on_407` (lines 11-17) is this method but for `'proxy-authenticate'` and "
        "`'retry_proxy_'` (here `'www-authenticate'`, `'retry_'`): one helper taking "
        "them as parameters can serve both."
    )
    assert found[11].startswith("`on_401` (lines 3-9) is this method but for `'www-authenticate'`")


def test_a_copy_word_for_word_in_a_sibling_class_belongs_in_a_class_they_share() -> None:
    source = AUTH.replace("proxy-authenticate", "www-authenticate").replace(
        "retry_proxy_", "retry_"
    )
    split = source.replace("    def on_407", "class Other:\n    def on_407")
    same = {f.start_line: f.move for f in hints(source, "radon_cc")}
    assert same[3] == (
        "`on_407` (lines 11-17) is this method word for word: keep one and have the other call it."
    )
    apart = {f.start_line: f.move for f in hints(split, "radon_cc")}
    assert apart[3] == (
        "`Other.on_407` (lines 12-18) is this method word for word: "
        "one definition in a base class for both can serve them."
    )
    based = split.replace("class Opener:", "class Opener(Handler):").replace(
        "class Other:", "class Other(Handler):"
    )
    base = "\n\nclass Handler:\n    def close(self):\n        pass\n"
    shared = {f.start_line: f.move for f in hints(based + base, "radon_cc")}
    assert shared[3] == (
        "`Other.on_407` (lines 12-18) is this method word for word: "
        "one definition in `Handler`, which both extend, can serve both."
    )
    # Not where the base has one already, or another class extending it would inherit
    # the copy (the seventh fresh review's pyparsing `Or` and `MatchFirst`, whose base
    # `ParseExpression` has its own `_setResultsName`, also inherited by `And`: wrong),
    # nor where the base is not in the file to tell.
    one_name = based.replace("def on_401", "def on_407")
    assert {f.start_line: f.move for f in hints(one_name + base, "radon_cc")}[3].endswith(
        "one definition in `Handler`, which both extend, can serve both."
    )
    elsewhere = "\n\nclass Third(Handler):\n    def close(self):\n        pass\n"
    for other in (base.replace("def close", "def on_407"), base + elsewhere, ""):
        apart = {f.start_line: f.move for f in hints(one_name + other, "radon_cc")}
        assert apart[3].endswith("one definition in a base class for both can serve them.")


#: One method in two classes, each calling ``{a}`` and ``{b}`` (its own counterpart).
PARALLEL = """
class V4Interface:
    def equal(self, other):
        same = {a}.equal(self, other)
        if same is NotImplemented or not same:
            return same
        try:
            return self.network == other.network
        except AttributeError:
            return False


class V6Interface:
    def equal(self, other):
        same = {b}.equal(self, other)
        if same is NotImplemented or not same:
            return same
        try:
            return self.network == other.network
        except AttributeError:
            return False
"""


def test_methods_of_parallel_classes_that_name_their_own_counterparts_are_no_copies() -> None:
    other = PARALLEL.format(a="V4Address", b="Fallback")
    assert Kind.COPIED_FUNCTION in kinds(other)  # a value a caller could pass
    assert Kind.COPIED_FUNCTION not in kinds(PARALLEL.format(a="V4Address", b="V6Address"))


#: An initializer that only stores what it is given, in two classes.
#: An initializer that only stores what it is given (and fills in a default).
STORING_INIT = """    def __init__(self, a, b):
        self.a = a
        self.b = b
        self.c = [a]
        self.d = [b]
        self.e = (a, b)
        self.pair = [a, b]
        self.rest = (b, a)
        self.names = {"a": a, "b": b}
        self.count = 0
        self.seen = set()
        self.keys = list(self.names)
        self.more = None
        self.last = None
        self.first = None
        self.size = len(self.keys)
        if a is None:
            self.a = {}
        self.hits = 0
        self.misses = 0
        self.notes = []
        self.tags = set()
"""


def stores(one: str, two: str) -> str:
    """That initializer in two classes, ``one`` and ``two``."""
    return f"\nclass {one}:\n{STORING_INIT}\n\nclass {two}:\n{STORING_INIT}"


def test_initializers_that_only_store_in_unrelated_classes_are_no_copies() -> None:
    def shown(source: str) -> list[str]:  # their size is in the default band
        return [f.kind for f in analyze_bytes(source.encode(), default_thresholds()).findings]

    assert Kind.COPIED_FUNCTION in shown(stores("One(Base)", "Two(Base)"))
    assert Kind.COPIED_FUNCTION not in shown(stores("One", "Two"))


#: ``first`` and ``second`` of one shape: the first reads ``{a}``, the second ``{b}``.
PAIR = """
def first(rows, key):
    for row in rows:
        if {a}:
            return row
    log(rows, key)
    return None

def second(rows, key):
    for row in rows:
        if {b}:
            return row
    log(rows, key)
    return None
"""


@pytest.mark.parametrize(
    ("a", "b", "named"),
    [
        ("match(row, key)", "match(row, KEY)", True),  # a global the helper can take
        ("row.name == key", "row.name == KEY", True),
        ("match(row, key)", "match(key, row)", False),  # two names change places
        ("match(row, key)", "match(row, rows)", False),  # another parameter stands in
        ("match(row, 1)", "match(row.parent, 1)", False),  # the loop's own variable
        ("row.name == key", "row.size == key", False),  # the same, an attribute of it
    ],
)
def test_a_copy_is_named_only_where_a_caller_could_pass_what_differs(
    a: str, b: str, named: bool
) -> None:
    given = " ".join(f.move for f in hints(PAIR.format(a=a, b=b), "radon_cc"))
    assert ("is this function" in given) is named, given


def test_alternative_definitions_of_one_name_are_no_copies() -> None:
    source = """
    if sys.platform == "win32":
        def home(env):
            if "HOME" in env:
                return env["HOME"]
            drive = env.get("HOMEDRIVE") or "C:"
            return drive + env.get("HOMEPATH", "")
    else:
        def home(env):
            if "HOME" in env:
                return env["HOME"]
            drive = env.get("XDG") or "/"
            return drive + env.get("USER", "")
    """
    assert "is this function" not in moves(source)


def test_a_copy_among_several_says_how_many_more() -> None:
    source = """
    class Path:
        def is_dir(self):
            try:
                return S_ISDIR(self.stat().st_mode)
            except OSError as e:
                if not ignore(e):
                    raise
                return False
    """
    body = textwrap.dedent(source)
    for name, test in (("is_file", "S_ISREG"), ("is_fifo", "S_ISFIFO"), ("is_socket", "S_ISSOCK")):
        body += (
            f"    def {name}(self):\n"
            "        try:\n"
            f"            return {test}(self.stat().st_mode)\n"
            "        except OSError as e:\n"
            "            if not ignore(e):\n"
            "                raise\n"
            "            return False\n"
        )
    found = {f.start_line: f.move for f in hints(body, "radon_cc")}
    assert found[3] == (
        "`is_file` (lines 10-16) is this method but for `S_ISREG` (here `S_ISDIR`), "
        "and 2 others copy it too: one helper taking parameters for what differs can serve all."
    )


def test_a_copy_in_a_subclass_is_dropped_for_the_inherited_one() -> None:
    source = AUTH.replace("proxy-authenticate", "www-authenticate").replace(
        "retry_proxy_", "retry_"
    )
    child = source.replace("    def on_407", "class Other(Opener):\n    def on_407")
    found = {f.start_line: f.move for f in hints(child, "radon_cc")}
    assert found[3] == (
        "`Other.on_407` (lines 12-18) is this method word for word: "
        "keep the one in `Opener`, which the other class extends, and make the other name "
        "refer to it."
    )
    same = child.replace("def on_407", "def on_401")
    assert {f.start_line: f.move for f in hints(same, "radon_cc")}[3].endswith(
        "which the other class extends, and drop the copy."
    )


def test_copies_that_declare_different_types_are_interfaces_of_their_own() -> None:
    body = "".join(f"    step{n}(items, strict)\n" for n in range(4))
    typed = f"""
def list_schema(items: Schema, strict: bool = False) -> ListSchema:
    if strict:
        check(items)
{body}    return build('list', items, strict)


def set_schema(items: Schema, strict: bool = False) -> SetSchema:
    if strict:
        check(items)
{body}    return build('set', items, strict)
"""
    assert Kind.COPIED_FUNCTION not in kinds(typed)
    plain = typed.replace("-> ListSchema", "-> Schema").replace("-> SetSchema", "-> Schema")
    assert Kind.COPIED_FUNCTION in kinds(plain)


def test_names_that_stand_for_each_other_in_one_place_only_are_no_rename() -> None:
    """``infer(v) for k, v`` beside ``infer(k) for k, v`` differs in one name, but there
    ``v`` is ``k`` and elsewhere ``v``: the two do different things (jedi's
    ``_dict_values`` and ``_dict_keys``). Locals renamed one for one throughout are."""
    values = """
    def values(self):
        items = self.items()
        found = []
        for k, v in items:
            found.append(self.context.infer(v))
        return Set(found)
    """
    keys = values.replace("def values", "def keys").replace("infer(v)", "infer(k)")
    renamed = values.replace("def values", "def other").replace("k, v", "a, b")
    renamed = renamed.replace("infer(v)", "infer(b)")
    assert Kind.COPIED_FUNCTION not in kinds(values + keys)
    assert Kind.COPIED_FUNCTION in kinds(values + renamed)
