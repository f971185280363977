"""The fixers of two arms of the same code, of a loop ``else`` that always runs, and of
a ``while True`` that reads and stops: the exact text after, why each is safe, and
radon's count measured again."""

from __future__ import annotations

from support.moves import kinds
from unit.analysis.fixes.checks import check, offered


def test_two_arms_of_the_same_code_are_one() -> None:
    # Safe: `a or b` asks b only when a fails, as the elif did, and the same code runs.
    check(
        """
        def pick(x, out):
            if x < 0:
                out.append(x)
                return 1
            elif x > 10 and x != 12:
                out.append(x)
                return 1
            elif x == 5:
                return 2
            return 3
        """,
        """
        def pick(x, out):
            if x < 0 or (x > 10 and x != 12):
                out.append(x)
                return 1
            elif x == 5:
                return 2
            return 3
        """,
        safe=True,
    )


def test_two_arms_on_equal_values_are_one_in_test() -> None:
    # Safe for a plain name against literal constants, as the membership fix: an `if`
    # asks only the test's truth, and each constant's `==` defers to x's for other types.
    check(
        """
        def pick(x, out):
            if x < 0:
                return 1
            elif x == 3:
                out.append(x)
            elif x == 7:
                out.append(x)
            return 3
        """,
        """
        def pick(x, out):
            if x < 0:
                return 1
            elif x in (3, 7):
                out.append(x)
            return 3
        """,
        safe=True,
    )


def test_two_arms_on_equal_values_of_an_attribute_are_unsafe() -> None:
    # `self.x` is read once where the arms read it twice (a property may run code).
    found = check(
        """
        def pick(self, out):
            if self.x < 0:
                return 1
            elif self.x == 3:
                out.append(1)
            elif self.x == 7:
                out.append(1)
            return 3
        """,
        """
        def pick(self, out):
            if self.x < 0:
                return 1
            elif self.x in (3, 7):
                out.append(1)
            return 3
        """,
        safe=False,
    )
    assert found.fix.title == "Join the arms"


def test_arms_whose_dropped_lines_hold_a_comment_are_left_to_a_person() -> None:
    source = """
    def pick(x, out):
        if x < 0:
            out.append(x)
            return 1
        elif x > 10:  # too big
            out.append(x)
            return 1
        return 3
    """
    assert kinds(source) == ["same_arms"]
    assert offered(source) == []


def test_a_loop_else_without_break_loses_its_else_line() -> None:
    # Safe: with no break the else runs whenever the loop ends, as the code after it.
    # The second literal of a concatenation moves with its line; a string's own lines
    # stay as they are.
    check(
        """
        def show(xs):
            for x in xs:
                print(x)
            else:
                print('done, '  # all shown
                      'now clear')
                xs.clear('''
        keep''')
        """,
        """
        def show(xs):
            for x in xs:
                print(x)
            print('done, '  # all shown
                  'now clear')
            xs.clear('''
        keep''')
        """,
        safe=True,
    )


def test_a_loop_else_whose_line_holds_a_comment_is_left_to_a_person() -> None:
    source = """
    def show(xs):
        for x in xs:
            print(x)
        else:  # finished
            print('done')
    """
    assert kinds(source) == ["loop_else"]
    assert offered(source) == []


def test_a_read_and_stop_is_the_while_test() -> None:
    # Safe: each pass reads, then stops on a falsy value, as before; a continue reads
    # again in both.
    check(
        """
        def drain(f, out):
            while True:
                chunk = f.read(10)
                if not chunk:
                    break
                out.append(chunk)
        """,
        """
        def drain(f, out):
            while chunk := f.read(10):
                out.append(chunk)
        """,
        safe=True,
    )


def test_a_read_until_none_compares_the_walrus() -> None:
    check(
        """
        def drain(f, out):
            while 1:
                line = next(f, None)
                if line is None: break
                out.append(line)
        """,
        """
        def drain(f, out):
            while (line := next(f, None)) is not None:
                out.append(line)
        """,
        safe=True,
    )


def test_a_read_whose_line_holds_a_comment_is_left_to_a_person() -> None:
    source = """
    def drain(f, out):
        while True:
            chunk = f.read(10)  # ten at a time
            if not chunk:
                break
            out.append(chunk)
    """
    assert kinds(source) == ["walrus_loop"]
    assert offered(source) == []
