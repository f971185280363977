"""Which in-band values deserve a hint, and what each hint says.

A value inside its advise band is necessary for a hint, not sufficient. For each
definition and concern (complexity, size, parameters, nesting; a class's
cohesion; a module's size, Halstead measures and maintainability index) the
advisor gathers the moves that are possible on the code and gives at most one
hint, carrying the strongest move for that concern:

* **complexity** (``radon_cc``, and ``lizard_ccn`` where radon_cc is below its
  band): a move that takes decision points out of the function (a dispatch table,
  an idiom, an extraction that leaves both parts simpler). ``radon_cc`` always
  gets its hint (the protocol's contract); with no such move it says where the
  points are and why none moves out, or gives a move that tidies without lowering
  the count. ``lizard_ccn`` speaks only with a move that lowers it.
* **size** (``lizard_nloc``): a move that removes several lines, an extraction of
  a real step (six or more lines holding two or more decision points) or an idiom.
* **nesting** (``lizard_nesting_depth``): only where the code really nests that
  deep (lizard's ND rises at every branch keyword in Python), with a move that
  removes a level.
* **parameters**, **cohesion**, **module**: see :mod:`~gzguide.analysis.moves.signature`,
  :mod:`~gzguide.analysis.moves.classes` and :mod:`~gzguide.analysis.moves.modules`.

No two hints of a definition carry the same move: a move already given for one
concern is not given again for another (that hint is left out instead).
"""

from __future__ import annotations

import ast
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Final

from gzguide.analysis.facts.file import FileFacts, caller_parameters, receiver_of
from gzguide.analysis.facts.scopes import Scope
from gzguide.analysis.facts.walk import FunctionView, Stmt, real_depth
from gzguide.analysis.moves.base import CONCERNS, UNCLASSIFIED, Concern, Move, Related, fit
from gzguide.analysis.moves.catalog import function_moves
from gzguide.analysis.moves.classes import cohesion_move
from gzguide.analysis.moves.copies import BlockCopy, copied_function, where_copied
from gzguide.analysis.moves.extract import Examiner, Extraction, stack_calls_of
from gzguide.analysis.moves.kinds import SINCE, Kind, Trait
from gzguide.analysis.moves.modules import split_move
from gzguide.analysis.moves.objects import chain_move
from gzguide.analysis.moves.signature import MIN_PARAMETERS, parameter_moves
from gzguide.analysis.policy.census import census, decision_points
from gzguide.analysis.policy.headlines import Advice, Candidate, advice_of, headline
from gzguide.analysis.policy.thresholds import Position

#: A size move must remove at least this many lines.
MIN_SIZE_GAIN: Final = 4
#: An extraction for complexity must take at least this many points, be this long,
#: and be at most this share of the function's body.
COMPLEXITY_BLOCK_POINTS: Final = 2
COMPLEXITY_BLOCK_LINES: Final = 5
COMPLEXITY_BLOCK_SHARE: Final = 0.6
#: The module measures a split lowers (or, for the index, raises): all but Halstead
#: difficulty, a ratio that a smaller module may well have higher.
_SPLIT_METRICS: Final = frozenset(
    {"radon_raw_nloc", "radon_raw_lloc", "radon_hal_volume", "radon_hal_effort", "radon_mi"}
)


def _place(move: Move) -> tuple[int, int, str]:
    """The last key of every choice between moves: of two that rank the same, the one
    a reader meets first in the code (then the shorter, then by kind), never the one
    a detector happened to find first."""
    return (-move.span[0], -move.span[1], move.kind)


# -- functions ------------------------------------------------------------------------


@dataclass(eq=False)
class _FunctionMoves:
    view: FunctionView
    local: list[Move]
    scope: Scope
    facts: FileFacts
    _twins: dict[int, BlockCopy | None] = field(default_factory=dict)

    def written_twice(self, stmts: tuple[Stmt, ...]) -> bool:
        """Whether ``stmts`` is one statement with a copy elsewhere in the file."""
        return len(stmts) == 1 and self._twin(stmts[0].node) is not None

    def twin_of(self, block: Extraction) -> BlockCopy | None:
        """The copy of ``block`` elsewhere in the file, if it is one statement with one."""
        if len(block.statements) != 1:
            return None
        return self._twin(block.statements[0].node)

    def _twin(self, node: ast.stmt) -> BlockCopy | None:
        key = id(node)
        if key not in self._twins:
            self._twins[key] = where_copied(node, self.scope, self.facts)
        return self._twins[key]

    def evidence(self, block: Extraction) -> tuple[Related, ...]:
        """Where the copy that makes ``block`` a unit is."""
        twin = self.twin_of(block)
        if twin is None:
            return ()
        other = twin.node
        return ((other.lineno, other.end_lineno or other.lineno, "the copy of this block"),)

    def named(self, block: Extraction) -> bool:
        """Whether a reader would name ``block`` a unit of its own: it is written twice
        in the file (reviewers judged a block a comment names, alone, never worth a
        helper)."""
        return self.twin_of(block) is not None

    @cached_property
    def copy(self) -> Move | None:
        return copied_function(self.scope, self.facts)

    @cached_property
    def examiner(self) -> Examiner:
        """The checks of blocks (made when a block is first asked about: most functions'
        hints need none)."""
        facts = self.facts
        return Examiner(self.view, self.scope.owner is not None, lambda: stack_calls_of(facts))


