"""Loop moves: search loops, fill loops, loop else, walrus loops, membership loops.

Each detector on the smallest code that shows its shape, and on the code that looks
like it but is not (a move must be true of the code it is about). Where a move claims
points off radon's complexity, the test writes the rewrite the move describes and
measures both versions with radon: the claim is the difference.
"""

from __future__ import annotations

import textwrap

import pytest
from radon.visitors import ComplexityVisitor

from gzguide.analysis.moves.kinds import Kind
from support.moves import kinds, move, moves, radon

SEARCH = """
def has_admin(users):
    for user in users:
        if user.is_admin:
            return True
    return False
"""


def test_a_search_loop_is_any() -> None:
    f = move(SEARCH)
    assert f.kind == Kind.ANY
    assert "`return any(user.is_admin for user in users)`" in f.move
    assert "lines 3-5" in f.move
    after = "def has_admin(users):\n    return any(user.is_admin for user in users)\n"
    assert radon(SEARCH) - radon(after) == 1


@pytest.mark.parametrize(
    "comment",
    [
        "    for user in users:  # Explicit loop for performance reasons.\n",
        "    # a plain loop: faster than any() on two items\n    for user in users:\n",
        "    for user in users:\n        # hot path\n",
    ],
)
def test_a_loop_a_comment_says_is_written_for_speed_is_no_generator(comment: str) -> None:
    """any() over a generator runs slower than a plain loop on a few items: a loop its
    comment says is written for speed stays (a fresh review's babel
    ``Message.python_format``, judged wrong)."""
    tuned = SEARCH.replace("    for user in users:\n", comment)
    assert Kind.ANY not in kinds(tuned)
    elsewhere = "# performance matters in this module\n" + SEARCH
    assert Kind.ANY in kinds(elsewhere)


def test_a_search_for_the_first_match_is_next() -> None:
    source = """
    def first_admin(users, bad):
        if bad:
            raise ValueError(bad)
        for user in users:
            if user.is_admin:
                return user
        return None
    """
    f = move(source)
    assert f.kind == Kind.NEXT
    assert "next((user for user in users if user.is_admin), None)" in f.move
    # A `return next(...)` past a line of 88 reads worse than the loop (the seventh and
    # eighth fresh reviews: traitlets' `select_by_number`, cpuinfo's `_to_friendly_bytes`).
    long = source.replace(
        "user.is_admin", "user.is_admin_of(the_organisation_of_the_current_request)"
    )
    assert Kind.NEXT not in kinds(long)


def test_a_loop_that_does_more_than_search_is_not_any() -> None:
    source = """
    def audit(users, log):
        for user in users:
            log.append(user)
            if user.is_admin:
                return True
        return False
    """
    assert "any(" not in move(source).move


def test_a_fill_loop_is_a_comprehension() -> None:
    source = """
    def names(users, active):
        found = []
        for user in users:
            if user.active == active:
                found.append(user.name)
        return found
    """
    f = move(source)
    assert f.kind == Kind.COMPREHENSION
    assert "`found = [user.name for user in users if user.active == active]`" in f.move


def test_a_loop_that_reads_what_it_fills_is_not_a_comprehension() -> None:
    source = """
    def unique(items, key):
        found = []
        for item in items:
            if item not in found:
                found.append(item)
        return found
    """
    assert "builds it in one step" not in move(source).move


def test_a_loop_that_breaks_on_an_equal_item_is_membership() -> None:
    source = """
    def port_ok(cookie, req_port):
        if cookie.port:
            for p in cookie.port.split(","):
                if p == req_port:
                    break
            else:
                warn(req_port)
                return False
        return True
    """
    rewritten = """
    def port_ok(cookie, req_port):
        if cookie.port:
            if req_port not in cookie.port.split(","):
                warn(req_port)
                return False
        return True
    """
    assert Kind.MEMBERSHIP_ELSE in kinds(source)
    assert (
        "The loop on line 4 only tests membership: `if req_port not in cookie.port.split(','):` "
        "with its `else` body (line 7) does the same, 2 points less."
    ) in moves(source)
    assert radon(source) - radon(rewritten) == 2
    # The loop's variable read after it: the loop is also an assignment.
    assert "membership" not in moves(source.replace("return True", "return p"))
    # ... or read in its `else` (the last item there: the fixers' helper found it).
    assert "membership" not in moves(source.replace("warn(req_port)", "warn(p)"))


