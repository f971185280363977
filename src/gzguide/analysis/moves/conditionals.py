"""Conditional moves: ``if`` statements that nest deeper than what they say.

* ``merge_ifs``: an ``if`` whose whole body is an ``if``: one ``if`` testing both, a level less;
* ``else_if``: an ``else`` whose whole body is an ``if``: an ``elif``;
* ``continue_guard``/``return_guard``/``else_guard``: a condition that wraps the
  rest of a loop body or function, or an ``else`` that only leaves, goes first;
* ``no_else``: an ``else`` after a branch that returns;
* ``same_arms``: two adjacent arms of an if/elif chain with identical bodies;
* ``one_or_many``: ``if isinstance(v, str): <code on v> else: for x in v: <the same
  on x>``: make the one value a list of one, and keep the loop alone.

Nesting gains are real levels (``if``/``for``/``while``/``match``); size gains are
source lines.
"""

from __future__ import annotations

import ast
from itertools import pairwise
from typing import Final, NamedTuple

from gzguide.analysis.facts.astshape import code_lines
from gzguide.analysis.facts.walk import FunctionView, Stmt
from gzguide.analysis.moves.base import (
    UNCLASSIFIED,
    Concern,
    Move,
    code,
    lines,
    plural,
    snippet,
)
from gzguide.analysis.moves.kinds import Kind
from gzguide.analysis.moves.registry import statement_rule
from gzguide.analysis.moves.rendering import render
from gzguide.analysis.moves.syntax import (
    ARROWHEAD,
    body_lines,
    extent,
    if_chain,
    is_compound,
    jumps,
    mentions,
    negation,
    nesting_archetype,
    read_outside_its_loops,
    renamed,
    same_code,
    same_tree,
    span_of,
)

#: A guard clause is worth it when the code it lets move out a level has this many
#: lines of code.
GUARD_LINES: Final = 6
#: A guard in place of an ``if`` that wraps the rest of a function or loop body is worth
#: it from this many lines of code: reviewers judged shorter ones taste.
WRAP_LINES: Final = 12
#: How much of a guard's test a move quotes.
GUARD_TEST_CHARS: Final = 44


#: An ``else`` after a branch that leaves is worth moving out a level from this many
#: lines of code: reviewers judged shorter ones a two-way choice that reads well.
NO_ELSE_LINES: Final = 10

#: The longest test two merged ``if``s may have (beyond it, the line wraps).
MERGED_CHARS: Final = 72


@statement_rule(Kind.MERGE_IFS, concern=Concern.NESTING, doc="merge_ifs", on=(ast.If,))
def _merge_ifs(stmt: Stmt, view: FunctionView) -> Move | None:
    """An ``if`` (or the last ``elif``) whose whole body is an ``if``, neither with an else."""
    match stmt.node:
        case ast.If(body=[ast.If(orelse=[]) as inner], orelse=[]) as node if _merge_reads_well(
            node.test, inner.test
        ):
            keyword = "elif" if stmt.is_elif else "if"
            text = _merged_text(keyword, node, inner)
            span = (node.lineno, inner.lineno)
            archetype = nesting_archetype(view)
            return Move(
                Kind.MERGE_IFS, archetype, text, span, {Concern.NESTING: 1}, 3, extent(inner)
            )
    return None


def _merged_text(keyword: str, node: ast.If, inner: ast.If) -> str:
    """The merge of an ``if`` holding only an ``if``; an inner test that repeats the
    outer one is only dropped."""
    held = f"The `{keyword}` on line {node.lineno} holds only the `if` on line {inner.lineno}"
    if same_tree(node.test, inner.test):
        return f"{held}, which repeats its test: drop the inner `if`, one level less."
    merged = snippet(f"{keyword} {render(ast.BoolOp(ast.And(), [node.test, inner.test]))}:", 76)
    return f"{held}: {merged} tests both in one `if`, a level less."


