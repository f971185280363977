"""Fixes of conditional moves: ``else: if`` as ``elif``, an ``if`` holding only an
``if`` as one test, two adjacent arms of the same code as one arm, and the ``else`` of
an ``if`` whose branch leaves dropped.

All are safe: each test is evaluated as often and in the same order as before
(``if a: if b:`` and ``if a and b:`` both ask ``a``'s truth once, then ``b``'s only
when ``a`` holds; ``if a: X elif b: X`` and ``if a or b: X`` ask ``b`` only when ``a``
fails), and the same statements run. A branch that ends in ``return``, ``raise``,
``continue`` or ``break`` never reaches the code after the ``if``, so that code runs
just when the ``else`` did: its body may follow the ``if`` a level out.
"""

from __future__ import annotations

import ast
import re
from dataclasses import replace
from typing import Final

from gzguide.analysis.facts.walk import FunctionView
from gzguide.analysis.fixes.edits import Edit, Fix, Source
from gzguide.analysis.fixes.registry import fixer, one_line, operand, statement_at
from gzguide.analysis.moves.base import Move
from gzguide.analysis.moves.conditionals import MERGED_CHARS, equal_choices
from gzguide.analysis.moves.kinds import Kind
from gzguide.analysis.moves.syntax import same_code

ELSE_LINE: Final = re.compile(r"[ \t]*else[ \t]*:[ \t]*")
#: What may follow a test on its header line: closing parentheses, the colon, and
#: (group 1) the rest of the line.
_AFTER_TEST: Final = re.compile(r"[ \t)]*:(.*)")
#: Operands that need parentheses under ``and`` (an ``or`` never gets here).
_UNDER_AND: Final = (ast.NamedExpr, ast.IfExp, ast.Lambda, ast.Tuple)


def step_in(source: Source, outer_line: int, inner_line: int) -> tuple[str, str] | None:
    """The indentation of ``outer_line`` and what ``inner_line`` adds to it, when it
    adds some: the indentation a block loses when it moves out a level."""
    keep, inner = source.indent(outer_line), source.indent(inner_line)
    if not inner.startswith(keep) or inner == keep:
        return None
    return keep, inner[len(keep) :]


def _moved_out(source: Source, inner: ast.If, first: int, header: Edit) -> Fix | None:
    """``header`` and the lines of ``inner`` from ``first`` on, a level out."""
    levels = step_in(source, header.start[0], inner.lineno)
    if levels is None:
        return None
    body = source.dedent(first, inner.end_lineno or inner.lineno, *levels)
    return Fix("", "", (header, *body), safe=True)


@fixer(Kind.ELSE_IF)
def else_if(move: Move, view: FunctionView, source: Source) -> Fix | None:
    found = statement_at(view, move.span[0], ast.If)
    if found is None:
        return None
    match found[1].orelse:
        case [ast.If() as inner] if ELSE_LINE.fullmatch(source.line(inner.lineno - 1)):
            keep = source.indent(inner.lineno - 1)
            keyword = (inner.lineno, source.start(inner)[1] + 2)
            header = Edit((inner.lineno - 1, 0), keyword, keep + "elif")
            fix = _moved_out(source, inner, inner.lineno + 1, header)
            return replace(fix, kind=move.kind, title="Use elif") if fix else None
    return None


def unwrapped_else(source: Source, line: int, first: ast.stmt, last: int) -> list[Edit] | None:
    """The edits that take the ``else:`` on ``line`` away and move its body, from
    ``first`` to line ``last``, out a level; None when that line holds more than
    ``else:`` or the body does not start further in on a line after it."""
    levels = step_in(source, line, first.lineno)
    if not ELSE_LINE.fullmatch(source.line(line)) or levels is None or first.lineno <= line:
        return None
    return [Edit((line, 0), (line + 1, 0), ""), *source.dedent(first.lineno, last, *levels)]


@fixer(Kind.NO_ELSE)
def no_else(move: Move, view: FunctionView, source: Source) -> Fix | None:
    found = statement_at(view, move.span[0], ast.If)
    if found is None or not found[1].orelse:
        return None
    node = found[1]
    first, last = node.orelse[0], node.end_lineno or node.lineno
    edits = unwrapped_else(source, first.lineno - 1, first, last)
    return Fix(move.kind, "Drop the else", tuple(edits), safe=True) if edits else None