#: A loop that reads a value and stops when there is none: a walrus loop.
READ_LOOP = """
    def copy(conn, callback, blocksize, rest):
        if rest is not None:
            conn.skip(rest)
        while 1:
            data = conn.recv(blocksize)
            if not data:
                break
            callback(data)
        return conn.close()
"""


def test_read_until_empty_is_a_walrus_loop() -> None:
    source = READ_LOOP
    rewritten = """
    def copy(conn, callback, blocksize, rest):
        if rest is not None:
            conn.skip(rest)
        while data := conn.recv(blocksize):
            callback(data)
        return conn.close()
    """
    assert Kind.WALRUS_LOOP in kinds(source)
    assert (
        "Lines 5-8 read a value and stop when there is none: "
        "`while data := conn.recv(blocksize):` does both, 1 point less."
    ) in moves(source)
    assert radon(source) - radon(rewritten) == 1
    none_ends = source.replace("if not data:", "if data is None:")
    assert "`while (data := conn.recv(blocksize)) is not None:`" in moves(none_ends)
    assert "walrus" not in moves(source.replace("if not data:", "if not data.ok:"))


@pytest.mark.parametrize(
    "says",
    [
        "import sys\nPY26 = sys.version_info[0] < 3\n",
        "import sys\nif sys.version_info < (3, 8):\n    pass\n",
        "from __future__ import print_function\n",
        "from six import PY2\n",
    ],
)
def test_no_new_syntax_in_a_module_that_runs_on_an_older_python(says: str) -> None:
    """An assignment expression is a SyntaxError before 3.8 (the seventh fresh review's
    distlib ``reader``, judged wrong: distlib still tests ``sys.version_info[0] < 3``)."""
    source = textwrap.dedent(READ_LOOP)
    assert Kind.WALRUS_LOOP in kinds(source)
    assert Kind.WALRUS_LOOP not in kinds(says + source)
    newer = "import sys\nif sys.version_info >= (3, 9):\n    pass\n"
    assert Kind.WALRUS_LOOP in kinds(newer + source)  # it runs below 3.9: on 3.8, say


def test_a_negated_search_reads_as_not_any_or_de_morgan() -> None:
    source = """
    def allowed(self, domain):
        if self.domains is None:
            return False
        for allowed in self.domains:
            if match(domain, allowed):
                return False
        return True
    """
    assert Kind.ALL in kinds(source)
    assert "`return not any(match(domain, allowed) for allowed in self.domains)`" in moves(source)
    plain = source.replace("match(domain, allowed)", "allowed.host == domain or allowed.any")
    assert "`return all(allowed.host != domain and (not allowed.any) for" not in moves(plain)
    assert "`return not any(allowed.host == domain or allowed.any for" in moves(plain)
    both = source.replace(
        "match(domain, allowed)", "allowed.host == domain or allowed.port is None"
    )
    assert "`return all(allowed.host != domain and allowed.port is not None for" in moves(both)


def test_a_loop_that_only_copies_is_the_constructor() -> None:
    source = """
    def merged(target, source):
        out = {}
        for func, caller in target.items():
            out[func] = caller
        for func, caller in source.items():
            if func in out:
                out[func] += caller
            else:
                out[func] = caller
        return out
    """
    assert "`out = dict(target)` builds it in one step, 1 point less." in moves(source)
    # the constructor has no `for`: the loop's point goes with it
    copied = source.replace(
        "out = {}\n        for func, caller in target.items():\n            out[func] = caller\n",
        "out = dict(target)\n",
    )
    assert radon(source) - radon(copied) == 1
    listed = """
    def names(target, extra):
        out = []
        for name in target:
            out.append(name)
        for name in extra:
            if name not in out:
                out.append(name)
            elif name.startswith("_"):
                out.remove(name)
        return out
    """
    assert "`out = list(target)` builds it in one step, 1 point less." in moves(listed)