def _merge_reads_well(outer: ast.expr, inner: ast.expr) -> bool:
    """Whether one test of both reads as well as two: neither is an ``or`` (it would need
    parentheses) nor spans lines, together they fit a line and are three tests at most
    (``a and b and c and d`` flattens two cases into one list: a fresh review's
    pickle ``encode_long``)."""
    tests = (outer, inner)
    if any(_is_or(t) or t.lineno != t.end_lineno for t in tests) or _debug_only(outer):
        return False
    merged = ast.BoolOp(ast.And(), list(tests))
    return _operands(merged) <= MERGED_TESTS and len(render(merged)) <= MERGED_CHARS


#: The most tests two merged ``if``s may have between them.
MERGED_TESTS: Final = 3


def _operands(test: ast.expr) -> int:
    """How many tests an ``and`` of ``and``s joins."""
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        return sum(map(_operands, test.values))
    return 1


def _debug_only(test: ast.expr) -> bool:
    """``if __debug__:``: a block the compiler drops under ``-O``, written as a block of
    its own on purpose (modules that use it nest their checks under it throughout)."""
    return isinstance(test, ast.Name) and test.id == "__debug__"


def _is_or(test: ast.expr) -> bool:
    return isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or)


def _fails(body: list[ast.stmt]) -> bool:
    """Whether a block ends by raising or exiting the program."""
    match body[-1]:
        case ast.Raise():
            return True
        case ast.Expr(value=ast.Call(func=ast.Attribute(attr=name) | ast.Name(id=name))):
            return name in ("exit", "_exit", "abort", "fail")
    return False


#: The statements that leave a block.
_LEAVES: Final = (ast.Return, ast.Raise, ast.Continue, ast.Break)


@statement_rule(Kind.NO_ELSE, concern=Concern.NESTING, doc="no_else", on=(ast.If,))
def _else_after_return(stmt: Stmt, view: FunctionView) -> Move | None:
    """``if c: ... return x`` with an ``else`` of several statements: the else's body can
    move out a level (the ``if`` branch never falls through to it)."""
    match stmt.node:
        case ast.If(
            body=[*_, ast.Return() | ast.Raise() | ast.Continue() | ast.Break() as leave],
            orelse=[_, *_] as orelse,
        ) if _worth_dropping(stmt, view, orelse):
            leaves = type(leave).__name__.lower()
            inner = lines(orelse[0].lineno, extent(orelse[-1])[1])
            text = (
                f"The `if` on line {stmt.line} ends in a `{leaves}`, so its `else` is not "
                f"needed: {inner} can move out a level."
            )
            return Move(Kind.NO_ELSE, UNCLASSIFIED, text, span_of(stmt), {Concern.NESTING: 1}, 2)
    return None


#: A module that writes ``else:`` after a leaving branch this often does it by choice.
HOUSE_ELSES: Final = 5


def _worth_dropping(stmt: Stmt, view: FunctionView, orelse: list[ast.stmt]) -> bool:
    """Whether the ``else`` after a leaving branch is worth dropping: not an ``elif``,
    long and lopsided (see below), and not the module's style (cssutils' serializer
    writes ``if not x: return '' else:`` in 22 functions: a fresh review judged the
    five flagged, over the size, an inconsistency to make)."""
    assert isinstance(stmt.node, ast.If)
    if stmt.is_elif or view.elses_after_leaving >= HOUSE_ELSES:
        return False
    return _worth_unindenting(orelse) and _lopsided(stmt.node, orelse)


def _worth_unindenting(orelse: list[ast.stmt]) -> bool:
    """Whether an ``else`` after a branch that leaves holds enough to move out a level."""
    match orelse:
        case [ast.If()]:
            return False  # an elif: a chain of cases reads well as one
    return any(is_compound(s) for s in orelse) and code_lines(orelse) >= NO_ELSE_LINES


def _lopsided(node: ast.If, orelse: list[ast.stmt]) -> bool:
    """Whether the ``else`` holds twice the code of the branch that leaves, and the
    ``if`` does not choose by type: two cases of a size, or one per type, read well side
    by side, as the two halves of one choice."""
    return code_lines(orelse) >= 2 * code_lines(node.body) and not _tests_a_type(node.test)


