"""Module moves: a module of unrelated groups.

Each detector on the smallest code that shows its shape, and on the code that looks
like it but is not (a move must be true of the code it is about). Where a move claims
points off radon's complexity, the test writes the rewrite the move describes and
measures both versions with radon: the claim is the difference.
"""

from __future__ import annotations

import ast

from gzguide.analysis.facts.toplevel import top_level
from gzguide.analysis.moves.kinds import Kind
from gzguide.analysis.moves.modules import split_move


def _group(prefix: str, count: int, extra: str = "") -> str:
    """``count`` functions that call the next one, each a dozen lines long."""
    out = []
    for i in range(count):
        body = "".join(f"    v{j} = {prefix}{i + 1}(x) + {j}\n" for j in range(10))
        out.append(f"def {prefix}{i}(x):\n{extra if i == 0 else ''}{body}    return v9\n")
    return "\n".join(out)


def test_a_module_of_two_unrelated_groups_splits_unless_they_share_global_state() -> None:
    apart = _group("a", 25) + "\n" + _group("b", 25)
    move_ = split_move(top_level(ast.parse(apart), apart))
    assert move_ is not None and "never refer to each other" in move_.text
    assert move_.kind == Kind.SPLIT_MODULE
    # `b0` sets a global that `a0` reads: moving either group away breaks the other.
    shared = (
        _group("a", 25, "    print(CACHE)\n")
        + "\n"
        + _group("b", 25, "    global CACHE\n    CACHE = x\n")
    )
    assert split_move(top_level(ast.parse(shared), shared)) is None
    # `a0` reads a module name whose value holds `b3`, through another (the eighth fresh
    # review's uuid: `getnode` loops over `_GETTERS`, built from `_OS_GETTERS`, which holds
    # the getters of the other group): the groups refer to each other.
    registry = "_OS_GETTERS = [b3, b4]\nif True:\n    _GETTERS = _OS_GETTERS + [len]\n"
    held = _group("a", 25, "    print(_GETTERS)\n") + "\n" + _group("b", 25) + "\n" + registry
    assert split_move(top_level(ast.parse(held), held)) is None
    unread = held.replace("print(_GETTERS)", "print(GETTERS)")
    assert split_move(top_level(ast.parse(unread), unread)) is not None


def test_a_module_a_reader_takes_in_whole_does_not_split() -> None:
    small = _group("a", 12) + "\n" + _group("b", 12)  # two groups of 144 lines
    assert split_move(top_level(ast.parse(small), small)) is None
