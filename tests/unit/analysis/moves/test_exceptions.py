"""Exception moves: merged handlers, and no move for an error only ignored.

Each detector on the smallest code that shows its shape, and on the code that looks
like it but is not (a move must be true of the code it is about). Where a move claims
points off radon's complexity, the test writes the rewrite the move describes and
measures both versions with radon: the claim is the difference.
"""

from __future__ import annotations

from gzguide.analysis.moves.kinds import Kind
from support.moves import kinds, move, moves, radon


def test_an_error_only_ignored_gets_no_move() -> None:
    # contextlib.suppress would say it with a point less; reviewers never judged it
    # worth making, so the census (or another move) speaks instead.
    source = """
    def drop(cache, key):
        try:
            del cache[key]
        except KeyError:
            pass
        if key in PINNED:
            PINNED.remove(key)
    """
    assert "suppress" not in moves(source)


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
