"""The analysis engine: bytes of one file version in, findings out.

``parse_module`` (one parse) -> ``measure`` (every metric, threshold-free) ->
``evaluate`` (bands of the active thresholds, archetypes, advice). The split lets a
cache keep a file's measurements and re-evaluate them when the thresholds change.

Metrics, each at the granularity its thresholds were measured at:

* per function (every ``def``, methods and nested functions): ``radon_cc``,
  ``lizard_nloc``, ``lizard_param_count``, ``lizard_nesting_depth``, ``lizard_ccn``;
* per class: ``cohesion_lcom4``;
* per module (line 1 to the last line): ``radon_mi``, ``radon_hal_volume``,
  ``radon_hal_difficulty``, ``radon_hal_effort``, ``radon_raw_nloc`` (radon's
  ``sloc``), ``radon_raw_lloc``.

A value inside its advise band is a *candidate*; :class:`~gzguide.analysis.policy.advice.Advisor`
decides which candidates become hints and what they say. ``radon_cc`` and
``lizard_ccn`` both count a function's decision points, so a function's
``lizard_ccn`` is a candidate only when its ``radon_cc`` is below its own advise
boundary (lizard counts some constructs radon does not, and vice versa); when
``radon_cc`` is in its band or past its gate, ``radon_cc`` speaks for both.
Comments can silence hints (:mod:`~gzguide.analysis.policy.directives`).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Final

from radon.metrics import HalsteadReport

from gzguide.analysis.facts.file import FileFacts
from gzguide.analysis.facts.keywords import NO_KEYWORDS, KeywordLines, keyword_lines
from gzguide.analysis.facts.lines import LineIndex
from gzguide.analysis.facts.parsed import ParsedModule, parse_module
from gzguide.analysis.facts.scopes import Scope, collect_scopes
from gzguide.analysis.facts.toplevel import TopLevel, top_level
from gzguide.analysis.metrics.cc import function_complexities, total_complexity
from gzguide.analysis.metrics.cohesion import ClassCohesion, class_cohesion
from gzguide.analysis.metrics.lizard import LizardValues, lizard_function_metrics
from gzguide.analysis.metrics.measurement import Measurement
from gzguide.analysis.metrics.module import ModuleValues, RawCounts, module_metrics
from gzguide.analysis.model import EMPTY_REPORT, FileReport, Finding
from gzguide.analysis.policy.advice import Advisor
from gzguide.analysis.policy.directives import Directives, Silencer, read_directives, silencer
from gzguide.analysis.policy.headlines import ADVISED_METRICS, Advice, Candidate
from gzguide.analysis.policy.thresholds import Position, Thresholds
from gzguide.analysis.reuse import PartMemo, Reuse, reuse

_IN_BAND = (Position.APPROACHING, Position.APPROACHING_WARN)


@dataclass(eq=False, slots=True)
class Measured:
    """What a cache keeps of one file version: its tree, lines, definitions and values.

    Not the source text nor its tokens: they are only needed while measuring, and
    the tokens alone would take more memory than the tree.
    """

    tree: ast.Module
    lines: LineIndex
    scopes: list[Scope]
    measurements: list[Measurement]
    #: The comments that silence hints.
    directives: Directives = field(default_factory=Directives)
    #: Each class's LCOM4 graph, by the class's key (what cohesion advice reads).
    classes: dict[tuple[int, int], ClassCohesion] = field(default_factory=dict)
    #: The top-level definitions and the names each mentions (module advice).
    top_level: tuple[TopLevel, ...] = ()
    #: Where the keywords the tree does not place are (the census cites them).
    keywords: KeywordLines = NO_KEYWORDS


#: The lizard figures behind each function metric.
_LIZARD_FIELDS = (
    ("lizard_nloc", "nloc"),
    ("lizard_param_count", "param_count"),
    ("lizard_nesting_depth", "nesting_depth"),
    ("lizard_ccn", "ccn"),
)


def _function_measurements(
    s: Scope, complexity: int, lizard: LizardValues | None
) -> list[Measurement]:
    found = [Measurement("radon_cc", float(complexity), s.start_line, s.end_line, s)]
    if lizard is not None:
        found.extend(
            Measurement(metric, float(getattr(lizard, name)), s.start_line, s.end_line, s)
            for metric, name in _LIZARD_FIELDS
        )
    return found


#: The module figures behind each module metric.
_MODULE_FIELDS = (
    ("radon_mi", "mi"),
    ("radon_hal_volume", "hal_volume"),
    ("radon_hal_difficulty", "hal_difficulty"),
    ("radon_hal_effort", "hal_effort"),
    ("radon_raw_nloc", "sloc"),
    ("radon_raw_lloc", "lloc"),
)

#: Every metric :func:`measure` gives values of.
MEASURED_METRICS: Final = frozenset(
    {
        "radon_cc",
        "cohesion_lcom4",
        *(metric for metric, _ in _LIZARD_FIELDS),
        *(metric for metric, _ in _MODULE_FIELDS),
    }
)


def _module_measurements(values: ModuleValues, last_line: int) -> list[Measurement]:
    return [
        Measurement(metric, float(getattr(values, name)), 1, last_line)
        for metric, name in _MODULE_FIELDS
    ]


class _Cold:
    """The values :class:`~gzguide.analysis.reuse.Reuse` could lend, computed from the
    module itself."""

    def __init__(self, module: ParsedModule) -> None:
        self.module = module

    def lend_tokens(self) -> None:
        """Nothing to lend: the tokens are read from the module's text when first used."""

    @staticmethod
    def complexities(scopes: list[Scope]) -> dict[tuple[int, int], int]:
        return function_complexities(scopes)

    @staticmethod
    def halstead() -> HalsteadReport | None:
        return None  # module_metrics visits the tree

    @staticmethod
    def raw_counts() -> RawCounts | None:
        return None  # module_metrics counts the tokens


