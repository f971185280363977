"""Headlines and recommended moves: specific to metric and archetype, located, our own words.

The headline is one line: which metric, its value, what was measured, and how
close it is to the gate. The move says what to do: for a classified hint, the
archetype's remedy applied to the evidence the detector found (names, lines,
related definitions); for an unclassified one, the metric's own remedy, located by
what drives the value (the branches behind a complexity, the largest block of a
long function, the method groups of an incohesive class).
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass

from gzguide.analysis.archetypes import UNCLASSIFIED, Classification, FileContext
from gzguide.analysis.branches import census_and_hotspot
from gzguide.analysis.measure import Measurement
from gzguide.analysis.shapes import (
    Evidence,
    deepest_nesting,
    own_nodes,
    own_parameters,
    parameter_names,
)
from gzguide.analysis.thresholds import MetricBand, Position


@dataclass(frozen=True, slots=True)
class Advice:
    headline: str
    move: str


#: How each metric is named in advice.
METRIC_LABELS: dict[str, str] = {
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


@dataclass(frozen=True, slots=True)
class Subject:
    """Everything a writer may use: the measurement, its band, the file's facts."""

    m: Measurement
    band: MetricBand
    position: Position
    classification: Classification
    ctx: FileContext
    #: Extra per-metric facts computed by the engine (e.g. cohesion components).
    facts: dict[str, object]

    @property
    def evidence(self) -> Evidence:
        assert self.classification.evidence is not None
        return self.classification.evidence

    @property
    def where(self) -> str:
        return f"{self.m.subject} ({_lines(self.m.start_line, self.m.end_line)})"


def _fmt(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:.2f}"


def _lines(start: int, end: int) -> str:
    return f"line {start}" if start == end else f"lines {start}-{end}"


def _line_list(lines: list[int], limit: int = 4) -> str:
    unique = sorted(set(lines))
    shown = ", ".join(str(n) for n in unique[:limit])
    more = len(unique) - limit
    return shown + (f" and {more} more" if more > 0 else "")


_PLURALS = {"if/elif branch": "if/elif branches", "match case": "match cases"}


def _count(n: int, noun: str) -> str:
    if n == 1:
        return f"1 {noun}"
    return f"{n} {_PLURALS.get(noun, noun + 's')}"


def _names(names: tuple[str, ...] | list[str], limit: int = 6) -> str:
    shown = [f"`{n}`" for n in names[:limit]]
    if len(names) > limit:
        shown.append(f"{len(names) - limit} more")
    if len(shown) <= 2:
        return " and ".join(shown)
    return ", ".join(shown[:-1]) + f" and {shown[-1]}"


def _gate_phrase(band: MetricBand, position: Position) -> str:
    if band.gate is None:
        return f"past the advise mark of {_fmt(band.advise)}"
    gate = "warn" if band.gate_is_warn else "block"
    if position is Position.APPROACHING_WARN:
        return f"closing in on the {gate} threshold of {_fmt(band.gate)}"
    return f"inside the advise band ({_fmt(band.advise)} to {gate} at {_fmt(band.gate)})"


def headline(s: Subject) -> str:
    label = METRIC_LABELS.get(s.m.metric, s.m.metric)
    return f"{label} {_fmt(s.m.value)} in {s.m.subject} is {_gate_phrase(s.band, s.position)}"


def _pushes(s: Subject) -> str:
    label = METRIC_LABELS.get(s.m.metric, s.m.metric).lower()
    return f"that is what brings its {label} to {_fmt(s.m.value)}"


# -- moves for classified hints ------------------------------------------------------


def _arrowhead(s: Subject) -> str:
    e = s.evidence
    inner = e.extra.get("inner")
    block = f" the innermost block ({_lines(*inner)})" if isinstance(inner, tuple) else " it"
    return (
        f"{s.where} has {e.summary}; {_pushes(s)}. Turn the outer conditions into guard "
        f"clauses that return or continue early, and move{block} into a helper named for "
        "what it does, so the main path runs down the left margin."
    )


def _switch_on_type(s: Subject) -> str:
    e = s.evidence
    span = e.extra.get("span")
    at = f" ({_lines(*span)})" if isinstance(span, tuple) else ""
    return (
        f"{s.where} dispatches through {e.summary}{at}; {_pushes(s)}. Give each case its "
        f"own handler: a method on each type, a dict from tag to function, or "
        "`functools.singledispatch`, so a new case is added without editing this chain."
    )


def _long_parameter_list(s: Subject) -> str:
    e = s.evidence
    return (
        f"{s.where} takes {e.summary}. Pass the object these values come from instead of "
        "its pieces, or bundle the ones that always go together into a small dataclass; "
        "a flag parameter is better split into two functions."
    )


