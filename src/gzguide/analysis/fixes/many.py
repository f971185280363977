"""The fix of ``one_or_many``: ``if isinstance(v, T): <one> else: for x in v: <each>``
becomes ``if isinstance(v, T): v = [v]`` and the loop alone, a level out.

Safe. The test is evaluated once, as before, and chooses as before. When it fails, the
loop runs as the ``else`` ran it. When it holds, the loop goes over a list of one,
fresh and reachable only through ``v``: its body runs once with ``x`` bound to the
value, and that body is the arm with ``x`` where the arm has ``v`` (the move compares
the two trees with the name swapped, and neither reads the other's name), so it does
what the arm did with the value. A ``break`` or ``continue`` would leave this loop
instead of an outer one: the move refuses an arm that holds one; a ``return``,
``raise`` or ``yield`` does the same from inside the loop as from the arm.

Two names end up bound otherwise than before, on that path alone: ``v`` to the list,
and ``x`` to the value. The move requires that ``v`` is not read after the ``if`` (nor
by a next pass of a loop around it) and that ``x`` is read only inside loops that bind
it. This fixer asks more, where the move's tests leave a gap:

* ``x`` is read only inside the *bodies* of loops that bind it (a later
  ``for x in f(x):`` reads it in its header, and a loop's ``else`` may read it after
  no pass at all: either would see the value where it saw something else before);
* neither name is ``global``/``nonlocal`` or seen by a nested function or lambda (that
  would see the list, or the bound ``x``, whenever it runs);
* the function reads no frame (``locals()``, ``vars()``, ``eval``...: they see every
  name);
* neither arm binds either name by a binder the name swap does not touch (``except E
  as x``, a ``match`` capture, an import, a ``def``): those are strings in the tree, so
  the arm and the loop's body may bind different things there while comparing equal;
* the module does not bind ``isinstance`` (the move is about what it tests).

No fix (the move stays for a person) where a comment is on a line that goes (the arm,
the ``else:``), where the test or the loop's header spans lines, or where the arm
starts on its ``if``'s line.
"""

from __future__ import annotations

import ast
import re
from typing import Final

from gzguide.analysis.facts.walk import FunctionView, target_names
from gzguide.analysis.fixes.conditionals import rest_of_header, unwrapped_else
from gzguide.analysis.fixes.edits import Edit, Fix, Pos, Source
from gzguide.analysis.fixes.registry import fixer, seen_elsewhere, statement_at
from gzguide.analysis.moves.base import Move
from gzguide.analysis.moves.conditionals import OneOrMany, one_or_many_shape
from gzguide.analysis.moves.kinds import Kind

#: What may follow the loop's iterable on its header line: closing parentheses, the
#: colon, then anything (its body, or a comment, which stays where it is).
_AFTER_ITER: Final = re.compile(r"[ \t)]*:")
#: Names whose call reads the frame's names, the list ``v`` becomes among them.
_FRAME_NAMES: Final = frozenset({"locals", "vars", "dir", "eval", "exec"})
#: The fields (strings, or lists of them) in which each node binds a name the
#: move's swap of names leaves as it is.
_STRING_BINDERS: Final[dict[type[ast.AST], tuple[str, ...]]] = {
    ast.ExceptHandler: ("name",),
    ast.MatchAs: ("name",),
    ast.MatchStar: ("name",),
    ast.MatchMapping: ("rest",),
    ast.alias: ("name", "asname"),
    ast.arg: ("arg",),
    ast.FunctionDef: ("name",),
    ast.AsyncFunctionDef: ("name",),
    ast.ClassDef: ("name",),
    ast.Global: ("names",),
    ast.Nonlocal: ("names",),
}