def _moves_of(scope: Scope, facts: FileFacts) -> _FunctionMoves:
    view = facts.view(scope)
    local = [m for m in function_moves(view) if facts.runs_on(SINCE.get(m.kind))]
    return _FunctionMoves(view, local, scope, facts)


def _best(moves: Sequence[Move], concern: Concern) -> Move | None:
    useful = [m for m in moves if m.gain(concern) > 0]
    if not useful:
        return None
    return max(useful, key=lambda m: (m.gain(concern), m.priority, _place(m)))


def _strongest(moves: Sequence[Move], trait: Trait) -> Move | None:
    """The move of highest priority among those of a kind with ``trait``."""
    able = [m for m in moves if m.kind.has(trait)]
    return max(able, key=lambda m: (m.priority, _place(m))) if able else None


def _complexity_move(found: _FunctionMoves, value: int) -> Move | None:
    """The move for a ``radon_cc`` hint that lowers the count, in order of preference.

    The function's copy, once there is one (two copies are simplified once, after
    they become one); a dispatch table or an idiom that removes points (unless an
    extraction removes clearly more); on an arrowhead, a move that flattens it; an
    idiom that says the same more plainly; an extraction that leaves both parts
    simpler.
    """
    if found.copy is not None:
        return found.copy
    best = _best(found.local, Concern.COMPLEXITY)
    block = _complexity_block(found, value)
    if _prefer_the_idiom(best, block):
        return best
    return (
        _flattening(found)
        or _strongest(found.local, Trait.PLAIN)
        or _block_move(found, block, value)
    )


def _prefer_the_idiom(best: Move | None, block: Extraction | None) -> bool:
    """Whether the best local move wins over the extraction: it takes as many points, or
    but one fewer, or it is inside the block (once plainer, the block may stay)."""
    if best is None or block is None:
        return best is not None
    inside = block.start_line <= best.span[0] <= best.span[1] <= block.end_line
    return inside or block.points <= best.gain(Concern.COMPLEXITY) + 1


def _flattening(found: _FunctionMoves) -> Move | None:
    return _strongest(found.local, Trait.UNNESTS) if found.view.is_arrowhead() else None


def _block_move(found: _FunctionMoves, block: Extraction | None, value: int) -> Move | None:
    if block is None:
        return None
    twin = found.twin_of(block)
    where, differs = (twin.where, twin.differing > 0) if twin is not None else (None, False)
    move = block.move(found.view, Concern.COMPLEXITY, value, where, differs)
    return replace(move, related=found.evidence(block))


def _complexity_block(found: _FunctionMoves, value: int) -> Extraction | None:
    """The extraction that leaves both parts simplest, if one is worth making.

    Only a block written twice in the file is offered: reviewers judged other
    extractions, true as they were, not worth doing, those under a comment that names
    the step included.
    """
    body = body_lines(found.view)

    def wanted(stmts: tuple[Stmt, ...]) -> bool:
        # Asked before a block is examined, cheapest first: most blocks have no copy,
        # and the checks of a block cost more than the look-up of its copy.
        size = stmts[-1].end_line - stmts[0].line + 1
        points = sum(s.points for s in stmts)
        return _worth(points, size, value, body) and found.written_twice(stmts)

    extractions = found.examiner.extractions(COMPLEXITY_BLOCK_POINTS, wanted)
    blocks = [b for b in extractions if _shared(found, b)]
    if not blocks:
        return None
    # The one that leaves both parts simplest: one helper then serves both copies.
    return min(blocks, key=lambda b: (max(b.points + 1, value - b.points), -b.points))


def _shared(found: _FunctionMoves, block: Extraction) -> bool:
    """Whether one helper can serve the block and its copy: it is written twice, sets
    none of the names it takes (a helper would hand them back: reviewers judged that
    state passed around clumsier than the copies), and is not debugging code."""
    return found.named(block) and not block.hands_back and not block.debug_only