def _data_clumps(s: Subject) -> str:
    e = s.evidence
    return (
        f"In {s.where} the {e.summary}. Make them one dataclass and pass that "
        f"instead; then move the logic that reads all of {_names(e.names)} onto it."
    )


def _primitive_obsession(s: Subject) -> str:
    e = s.evidence
    at = f" (lines {_line_list(list(e.lines))})" if len(e.lines) > 1 else ""
    return (
        f"{s.where}: {e.summary}{at}. Give the concept a type of its own, an Enum for a "
        "closed set of codes or a small value class for a quantity, so the valid cases "
        "are named in one place and checked where values enter."
    )


def _feature_envy(s: Subject) -> str:
    e = s.evidence
    target = e.extra.get("target", e.names[0] if e.names else "the other object")
    return (
        f"{s.where} makes {e.summary}. Move this logic (or the part of it that reads "
        f"`{target}`) into `{target}`'s class as a method, so the behaviour sits with the "
        "data it uses and this function just asks for the result."
    )


def _message_chain(s: Subject) -> str:
    e = s.evidence
    return (
        f"In {s.where}, {e.summary}. Ask the first object for what you need through "
        "one method that hides the walk, so this code stops depending on the shape of "
        "every link on the way."
    )


def _large_class(s: Subject) -> str:
    e = s.evidence
    components = s.facts.get("components")
    groups = ""
    if isinstance(components, list) and len(components) > 1:
        shown = " / ".join(
            "{" + ", ".join(g[:4]) + ("…" if len(g) > 4 else "") + "}" for g in components[:4]
        )
        groups = f" Its methods fall into groups that share no state: {shown}."
    return (
        f"{e.summary[0].upper()}{e.summary[1:]} ({s.where}).{groups} Split it along those "
        "responsibilities: each new class keeps the attributes only its methods use, and "
        "the original delegates or disappears."
    )


_ARCHETYPE_MOVES: dict[str, Callable[[Subject], str]] = {
    "arrowhead": _arrowhead,
    "switch_on_type": _switch_on_type,
    "long_parameter_list": _long_parameter_list,
    "data_clumps": _data_clumps,
    "primitive_obsession": _primitive_obsession,
    "feature_envy": _feature_envy,
    "message_chain": _message_chain,
    "large_class": _large_class,
}


# -- moves for unclassified hints, per metric ----------------------------------------------


def _function_body(s: Subject) -> list[ast.stmt]:
    assert s.m.scope is not None and s.m.scope.is_function
    return s.m.scope.node.body


def _complexity(s: Subject) -> str:
    body = _function_body(s)
    census, spot = census_and_hotspot(body)
    parts = [
        f"{_count(count, kind)} ({'line' if len(set(census.lines[kind])) == 1 else 'lines'} "
        f"{_line_list(census.lines[kind])})"
        for kind, count in census.counts.most_common()
    ]
    drivers = "; ".join(parts) if parts else "no branches of its own"
    if spot is not None and spot.points < census.total:
        step = (
            f"Move the statement on {_lines(spot.start_line, spot.end_line)}, which holds "
            f"{spot.points} of its {census.total} decision points, into a helper named for "
            "what it decides, so this function reads as a short sequence of steps"
        )
    elif census.counts.get("boolean operator", 0) >= 2:
        step = (
            "Name the compound conditions: each `and`/`or` test becomes a small predicate "
            "function or a well-named local, which the branches then read"
        )
    else:
        step = (
            "Give each independent condition a named predicate or helper, and return early "
            "from the cases that need no further work"
        )
    return f"{s.where} branches on {drivers}. {step}."


def _largest_block(body: list[ast.stmt]) -> ast.stmt | None:
    blocks = [b for b in body if not isinstance(b, ast.Expr | ast.Pass)]
    if not blocks:
        return None
    return max(blocks, key=lambda b: (b.end_lineno or b.lineno) - b.lineno)


def _long_function(s: Subject) -> str:
    block = _largest_block(_function_body(s))
    step = "Split it into steps with names"
    if block is not None and (block.end_lineno or block.lineno) > block.lineno:
        span = _lines(block.lineno, block.end_lineno or block.lineno)
        step = (
            f"Its largest statement spans {span}: "
            "extract it into a helper named for its result, and let the function read as "
            "the sequence of those steps"
        )
    return f"{s.where} has {_fmt(s.m.value)} lines of code. {step}."


def _parameter_count(s: Subject) -> str:
    assert s.m.scope is not None and not isinstance(s.m.scope.node, ast.ClassDef)
    declared = parameter_names(s.m.scope.node)
    own = own_parameters(s.m.scope)
    receiver = " (lizard counts the receiver too)" if len(own) < len(declared) else ""
    return (
        f"{s.where} declares {_names(declared)}{receiver}. Before adding another, check "
        f"whether {_names(own)} describe one thing that deserves a type, or whether the "
        "function does two jobs selected by one of them."
    )