def _parts_of(module: ParsedModule, memo: PartMemo | None) -> Reuse | _Cold:
    """Where the module's part values come from: ``memo`` when there is one that can serve."""
    found = reuse(memo, module) if memo is not None else None
    return found if found is not None else _Cold(module)


def measure(module: ParsedModule, memo: PartMemo | None = None) -> Measured:
    """Every metric of the module, from its one parse and at most one tokenize pass.

    With ``memo``, the values of parts whose text it has seen are taken from it
    (and those of the others kept in it): the same values, computed once per text.
    """
    parts = _parts_of(module, memo)
    parts.lend_tokens()
    scopes = collect_scopes(module.tree)
    complexities = parts.complexities(scopes)
    lizard = lizard_function_metrics(module)
    cohesion = class_cohesion(module)
    out: list[Measurement] = []
    for s in scopes:
        if s.is_function:
            out.extend(_function_measurements(s, complexities[s.key], lizard.get(s.key)))
            continue
        found = cohesion.get(s.key)
        if found is not None:
            out.append(
                Measurement("cohesion_lcom4", float(found.lcom4), s.start_line, s.end_line, s)
            )
    total = total_complexity(module.tree, complexities)
    values = module_metrics(module, total, parts.halstead(), parts.raw_counts())
    out.extend(_module_measurements(values, module.last_line))
    tokens = module.tokens
    return Measured(
        module.tree,
        module.lines,
        scopes,
        out,
        read_directives(module.text, tokens),
        cohesion,
        top_level(module.tree, module.text),
        keyword_lines(module.text),
    )


def _radon_cc_positions(
    measured: Measured, thresholds: Thresholds
) -> dict[tuple[int, int], Position]:
    band = thresholds.band("radon_cc")
    if band is None:
        return {}
    return {
        m.scope.key: band.position(m.value)
        for m in measured.measurements
        if m.metric == "radon_cc" and m.scope is not None
    }


def _candidates(measured: Measured, thresholds: Thresholds) -> list[Candidate]:
    radon_cc = _radon_cc_positions(measured, thresholds)
    quiet = silencer(measured.directives, measured.tree, measured.scopes)
    found: list[Candidate] = []
    for m in measured.measurements:
        c = _in_band(m, thresholds)
        if c is not None and _heard(c, radon_cc, quiet):
            found.append(c)
    return found