def _tests_a_type(test: ast.expr) -> bool:
    """``isinstance(x, T)``, ``type(x) is T`` or ``x.__class__ is T``."""
    match test:
        case ast.Call(func=ast.Name(id="isinstance")):
            return True
        case ast.Compare(left=ast.Call(func=ast.Name(id="type")) | ast.Attribute(attr="__class__")):
            return True
    return False


def _holds_work(body: list[ast.stmt]) -> bool:
    """Whether moving ``body`` out a level is worth it: it holds a compound statement,
    and :data:`GUARD_LINES` lines of code."""
    return any(is_compound(s) for s in body) and code_lines(body) >= GUARD_LINES


@statement_rule(Kind.RETURN_GUARD, concern=Concern.NESTING, doc="guard-clauses", on=(ast.If,))
def _guard_before_return(stmt: Stmt, view: FunctionView) -> Move | None:
    """``if c: <work>; return x`` then a final ``return y``: ``if not c: return y`` first."""
    if stmt.is_elif or not _second_to_last(stmt):
        return None
    match stmt.node, stmt.next_node():
        case (ast.If(body=[*_, ast.Return()] as body, orelse=[]) as node, ast.Return() as after):
            # Work that falls through to the final return is clear as it is.
            worth = _holds_work(body) and _negates_plainly(node.test, code_lines(body))
            return _guard_move(node, after) if worth else None
    return None


def _negates_plainly(test: ast.expr, held: int, least: int = GUARD_LINES) -> bool:
    """Whether a guard on the opposite of ``test`` reads well: not the negation of an
    ``and``/``or`` (``not (a and b)``), unless it lets a body twice the ``least`` a
    guard needs move out."""
    return not isinstance(test, ast.BoolOp) or held >= 2 * least


def _guard(test: ast.expr, leave: ast.stmt) -> str:
    """``if <test>: <leave>`` as code, the test shortened so that the leaving shows."""
    shown = render(test)
    if len(shown) > GUARD_TEST_CHARS:
        shown = shown[: GUARD_TEST_CHARS - 1].rstrip() + "…"
    return f"`if {shown}: {render(leave)}`"


def _second_to_last(stmt: Stmt) -> bool:
    """Whether ``stmt`` is the statement before the last one of the function's body."""
    return stmt.parent is None and stmt.index + 2 == len(stmt.container)


def _guard_move(node: ast.If, after: ast.Return) -> Move:
    guard = _guard(negation(node.test), after)
    inner = lines(node.body[0].lineno, extent(node.body[-1])[1])
    text = (
        f"The `if` on line {node.lineno} wraps the function's work and the last line returns "
        f"the other case: {guard} first lets {inner} move out a level."
    )
    span = (node.lineno, extent(after)[1])
    return Move(Kind.RETURN_GUARD, ARROWHEAD, text, span, {Concern.NESTING: 1}, 2)


class _Block(NamedTuple):
    """A block an ``if`` can be the last statement of, and how a guard leaves it early."""

    words: str
    leave: type[ast.Return | ast.Continue]
    kind: Kind


_FUNCTION: Final = _Block("function", ast.Return, Kind.RETURN_GUARD)
_LOOP_BODY: Final = _Block("loop body", ast.Continue, Kind.CONTINUE_GUARD)


def _closed_block(stmt: Stmt) -> _Block | None:
    """What ``stmt`` (not an ``elif``) is the last statement of: the function's body or
    a loop's; None for any other place."""
    if stmt.is_elif or stmt.next_node() is not None:
        return None
    if stmt.parent is None:
        return _FUNCTION
    match stmt.parent.node:
        case ast.For(body=body) | ast.AsyncFor(body=body) | ast.While(body=body) if (
            stmt.container is body
        ):
            return _LOOP_BODY
    return None