def worth_a_helper(block: Extraction, value: int, body: int) -> bool:
    """Whether the block is a step that lowers a count of ``value`` for real: enough
    points (but not all of them), enough lines, and not most of the body."""
    return _worth(block.points, block.size, value, body)


def _worth(points: int, size: int, value: int, body: int) -> bool:
    return (
        points >= COMPLEXITY_BLOCK_POINTS
        and points + 1 < value
        and size >= COMPLEXITY_BLOCK_LINES
        and size <= body * COMPLEXITY_BLOCK_SHARE
    )


def body_lines(view: FunctionView) -> int:
    return view.body[-1].end_line - view.body[0].line + 1 if view.body else 0


def _size_move(found: _FunctionMoves) -> Move | None:
    # Only an idiom that visibly removes lines: reviewers judged "extract this step"
    # for length alone a matter of taste, and a long function with no such idiom is
    # better left without a hint than told to split.
    local = [*found.local, found.copy] if found.copy is not None else found.local
    moves = [m for m in local if m.gain(Concern.SIZE) >= MIN_SIZE_GAIN]
    return _best(moves, Concern.SIZE)


def _nesting_move(found: _FunctionMoves) -> Move | None:
    deepest = _deepest_lines(found.view)
    moves = [m for m in found.local if _removes_a_level(m, deepest)]
    if not moves:
        return None
    return max(moves, key=lambda m: (m.priority, m.gain(Concern.NESTING), _place(m)))


def _deepest_lines(view: FunctionView) -> list[int]:
    return [s.line for s in view.statements if s.depth == view.max_depth]


def _removes_a_level(move: Move, deepest: list[int]) -> bool:
    """Whether the move flattens code and takes every deepest line a level up."""
    return (
        move.gain(Concern.NESTING) > 0 and move.kind.has(Trait.FLATTENS) and _covers(move, deepest)
    )


def _covers(move: Move, deepest: list[int]) -> bool:
    # A move that flattens one branch leaves the depth of a deeper one elsewhere.
    region = move.region
    return region is None or all(region[0] <= line <= region[1] for line in deepest)


def _may_speak(scope: Scope, c: Candidate) -> bool:
    """Whether a candidate can get a hint at all, decided before the function is walked."""
    metric = c.m.metric
    if metric == "lizard_nloc":
        # Most functions in the lower half of the band read well as they are.
        return c.position is Position.APPROACHING_WARN
    if metric == "lizard_param_count":
        return len(caller_parameters(scope)) >= MIN_PARAMETERS
    if metric == "lizard_nesting_depth":
        node = scope.node
        assert not isinstance(node, ast.ClassDef)
        return real_depth(node.body) >= c.m.value  # lizard's count, not real nesting
    return True


def _dominant_switch(found: _FunctionMoves, scope: Scope) -> Move | None:
    """A dispatch chain that makes up half the function's body or more."""
    node = scope.node
    assert not isinstance(node, ast.ClassDef)
    body = max(scope.end_line - node.body[0].lineno + 1, 1)
    switches = [
        m
        for m in found.local
        if m.kind.has(Trait.SWITCH) and (m.span[1] - m.span[0] + 1) * 2 >= body
    ]
    return max(switches, key=_place) if switches else None


class _Hints:
    """The hints of one function as they are decided, concern by concern: what each
    metric got, and which moves are given already. The function is walked only when
    a concern needs its moves."""

    def __init__(self, scope: Scope, facts: FileFacts) -> None:
        self.scope = scope
        self.facts = facts
        self.out: dict[str, Advice] = {}
        self.given: set[tuple[Kind, tuple[int, int]]] = set()
        #: The metrics given a move (not a census).
        self.moved: set[str] = set()

    @cached_property
    def found(self) -> _FunctionMoves:
        return _moves_of(self.scope, self.facts)

    @cached_property
    def switch(self) -> Move | None:
        return _dominant_switch(self.found, self.scope)

    def record(self, c: Candidate, move: Move) -> None:
        """``move`` is ``c``'s hint (a move of the signature: the body has no say)."""
        self.given.add(move.key)
        self.out[c.m.metric] = advice_of(c, move)

    def give(self, c: Candidate, move: Move | None) -> None:
        """``move`` is ``c``'s hint, unless there is none or another hint carries it."""
        if move is None or move.key in self.given:
            return
        self.given.add(move.key)
        self.moved.add(c.m.metric)
        advice = advice_of(c, move)
        shape = self._chain_around(move)
        if shape is not None:
            # A move inside the chain that makes up the function: the chain is its shape.
            advice = replace(advice, archetype=shape)
        self.out[c.m.metric] = advice

    def _chain_around(self, move: Move) -> str | None:
        """The archetype of the dominant switch, when ``move`` is inside it."""
        switch = self.switch
        if switch is not None and switch.span[0] <= move.span[0] <= move.span[1] <= switch.span[1]:
            return switch.archetype
        return None

    def moved_complexity(self) -> bool:
        return any(CONCERNS[m] is Concern.COMPLEXITY for m in self.moved)


