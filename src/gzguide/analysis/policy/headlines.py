"""What a hint says around its move: the value's headline, and the advice it carries.

A candidate is a metric value inside its advise band; its headline names the metric,
the value, the definition and where the value sits in the band (``Cyclomatic
complexity 9 in parse is inside the advise band (7 to warn at 11)``). An
:class:`Advice` is a hint as the policy decides it: archetype, headline, move text.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from gzguide.analysis.metrics.measurement import Measurement
from gzguide.analysis.moves.base import Move, Related, fit
from gzguide.analysis.moves.kinds import Trait
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
    #: The places the hint points at: the lines the move changes and those it names,
    #: or, for the census, each decision point.
    related: tuple[Related, ...] = ()


def _fmt(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:.2f}"


def headline(c: Candidate) -> str:
    label = METRIC_LABELS.get(c.m.metric, c.m.metric)
    return f"{label} {_fmt(c.m.value)} in {c.m.subject} is {_where_in_band(c)}"


def _where_in_band(c: Candidate) -> str:
    band = c.band
    if band.gate is None:
        return f"past the advise mark of {_fmt(band.advise)}"
    gate = "warn" if band.gate_is_warn else "block"
    if c.position is Position.APPROACHING_WARN:
        return f"closing in on the {gate} threshold of {_fmt(band.gate)}"
    return f"inside the advise band ({_fmt(band.advise)} to {gate} at {_fmt(band.gate)})"


def advice_of(c: Candidate, move: Move) -> Advice:
    """The hint for ``c`` that carries ``move``."""
    proposes = not move.kind.has(Trait.NAMES)
    changed = (*move.span, "what the move changes" if proposes else "what the move names")
    related = (changed, *move.related)
    return Advice(move.archetype, headline(c), fit(move.text), proposes, move.kind.value, related)