def _wrapping(stmt: Stmt, node: ast.If) -> tuple[_Block, int] | None:
    """(the block, the lines of code of the ``if``'s body) when the ``if`` ends the
    function or a loop body and wraps work enough to move out a level."""
    block = _closed_block(stmt)
    if block is None or _plain_or_beside_a_peer(stmt, node):
        return None
    held = code_lines(node.body)
    worth = held >= WRAP_LINES and _negates_plainly(node.test, held, WRAP_LINES)
    return (block, held) if worth else None


def _plain_or_beside_a_peer(stmt: Stmt, node: ast.If) -> bool:
    # Flattening a few plain lines by a level changes little.
    return not any(is_compound(s) for s in node.body) or _follows_a_peer(stmt)


def _follows_a_peer(stmt: Stmt) -> bool:
    """Whether the ``if`` comes right after another ``if`` without ``else`` that does
    work: two checks side by side (``if A.match(name): ...`` then ``if B.match(name):
    ...``), which a guard for the second would set apart (a fresh review's falcon
    ``before._before``, judged wrong). After a guard (``if small: return``) another
    guard reads as one more of the kind."""
    match stmt.previous_node():
        case ast.If(orelse=[], body=body):
            return not isinstance(body[-1], _LEAVING)
    return False


#: The statements that leave a block: an ``if`` ending in one is a guard.
_LEAVING: Final = (ast.Return, ast.Continue, ast.Break, ast.Raise)


def _inner(node: ast.If) -> str:
    """The lines of the ``if``'s body."""
    return lines(node.body[0].lineno, node.body[-1].end_lineno or 0)


@statement_rule(
    Kind.CONTINUE_GUARD,
    Kind.RETURN_GUARD,
    concern=Concern.NESTING,
    doc="guard-clauses",
    on=(ast.If,),
)
def _wrapping_guard(stmt: Stmt, view: FunctionView) -> Move | None:
    """The last statement of a loop body or of the function is an ``if`` without an
    ``else`` that wraps it."""
    match stmt.node:
        case ast.If(orelse=[]) as node:
            found = _wrapping(stmt, node)
            if found is None:
                return None
            block, held = found
            if not _worth_a_guard(view, node, block, held):
                return None
            return _wrapping_move(stmt, node, block)
    return None


def _worth_a_guard(view: FunctionView, node: ast.If, block: _Block, held: int) -> bool:
    """Whether the ``if`` that ends ``block`` is better turned into a guard: at the end of
    the function, when it holds the main path; in a loop, unless it is a search's match
    (acted on and left with a return or a raise)."""
    if block is _FUNCTION:
        return _main_path(view, node, held)  # an error exit reads better where it is
    return not isinstance(node.body[-1], ast.Return | ast.Raise)


def _main_path(view: FunctionView, node: ast.If, held: int) -> bool:
    """Whether an ``if`` that ends the function, of ``held`` lines of code, holds its main
    path: half its code at least, and no error exit."""
    return held * 2 >= code_lines(view.node.body) and not _fails(node.body)


def _wrapping_move(stmt: Stmt, node: ast.If, block: _Block) -> Move:
    guard = _guard(negation(node.test), block.leave())
    text = (
        f"The `if` on line {node.lineno} wraps the rest of the {block.words}: starting with "
        f"{guard} lets {_inner(node)} move out a level."
    )
    return Move(block.kind, ARROWHEAD, text, span_of(stmt), {Concern.NESTING: 1}, 2)


@statement_rule(Kind.ELSE_GUARD, concern=Concern.NESTING, doc="guard-clauses", on=(ast.If,))
def _else_guard(stmt: Stmt, view: FunctionView) -> Move | None:
    """An ``if`` whose ``else`` only leaves, or, as the last statement of a loop body or
    of the function, is the short case: it can go first."""
    match stmt.node:
        case ast.If(orelse=[ast.If(), *_]):
            return None  # an elif, or an else that starts with a choice of its own
        case ast.If(orelse=[_] | [_, _] as orelse) as node:
            return _else_first(stmt, node, orelse)
    return None