_KEYWORD_NODES = (ast.If, ast.For, ast.AsyncFor, ast.While, ast.Try, ast.TryStar, ast.comprehension)


def _nesting_depth(s: Subject) -> str:
    body = _function_body(s)
    chain = deepest_nesting(body)
    if len(chain) >= s.m.value:
        path = " > ".join(f"line {c.lineno}" for c in chain)
        return (
            f"{s.where} nests its blocks {_fmt(s.m.value)} deep ({path}). Return early from "
            "the edge cases and move the innermost block into a helper, so each level reads "
            "on its own."
        )
    lines = sorted(
        {
            getattr(n, "lineno", 0) or getattr(getattr(n, "iter", None), "lineno", 0)
            for n in own_nodes(body)
            if isinstance(n, _KEYWORD_NODES)
        }
    )
    real = {0: "it has no nested block", 1: "no block nests in another"}.get(
        len(chain), f"its blocks nest only {len(chain)} deep"
    )
    word = "line" if len(lines) == 1 else "lines"
    return (
        f"lizard's nesting measure reads {_fmt(s.m.value)} for {s.where}: in Python it rises "
        f"at each if/for/while/try keyword ({word} {_line_list(lines)}) and dedenting never "
        f"lowers it, although {real}. Every branch you "
        "remove lowers it: merge conditions that lead to the same result, or turn a "
        "search loop into a call to a helper that returns early."
    )


def _cohesion(s: Subject) -> str:
    components = s.facts.get("components")
    groups = ""
    if isinstance(components, list):
        groups = " / ".join(
            "{" + ", ".join(g[:4]) + ("…" if len(g) > 4 else "") + "}" for g in components[:4]
        )
    return (
        f"{s.where} falls apart into {_fmt(s.m.value)} groups of methods that share no "
        f"attribute and call no one across: {groups}. Each group is a candidate class (or a "
        "set of module functions, if it touches no state); move the smallest one out first."
    )


def _module_size(s: Subject) -> str:
    tops = [sc for sc in s.ctx.scopes if sc.owner is None and "." not in sc.qualname]
    tops.sort(key=lambda sc: sc.start_line - sc.end_line)
    if not tops:
        return (
            f"{s.where} is {_fmt(s.m.value)} lines of top-level statements. Move the "
            "statements into functions named for what they do, then group those by topic."
        )
    shown = ", ".join(
        f"`{sc.qualname}` ({sc.end_line - sc.start_line + 1} lines from line {sc.start_line})"
        for sc in tops[:3]
    )
    return (
        f"{s.where} is growing past one topic. Its largest definitions are {shown}: move "
        "the biggest cohesive one into a module of its own and import it back."
    )


def _halstead(s: Subject) -> str:
    heavy = s.facts.get("heaviest")
    where = ""
    if isinstance(heavy, list) and heavy:
        where = (
            " Most of it is in " + ", ".join(f"`{name}` ({_fmt(v)})" for name, v in heavy[:3]) + "."
        )
    return (
        f"{s.where} has a {METRIC_LABELS[s.m.metric].lower()} of {_fmt(s.m.value)}: many "
        f"distinct operators and operands for a reader to hold.{where} Simplify those "
        "expressions first: name intermediate results, and replace repeated literal "
        "arithmetic and string building with small helpers."
    )


def _maintainability(s: Subject) -> str:
    heavy = s.facts.get("heaviest")
    lead = ""
    if isinstance(heavy, list) and heavy:
        lead = (
            " Its heaviest functions by Halstead volume are "
            + ", ".join(f"`{name}`" for name, _ in heavy[:3])
            + "."
        )
    return (
        f"{s.where} has a maintainability index of {_fmt(s.m.value)} (lower is worse).{lead} "
        "Raise it by shrinking those functions (extract helpers), cutting branches, and "
        "splitting the module by topic; a comment explaining the why also counts."
    )


_METRIC_MOVES: dict[str, Callable[[Subject], str]] = {
    "radon_cc": _complexity,
    "lizard_ccn": _complexity,
    "lizard_nloc": _long_function,
    "lizard_param_count": _parameter_count,
    "lizard_nesting_depth": _nesting_depth,
    "cohesion_lcom4": _cohesion,
    "radon_mi": _maintainability,
    "radon_hal_volume": _halstead,
    "radon_hal_difficulty": _halstead,
    "radon_hal_effort": _halstead,
    "radon_raw_nloc": _module_size,
    "radon_raw_lloc": _module_size,
}

#: The metrics this engine can advise on.
ADVISED_METRICS = frozenset(_METRIC_MOVES)


def advise(s: Subject) -> Advice:
    archetype = s.classification.archetype
    if archetype != UNCLASSIFIED:
        move = _ARCHETYPE_MOVES[archetype](s)
    else:
        move = _METRIC_MOVES[s.m.metric](s)
    return Advice(headline(s), move)