@fixer(Kind.MERGE_IFS)
def merge_ifs(move: Move, view: FunctionView, source: Source) -> Fix | None:
    found = statement_at(view, move.span[0], ast.If)
    if found is None:
        return None
    match found[1]:
        case ast.If(body=[ast.If(orelse=[]) as inner], orelse=[]) as outer if (
            inner.lineno == outer.lineno + 1 and inner.body[0].lineno > inner.lineno
        ):
            header = _merged_header(source, outer, inner)
            fix = _moved_out(source, inner, inner.lineno + 1, header) if header else None
            return replace(fix, kind=move.kind, title="Merge the ifs") if fix else None
    return None


def rest_of_header(source: Source, node: ast.If) -> str | None:
    """What follows the colon of ``node``'s one-line test, or None when the test is not
    on one line."""
    if not one_line(node.test):
        return None
    found = _AFTER_TEST.fullmatch(source.line(node.lineno)[source.end(node.test)[1] :])
    return found.group(1) if found else None


def _merged_header(source: Source, outer: ast.If, inner: ast.If) -> Edit | None:
    """The edit that makes the two headers one: ``if a and b:`` and the inner comment."""
    outer_rest, inner_rest = rest_of_header(source, outer), rest_of_header(source, inner)
    if outer_rest is None or inner_rest is None or outer_rest.strip():
        return None
    column = source.start(outer)[1]
    keyword = "elif" if source.line(outer.lineno).startswith("elif", column) else "if"
    tests = (operand(source, t, _UNDER_AND) for t in (outer.test, inner.test))
    header = f"{keyword} {' and '.join(tests)}:{inner_rest}"
    return Edit((outer.lineno, column), (inner.lineno, len(source.line(inner.lineno))), header)


#: What may not stand bare as an operand of ``or``.
_UNDER_OR: Final = (ast.NamedExpr, ast.IfExp, ast.Lambda)


@fixer(Kind.SAME_ARMS)
def same_arms(move: Move, view: FunctionView, source: Source) -> Fix | None:
    found = statement_at(view, move.span[0], ast.If)
    if found is None:
        return None
    match found[1]:
        case ast.If(orelse=[ast.If() as second]) as first if _joinable(source, first, second):
            joined, safe = _joined_test(source, first.test, second.test)
            if len(joined) > MERGED_CHARS:
                return None  # as for merged ifs: a longer test wraps
            header = Edit(source.start(first.test), source.end(first.test), joined)
            kept, dropped = _last_line(first.body), _last_line(second.body)
            cut = Edit((kept, len(source.line(kept))), (dropped, len(source.line(dropped))), "")
            return Fix(move.kind, "Join the arms", (header, cut), safe)
    return None


def _joined_test(source: Source, first: ast.expr, second: ast.expr) -> tuple[str, bool]:
    """The test of both arms, and whether it is the same test for every input: an
    ``or`` is (``b`` asked only when ``a`` fails, as the ``elif`` did); ``x in (a, b)``
    for two ``==`` tests only of a plain name against literal constants, as the
    membership fix has it (a test's truth is all an ``if`` asks of it)."""
    member = equal_choices(first, second)
    if member is None:
        return " or ".join(_under_or(source, t) for t in (first, second)), True
    (choices,) = member.comparators
    assert isinstance(choices, ast.Tuple)
    written = ", ".join(operand(source, c) for c in choices.elts)
    text = f"{operand(source, member.left)} in ({written})"
    return text, _plain_choices(member.left, choices.elts)


def _plain_choices(subject: ast.expr, choices: list[ast.expr]) -> bool:
    return isinstance(subject, ast.Name) and all(isinstance(c, ast.Constant) for c in choices)


def _under_or(source: Source, test: ast.expr) -> str:
    """``test`` as an operand of ``or``; an ``and`` in parentheses, as a reader wants it."""
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        return f"({source.segment(test)})"
    return operand(source, test, _UNDER_OR)


def _last_line(body: list[ast.stmt]) -> int:
    return body[-1].end_lineno or body[-1].lineno


def _joinable(source: Source, first: ast.If, second: ast.If) -> bool:
    """Whether the second arm is an ``elif`` of the same code, whose lines hold no
    comment (they go), and both tests are on one line."""
    column = source.start(first)[1]
    is_elif = source.line(second.lineno).startswith("elif", column)
    if not is_elif or source.start(second)[1] != column or not same_code(first.body, second.body):
        return False
    if rest_of_header(source, first) is None or rest_of_header(source, second) != "":
        return False
    return not source.has_comment(_last_line(first.body) + 1, _last_line(second.body))
