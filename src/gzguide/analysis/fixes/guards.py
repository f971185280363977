"""Fixes of guard clauses: an ``if`` that wraps the rest of a block, or whose ``else``
only leaves, turned around so that the other case leaves first and the work moves
out a level.

* ``continue_guard``/``return_guard``: ``if t:`` holding the rest of a loop body or
  of the function becomes ``if not t: continue`` (``return``) and the body a level
  out; with a ``return y`` right after the ``if``, ``if not t: return y`` first.
* ``else_guard``: ``if t: <work> else: <leave>`` becomes ``if not t: <leave>`` then
  the work a level out; the short ``else`` that ends a function goes first followed by
  ``return``.

The same statements run in each case as before: what followed the ``if`` ran only
after its body or left already (a loop goes on to its next pass, a function returns
None at its end). The test is asked once, as before, for its truth turned around;
the fix is safe when that negation is (``not``, ``in``, ``is``), unsafe where it
turns ``==`` into ``!=`` as the move words it.
"""

from __future__ import annotations

import ast
from typing import Final, NamedTuple

from gzguide.analysis.facts.walk import FunctionView, Stmt
from gzguide.analysis.fixes.conditionals import ELSE_LINE, rest_of_header, step_in
from gzguide.analysis.fixes.edits import Edit, Fix, Source
from gzguide.analysis.fixes.registry import fixer, statement_at
from gzguide.analysis.fixes.tests import plain_negation
from gzguide.analysis.moves.base import Move
from gzguide.analysis.moves.kinds import Kind


class _Turned(NamedTuple):
    """An ``if`` about to be turned around: where it is, and what its header keeps."""

    node: ast.If
    #: The indentation of the ``if``, and what its body adds to it.
    keep: str
    step: str
    #: What follows the colon of its header (a comment, or nothing).
    rest: str

    @property
    def body_end(self) -> int:
        return self.node.body[-1].end_lineno or self.node.body[-1].lineno

    def header(self, source: Source, then: list[str]) -> tuple[Edit, bool]:
        """The edit that writes ``if not t:`` and ``then`` under it, each line already
        indented; and whether the negation is safe."""
        negation = plain_negation(source, self.node.test)
        line = self.node.lineno
        text = "\n".join([f"if {negation.text}:{self.rest}", *then])
        return Edit(source.start(self.node), (line, len(source.line(line))), text), negation.safe

    def body(self, source: Source) -> list[Edit]:
        return source.dedent(self.node.body[0].lineno, self.body_end, self.keep, self.step)

    def fix(self, move: Move, source: Source, then: list[str], cut: int | None, title: str) -> Fix:
        """The header with ``then``, the body a level out, and the lines after the body
        up to ``cut`` gone."""
        header, safe = self.header(source, then)
        edits = [header, *self.body(source)]
        if cut is not None:
            end = self.body_end
            edits.append(Edit((end, len(source.line(end))), (cut, len(source.line(cut))), ""))
        return Fix(move.kind, title, tuple(edits), safe)

    def line(self, text: str) -> str:
        """``text`` as a statement of the guard's body."""
        return f"{self.keep}{self.step}{text}"


def _turned(source: Source, node: ast.If) -> _Turned | None:
    """The ``if`` to turn around, when its test is on one line and its body starts on
    the next one, further in, with no comment above its first statement (it speaks of
    the case the ``if`` tests: under the guard it would read as the code after it)."""
    rest = rest_of_header(source, node)
    levels = step_in(source, node.lineno, node.body[0].lineno)
    if (
        rest is None
        or levels is None
        or source.has_comment(node.lineno + 1, node.body[0].lineno - 1)
    ):
        return None
    return _Turned(node, *levels, rest)


def _at(move: Move, view: FunctionView, source: Source) -> tuple[Stmt, _Turned] | None:
    found = statement_at(view, move.span[0], ast.If)
    turned = _turned(source, found[1]) if found is not None else None
    return (found[0], turned) if found is not None and turned is not None else None


@fixer(Kind.CONTINUE_GUARD, Kind.RETURN_GUARD)
def wrapping_guard(move: Move, view: FunctionView, source: Source) -> Fix | None:
    found = _at(move, view, source)
    if found is None:
        return None
    stmt, turned = found
    match stmt.next_node():
        case None:
            leave = "continue" if move.kind is Kind.CONTINUE_GUARD else "return"
            return turned.fix(move, source, [turned.line(leave)], None, f"Guard with {leave}")
        case ast.Return() as after if _one_plain_line(source, after):
            then = [turned.line(source.segment(after))]
            return turned.fix(move, source, then, after.end_lineno, "Return early")
    return None


def _one_plain_line(source: Source, node: ast.stmt) -> bool:
    """Whether ``node`` is on one line, with no comment to lose when it moves."""
    return node.lineno == node.end_lineno and not source.has_comment(node.lineno, node.lineno)


#: The statements that leave a block: an ``else`` that ends in one goes first alone.
_LEAVES: Final = (ast.Return, ast.Raise, ast.Continue, ast.Break)


@fixer(Kind.ELSE_GUARD)
def else_guard(move: Move, view: FunctionView, source: Source) -> Fix | None:
    found = _at(move, view, source)
    if found is None or not _bare_else(source, found[1]):
        return None
    turned = found[1]
    orelse = turned.node.orelse
    last = orelse[-1].end_lineno or orelse[-1].lineno
    then = [source.line(n) for n in range(orelse[0].lineno, last + 1)]
    if not isinstance(orelse[-1], _LEAVES):
        then.append(turned.line("return"))  # the short case that ends the function
    return turned.fix(move, source, then, last, "Put the else first")


def _bare_else(source: Source, turned: _Turned) -> bool:
    """Whether the ``if`` has an ``else:`` on a line of its own, with no comment."""
    if not turned.node.orelse:
        return False
    line = turned.node.orelse[0].lineno - 1
    return line > turned.body_end and bool(ELSE_LINE.fullmatch(source.line(line)))
