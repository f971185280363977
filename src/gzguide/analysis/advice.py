"""Headlines and recommended moves: specific to metric and archetype, located, our own words.

Each metric has a writer that turns a measurement (and what the archetype rules
found) into a one-line headline and a move that names the construct, its lines
and the names involved.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from gzguide.analysis.branches import census_of, hotspot
from gzguide.analysis.measure import Measurement
from gzguide.analysis.thresholds import MetricBand, Position


@dataclass(frozen=True, slots=True)
class Advice:
    headline: str
    move: str


def _fmt(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:.2f}"


def _lines(start: int, end: int) -> str:
    return f"line {start}" if start == end else f"lines {start}-{end}"


def _line_list(lines: list[int], limit: int = 4) -> str:
    shown = ", ".join(str(n) for n in sorted(set(lines))[:limit])
    more = len(set(lines)) - limit
    return shown + (f" and {more} more" if more > 0 else "")


_PLURALS = {"if/elif branch": "if/elif branches", "match case": "match cases"}


def _count(n: int, noun: str) -> str:
    if n == 1:
        return f"1 {noun}"
    return f"{n} {_PLURALS.get(noun, noun + 's')}"


def _line_word(lines: list[int]) -> str:
    return "line" if len(set(lines)) == 1 else "lines"


def _gate_phrase(band: MetricBand, position: Position) -> str:
    if band.gate is None:
        return f"past the advise mark of {_fmt(band.advise)}"
    gate = "warn" if band.gate_is_warn else "block"
    if position is Position.APPROACHING_WARN:
        return f"closing in on the {gate} threshold of {_fmt(band.gate)}"
    return f"inside the advise band ({_fmt(band.advise)} to {gate} at {_fmt(band.gate)})"


def _cc_advice(m: Measurement, band: MetricBand, position: Position, archetype: str) -> Advice:
    scope = m.scope
    assert scope is not None and scope.is_function
    body = scope.node.body
    census = census_of(body)
    headline = (
        f"Cyclomatic complexity {_fmt(m.value)} in {m.subject} is {_gate_phrase(band, position)}"
    )
    parts = [
        f"{_count(count, kind)} ({_line_word(census.lines[kind])} {_line_list(census.lines[kind])})"
        for kind, count in census.counts.most_common()
    ]
    where = f"{m.subject} ({_lines(m.start_line, m.end_line)}) branches on " + "; ".join(parts)
    spot = hotspot(body)
    if spot is not None and spot.points < census.total:
        step = (
            f"Move the statement on {_lines(spot.start_line, spot.end_line)}, which holds "
            f"{spot.points} of its {census.total} decision points, into a helper named for "
            "what it decides, so this function reads as a short sequence of steps"
        )
    elif census.counts.get("if/elif branch", 0) >= 3:
        step = (
            "Turn the if/elif cases into early returns, or into a lookup table from key to "
            "handler, so each case is read on its own"
        )
    else:
        step = (
            "Give each independent condition a named predicate or helper, and return early "
            "from the cases that need no further work"
        )
    return Advice(headline, f"{where}. {step}.")


AdviceWriter = Callable[[Measurement, MetricBand, Position, str], Advice]

WRITERS: dict[str, AdviceWriter] = {
    "radon_cc": _cc_advice,
}


def advise(m: Measurement, band: MetricBand, position: Position, archetype: str) -> Advice:
    writer = WRITERS.get(m.metric)
    if writer is None:
        raise KeyError(f"no advice writer for metric {m.metric!r}")
    return writer(m, band, position, archetype)