def test_no_comprehension_for_a_loop_an_error_can_leave_half_done() -> None:
    source = """
    def read_quick(path):
        quick = None
        try:
            raw = load(path)
            quick = {}
            for name, (x, y) in raw.items():
                quick[name] = (x, y)
        except Exception as e:
            warn(e)
        return quick
    """
    assert "builds it in one step" not in moves(source)


def test_a_loop_else_with_no_break_always_runs() -> None:
    source = """
    def spec(value):
        out = Spec()
        for token in value:
            if token.kind == "a":
                out.append(token)
            elif token.kind == "b":
                out.extend(token)
        else:
            out.done()
        return out
    """
    f = move(source)
    assert f.kind == Kind.LOOP_ELSE
    assert f.move == (
        "The `for` loop on line 4 has no `break`, so its `else` (line 9) runs whenever the "
        "loop finishes, as code after it would: drop the `else:` and unindent its body, "
        "1 point less."
    )
    # The claim is exact: unindented, the function has one point less.
    flat = textwrap.dedent(source).replace("    else:\n        out.done()", "    out.done()")
    assert radon(flat) == radon(source) - 1


@pytest.mark.parametrize(
    "loop",
    [
        "for x in xs:\n        if x:\n            break",
        "while xs:\n        try:\n            xs.pop()\n"
        "        except IndexError:\n            break",
        "for x in xs:\n        for y in x:\n            pass\n        else:\n            break",
    ],
)
def test_a_loop_else_that_a_break_can_skip_is_left_alone(loop: str) -> None:
    source = f"""
def f(xs):
    {loop}
    else:
        g(xs)
    return xs
"""
    assert "loop on line 3 has no `break`" not in moves(source)


def test_a_break_of_a_nested_loop_does_not_skip_the_outer_else() -> None:
    source = """
    def f(xs):
        for x in xs:
            for y in x:
                if y:
                    break
        else:
            g(xs)
        return xs
    """
    assert "The `for` loop on line 3 has no `break`" in moves(source)


YIELD_EACH = """
def children(tree):
    for node in tree.children:
        yield node
"""


def test_a_loop_that_only_yields_each_item_is_yield_from() -> None:
    f = move(YIELD_EACH)
    assert f.kind == Kind.YIELD_FROM
    assert f.move == (
        "The loop at lines 3-4 only yields each item of `tree.children`: "
        "`yield from tree.children` says so, 1 point less."
    )
    after = "def children(tree):\n    yield from tree.children\n"
    assert radon(YIELD_EACH) - radon(after) == 1


@pytest.mark.parametrize(
    "source",
    [
        # `yield from` is a syntax error in an async generator
        YIELD_EACH.replace("def children", "async def children"),
        # the loop also sets its variable, which is read after it
        YIELD_EACH + "    print(node)\n",
        # what the yield hands back is used
        YIELD_EACH.replace("yield node", "sent = yield node"),
        # each item is unpacked (and checked to be a pair) before it is yielded
        YIELD_EACH.replace("node in", "a, b in").replace("yield node", "yield a, b"),
        YIELD_EACH.replace("yield node", "yield node.name"),
        YIELD_EACH + "    else:\n        yield None\n",
    ],
)
def test_a_loop_that_does_more_than_pass_items_on_is_not_yield_from(source: str) -> None:
    assert "yield from" not in moves(source)


def test_a_loop_variable_each_loop_binds_afresh_is_no_obstacle() -> None:
    source = YIELD_EACH + "    for node in tree.extra:\n        yield node\n"
    # Each loop reads only the value it bound itself.
    assert Kind.YIELD_FROM in kinds(source)


RUNNING_MIN = """
def smallest(xs):
    best = None
    for x in xs:
        if best is None or x < best:
            best = x
    return best
"""


