"""Archetype classification of advise-band hints, by a declarative rule table.

The table (``gzguide/data/archetype-rules.json``) is an ordered list of rules; each
names an archetype, the metrics whose hints it may classify, a shape detector
from :mod:`gzguide.analysis.shapes` and that detector's parameters. For a hint,
the first rule that lists its metric and whose detector finds the shape wins;
when none does, the hint is ``unclassified``. The table is validated when loaded:
unknown archetypes, detectors or parameters are errors, not silent no-ops.

``divergent_change`` and ``shotgun_surgery`` describe how code changes over time;
one file version carries no history, so no rule can emit them.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Annotated, Any, Literal

import msgspec

from gzguide.analysis import shapes
from gzguide.analysis.measure import Measurement
from gzguide.analysis.scopes import Scope
from gzguide.analysis.shapes import Evidence

UNCLASSIFIED = "unclassified"

Archetype = Literal[
    "long_parameter_list",
    "arrowhead",
    "switch_on_type",
    "feature_envy",
    "large_class",
    "primitive_obsession",
    "data_clumps",
    "message_chain",
]

_Positive = Annotated[int, msgspec.Meta(ge=1)]


class _Params(msgspec.Struct, forbid_unknown_fields=True):
    pass


class TypeDispatchParams(_Params):
    min_arms: _Positive


class DataClumpParams(_Params):
    min_names: _Positive
    min_functions: Annotated[int, msgspec.Meta(ge=2)]


class ParametersParams(_Params):
    min_count: _Positive


class PrimitivesParams(_Params):
    min_params: _Positive
    min_literals: _Positive


class EnvyParams(_Params):
    min_accesses: _Positive
    ratio: Annotated[float, msgspec.Meta(gt=0)]


class ChainParams(_Params):
    min_links: Annotated[int, msgspec.Meta(ge=2)]


class NestingParams(_Params):
    min_depth: _Positive


class ClassSizeParams(_Params):
    min_methods: _Positive
    min_lines: _Positive
    min_attributes: _Positive


@dataclass(frozen=True, slots=True)
class FileContext:
    """What some detectors need beyond the definition itself.

    It also remembers what each rule found for each definition: the several
    metrics of one function ask the same questions of the same shape.
    """

    tree: ast.Module
    scopes: list[Scope]
    found: dict[tuple[int, tuple[int, int] | None], Evidence | None] = field(default_factory=dict)

    @property
    def functions(self) -> list[Scope]:
        return [s for s in self.scopes if s.is_function]

    @property
    def classes(self) -> list[Scope]:
        return [s for s in self.scopes if not s.is_function]


Detector = Callable[[Measurement, FileContext, Any], Evidence | None]


def _function(m: Measurement) -> Scope | None:
    return m.scope if m.scope is not None and m.scope.is_function else None


def _detect_type_dispatch(
    m: Measurement, ctx: FileContext, p: TypeDispatchParams
) -> Evidence | None:
    scope = _function(m)
    return shapes.type_dispatch(scope, p.min_arms) if scope else None


def _detect_data_clump(m: Measurement, ctx: FileContext, p: DataClumpParams) -> Evidence | None:
    scope = _function(m)
    if scope is None:
        return None
    return shapes.data_clump(scope, ctx.functions, p.min_names, p.min_functions)


def _detect_parameters(m: Measurement, ctx: FileContext, p: ParametersParams) -> Evidence | None:
    scope = _function(m)
    return shapes.parameters(scope, p.min_count) if scope else None


def _detect_primitives(m: Measurement, ctx: FileContext, p: PrimitivesParams) -> Evidence | None:
    scope = _function(m)
    return shapes.primitives(scope, p.min_params, p.min_literals) if scope else None


def _detect_envy(m: Measurement, ctx: FileContext, p: EnvyParams) -> Evidence | None:
    scope = _function(m)
    return shapes.envy(scope, p.min_accesses, p.ratio) if scope else None


def _detect_chain(m: Measurement, ctx: FileContext, p: ChainParams) -> Evidence | None:
    scope = _function(m)
    if scope is not None:
        return shapes.message_chain(scope.node.body, p.min_links)
    if m.scope is not None:
        return None
    # A module-level metric: the longest chain anywhere in the file.
    found = [shapes.message_chain(ctx.tree.body, p.min_links)]
    found.extend(shapes.message_chain(s.node.body, p.min_links) for s in ctx.functions)
    hits = [e for e in found if e is not None]
    return max(hits, key=lambda e: len(e.names[0])) if hits else None


def _detect_nesting(m: Measurement, ctx: FileContext, p: NestingParams) -> Evidence | None:
    scope = _function(m)
    return shapes.nesting(scope, p.min_depth) if scope else None


def _detect_class_size(m: Measurement, ctx: FileContext, p: ClassSizeParams) -> Evidence | None:
    if m.scope is not None and isinstance(m.scope.node, ast.ClassDef):
        return shapes.class_size(m.scope.node, p.min_methods, p.min_lines, p.min_attributes)
    if m.scope is not None:
        return None
    # A module-level metric: a large class that makes up most of the module.
    module_lines = max(m.end_line - m.start_line + 1, 1)
    for scope in sorted(ctx.classes, key=lambda s: s.start_line - s.end_line):
        if (scope.end_line - scope.start_line + 1) * 2 < module_lines:
            break
        assert isinstance(scope.node, ast.ClassDef)
        evidence = shapes.class_size(scope.node, p.min_methods, p.min_lines, p.min_attributes)
        if evidence is not None:
            return evidence
    return None


_DETECTORS: dict[str, tuple[type[_Params], Detector]] = {
    "type_dispatch": (TypeDispatchParams, _detect_type_dispatch),
    "data_clump": (DataClumpParams, _detect_data_clump),
    "parameters": (ParametersParams, _detect_parameters),
    "primitives": (PrimitivesParams, _detect_primitives),
    "envy": (EnvyParams, _detect_envy),
    "message_chain": (ChainParams, _detect_chain),
    "nesting": (NestingParams, _detect_nesting),
    "class_size": (ClassSizeParams, _detect_class_size),
}


class RuleDocument(msgspec.Struct, forbid_unknown_fields=True):
    archetype: Archetype
    metrics: Annotated[list[str], msgspec.Meta(min_length=1)]
    detector: Literal[
        "type_dispatch",
        "data_clump",
        "parameters",
        "primitives",
        "envy",
        "message_chain",
        "nesting",
        "class_size",
    ]
    params: dict[str, Any]


class RuleTableDocument(msgspec.Struct, forbid_unknown_fields=True):
    version: Literal[1]
    rules: list[RuleDocument]
    comment: str = ""


@dataclass(frozen=True, slots=True)
class Rule:
    archetype: str
    metrics: frozenset[str]
    detect: Detector
    params: _Params


@dataclass(frozen=True, slots=True)
class Classification:
    archetype: str
    evidence: Evidence | None = None


class RuleError(ValueError):
    """A rule table that does not validate."""


def parse_rules(data: bytes) -> list[Rule]:
    try:
        document = msgspec.json.decode(data, type=RuleTableDocument)
        rules = []
        for index, rule in enumerate(document.rules):
            params_type, detect = _DETECTORS[rule.detector]
            try:
                params = msgspec.convert(rule.params, type=params_type)
            except msgspec.ValidationError as exc:
                raise RuleError(f"rule {index} ({rule.detector}): {exc}") from None
            rules.append(Rule(rule.archetype, frozenset(rule.metrics), detect, params))
    except msgspec.MsgspecError as exc:
        raise RuleError(str(exc)) from None
    return rules


@cache
def default_rules() -> tuple[Rule, ...]:
    data = resources.files("gzguide").joinpath("data/archetype-rules.json").read_bytes()
    return tuple(parse_rules(data))


def classify(
    m: Measurement, ctx: FileContext, rules: tuple[Rule, ...] | None = None
) -> Classification:
    """The first rule for ``m``'s metric whose shape is present, else unclassified."""
    for rule in default_rules() if rules is None else rules:
        if m.metric not in rule.metrics:
            continue
        key = (id(rule), m.scope.key if m.scope is not None else None)
        if key in ctx.found:
            evidence = ctx.found[key]
        else:
            try:
                evidence = rule.detect(m, ctx, rule.params)
            except RecursionError:
                evidence = None
            ctx.found[key] = evidence
        if evidence is not None:
            return Classification(rule.archetype, evidence)
    return Classification(UNCLASSIFIED)
