"""The census: what a complexity hint says when no move lowers the count.

It lists where the function's decision points are, by kind (``3 `if`s (lines 4, 9,
12), loop (line 7)``), and, where the heaviest block cannot move into a helper for a
reason the code shows, names that reason and the values behind it (``The `for`
loop at lines 7-15 holds 4 of them and sets `total`, which the function reads
after it``).
"""

from __future__ import annotations

import ast
from collections import defaultdict
from collections.abc import Callable
from typing import Final

from gzguide.analysis.facts.walk import FunctionView, Stmt
from gzguide.analysis.moves.base import line_list, lines, names
from gzguide.analysis.moves.extract import (
    BARE,
    CHANGES,
    DECLARES,
    DEFINES,
    FLAG,
    FRAME,
    GUARD,
    HANDS_OVER,
    INITIALIZES,
    INPUTS,
    LEAVES_LOOP,
    LEAVES_RETURN,
    LEAVES_YIELD,
    MOST,
    OUTPUTS,
    RECURSES,
    SHORT,
    THREADS,
    Examiner,
)

_KIND_WORDS: Final = {
    "if": ("`if`", "`if`s"),
    "ternary": ("conditional expression", "conditional expressions"),
    "loop": ("loop", "loops"),
    "loop_else": ("loop `else`", "loop `else`s"),
    "except": ("`except`", "`except`s"),
    "else": ("`try` `else`", "`try` `else`s"),
    "filter": ("comprehension `if`", "comprehension `if`s"),
    "and": ("`and`", "`and`s"),
    "or": ("`or`", "`or`s"),
    "comprehension": ("comprehension `for`", "comprehension `for`s"),
    "case": ("`case`", "`case`s"),
    "assert": ("`assert`", "`assert`s"),
}
#: How many kinds of decision point the census names before it counts the rest.
_SHOWN_KINDS: Final = 4

#: Reasons a block stays that say nothing about the code beyond its size.
_PLAIN_OBSTACLES: Final = frozenset({SHORT, MOST, BARE, GUARD})

#: Why a block cannot move out as it is.
_OBSTACLES: Final = {
    SHORT: "is too short to be worth a helper",
    MOST: "is most of the function",
    BARE: "is the function's work: only guards, set-up and a return would stay behind",
    GUARD: "is an early exit (an `if` that only leaves)",
    LEAVES_RETURN: "can return from the function",
    LEAVES_YIELD: "yields and sets values used after it",
    LEAVES_LOOP: "breaks out of or continues an outer loop",
    DECLARES: "declares or sets `global` or `nonlocal` names",
    DEFINES: "defines a nested function",
    INPUTS: "reads more than three of its local values",
    RECURSES: "calls this function again",
    FRAME: "looks at the call stack or its own locals, which a helper would change",
    INITIALIZES: "sets attributes of the instance, which `__init__` is the place to show",
    HANDS_OVER: "holds the `yield` its decorator hands control through",
}

_WHAT: Final = {
    ast.If: "`if`",
    ast.For: "`for` loop",
    ast.AsyncFor: "`async for` loop",
    ast.While: "`while` loop",
    ast.Try: "`try`",
    ast.TryStar: "`try`",
    ast.With: "`with` block",
    ast.AsyncWith: "`async with` block",
    ast.Match: "`match`",
}


def census(view: FunctionView, examiner: Examiner) -> str:
    """Where a function's decision points are, and why no block of them moves out."""
    listed = f"Its {view.total_points} decision points: {_by_kind(view)}."
    # The outermost of the heaviest blocks: the one a reader sees first. Why it stays
    # is worth a sentence only where it names what keeps it in; "too short" or "most
    # of the function" tells a reader nothing the code does not.
    stmt = _heaviest(view)
    if stmt is None:
        return listed
    verdict = examiner.examine((stmt,))
    if not isinstance(verdict, str) or verdict in _PLAIN_OBSTACLES:
        return listed
    what = _WHAT.get(type(stmt.node), "block")
    where = f"The {what} at {lines(stmt.line, stmt.end_line)}"
    return f"{listed} {where} holds {stmt.points} of them and {_obstacle(verdict, stmt, examiner)}."


def _by_kind(view: FunctionView) -> str:
    """The points by kind, heaviest first (``2 `if`s (lines 3, 8), loop (line 5)``)."""
    by_kind: dict[str, list[int]] = defaultdict(list)
    total: dict[str, int] = defaultdict(int)
    for point in view.points:
        by_kind[point.kind].append(point.line)
        total[point.kind] += point.weight
    ordered = sorted(by_kind.items(), key=lambda item: (-total[item[0]], min(item[1])))
    parts = [_kind_part(kind, at, total[kind]) for kind, at in ordered]
    more = len(parts) - _SHOWN_KINDS
    shown = ", ".join(parts[:_SHOWN_KINDS])
    return shown + (f", and {more} more kind{'s' * (more > 1)}" if more > 0 else "")


def _kind_part(kind: str, at: list[int], weight: int) -> str:
    one, many = _KIND_WORDS[kind]
    word = one if weight == 1 else f"{weight} {many}"
    return f"{word} ({'line' if len(set(at)) == 1 else 'lines'} {line_list(at, 3)})"


def _heaviest(view: FunctionView) -> Stmt | None:
    """The block statement holding the most points (two or more), the first of equals."""
    heavy = [s for s in view.statements if s.blocks and not s.is_elif and s.points >= 2]
    return max(heavy, key=lambda s: (s.points, -s.line)) if heavy else None


def _obstacle(verdict: str, stmt: Stmt, examiner: Examiner) -> str:
    """Why ``stmt`` cannot move out as it is, naming the values that keep it in."""
    explain = _NAMING.get(verdict)
    return explain(stmt, examiner) if explain is not None else _OBSTACLES[verdict]


def _sets_values_read_after(stmt: Stmt, examiner: Examiner) -> str:
    return f"sets {names(examiner.outputs((stmt,)))}, which the function reads after it"


def _reassigns(stmt: Stmt, examiner: Examiner) -> str:
    taken = examiner.threaded((stmt,))
    params = examiner.view.params
    if all(n in params for n in taken):
        what = "a parameter" if len(taken) == 1 else "parameters"
        return f"reassigns {names(taken)} ({what}), which the function reads after it"
    return f"reassigns {names(taken)}, which the function set before it and reads after it"


def _changes_in_place(stmt: Stmt, examiner: Examiner) -> str:
    return f"changes {names(examiner.changed_inputs((stmt,)))} in place"


def _only_tests(stmt: Stmt, examiner: Examiner) -> str:
    node = stmt.node
    assert isinstance(node, ast.If)
    test = node.test.operand if isinstance(node.test, ast.UnaryOp) else node.test
    assert isinstance(test, ast.Name)
    return f"only tests `{test.id}`: a helper would take it just to test it"


#: The obstacles worded with the values that keep the block in.
_NAMING: Final[dict[str, Callable[[Stmt, Examiner], str]]] = {
    OUTPUTS: _sets_values_read_after,
    THREADS: _reassigns,
    CHANGES: _changes_in_place,
    FLAG: _only_tests,
}
