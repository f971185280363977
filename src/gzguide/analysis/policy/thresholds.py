"""Threshold tables: validated loading, and the advise band each metric's values fall in.

The table's shape is the threshold schema's (``corpus_revision``, ``citation``,
``bands`` rows of metric / percentile / absolute number / trigger). The embedded
default ships in ``gzguide/data``; which table is active for a workspace is
decided outside the analysis (``gzguide.workspace.ThresholdSource``).

Band rules (the contract's Hints section):

* a metric's ``advise`` boundary is the one reached first among its advise rows:
  the lowest for metrics where higher is worse, the highest for ``radon_mi``;
  likewise its ``warn`` boundary; with no warn row, the first ``block`` row
  closes the band instead (a gate is a gate);
* a value is in the advise band when ``advise <= v < warn`` (``warn < v <= advise``
  when lower is worse); at or past the gate, no authoring hint;
* it is ``approaching_warn`` from the midpoint of advise and warn on, else
  ``approaching``; with no warn row, always ``approaching``.

Gate rules (``gz complexity check``), from the same first-reached boundaries:

* a value is at or past ``block`` when it reaches the metric's block boundary, else
  at or past ``warn`` when it reaches the warn boundary (with no warn row, a value
  is at or past warn only when it is at or past block);
* every metric with a warn or block row has a gate, advise row or not.
"""

from __future__ import annotations

import enum
import hashlib
from dataclasses import dataclass, field
from importlib import resources
from typing import Annotated, Final, Literal

import msgspec

#: Metrics for which a lower value is worse.
LOWER_IS_WORSE: Final = frozenset({"radon_mi"})

_ANCHOR = r"^[a-z0-9][a-z0-9-]*$"
_DOC_PATH = r"^docs/governance/complexity/.+\.md$"


class BandRow(msgspec.Struct, forbid_unknown_fields=True):
    metric: Annotated[str, msgspec.Meta(min_length=1)]
    corpus_percentile: Literal[50, 75, 90, 95, 99]
    absolute_number: Annotated[float, msgspec.Meta(ge=0)]
    trigger_semantic: Literal["block", "warn", "advise"]


class Citation(msgspec.Struct, forbid_unknown_fields=True):
    distilled_characteristics_path: Annotated[str, msgspec.Meta(pattern=_DOC_PATH)]
    section_anchor: Annotated[str, msgspec.Meta(pattern=_ANCHOR)]
    corpus_revision: Annotated[int, msgspec.Meta(ge=1)]


class ThresholdDocument(msgspec.Struct, forbid_unknown_fields=True):
    corpus_revision: Annotated[int, msgspec.Meta(ge=1)]
    bands: list[BandRow]
    citation: Citation


class Position(enum.Enum):
    """Where a value sits relative to a metric's band."""

    BELOW = "below"
    APPROACHING = "approaching"
    APPROACHING_WARN = "approaching_warn"
    GATED = "gated"


@dataclass(frozen=True, slots=True)
class MetricBand:
    metric: str
    advise: float
    #: The gate that closes the band (warn, else block); None when the table has none.
    gate: float | None
    #: Whether the gate is a warn row (only then does ``approaching_warn`` exist).
    gate_is_warn: bool
    lower_is_worse: bool

    def position(self, value: float) -> Position:
        sign = -1.0 if self.lower_is_worse else 1.0
        v, advise = sign * value, sign * self.advise
        if v < advise:
            return Position.BELOW
        if self.gate is None:
            return Position.APPROACHING
        return self._past_advise(v, advise, sign * self.gate)

    def _past_advise(self, v: float, advise: float, gate: float) -> Position:
        """Where a value at or past the advise boundary sits (all three signed so that
        higher is worse)."""
        if v >= gate:
            return Position.GATED
        if self.gate_is_warn and v >= (advise + gate) / 2:
            return Position.APPROACHING_WARN
        return Position.APPROACHING


