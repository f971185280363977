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
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Final

from gzguide.analysis.facts.file import FileFacts, caller_parameters, receiver_of
from gzguide.analysis.facts.scopes import Scope
from gzguide.analysis.facts.walk import FunctionView, Stmt, real_depth
from gzguide.analysis.metrics.measurement import Measurement
from gzguide.analysis.moves.base import (
    CONCERNS,
    UNCLASSIFIED,
    Concern,
    Move,
    fit,
    line_list,
    lines,
    names,
)
from gzguide.analysis.moves.catalog import function_moves
from gzguide.analysis.moves.classes import cohesion_move
from gzguide.analysis.moves.copies import copied_function, where_copied
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
    Extraction,
)
from gzguide.analysis.moves.kinds import Trait
from gzguide.analysis.moves.modules import split_move
from gzguide.analysis.moves.objects import chain_move
from gzguide.analysis.moves.signature import MIN_PARAMETERS, parameter_moves
from gzguide.analysis.policy.thresholds import MetricBand, Position

#: How each metric is named in a headline.
METRIC_LABELS: Final[dict[str, str]] = {
    "radon_cc": "Cyclomatic complexity",
    "lizard_ccn": "Cyclomatic complexity (lizard CCN)",
    "lizard_nloc": "Lines of code",
    "lizard_param_count": "Parameter count",
    "lizard_nesting_depth": "Nesting depth",
    "cohesion_lcom4": "LCOM4 (method groups sharing no state)",
    "radon_mi": "Maintainability index",
    "radon_hal_volume": "Halstead volume",
    "radon_hal_difficulty": "Halstead difficulty",
    "radon_hal_effort": "Halstead effort",
    "radon_raw_nloc": "Source lines",
    "radon_raw_lloc": "Logical lines",
}

#: The metrics this engine can advise on.
ADVISED_METRICS: Final = frozenset(METRIC_LABELS)

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


@dataclass(frozen=True, slots=True)
class Candidate:
    """One metric value inside its advise band."""

    m: Measurement
    band: MetricBand
    position: Position


#: What a hint's move is when it is the census: where the decision points are.
CENSUS: Final = "census"


@dataclass(frozen=True, slots=True)
class Advice:
    archetype: str
    headline: str
    move: str
    #: Whether the move proposes a change (not so for the census of a function that
    #: only owes its hint to the contract, nor for a short chain named as it is).
    proposes: bool = True
    #: The kind of the move (a :class:`Kind` value), or :data:`CENSUS`.
    kind: str = CENSUS


def _fmt(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:.2f}"


def headline(c: Candidate) -> str:
    label = METRIC_LABELS.get(c.m.metric, c.m.metric)
    band = c.band
    if band.gate is None:
        where = f"past the advise mark of {_fmt(band.advise)}"
    else:
        gate = "warn" if band.gate_is_warn else "block"
        if c.position is Position.APPROACHING_WARN:
            where = f"closing in on the {gate} threshold of {_fmt(band.gate)}"
        else:
            where = f"inside the advise band ({_fmt(band.advise)} to {gate} at {_fmt(band.gate)})"
    return f"{label} {_fmt(c.m.value)} in {c.m.subject} is {where}"


def _advice(c: Candidate, move: Move) -> Advice:
    proposes = not move.kind.has(Trait.NAMES)
    return Advice(move.archetype, headline(c), fit(move.text), proposes, move.kind.value)


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
    examiner: Examiner
    scope: Scope
    facts: FileFacts
    _twins: dict[int, str | None] = field(default_factory=dict)

    @cached_property
    def blocks(self) -> list[Extraction]:
        """The blocks that can move out and hold enough points for any concern's move."""
        return self.examiner.extractions(COMPLEXITY_BLOCK_POINTS)

    def twin_of(self, block: Extraction) -> str | None:
        """Where a copy of ``block`` is in the file, and how close."""
        if len(block.statements) != 1:
            return None
        node = block.statements[0].node
        key = id(node)
        if key not in self._twins:
            self._twins[key] = where_copied(node, self.scope, self.facts)
        return self._twins[key]

    @cached_property
    def copy(self) -> Move | None:
        return copied_function(self.scope, self.facts)


def _moves_of(scope: Scope, facts: FileFacts) -> _FunctionMoves:
    view = facts.view(scope)
    local = function_moves(view)
    return _FunctionMoves(view, local, Examiner(view, scope.owner is not None), scope, facts)


def _best(moves: Sequence[Move], concern: Concern) -> Move | None:
    useful = [m for m in moves if m.gain(concern) > 0]
    if not useful:
        return None
    return max(useful, key=lambda m: (m.gain(concern), m.priority, _place(m)))


