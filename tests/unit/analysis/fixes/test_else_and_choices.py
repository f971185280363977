"""The fixers of an ``else`` after a branch that leaves, of ``a and b or c`` and of a
loop that only tests membership: the exact text after, why each is safe or not, and
radon's count measured again."""

from __future__ import annotations

from support.moves import kinds
from unit.analysis.fixes.checks import check, offered

#: Enough for an ``else`` worth moving out: ten lines of code, one of them a loop.
_WORK = """\
text = read(path)
parts = text.split()
for part in parts:
    cache.add(part)
cache.sort()
cache.reverse()
cache.log(text)
cache.log(parts)
cache.count(text)
cache.count(parts)
return parts"""


def _indented(text: str, prefix: str) -> str:
    return "\n".join(prefix + line for line in text.splitlines())


def test_an_else_after_a_return_moves_out_a_level() -> None:
    # Safe: the branch that returns never reaches what follows the if, so the else's
    # body runs just when it did.
    check(
        f"""
        def load(path, cache):
            if path in cache:
                return cache[path]
            else:
{_indented(_WORK, "                ")}
        """,
        f"""
        def load(path, cache):
            if path in cache:
                return cache[path]
{_indented(_WORK, "            ")}
        """,
        safe=True,
    )


def test_an_else_whose_line_holds_a_comment_is_left_to_a_person() -> None:
    source = f"""
    def load(path, cache):
        if path in cache:
            return cache[path]
        else:  # not read yet
{_indented(_WORK, "            ")}
    """
    assert kinds(source) == ["no_else"]
    assert offered(source) == []


def test_a_loop_that_only_tests_membership_is_not_in() -> None:
    # Unsafe: `in` asks the container (a str finds substrings), tests identity first,
    # and evaluates the value once where the loop did on every pass.
    check(
        """
        def port_ok(port, ports, log):
            for p in ports.split(','):
                if p == port:
                    break
            else:
                log(port)
                return False
            return True
        """,
        """
        def port_ok(port, ports, log):
            if port not in ports.split(','):
                log(port)
                return False
            return True
        """,
        safe=False,
    )


def test_an_else_that_reads_the_loop_variable_keeps_its_loop() -> None:
    # The else reads the last item, which `not in` would leave unset: no move, no fix.
    source = """
    def port_ok(port, ports, log):
        for p in ports:
            if port == p:
                break
        else:
            log(p)
            return False
        return True
    """
    assert "membership_else" not in kinds(source)
    assert offered(source) == []


def test_an_and_or_of_a_literal_is_a_conditional_expression() -> None:
    # Safe: the test's truth is asked once, as before, and a literal list is always
    # true; in a comprehension's filter, it needs parentheses.
    check(
        """
        def items(xs):
            return [x for x in xs if x.a and [x] or x.b]
        """,
        """
        def items(xs):
            return [x for x in xs if ([x] if x.a else x.b)]
        """,
        safe=True,
    )


def test_an_and_or_of_a_sum_is_unsafe() -> None:
    # Unsafe: a class of its own decides what `+` gives, which may be false.
    check(
        """
        def label(name):
            return name and name + ' = ' or ''
        """,
        """
        def label(name):
            return name + ' = ' if name else ''
        """,
        safe=False,
    )


def test_an_and_or_over_several_lines_is_left_to_a_person() -> None:
    source = """
    def label(name):
        return (name and
                name + ' = ' or '')
    """
    assert kinds(source) == ["conditional"]
    assert offered(source) == []