#: The levels a gate lists values at, least severe first.
Level = Literal["warn", "block"]


def _at_or_past(value: float, boundary: float, lower_is_worse: bool) -> bool:
    return value <= boundary if lower_is_worse else value >= boundary


@dataclass(frozen=True, slots=True)
class MetricGate:
    """A metric's warn and block boundaries: what a gate fails on."""

    metric: str
    warn: float | None
    block: float | None
    lower_is_worse: bool

    def reached(self, value: float) -> tuple[Level, float] | None:
        """The most severe level ``value`` is at or past, with that level's boundary."""
        levels: tuple[tuple[Level, float | None], ...] = (
            ("block", self.block),
            ("warn", self.warn),
        )
        for level, boundary in levels:
            if boundary is not None and _at_or_past(value, boundary, self.lower_is_worse):
                return level, boundary
        return None


class ThresholdError(ValueError):
    """A threshold document that does not validate."""


@dataclass(frozen=True, slots=True)
class Thresholds:
    """The active table: one band per metric that has an advise row."""

    bands: dict[str, MetricBand]
    #: Where the table came from (``embedded`` or a file path), for logs.
    source: str
    #: A digest of the table's content; results computed under it are keyed by it.
    fingerprint: str
    #: The document it was parsed from, so that another process can parse it again.
    document: bytes = b""
    #: One gate per metric that has a warn or block row.
    gates: dict[str, MetricGate] = field(default_factory=dict)

    def band(self, metric: str) -> MetricBand | None:
        return self.bands.get(metric)


def _first_reached(values: list[float], lower_is_worse: bool) -> float | None:
    if not values:
        return None
    return max(values) if lower_is_worse else min(values)


def _rows_by_trigger(document: ThresholdDocument) -> dict[str, dict[str, list[float]]]:
    """Each metric's numbers, by trigger, in table order."""
    rows: dict[str, dict[str, list[float]]] = {}
    for row in document.bands:
        by_trigger = rows.setdefault(row.metric, {"advise": [], "warn": [], "block": []})
        by_trigger[row.trigger_semantic].append(row.absolute_number)
    return rows


def build_bands(document: ThresholdDocument) -> dict[str, MetricBand]:
    bands: dict[str, MetricBand] = {}
    for metric, by_trigger in _rows_by_trigger(document).items():
        lower = metric in LOWER_IS_WORSE
        advise = _first_reached(by_trigger["advise"], lower)
        if advise is None:
            continue
        warn = _first_reached(by_trigger["warn"], lower)
        gate = warn if warn is not None else _first_reached(by_trigger["block"], lower)
        bands[metric] = MetricBand(metric, advise, gate, warn is not None, lower)
    return bands


def build_gates(document: ThresholdDocument) -> dict[str, MetricGate]:
    gates: dict[str, MetricGate] = {}
    for metric, by_trigger in _rows_by_trigger(document).items():
        lower = metric in LOWER_IS_WORSE
        block = _first_reached(by_trigger["block"], lower)
        warn = _first_reached(by_trigger["warn"], lower)
        if warn is not None or block is not None:
            gates[metric] = MetricGate(metric, warn, block, lower)
    return gates


_decoder: Final = msgspec.json.Decoder(ThresholdDocument)


def parse_thresholds(data: bytes, source: str) -> Thresholds:
    """Validate a threshold document; :class:`ThresholdError` when it is not one."""
    try:
        document = _decoder.decode(data)
    except (msgspec.MsgspecError, RecursionError) as exc:
        raise ThresholdError(str(exc)) from None
    return Thresholds(
        build_bands(document),
        source,
        hashlib.blake2b(data, digest_size=8).hexdigest(),
        data,
        build_gates(document),
    )


def default_thresholds() -> Thresholds:
    """The embedded default table (never fails: it is validated by the test suite)."""
    data = resources.files("gzguide").joinpath("data/complexity-thresholds.default.json")
    return parse_thresholds(data.read_bytes(), "embedded")