def test_a_loop_that_keeps_a_running_minimum_is_min() -> None:
    f = move(RUNNING_MIN)
    assert f.kind == Kind.MIN_MAX
    assert f.move == (
        "Lines 3-6 keep a running minimum: `best = min(xs, default=None)` says so, 3 points less."
    )
    after = "def smallest(xs):\n    best = min(xs, default=None)\n    return best\n"
    assert radon(RUNNING_MIN) - radon(after) == 3


@pytest.mark.parametrize(
    ("test", "call"),
    [
        ("best < x", "max(xs, default=None)"),
        ("x > best", "max(xs, default=None)"),
        ("best > x", "min(xs, default=None)"),
        ("len(x) > len(best)", "max(xs, key=len, default=None)"),
        ("best.score > x.score", "min(xs, key=lambda x: x.score, default=None)"),
        # no `key=x.weight`: that function is the item's own, unset outside the lambda
        ("x.weight(x) < best.weight(best)", "min(xs, key=lambda x: x.weight(x), default=None)"),
    ],
)
def test_each_way_of_comparing_says_min_or_max(test: str, call: str) -> None:
    source = RUNNING_MIN.replace("x < best", test)
    assert f"`best = {call}`" in move(source).move
    after = f"def smallest(xs):\n    best = {call}\n    return best\n"
    assert radon(source) - radon(after) == 3


@pytest.mark.parametrize(
    "source",
    [
        # equal items: `<=` keeps the last of them, min() the first
        RUNNING_MIN.replace("x < best", "x <= best"),
        RUNNING_MIN.replace("best = None", "best = 0"),
        # the loop also sets its variable, which is read after it
        RUNNING_MIN.replace("return best", "return best, x"),
        RUNNING_MIN.replace("best = x", "best = x\n            print(x)"),
        RUNNING_MIN.replace("x < best", "x < limit").replace("(xs)", "(xs, limit)"),
        RUNNING_MIN.replace("x < best", "len(x) < len(best, x)"),
        RUNNING_MIN.replace("in xs", "in others(best)"),
    ],
)
def test_a_loop_that_is_not_only_a_running_minimum_is_not_min(source: str) -> None:
    assert Kind.MIN_MAX not in kinds(source)


def test_a_search_for_the_class_of_a_value_is_one_isinstance() -> None:
    source = """
    def is_handled(error, handled):
        for cls in handled:
            if isinstance(error, cls):
                return True
        return False
    """
    f = move(source)
    assert f.kind == Kind.ANY
    assert "`return isinstance(error, tuple(handled))` replaces it" in f.move
    literal = source.replace("in handled:", "in (KeyError, IndexError):")
    assert "`return isinstance(error, (KeyError, IndexError))`" in move(literal).move
    after = "def is_handled(error, handled):\n    return isinstance(error, tuple(handled))\n"
    assert radon(source) - ComplexityVisitor.from_code(after).functions[0].complexity == 2


def test_a_search_whose_fallback_does_work_is_no_next() -> None:
    source = """
    def best_match(self, req, env, installer=None):
        for dist in env[req.key]:
            if dist in req:
                return dist
        return self.obtain(req, installer)
    """
    assert Kind.NEXT not in kinds(source)  # next() would obtain() before it looked
    plain = source.replace("return self.obtain(req, installer)", "return self.missing")
    assert Kind.NEXT in kinds(plain)


def test_no_any_when_the_loop_variable_is_read_after_the_loop() -> None:
    """``any()`` binds no loop variable: the seventh fresh review's distlib
    ``is_string_sequence`` asserts on ``i`` after the loop (judged wrong)."""
    source = """
    def is_string_sequence(seq):
        result = True
        i = None
        for i, s in enumerate(seq):
            if not isinstance(s, string_types):
                result = False
                break
        assert i is not None
        return result
    """
    assert "any(" not in moves(source)
    assert "any(" in moves(source.replace("assert i is not None", "assert seq is not None"))