# -- the policy of each concern: the hint one candidate gets ---------------------------


def _parameters(hints: _Hints, c: Candidate) -> None:
    # Decided from the signature and the file; the body is walked only for a flag.
    moves = parameter_moves(hints.scope, hints.facts)
    if moves:
        hints.record(c, max(moves, key=lambda m: (m.priority, _place(m))))


def _complexity(hints: _Hints, c: Candidate) -> None:
    if c.m.metric == "lizard_ccn":
        # An optional hint: only a move that removes points and is plainly better code.
        hints.give(c, _best(hints.found.local, Concern.COMPLEXITY))
        return
    move = _radon_cc_move(hints, int(c.m.value))
    if move is None:
        hints.out[c.m.metric] = _census_advice(hints, c)
        return
    hints.give(c, move)


def _radon_cc_move(hints: _Hints, value: int) -> Move | None:
    """A move that lowers the count; else one that tidies, names a call chain, or
    names what the code is."""
    found = hints.found
    return (
        _complexity_move(found, value)
        or _strongest(found.local, Trait.TIDY)
        or chain_move(found.view, receiver_of(hints.scope))
        or _strongest(found.local, Trait.NAMES)
    )


def _census_advice(hints: _Hints, c: Candidate) -> Advice:
    """No move, but the function's shape is still what it is."""
    found = hints.found
    text = census(found.view, c.m.value, c.band)
    shape = "arrowhead" if found.view.is_arrowhead() else UNCLASSIFIED
    shape = hints.switch.archetype if hints.switch is not None else shape
    places = decision_points(found.view)
    return Advice(shape, headline(c), fit(text), proposes=False, related=places)


def _nesting(hints: _Hints, c: Candidate) -> None:
    hints.give(c, _nesting_move(hints.found))


def _size(hints: _Hints, c: Candidate) -> None:
    # A function that already has a move for its complexity needs no second one.
    if not hints.moved_complexity():
        hints.give(c, _size_move(hints.found))


#: Each concern of a function's values, with its policy, in the order they are decided
#: (a move given for one is not given again for a later one).
_POLICIES: Final[tuple[tuple[Concern, Callable[[_Hints, Candidate], None]], ...]] = (
    (Concern.PARAMETERS, _parameters),
    (Concern.COMPLEXITY, _complexity),
    (Concern.NESTING, _nesting),
    (Concern.SIZE, _size),
)


class Advisor:
    """Decides the hints of one file version from its in-band values."""

    def __init__(self, facts: FileFacts) -> None:
        self.facts = facts

    def function(self, scope: Scope, candidates: list[Candidate]) -> dict[str, Advice]:
        by_concern: dict[Concern, list[Candidate]] = defaultdict(list)
        for c in candidates:
            if _may_speak(scope, c):
                by_concern[CONCERNS[c.m.metric]].append(c)
        hints = _Hints(scope, self.facts)
        for concern, policy in _POLICIES:
            for c in by_concern.get(concern, ()):
                policy(hints, c)
        return hints.out

    def cls(self, scope: Scope, candidate: Candidate) -> Advice | None:
        assert isinstance(scope.node, ast.ClassDef)
        graph = self.facts.classes.get(scope.key)
        if graph is None:
            return None
        facts = self.facts
        move = cohesion_move(
            scope.node, graph, lambda: facts.attributes_read_outside, lambda: facts.top_classes
        )
        return advice_of(candidate, move) if move is not None else None

    def module(self, candidates: list[Candidate]) -> dict[str, Advice]:
        """At most one hint per module concern; none carries a move another already gave."""
        out: dict[str, Advice] = {}
        move = split_move(self.facts.top_level)
        if move is None:
            return out
        # The closest to its gate speaks; a move is given once.
        able = [c for c in candidates if c.m.metric in _SPLIT_METRICS]
        if able:
            closest = min(able, key=lambda c: (_rank(c), c.m.metric))
            out[closest.m.metric] = advice_of(closest, move)
        return out


def _rank(c: Candidate) -> int:
    """Closer to the gate first, so that of two metrics of one concern that one speaks."""
    return 0 if c.position is Position.APPROACHING_WARN else 1