def _else_first(stmt: Stmt, node: ast.If, orelse: list[ast.stmt]) -> Move | None:
    if isinstance(orelse[-1], _LEAVES):
        return _leaving_else_first(stmt, node, orelse)
    found = _wrapping(stmt, node)
    if found is None:
        return None
    block, held = found
    size = code_lines(orelse)
    if size * 2 > held or not _short_case(block, orelse, size):
        return None  # two cases of some size each read well side by side
    # The function ends with this if: its short else can go first and return.
    return _else_guard_move(stmt, node, "is the short case", " and followed by `return`")


def _leaving_else_first(stmt: Stmt, node: ast.If, orelse: list[ast.stmt]) -> Move | None:
    """An ``else`` that ends by leaving, wherever its ``if`` is: what follows the ``if``
    runs only after its body, so the body can follow the guard and move out a level."""
    if stmt.is_elif or not _holds_work(node.body) or _either_type(node, orelse):
        return None
    if not _lopsided_exit(node, orelse):
        return None
    does = f"only does a `{type(orelse[-1]).__name__.lower()}`"
    return _else_guard_move(stmt, node, does, "")


def _lopsided_exit(node: ast.If, orelse: list[ast.stmt]) -> bool:
    """Whether the leaving ``else`` is the short case: at most half the body's code, a
    test that negates plainly, and, where the body leaves too (two arms that each
    return are peers: swapping a short one is taste, reviewers judged), a long body."""
    held = code_lines(node.body)
    if isinstance(node.body[-1], _LEAVES) and held < WRAP_LINES:
        return False
    return _negates_plainly(node.test, held) and code_lines(orelse) * 2 <= held


def _either_type(node: ast.If, orelse: list[ast.stmt]) -> bool:
    """An ``if`` on a type whose ``else`` returns: one answer per kind of value, two cases
    of one choice (an ``else`` that raises rejects a wrong type: that guard goes first)."""
    return _tests_a_type(node.test) and not isinstance(orelse[-1], ast.Raise)


def _short_case(block: _Block, orelse: list[ast.stmt], size: int) -> bool:
    """Whether the ``else`` of an ``if`` that ends the function is one short line that
    can go first and return."""
    return block is _FUNCTION and len(orelse) == 1 and size <= 1 and not jumps(orelse)


def _else_guard_move(stmt: Stmt, node: ast.If, does: str, then: str) -> Move:
    """Put the ``else`` first: ``does`` says what it does, ``then`` what must follow it."""
    test = code(negation(node.test), 50)
    text = (
        f"The `else` of the `if` on line {node.lineno} {does}: put it first, "
        f"under {test}{then}, and {_inner(node)} move out a level."
    )
    return Move(Kind.ELSE_GUARD, ARROWHEAD, text, span_of(stmt), {Concern.NESTING: 1}, 2)


@statement_rule(Kind.ELSE_IF, concern=Concern.NESTING, doc="else_if", on=(ast.If,))
def _else_if(stmt: Stmt, view: FunctionView) -> Move | None:
    """``else:`` whose whole body is an ``if``: that is an ``elif``."""
    match stmt.node:
        case ast.If(orelse=[ast.If() as inner]) as node if _nested_in_else(
            node, inner
        ) and not _parallel(node, inner):
            text = (
                f"The `else` of the `if` on line {node.lineno} holds only the `if` on line "
                f"{inner.lineno}: making it an `elif` takes a level away."
            )
            archetype = nesting_archetype(view)
            span = (node.lineno, inner.lineno)
            return Move(Kind.ELSE_IF, archetype, text, span, {Concern.NESTING: 1}, 3, extent(inner))
    return None


def _parallel(node: ast.If, inner: ast.If) -> bool:
    """Whether the ``if``'s own arm is also one lone ``if``, as its ``else`` is: two
    cases side by side, each with its own test inside (``if https: if port != '443':``
    / ``else: if port != '80':``), which an ``elif`` would take apart (a fresh review's
    wsgiref ``application_uri``, judged wrong)."""
    match node.body:
        case [ast.If(orelse=[])]:
            return not inner.orelse
    return False


