"""What every test folder shares: hypothesis's profiles, and which tests are slow.

Tests under ``fuzz/``, ``soak/`` and ``editors/``, and the benchmark suite's smoke
run, are marked ``slow``: ``pytest -q`` runs everything, ``pytest -q -m "not slow"``
the fast subset for daily work. Fixtures live in the conftest of the folder that
uses them.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

# Property tests are deterministic by default (derandomized, no example database),
# so a CI run is reproducible; GZGUIDE_HYPOTHESIS=explore searches afresh each run
# and remembers failures in .hypothesis/ (used by the longer fuzz runs).
settings.register_profile(
    "ci",
    derandomize=True,
    database=None,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile(
    "explore",
    derandomize=False,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile(os.environ.get("GZGUIDE_HYPOTHESIS", "ci"))

_HERE = Path(__file__).resolve().parent
#: Every test under these folders or in these files gets the ``slow`` marker.
SLOW = (
    _HERE / "fuzz",
    _HERE / "soak",
    _HERE / "editors",
    _HERE / "e2e" / "test_benchmarks.py",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        path = item.path.resolve()
        if any(path.is_relative_to(slow) for slow in SLOW):
            item.add_marker(pytest.mark.slow)
