"""The bounded soak: the replayed editing session of ``tests/support/soak.py``, sized for CI.

One session of ``CI_REQUESTS`` requests (with a fixed seed) runs against a fresh
server once for this module; each test checks one promise against its report.
The full soak is a command, not a test:

    .venv/bin/python tests/support/soak.py --requests 20000
"""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

from support.soak import (
    BAD_LOG_EVENTS,
    EXTRA_REQUESTS,
    RSS_GROWTH_LIMIT,
    SoakConfig,
    SoakReport,
    expected_workers,
    format_report,
    run_soak,
)
from support.soak_traffic import FRAMING_GARBAGE, FRAMING_LABELS, INVALID_REQUESTS, PARSE_GARBAGE
from support.soak_workspace import Editor, Workspace

#: Sized so the whole module takes about a minute on the project's 2-core machine
#: (``pytest --durations=5 tests/soak/test_soak.py`` shows what it takes on yours).
CI_REQUESTS = 7_000
CI_SEED = 1_234
CONFIG = SoakConfig(requests=CI_REQUESTS, seed=CI_SEED)

pytestmark = pytest.mark.timeout(300)


@pytest.fixture(scope="module")
def report() -> SoakReport:
    return run_soak(CONFIG)


def explain(report: SoakReport) -> str:
    return "\n" + format_report(report)


def test_every_request_is_answered_once_in_order(report: SoakReport) -> None:
    assert report.protocol_failure is None, explain(report)
    assert report.requests_sent == CI_REQUESTS, explain(report)
    assert report.responses_checked == report.requests_sent, explain(report)


def test_the_session_covers_every_kind_of_traffic(report: SoakReport) -> None:
    kinds = report.unit_kinds
    garbage = {label for label, _ in FRAMING_GARBAGE + PARSE_GARBAGE + INVALID_REQUESTS}
    assert kinds["analyze_file"] > CI_REQUESTS // 2, kinds
    for label in ("analyze_folder", "unknown_method", "invalid_params", "initialize_again"):
        assert kinds.get(label), f"no {label} in the session: {kinds}"
    seen_garbage = sum(count for label, count in kinds.items() if label in garbage)
    assert seen_garbage > CI_REQUESTS * 0.03, kinds
    assert len(garbage.intersection(kinds)) > len(garbage) * 0.8, kinds
    for edit in Editor.KINDS:
        assert report.edits.get(edit[0]), f"no {edit[0]} edit in the session: {report.edits}"
    assert report.racy_probes > 0 and report.in_flight_edits > 0, explain(report)
    assert report.answers_verified > 100, explain(report)
    # Typing into buffers: texts sent as typed, every one checked, and saved buffers.
    assert kinds["analyze_text"] > CI_REQUESTS * 0.02, kinds
    assert report.texts_verified == kinds["analyze_text"], explain(report)
    assert report.typing_bursts > 10 and report.edits.get("save_buffer"), explain(report)


def test_resident_memory_is_flat_after_warm_up(report: SoakReport) -> None:
    assert report.warmup is not None and report.end is not None, explain(report)
    growth = report.rss_growth
    assert growth is not None and growth < RSS_GROWTH_LIMIT, explain(report)


def test_open_descriptors_do_not_grow(report: SoakReport) -> None:
    assert report.warmup is not None and report.end is not None, explain(report)
    assert report.end.fds <= report.warmup.fds, explain(report)


def test_the_same_processes_run_throughout_without_zombies(report: SoakReport) -> None:
    assert report.warmup is not None and report.end is not None, explain(report)
    assert report.end.pids == report.warmup.pids, explain(report)
    assert report.end.processes == 1 + expected_workers(CONFIG), explain(report)
    assert report.zombies_seen == [], explain(report)


def test_shutdown_exits_cleanly_leaving_nothing_behind(report: SoakReport) -> None:
    assert report.exit_status == 0, explain(report)
    assert report.left_after_exit == [], explain(report)


def test_the_log_is_whole_and_records_no_lost_work(report: SoakReport) -> None:
    events = report.log_events
    for event in (*BAD_LOG_EVENTS, "(level error)", "(not json)"):
        assert event not in events, events
    framing = sum(report.unit_kinds.get(label, 0) for label in FRAMING_LABELS)
    assert events.get("framing_error") == framing, events
    assert events.get("request") == report.requests_sent - framing + EXTRA_REQUESTS, events


def test_the_verdict_is_pass(report: SoakReport) -> None:
    assert report.passed, explain(report)


# -- the soak's own machinery ------------------------------------------------------------


def test_a_same_size_rewrite_keeps_size_and_mtime_but_changes_bytes(tmp_path: Path) -> None:
    rng = random.Random(5)
    workspace = Workspace.build(tmp_path, rng, 3)
    editor = Editor(workspace, rng)
    source = workspace.files[0]
    editor.edit(source, "append_function")
    path = workspace.path(source.rel)
    before, data = path.stat(), path.read_bytes()
    editor.edit(source, "same_size_rewrite")
    after = path.stat()
    assert after.st_size == before.st_size
    assert after.st_mtime_ns == before.st_mtime_ns
    assert after.st_ino == before.st_ino
    assert path.read_bytes() != data
    assert path.read_bytes() == source.render()


def test_every_edit_leaves_the_disk_as_the_model_says(tmp_path: Path) -> None:
    rng = random.Random(9)
    workspace = Workspace.build(tmp_path, rng, 5)
    editor = Editor(workspace, rng)
    for _ in range(300):
        source = rng.choice(workspace.files)
        editor.edit(source, editor.pick_kind(source))
        for each in workspace.files:
            assert not os.path.exists(workspace.path(each.other))
            if each.state == "deleted":
                assert not os.path.exists(workspace.path(each.rel))
            else:
                assert workspace.path(each.rel).read_bytes() == each.render()