def _strongest(moves: Sequence[Move], trait: Trait) -> Move | None:
    """The move of highest priority among those of a kind with ``trait``."""
    able = [m for m in moves if m.kind.has(trait)]
    return max(able, key=lambda m: (m.priority, _place(m))) if able else None


def _complexity_move(found: _FunctionMoves, c: Candidate, lizard: bool) -> Move | None:
    """The move for a complexity hint, in order of preference.

    A dispatch table or an idiom that removes points (unless an extraction removes
    clearly more); on an arrowhead, a move that flattens it; an extraction that
    leaves both parts simpler; an idiom that says the same more plainly. For
    ``lizard_ccn``, an optional hint, only a move that removes points and is
    plainly better code.
    """
    best = _best(found.local, Concern.COMPLEXITY)
    if lizard:
        return best
    if found.copy is not None:
        # Two copies are simplified once, after they become one.
        return found.copy
    block = _complexity_block(found, int(c.m.value))
    if best is not None and (block is None or block.points <= best.gain(Concern.COMPLEXITY) + 1):
        return best
    if found.view.is_arrowhead():
        flat = _strongest(found.local, Trait.UNNESTS)
        if flat is not None:
            return flat
    plain = _strongest(found.local, Trait.PLAIN)
    if plain is not None:
        return plain
    if block is not None:
        return block.move(found.view, Concern.COMPLEXITY, int(c.m.value), found.twin_of(block))
    return None


def _complexity_block(found: _FunctionMoves, value: int) -> Extraction | None:
    """The extraction that leaves both parts simplest, if one is worth making."""
    body = _body_lines(found.view)
    blocks = [
        b
        for b in found.blocks
        if b.points >= COMPLEXITY_BLOCK_POINTS
        and b.points + 1 < value
        and b.size >= COMPLEXITY_BLOCK_LINES
        and b.size <= body * COMPLEXITY_BLOCK_SHARE
    ]
    if not blocks:
        return None
    # A block written twice in the file first: one helper then serves both copies.
    return min(
        blocks,
        key=lambda b: (
            found.twin_of(b) is None,
            max(b.points + 1, value - b.points),
            -b.points,
        ),
    )


def _body_lines(view: FunctionView) -> int:
    return view.body[-1].end_line - view.body[0].line + 1 if view.body else 0


def _size_move(found: _FunctionMoves) -> Move | None:
    # Only an idiom that visibly removes lines: reviewers judged "extract this step"
    # for length alone a matter of taste, and a long function with no such idiom is
    # better left without a hint than told to split.
    local = [*found.local, found.copy] if found.copy is not None else found.local
    moves = [m for m in local if m.gain(Concern.SIZE) >= MIN_SIZE_GAIN]
    return _best(moves, Concern.SIZE)


def _nesting_move(found: _FunctionMoves, c: Candidate) -> Move | None:
    view = found.view
    deepest = [s.line for s in view.statements if s.depth == view.max_depth]

    def lowers_the_depth(m: Move) -> bool:
        # A move that flattens one branch leaves the depth of a deeper one elsewhere.
        region = m.region
        return region is None or all(region[0] <= line <= region[1] for line in deepest)

    moves = [
        m
        for m in found.local
        if m.gain(Concern.NESTING) > 0 and m.kind.has(Trait.FLATTENS) and lowers_the_depth(m)
    ]
    if not moves:
        return None
    return max(moves, key=lambda m: (m.priority, m.gain(Concern.NESTING), _place(m)))


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
    by_kind: dict[str, list[int]] = defaultdict(list)
    total: dict[str, int] = defaultdict(int)
    for point in view.points:
        by_kind[point.kind].append(point.line)
        total[point.kind] += point.weight
    parts = []
    for kind, at in sorted(by_kind.items(), key=lambda item: (-total[item[0]], min(item[1]))):
        one, many = _KIND_WORDS[kind]
        word = one if total[kind] == 1 else f"{total[kind]} {many}"
        parts.append(f"{word} ({'line' if len(set(at)) == 1 else 'lines'} {line_list(at, 3)})")
    more = len(parts) - 4
    shown = ", ".join(parts[:4]) + (f", and {more} more kind{'s' * (more > 1)}" if more > 0 else "")
    heavy = [s for s in view.statements if s.blocks and not s.is_elif and s.points >= 2]
    listed = f"Its {view.total_points} decision points: {shown}."
    if not heavy:
        return listed
    # The outermost of the heaviest blocks: the one a reader sees first. Why it stays
    # is worth a sentence only where it names what keeps it in; "too short" or "most
    # of the function" tells a reader nothing the code does not.
    stmt = max(heavy, key=lambda s: (s.points, -s.line))
    verdict = examiner.examine((stmt,))
    if not isinstance(verdict, str) or verdict in _PLAIN_OBSTACLES:
        return listed
    what = _WHAT.get(type(stmt.node), "block")
    where = f"The {what} at {lines(stmt.line, stmt.end_line)}"
    return f"{listed} {where} holds {stmt.points} of them and {_obstacle(verdict, stmt, examiner)}."


