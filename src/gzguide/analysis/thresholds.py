"""Threshold tables: validated loading, and the advise band each metric's values fall in.

The table's shape is the threshold schema's (``corpus_revision``, ``citation``,
``bands`` rows of metric / percentile / absolute number / trigger). The embedded
default ships in ``gzguide/data``; a workspace file replaces it when valid.

Band rules (the contract's Hints section):

* a metric's ``advise`` boundary is the one reached first among its advise rows:
  the lowest for metrics where higher is worse, the highest for ``radon_mi``;
  likewise its ``warn`` boundary; with no warn row, the first ``block`` row
  closes the band instead (a gate is a gate);
* a value is in the advise band when ``advise <= v < warn`` (``warn < v <= advise``
  when lower is worse); at or past the gate, no authoring hint;
* it is ``approaching_warn`` from the midpoint of advise and warn on, else
  ``approaching``; with no warn row, always ``approaching``.
"""

from __future__ import annotations

import enum
import hashlib
import os
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from typing import Annotated, Final, Literal

import msgspec

from gzguide.analysis.source import read_source_bytes
from gzguide.workspace import thresholds_path

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
        gate = sign * self.gate
        if v >= gate:
            return Position.GATED
        if self.gate_is_warn and v >= (advise + gate) / 2:
            return Position.APPROACHING_WARN
        return Position.APPROACHING


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

    def band(self, metric: str) -> MetricBand | None:
        return self.bands.get(metric)


def _first_reached(values: list[float], lower_is_worse: bool) -> float | None:
    if not values:
        return None
    return max(values) if lower_is_worse else min(values)


def build_bands(document: ThresholdDocument) -> dict[str, MetricBand]:
    rows: dict[str, dict[str, list[float]]] = {}
    for row in document.bands:
        by_trigger = rows.setdefault(row.metric, {"advise": [], "warn": [], "block": []})
        by_trigger[row.trigger_semantic].append(row.absolute_number)
    bands: dict[str, MetricBand] = {}
    for metric, by_trigger in rows.items():
        lower = metric in LOWER_IS_WORSE
        advise = _first_reached(by_trigger["advise"], lower)
        if advise is None:
            continue
        warn = _first_reached(by_trigger["warn"], lower)
        gate = warn if warn is not None else _first_reached(by_trigger["block"], lower)
        bands[metric] = MetricBand(metric, advise, gate, warn is not None, lower)
    return bands


_decoder: Final = msgspec.json.Decoder(ThresholdDocument)


def parse_thresholds(data: bytes, source: str) -> Thresholds:
    """Validate a threshold document; :class:`ThresholdError` when it is not one."""
    try:
        document = _decoder.decode(data)
    except (msgspec.MsgspecError, RecursionError) as exc:
        raise ThresholdError(str(exc)) from None
    return Thresholds(
        build_bands(document), source, hashlib.blake2b(data, digest_size=8).hexdigest()
    )


def default_thresholds() -> Thresholds:
    """The embedded default table (never fails: it is validated by the test suite)."""
    data = resources.files("gzguide").joinpath("data/complexity-thresholds.default.json")
    return parse_thresholds(data.read_bytes(), "embedded")


#: A threshold table larger than this is rejected (the default is 5 KiB).
MAX_TABLE_BYTES: Final = 1 << 20


class ThresholdsWatcher:
    """The active table for a workspace, re-read whenever its file changes.

    Each :meth:`current` call costs one ``stat``. When the workspace file exists
    and validates it replaces the embedded default; when it is missing the
    default applies; when it is invalid the change is logged and the default
    applies until the file is fixed (never fatal).
    """

    def __init__(self, root: str, on_event: Callable[..., None] | None = None) -> None:
        self.path = thresholds_path(root)
        self._default = default_thresholds()
        self._active = self._default
        self._identity: tuple[int, ...] | None = None
        self._on_event = on_event
        self.current()

    def identity(self) -> tuple[int, ...] | None:
        """The stat identity of the workspace file (None when absent)."""
        try:
            st = os.stat(self.path)
        except OSError:
            return None
        return (st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino, st.st_dev)

    def current(self) -> Thresholds:
        identity = self.identity()
        if identity == self._identity:
            return self._active
        self._identity = identity
        self._active = self._load() if identity is not None else self._default
        return self._active

    def _emit(self, event: str, **fields: object) -> None:
        if self._on_event is not None:
            self._on_event(event, **fields)

    def _load(self) -> Thresholds:
        # Never blocks: only a regular file is read (a FIFO here must not hang us).
        data = read_source_bytes(self.path, MAX_TABLE_BYTES)
        if data is None:
            reason = f"not a readable regular file of at most {MAX_TABLE_BYTES} bytes"
            self._emit("thresholds_rejected", path=self.path, reason=reason)
            return self._default
        try:
            table = parse_thresholds(data, self.path)
        except ThresholdError as exc:
            self._emit("thresholds_rejected", path=self.path, reason=str(exc))
            return self._default
        self._emit("thresholds_loaded", path=self.path, metrics=sorted(table.bands))
        return table
