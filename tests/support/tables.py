"""Building threshold tables for tests."""

from __future__ import annotations

import json

#: The twelve metrics of the threshold table.
ALL_METRICS = frozenset(
    {
        "radon_cc",
        "radon_mi",
        "radon_hal_volume",
        "radon_hal_difficulty",
        "radon_hal_effort",
        "radon_raw_nloc",
        "radon_raw_lloc",
        "lizard_nloc",
        "lizard_param_count",
        "lizard_nesting_depth",
        "lizard_ccn",
        "cohesion_lcom4",
    }
)


def table(*rows: tuple[str, float, str]) -> bytes:
    """A valid threshold document with one band row per (metric, number, trigger)."""
    return json.dumps(
        {
            "corpus_revision": 1,
            "citation": {
                "distilled_characteristics_path": "docs/governance/complexity/x.md",
                "section_anchor": "x",
                "corpus_revision": 1,
            },
            "bands": [
                {"metric": m, "corpus_percentile": 75, "absolute_number": v, "trigger_semantic": t}
                for m, v, t in rows
            ],
        }
    ).encode()