def _obstacle(verdict: str, stmt: Stmt, examiner: Examiner) -> str:
    """Why ``stmt`` cannot move out as it is, naming the values that keep it in."""
    block = (stmt,)
    if verdict == OUTPUTS:
        return f"sets {names(examiner.outputs(block))}, which the function reads after it"
    if verdict == THREADS:
        taken = examiner.threaded(block)
        params = examiner.view.params
        if all(n in params for n in taken):
            what = "a parameter" if len(taken) == 1 else "parameters"
            return f"reassigns {names(taken)} ({what}), which the function reads after it"
        return f"reassigns {names(taken)}, which the function set before it and reads after it"
    if verdict == CHANGES:
        return f"changes {names(examiner.changed_inputs(block))} in place"
    if verdict == FLAG:
        node = stmt.node
        assert isinstance(node, ast.If)
        test = node.test.operand if isinstance(node.test, ast.UnaryOp) else node.test
        assert isinstance(test, ast.Name)
        return f"only tests `{test.id}`: a helper would take it just to test it"
    return _OBSTACLES[verdict]


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


class Advisor:
    """Decides the hints of one file version from its in-band values."""

    def __init__(self, facts: FileFacts) -> None:
        self.facts = facts

    def function(self, scope: Scope, candidates: list[Candidate]) -> dict[str, Advice]:
        by_concern: dict[Concern, list[Candidate]] = defaultdict(list)
        for c in candidates:
            if _may_speak(scope, c):
                by_concern[CONCERNS[c.m.metric]].append(c)
        if not by_concern:
            return {}
        given: set[tuple[str, tuple[int, int]]] = set()
        out: dict[str, Advice] = {}
        for c in by_concern.get(Concern.PARAMETERS, ()):
            # Decided from the signature and the file; the body is walked only for a flag.
            moves = parameter_moves(scope, self.facts)
            if moves:
                chosen = max(moves, key=lambda m: (m.priority, _place(m)))
                given.add(chosen.key)
                out[c.m.metric] = _advice(c, chosen)
        if not (by_concern.keys() - {Concern.PARAMETERS}):
            return out
        found = _moves_of(scope, self.facts)
        switch = _dominant_switch(found, scope)
        moved: set[str] = set()  # the metrics given a move (not a census)

        def give(c: Candidate, move: Move | None) -> None:
            if move is None or move.key in given:
                return
            given.add(move.key)
            moved.add(c.m.metric)
            advice = _advice(c, move)
            if (
                switch is not None
                and switch.span[0] <= move.span[0] <= move.span[1] <= switch.span[1]
            ):
                # A move inside the chain that makes up the function: the chain is its shape.
                advice = replace(advice, archetype=switch.archetype)
            out[c.m.metric] = advice

        for c in by_concern.get(Concern.COMPLEXITY, ()):
            lizard = c.m.metric == "lizard_ccn"
            move = _complexity_move(found, c, lizard)
            if move is None and not lizard:
                move = _strongest(found.local, Trait.TIDY)
            if move is None and not lizard:
                move = chain_move(found.view, receiver_of(scope))
            if move is None and not lizard:
                move = _strongest(found.local, Trait.NAMES)
            if move is None and not lizard:
                text = census(found.view, found.examiner)
                # No move, but the function's shape is still what it is.
                shape = "arrowhead" if found.view.is_arrowhead() else UNCLASSIFIED
                shape = switch.archetype if switch is not None else shape
                out[c.m.metric] = Advice(shape, headline(c), fit(text), proposes=False)
                continue
            give(c, move)
        for c in by_concern.get(Concern.NESTING, ()):
            give(c, _nesting_move(found, c))
        for c in by_concern.get(Concern.SIZE, ()):
            # A function that already has a move for its complexity needs no second one.
            if not any(CONCERNS[m] is Concern.COMPLEXITY for m in moved):
                give(c, _size_move(found))
        return out

    def cls(self, scope: Scope, candidate: Candidate) -> Advice | None:
        assert isinstance(scope.node, ast.ClassDef)
        graph = self.facts.classes.get(scope.key)
        if graph is None:
            return None
        move = cohesion_move(scope.node, graph, lambda: self.facts.attributes_read_outside)
        return _advice(candidate, move) if move is not None else None

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
            out[closest.m.metric] = _advice(closest, move)
        return out


def _rank(c: Candidate) -> int:
    """Closer to the gate first, so that of two metrics of one concern that one speaks."""
    return 0 if c.position is Position.APPROACHING_WARN else 1