def _nested_in_else(node: ast.If, inner: ast.If) -> bool:
    """Whether ``inner`` is written under ``else:`` (an ``if`` in the column of the
    ``if`` whose else holds it is an ``elif`` already), right after it: a line between
    them (a comment on the case) would have nowhere to go in an ``elif``."""
    if inner.col_offset == node.col_offset:
        return False
    return inner.lineno == extent(node.body[-1])[1] + 2


@statement_rule(Kind.SAME_ARMS, concern=Concern.SIZE, doc="same_arms", on=(ast.If,))
def _same_arms(stmt: Stmt, view: FunctionView) -> Move | None:
    match stmt.node:
        case ast.If() as node if not stmt.is_elif:
            return _same_arms_move(if_chain(node))
    return None


def _same_arms_move(arms: list[ast.If]) -> Move | None:
    """The first two adjacent arms that run the same code, as a move."""
    for a, b in pairwise(arms):
        if _same_body(a.body, b.body) and _arms_join_well(a, b):
            return _joined_arms(a, b)
    return None


def _arms_join_well(a: ast.If, b: ast.If) -> bool:
    """Whether one arm for both reads as well: neither holds a comment (see
    :func:`_unwritten_lines`), and neither test spans lines (``not self.buffer or
    (at_end and\n at_last)`` would be one test of three lines mixing two cases: a
    fresh review's html5lib ``BufferedStream.read``)."""
    if _unwritten_lines(a) or _unwritten_lines(b):
        return False
    return all(t.lineno == t.end_lineno for t in (a.test, b.test))


def _joined_arms(a: ast.If, b: ast.If) -> Move:
    """Two arms of the same code as one: their tests joined by ``or``, or, when both
    compare one value with ``==``, one ``in`` test, which takes a radon point away
    where an ``or`` only takes the ``elif``'s place."""
    both = f"The arms on lines {a.lineno} and {b.lineno} run the same code"
    gains = {Concern.SIZE: body_lines(b.body) + 1}
    span = (a.lineno, extent(b)[1])
    member = equal_choices(a.test, b.test)
    if member is None:
        text = f"{both}: join their tests with `or` and write it once."
        return Move(Kind.SAME_ARMS, UNCLASSIFIED, text, span, gains, 3)
    test = snippet(render(member), 60)
    text = f"{both}: {test} tests both, 1 point less, and the code is written once."
    return Move(Kind.SAME_ARMS, UNCLASSIFIED, text, span, {**gains, Concern.COMPLEXITY: 1}, 3)


def equal_choices(first: ast.expr, second: ast.expr) -> ast.Compare | None:
    """``x in (a, b)`` for ``x == a`` and ``x == b``; None for other tests."""
    match first, second:
        case (
            ast.Compare(left=left, ops=[ast.Eq()], comparators=[one]),
            ast.Compare(left=other, ops=[ast.Eq()], comparators=[two]),
        ) if same_tree(left, other) and not _has_boolop(one, two):
            return ast.Compare(left, [ast.In()], [ast.Tuple([one, two], ast.Load())])
    return None


def _has_boolop(*nodes: ast.expr) -> bool:
    return any(isinstance(n, ast.BoolOp) for node in nodes for n in ast.walk(node))


def _unwritten_lines(arm: ast.If) -> bool:
    """Whether an arm's body has lines no statement is on: a comment (or a blank line)
    that says why its case is there, which one arm for both would drop (a fresh
    review's ``threading.Barrier.reset``: two commented transitions to one state)."""
    first = (arm.test.end_lineno or arm.lineno) + 1
    last = extent(arm.body[-1])[1]
    written = {n for stmt in arm.body for n in range(extent(stmt)[0], extent(stmt)[1] + 1)}
    return len(written) < last - first + 1


