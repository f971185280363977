"""The analysis engine: bytes of one file version in, findings out.

``parse_module`` (one parse) -> ``measure`` (every metric, threshold-free) ->
``evaluate`` (bands of the active thresholds, archetypes, advice). The split lets a
cache keep a file's measurements and re-evaluate them when the thresholds change.
"""

from __future__ import annotations

from dataclasses import dataclass

from radon.visitors import ComplexityVisitor

from gzguide.analysis.advice import WRITERS, advise
from gzguide.analysis.cc import function_complexities
from gzguide.analysis.measure import Measurement
from gzguide.analysis.model import EMPTY_REPORT, FileReport, Finding
from gzguide.analysis.parsed import ParsedModule, parse_module
from gzguide.analysis.scopes import collect_scopes
from gzguide.analysis.thresholds import Position, Thresholds

_IN_BAND = (Position.APPROACHING, Position.APPROACHING_WARN)
UNCLASSIFIED = "unclassified"


@dataclass(eq=False, slots=True)
class Measured:
    """A parsed file version and all of its measurements."""

    module: ParsedModule
    measurements: list[Measurement]


def measure(module: ParsedModule) -> Measured:
    scopes = collect_scopes(module.tree)
    visitor = ComplexityVisitor.from_ast(module.tree)
    complexities = function_complexities(visitor, scopes)
    measurements = [
        Measurement("radon_cc", float(complexities[s.key]), s.start_line, s.end_line, s)
        for s in scopes
        if s.is_function
    ]
    return Measured(module, measurements)


def evaluate(measured: Measured, thresholds: Thresholds) -> FileReport:
    """The findings of a measured file under ``thresholds``, in contract order."""
    lines = measured.module.lines
    findings: list[Finding] = []
    for m in measured.measurements:
        band = thresholds.band(m.metric)
        if band is None or m.metric not in WRITERS:
            continue
        position = band.position(m.value)
        if position not in _IN_BAND:
            continue
        archetype = UNCLASSIFIED
        text = advise(m, band, position, archetype)
        findings.append(
            Finding(
                metric=m.metric,
                precedence_band=position.value,
                crossing_value=m.value,
                archetype=archetype,
                headline=text.headline,
                move=text.move,
                start_line=m.start_line,
                end_line=m.end_line,
                start_byte=lines.start_of(m.start_line),
                end_byte=lines.end_of(m.end_line),
            )
        )
    findings.sort(key=lambda f: (f.start_line, f.end_line, f.metric))
    return FileReport(findings)


def analyze_bytes(data: bytes, thresholds: Thresholds) -> FileReport:
    """Findings for one file's bytes; empty when they are not parseable Python."""
    module = parse_module(data)
    if module is None:
        return EMPTY_REPORT
    try:
        return evaluate(measure(module), thresholds)
    except RecursionError:
        return EMPTY_REPORT
