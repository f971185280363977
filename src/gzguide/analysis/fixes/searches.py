"""Fixes of the loops that look for the first item that matches: the loop and the
``return`` after it as ``return next(...)``, a loop that acts once on a match as
``if any(...):``, and a loop that breaks on an equal item as ``if v not in xs:``.

* ``next``: the generator tests the items in order and stops at the first match,
  whose value it then computes, as the loop did. Safe when the default is a literal
  constant (or None): ``next`` evaluates its default before it looks, so a name (which
  may not be set yet) or an attribute (which may run a property) is unsafe.
* ``any`` (``if any(t for x in xs):``): the same items are tested up to the first
  match, and the action runs once after, as before; the loop's variable is read
  nowhere else (the move says so). Safe; none where the action holds a ``break`` or
  ``continue`` of the loop (it would leave another one).
* ``membership_else``: unsafe. ``in`` asks the container (``str`` finds substrings,
  a class of its own may define ``__contains__`` apart), tests identity before
  ``==``, and evaluates the value once where the loop did on every pass.
"""

from __future__ import annotations

import ast
from typing import Final

from gzguide.analysis.facts.walk import FunctionView
from gzguide.analysis.fixes.conditionals import ELSE_LINE, rest_of_header, step_in
from gzguide.analysis.fixes.edits import Edit, Fix, Source
from gzguide.analysis.fixes.generators import LOOSE_PART, for_clause, movable
from gzguide.analysis.fixes.registry import fixer, one_line, operand, statement_at
from gzguide.analysis.moves.base import Move
from gzguide.analysis.moves.kinds import Kind
from gzguide.analysis.moves.syntax import mentions


@fixer(Kind.NEXT)
def first_found(move: Move, view: FunctionView, source: Source) -> Fix | None:
    found = statement_at(view, move.span[0], ast.For)
    if found is None or source.has_comment(*move.span) or source.binds("next"):
        return None
    match found[1], found[0].next_node():
        case (
            ast.For(body=[ast.If(test=test, body=[ast.Return(value=ast.expr() as value)])]) as loop,
            ast.Return(value=default) as after,
        ) if movable(loop, test, value):
            generator = (
                f"({operand(source, value, LOOSE_PART)} {for_clause(source, loop)} "
                f"if {operand(source, test, LOOSE_PART)})"
            )
            fallback = source.segment(default) if default is not None else "None"
            edit = Edit(
                source.start(loop), source.end(after), f"return next({generator}, {fallback})"
            )
            return Fix(move.kind, "Use next()", (edit,), safe=_evaluates_nothing(default))
    return None


def _evaluates_nothing(default: ast.expr | None) -> bool:
    return default is None or isinstance(default, ast.Constant)


def first_match(move: Move, loop: ast.For, source: Source) -> Fix | None:
    """``if any(t for x in xs):`` and the action a level out, for a loop whose one
    ``if`` acts and breaks."""
    match loop.body:
        case [ast.If(test=test, body=[_, *_, ast.Break()] as body) as found] if movable(
            loop, test
        ) and not _leaves(body[:-1]):
            return _acting_once(move, source, loop, found)
    return None


def _acting_once(move: Move, source: Source, loop: ast.For, found: ast.If) -> Fix | None:
    *action, leave = found.body
    header = _any_header(source, loop, found)
    cut = _break_cut(source, action[-1], leave)
    levels = step_in(source, loop.lineno, found.lineno)
    if header is None or cut is None or levels is None:
        return None
    body = source.dedent(action[0].lineno, cut.start[0], *levels)
    return Fix(move.kind, "Use if any()", (header, *body, cut), safe=True)


def _any_header(source: Source, loop: ast.For, found: ast.If) -> Edit | None:
    """``if any(t for x in xs):`` in place of the loop's line and the ``if``'s, which
    follow each other; the ``if``'s comment is kept."""
    rest = rest_of_header(source, found)
    if rest is None or found.lineno != loop.lineno + 1 or source.binds("any"):
        return None
    if source.has_comment(loop.lineno, loop.lineno):
        return None
    text = f"if any({operand(source, found.test, LOOSE_PART)} {for_clause(source, loop)}):{rest}"
    return Edit(source.start(loop), (found.lineno, len(source.line(found.lineno))), text)


def _break_cut(source: Source, last: ast.stmt, leave: ast.stmt) -> Edit | None:
    """The edit that takes the ``break``'s line away, when it holds only the ``break``
    and no comment lies between it and the action."""
    end = last.end_lineno or last.lineno
    if source.line(leave.lineno).strip() != "break" or source.has_comment(end + 1, leave.lineno):
        return None
    return Edit((end, len(source.line(end))), (leave.lineno, len(source.line(leave.lineno))), "")


def _leaves(statements: list[ast.stmt]) -> bool:
    """Whether a ``break`` or ``continue`` in ``statements`` is the loop's own (not that
    of a loop nested in them, whose ``else`` is the loop's again)."""
    pending = list(statements)
    while pending:
        match pending.pop():
            case ast.Break() | ast.Continue():
                return True
            case ast.For() | ast.AsyncFor() | ast.While() as nested:
                pending.extend(nested.orelse)
            case ast.FunctionDef() | ast.AsyncFunctionDef() | ast.ClassDef():
                pass
            case node:
                pending.extend(_held(node))
    return False


def _held(node: ast.stmt) -> list[ast.stmt]:
    blocks = [getattr(node, f, []) for f in ("body", "orelse", "finalbody")]
    parts = [*getattr(node, "handlers", []), *getattr(node, "cases", [])]
    return [s for block in [*blocks, *(p.body for p in parts)] for s in block]


#: What may not stand bare on either side of ``not in``.
_UNDER_COMPARE: Final = (
    ast.NamedExpr,
    ast.IfExp,
    ast.Lambda,
    ast.BoolOp,
    ast.Tuple,
    ast.Yield,
    ast.YieldFrom,
    ast.Compare,
)


def _compared(source: Source, node: ast.expr) -> str:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return f"({source.segment(node)})"
    return operand(source, node, _UNDER_COMPARE)


@fixer(Kind.MEMBERSHIP_ELSE)
def membership_else(move: Move, view: FunctionView, source: Source) -> Fix | None:
    found = statement_at(view, move.span[0], ast.For)
    match found[1] if found is not None else None:
        case (
            ast.For(
                target=ast.Name(id=name),
                body=[ast.If(test=ast.Compare(left=left, comparators=[right]))],
                orelse=[first, *_] as orelse,
            ) as loop
        ) if one_line(loop.iter, left, right) and not _read_in(orelse, name):
            value = right if isinstance(left, ast.Name) and left.id == name else left
            return _membership_header(move, source, loop, value, first)
    return None


def _read_in(statements: list[ast.stmt], name: str) -> bool:
    """Whether the ``else`` reads the loop's variable (its last item, which the test
    does not set)."""
    return any(mentions(s, {name}) for s in statements)


def _membership_header(
    move: Move, source: Source, loop: ast.For, value: ast.expr, first: ast.stmt
) -> Fix | None:
    """``if v not in xs:`` in place of the loop, its ``if`` and the ``else:`` line: the
    ``else``'s body stays where it is."""
    line = move.span[1]
    if not ELSE_LINE.fullmatch(source.line(line)) or line >= first.lineno:
        return None
    if source.has_comment(loop.lineno, line):
        return None
    text = f"if {_compared(source, value)} not in {_compared(source, loop.iter)}:"
    edit = Edit(source.start(loop), (line, len(source.line(line))), text)
    return Fix(move.kind, "Use not in", (edit,), safe=False)