def _same_body(a: list[ast.stmt], b: list[ast.stmt]) -> bool:
    # Cheap tests first: most adjacent arms differ in shape or size.
    return (
        [type(x) for x in a] == [type(x) for x in b]
        and body_lines(a) == body_lines(b)
        and same_code(a, b)
    )


class OneOrMany(NamedTuple):
    """``if isinstance(value, T): <one>`` with an ``else`` that is only ``for item in
    value: <each>``."""

    node: ast.If
    value: str
    item: str
    loop: ast.For


def one_or_many_shape(node: ast.stmt) -> OneOrMany | None:
    match node:
        case ast.If(
            test=ast.Call(func=ast.Name(id="isinstance"), args=[ast.Name(id=value), _]),
            orelse=[ast.For(target=ast.Name(id=item), iter=ast.Name(id=looped), orelse=[]) as loop],
        ) if looped == value:
            return OneOrMany(node, value, item, loop)
    return None


@statement_rule(Kind.ONE_OR_MANY, concern=Concern.SIZE, doc="one_or_many", on=(ast.If,))
def _one_loop(stmt: Stmt, view: FunctionView) -> Move | None:
    """The ``if`` arm runs on one value what the loop of its ``else`` runs on each item."""
    found = None if stmt.is_elif else one_or_many_shape(stmt.node)
    if found is None or not _alike(found) or _read_after(view, stmt, found):
        return None
    return _one_loop_move(stmt, found)


def _alike(found: OneOrMany) -> bool:
    """Whether the arm is the loop's body with the value for the item, each reading only
    its own, and the arm leaves no loop that the loop's body would leave instead."""
    one, each = found.node.body, found.loop.body
    if mentions(ast.Module(one, []), (found.item,)) or mentions(
        ast.Module(each, []), (found.value,)
    ):
        return False
    return not _jumps_a_loop(one) and same_code(
        one, [renamed(s, found.item, found.value) for s in each]
    )


def _jumps_a_loop(statements: list[ast.stmt]) -> bool:
    """Whether a ``break`` or ``continue`` is among ``statements``, at any depth."""
    return any(isinstance(n, ast.Break | ast.Continue) for s in statements for n in ast.walk(s))


def _read_after(view: FunctionView, stmt: Stmt, found: OneOrMany) -> bool:
    """Whether the value is read after the ``if`` (it would be the list of one there), or
    the item outside its loop (the loop sets it; the arm does not)."""
    later = any(p > stmt.end for p in view.loads.get(found.value, ()))
    return (
        later
        or _read_next_pass(view, stmt, found.value)
        or read_outside_its_loops(view, found.item)
    )


def _read_next_pass(view: FunctionView, stmt: Stmt, name: str) -> bool:
    """Whether a loop around ``stmt`` that does not bind ``name`` afresh reads it before
    ``stmt``: a next pass would read what ``stmt`` left."""
    loop = stmt.parent
    while loop is not None:
        if _loops_without_binding(loop.node, name) and view.loads_between(
            name, loop.start, stmt.start
        ):
            return True
        loop = loop.parent
    return False


def _loops_without_binding(node: ast.stmt, name: str) -> bool:
    match node:
        case ast.For(target=ast.Name(id=bound)) | ast.AsyncFor(target=ast.Name(id=bound)):
            return bound != name
    return isinstance(node, ast.For | ast.AsyncFor | ast.While)


def _one_loop_move(stmt: Stmt, found: OneOrMany) -> Move:
    points = sum(s.points for s in stmt.blocks[0])
    less = f", {plural(points, 'point')} less" if points else ""
    value, item = found.value, found.item
    text = (
        f"The `if` on line {stmt.line} runs on `{value}` the code its `else` runs on each "
        f"`{item}` of it: `{value} = [{value}]` under the `if`, then the loop alone, say it "
        f"once{less}."
    )
    gains = {Concern.COMPLEXITY: points, Concern.SIZE: body_lines(found.node.body)}
    return Move(Kind.ONE_OR_MANY, UNCLASSIFIED, text, span_of(stmt), gains, 3)