@fixer(Kind.ONE_OR_MANY)
def one_or_many(move: Move, view: FunctionView, source: Source) -> Fix | None:
    found = statement_at(view, move.span[0], ast.If)
    shape = one_or_many_shape(found[1]) if found is not None else None
    if shape is None or not _fixable(view, source, shape):
        return None
    node, loop = shape.node, shape.loop
    unwrapped = unwrapped_else(source, loop.lineno - 1, loop, node.end_lineno or node.lineno)
    if unwrapped is None:
        return None
    return Fix(move.kind, "Make one a list", (_listed(source, shape), *unwrapped), safe=True)


def _fixable(view: FunctionView, source: Source, shape: OneOrMany) -> bool:
    if source.binds("isinstance") or not _written_plainly(source, shape):
        return False
    return _names_kept(view, shape)


def _listed(source: Source, shape: OneOrMany) -> Edit:
    """The edit that makes the arm's lines ``v = [v]``, in the arm's indentation."""
    body = shape.node.body
    first, last = body[0].lineno, body[-1].end_lineno or body[-1].lineno
    text = f"{source.indent(first)}{shape.value} = [{shape.value}]"
    return Edit((first, 0), (last, len(source.line(last))), text)


def _written_plainly(source: Source, shape: OneOrMany) -> bool:
    """Whether the test and the loop's header are each on one line, the arm starts a
    line of its own after the test, and no comment is on the lines that go (the arm's
    and the ``else:``)."""
    node, loop, first = shape.node, shape.loop, shape.node.body[0]
    if rest_of_header(source, node) is None or first.lineno == node.lineno:
        return False
    if source.start(first)[1] != len(source.indent(first.lineno)):
        return False
    return _one_line_header(source, loop) and not source.has_comment(
        node.lineno + 1, loop.lineno - 1
    )


def _one_line_header(source: Source, loop: ast.For) -> bool:
    """Whether ``for x in v:`` is all on the loop's first line."""
    if loop.iter.end_lineno != loop.lineno:
        return False
    return _AFTER_ITER.match(source.line(loop.lineno)[source.end(loop.iter)[1] :]) is not None


def _names_kept(view: FunctionView, shape: OneOrMany) -> bool:
    """Whether nothing but the code the move looked at can see ``v`` or ``x`` bound
    otherwise than before (see the module's notes)."""
    names = (shape.value, shape.item)
    if seen_elsewhere(view, names) or any(n in view.loads for n in _FRAME_NAMES):
        return False
    return not (_bound_unswapped(shape, names) or _read_unbound(view, shape.item))


def _bound_unswapped(shape: OneOrMany, names: tuple[str, str]) -> bool:
    """Whether the arm or the loop's body binds one of ``names`` by a string field."""
    arms = [*shape.node.body, *shape.loop.body]
    return any(set(_strings_bound(n)) & set(names) for s in arms for n in ast.walk(s))


def _strings_bound(node: ast.AST) -> list[str]:
    """The names ``node`` binds by a string field (an import binds its first part)."""
    found: list[str] = []
    for field in _STRING_BINDERS.get(type(node), ()):
        value = getattr(node, field)
        found.extend(value if isinstance(value, list) else [value] if value else [])
    return [name.partition(".")[0] for name in found]


def _read_unbound(view: FunctionView, item: str) -> bool:
    """Whether ``item`` is read anywhere but inside the body of a loop that binds it."""
    bodies = [_body_span(s.node) for s in view.statements if _binds(s.node, item)]
    return any(not any(a <= at <= b for a, b in bodies) for at in view.loads.get(item, ()))


def _binds(node: ast.stmt, name: str) -> bool:
    return isinstance(node, ast.For | ast.AsyncFor) and name in target_names(node.target)


def _body_span(node: ast.stmt) -> tuple[Pos, Pos]:
    """From the start of a loop's first statement to the end of its last (positions as
    the tree gives them, as the walk's reads are)."""
    assert isinstance(node, ast.For | ast.AsyncFor)
    first, last = node.body[0], node.body[-1]
    return (first.lineno, first.col_offset), (
        last.end_lineno or last.lineno,
        last.end_col_offset or 0,
    )
