"""Exception moves: suppress and merged handlers.

Each detector on the smallest code that shows its shape, and on the code that looks
like it but is not (a move must be true of the code it is about). Where a move claims
points off radon's complexity, the test writes the rewrite the move describes and
measures both versions with radon: the claim is the difference.
"""

from __future__ import annotations

from radon.visitors import ComplexityVisitor

from gzguide.analysis.moves.kinds import Kind
from support.moves import kinds, move, radon


def test_try_except_pass_is_suppress() -> None:
    source = """
    def drop(cache, key):
        try:
            del cache[key]
        except KeyError:
            pass
    """
    f = move(source)
    assert f.kind == Kind.SUPPRESS
    assert "`with contextlib.suppress(KeyError):`" in f.move
    after = (
        "import contextlib\n"
        "def drop(cache, key):\n    with contextlib.suppress(KeyError):\n        del cache[key]\n"
    )
    assert radon(source) - ComplexityVisitor.from_code(after).functions[0].complexity == 1


def test_suppress_takes_the_types_of_a_tuple_as_its_arguments() -> None:
    source = """
    def show(message, out=None):
        if message:
            out = out or sys.stderr
            try:
                out.write(message)
            except (AttributeError, OSError):
                pass
    """
    assert "`with contextlib.suppress(AttributeError, OSError):`" in move(source).move


def test_an_except_that_does_something_is_not_suppress() -> None:
    source = """
    def drop(cache, key, log):
        try:
            del cache[key]
        except KeyError:
            log.append(key)
    """
    assert "suppress" not in move(source).move


def test_a_try_that_returns_then_falls_back_is_not_suppress() -> None:
    source = """
    def length(body):
        if not body:
            return 0
        try:
            return len(body)
        except (AttributeError, TypeError):
            pass
        return None
    """
    assert Kind.SUPPRESS not in kinds(source)


def test_stop_iteration_and_a_try_in_a_loop_are_not_suppress() -> None:
    source = """
    def first_match(lines, word, out):
        try:
            for line in lines:
                if word in line:
                    out.append(line)
        except StopIteration:
            pass
        for line in lines:
            try:
                out.remove(line)
            except ValueError:
                pass
    """
    assert Kind.SUPPRESS not in kinds(source)


HANDLERS = """
def load(path):
    try:
        return read(path)
    except OSError:
        log("cannot read", path)
        return None
    except ValueError:
        log("cannot read", path)
        return None
"""


def test_handlers_with_the_same_body_are_one_with_a_tuple_of_types() -> None:
    f = move(HANDLERS)
    assert f.kind == Kind.SAME_HANDLERS
    assert f.move == (
        "The `except` clauses on lines 5 and 8 do the same: "
        "`except (OSError, ValueError):` says it once, 1 point less."
    )
    after = HANDLERS.replace(
        '    except OSError:\n        log("cannot read", path)\n        return None\n', ""
    ).replace("except ValueError:", "except (OSError, ValueError):")
    assert radon(HANDLERS) - radon(after) == 1


def test_handlers_that_differ_are_not_merged() -> None:
    different = HANDLERS.replace(
        'log("cannot read", path)\n        return None\n    except V',
        'log("cannot read", path)\n        return ""\n    except V',
    )
    assert Kind.SAME_HANDLERS not in kinds(different)
    named = HANDLERS.replace("except OSError:", "except OSError as error:")
    assert Kind.SAME_HANDLERS not in kinds(named)
