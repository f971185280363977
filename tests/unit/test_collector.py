"""The collector's setting for analysis work."""

from __future__ import annotations

import gc

from gzguide import collector


def test_tune_spaces_out_the_young_collections() -> None:
    before = gc.get_threshold()
    try:
        gc.set_threshold(700, 10, 10)
        collector.tune()
        assert gc.get_threshold() == (collector.YOUNG_EVERY, collector.OLDER_EVERY, 20)
        assert collector.YOUNG_EVERY > 700
    finally:
        gc.set_threshold(*before)