def _in_band(m: Measurement, thresholds: Thresholds) -> Candidate | None:
    """``m`` as a candidate, when the engine advises on its metric and it is in band."""
    band = thresholds.band(m.metric)
    if band is None or m.metric not in ADVISED_METRICS:
        return None
    position = band.position(m.value)
    return Candidate(m, band, position) if position in _IN_BAND else None


def _heard(c: Candidate, radon_cc: dict[tuple[int, int], Position], quiet: Silencer | None) -> bool:
    """Whether the candidate may speak: no comment silences it, and a function's
    ``lizard_ccn`` only while its ``radon_cc`` is below its band."""
    m = c.m
    if (
        m.metric == "lizard_ccn"
        and m.scope is not None
        and radon_cc.get(m.scope.key, Position.BELOW) is not Position.BELOW
    ):
        return False  # radon_cc speaks for this function's complexity
    return quiet is None or not quiet.silenced(m.scope, m.metric)


#: Where a value is: its metric and lines (what a finding is matched to its advice by).
_Place = tuple[str, int, int]


def _place(c: Candidate) -> _Place:
    return (c.m.metric, c.m.start_line, c.m.end_line)


def evaluate(measured: Measured, thresholds: Thresholds) -> FileReport:
    """The findings of a measured file under ``thresholds``, in contract order."""
    candidates = _candidates(measured, thresholds)
    if not candidates:
        return EMPTY_REPORT
    advice = _advice(measured, candidates)
    findings = [
        _finding(c, a, measured.lines)
        for c in candidates
        if (a := advice.get(_place(c))) is not None
    ]
    findings.sort(key=lambda f: (f.start_line, f.end_line, f.metric))
    return FileReport(findings)


def _advice(measured: Measured, candidates: list[Candidate]) -> dict[_Place, Advice]:
    """The advice each candidate gets, by its place (none for one left without a hint)."""
    advisor = Advisor(
        FileFacts(
            measured.tree,
            measured.scopes,
            measured.classes,
            measured.top_level,
            measured.keywords,
        )
    )
    advice: dict[_Place, Advice] = {}
    for group in _by_scope(candidates):
        given = _advise(advisor, group)
        for c in group:
            if c.m.metric in given:
                advice[_place(c)] = given[c.m.metric]
    return advice


def _by_scope(candidates: list[Candidate]) -> list[list[Candidate]]:
    """The candidates of each definition (and of the module), in order of first sight."""
    by_scope: dict[tuple[int, int] | None, list[Candidate]] = {}
    for c in candidates:
        by_scope.setdefault(c.m.scope.key if c.m.scope is not None else None, []).append(c)
    return list(by_scope.values())


def _advise(advisor: Advisor, group: list[Candidate]) -> dict[str, Advice]:
    """The advice for the candidates of one definition (or of the module), by metric."""
    scope = group[0].m.scope
    if scope is None:
        return advisor.module(group)
    if scope.is_function:
        return advisor.function(scope, group)
    one = advisor.cls(scope, group[0])
    return {group[0].m.metric: one} if one is not None else {}


def _finding(c: Candidate, a: Advice, lines: LineIndex) -> Finding:
    return Finding(
        metric=c.m.metric,
        precedence_band=c.position.value,
        crossing_value=c.m.value,
        archetype=a.archetype,
        headline=a.headline,
        move=a.move,
        start_line=c.m.start_line,
        end_line=c.m.end_line,
        start_byte=lines.start_of(c.m.start_line),
        end_byte=lines.end_of(c.m.end_line),
        proposes=a.proposes,
        kind=a.kind,
        definition=c.m.scope is not None,
        related=a.related,
    )


def analyze_bytes(data: bytes, thresholds: Thresholds, memo: PartMemo | None = None) -> FileReport:
    """Findings for one file's bytes; empty when they are not analyzable Python."""
    module = parse_module(data)
    if module is None:
        return EMPTY_REPORT
    try:
        return evaluate(measure(module, memo), thresholds)
    except RecursionError:
        return EMPTY_REPORT
