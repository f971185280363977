"""What the tests of moves share: a threshold table that puts every function metric in
band, and short ways to get the hints of a piece of code."""

from __future__ import annotations

import ast
import textwrap

from radon.visitors import ComplexityVisitor

from gzguide.analysis.engine import analyze_bytes
from gzguide.analysis.facts.walk import view_of
from gzguide.analysis.model import Finding
from gzguide.analysis.moves.base import Concern
from gzguide.analysis.moves.extract import Examiner, Extraction, stack_calls
from gzguide.analysis.policy.thresholds import parse_thresholds
from support import tables

#: Every function metric in band from 1 up (no gate): whatever the detector finds,
#: the test sees it.
OPEN = parse_thresholds(
    tables.table(
        ("radon_cc", 2, "advise"),
        ("lizard_nloc", 1, "advise"),
        ("lizard_nloc", 3, "warn"),
        ("lizard_nesting_depth", 1, "advise"),
        ("lizard_param_count", 1, "advise"),
        ("cohesion_lcom4", 2, "advise"),
    ),
    "test",
)


def hints(source: str, metric: str | None = None) -> list[Finding]:
    found = analyze_bytes(textwrap.dedent(source).encode(), OPEN).findings
    return [f for f in found if metric is None or f.metric == metric]


def move(source: str, metric: str = "radon_cc") -> Finding:
    (only,) = hints(source, metric)
    return only


def kinds(source: str) -> list[str]:
    """The kind of move of every hint given for the source (``census`` for a census)."""
    return [f.kind for f in hints(source)]


def moves(source: str) -> str:
    """Every move given for the source, one per line (a move is given once, for
    whichever concern speaks first)."""
    return "\n".join(f.move for f in hints(source))


def radon(source: str) -> int:
    value: int = ComplexityVisitor.from_code(textwrap.dedent(source)).functions[0].complexity
    return value


def radon_of(source: str) -> dict[str, int]:
    """radon's count of every function and method of the source, by name (``A.f``)."""
    blocks = ComplexityVisitor.from_code(textwrap.dedent(source)).blocks
    return {b.fullname: b.complexity for b in blocks if not hasattr(b, "methods")}


def examined(source: str, line: int, is_method: bool = True) -> Extraction | str:
    """The examiner's verdict on the compound statement at ``line`` of the first function
    of the source, a method (or a plain function), with the module's imports known."""
    tree = ast.parse(textwrap.dedent(source))
    node = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef))
    view = view_of(node)
    (stmt,) = [s for s in view.statements if s.line == line]
    return Examiner(view, is_method=is_method, stack_calls=stack_calls(tree)).examine((stmt,))


def worded(source: str, first: int, last: int, is_method: bool = False) -> str:
    """The examiner's move for the run of statements of one block on lines ``first`` to
    ``last`` of the first function (the policy offers such a block only where the file
    writes it twice; this words it wherever it may move out), or its verdict."""
    tree = ast.parse(textwrap.dedent(source))
    node = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef))
    view = view_of(node)
    start = next(s for s in view.statements if s.line == first)
    run = tuple(s for s in view.statements if s.parent is start.parent and first <= s.line <= last)
    examiner = Examiner(view, is_method=is_method, stack_calls=stack_calls(tree))
    found = examiner.examine(run)
    if isinstance(found, str):
        return found
    return found.move(view, Concern.COMPLEXITY, view.total_points + 1).text
