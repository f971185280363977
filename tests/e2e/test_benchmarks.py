"""The benchmark suite works: ``python -m benchmarks --quick`` writes its three outputs.

One quick run (a subprocess, as CI runs it) is shared by the module. These tests
check the outputs' shape only, never a speed: the numbers of a quick run on a
shared machine prove nothing, and a benchmark must not gate on them.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from support.paths import REPO

SCENARIOS = {
    "startup",
    "warm_analyze",
    "warm_analyze_log_off",
    "cold_analyze",
    "cursor_analyze",
    "directory_cold",
    "directory_warm",
    "edit_session_edited",
    "edit_session_unchanged",
    "engine_floor",
    "engine_floor_dense",
    "text_edit",
    "text_unchanged",
    "text_memory",
    "lsp_change",
    "memory_run",
}
CHECKS = {
    "warm_vs_bare_round_trip",
    "cold_pool_vs_workers_0",
    "startup_vs_interpreter_imports",
    "engine_vs_parse_visitors_floor",
    "engine_vs_floor_function_dense",
    "memory_after_3000_files",
    "memory_growth_second_half",
    "logging_overhead",
    "text_edit_vs_same_text_in_process",
    "text_unchanged_vs_warm_file",
    "text_memory_growth",
}
#: Which baselines each scenario is compared against.
BASELINES = {
    "startup": {"interpreter_imports", "interpreter_imports_ready"},
    "warm_analyze": {"bare_round_trip", "naive_server", "radon_process"},
    "warm_analyze_log_off": {"bare_round_trip", "naive_server", "radon_process"},
    "cold_analyze": {"workers_0", "naive_server", "radon_process"},
    "cursor_analyze": {"bare_round_trip", "naive_server", "radon_process"},
    "directory_cold": {"naive_server", "radon_process"},
    "directory_warm": {"naive_server", "radon_process"},
    "edit_session_edited": {"naive_server", "radon_process"},
    "edit_session_unchanged": {"naive_server", "radon_process"},
    "engine_floor": {"parse_visitors_floor"},
    "engine_floor_dense": {"parse_visitors_floor_dense"},
    "text_edit": {"engine_same_text", "save_and_analyze"},
    "text_unchanged": {"warm_file", "bare_round_trip"},
    "text_memory": {"text_memory_changed"},
    "lsp_change": {"analysis_floor"},
    "memory_run": set(),
}
SUMMARY_FIELDS = ("median_ms", "p95_ms", "p99_ms", "mean_ms", "min_ms", "max_ms")


class QuickRun:
    def __init__(self, out: Path, done: subprocess.CompletedProcess[str]) -> None:
        self.out = out
        self.done = done

    def results(self) -> dict[str, Any]:
        data: dict[str, Any] = json.loads((self.out / "results.json").read_text())
        return data


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> QuickRun:
    out = tmp_path_factory.mktemp("bench") / "out"
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks", "--quick", "--out", str(out)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=280,  # a hang guard only: the quick run takes seconds to a minute
    )
    return QuickRun(out, done)


def _number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


@pytest.mark.timeout(300)
def test_the_quick_run_succeeds_and_prints_the_table(run: QuickRun) -> None:
    assert run.done.returncode == 0, run.done.stderr[-3000:]
    assert run.done.stdout.startswith("| scenario | n | median ms | p95 ms | p99 ms |")
    assert "memory" in run.done.stderr  # progress goes to stderr


@pytest.mark.timeout(300)
def test_results_json_has_every_scenario_with_numbers(run: QuickRun) -> None:
    data = run.results()
    assert data["quick"] is True
    assert _number(data["wall_time_s"])
    machine = data["machine"]
    assert isinstance(machine["cpu_count"], int)
    for key in ("python_version", "platform", "date"):
        assert isinstance(machine[key], str) and machine[key]
    scenarios = {s["key"]: s for s in data["scenarios"]}
    assert set(scenarios) == SCENARIOS
    for key, scenario in scenarios.items():
        assert isinstance(scenario["n"], int) and scenario["n"] > 0, key
        for field in SUMMARY_FIELDS:
            assert _number(scenario[field]), (key, field)
        assert scenario["median_ms"] <= scenario["p95_ms"] <= scenario["p99_ms"], key
        assert set(scenario["baselines"]) == BASELINES[key], key
        assert set(scenario["ratios"]) == BASELINES[key], key
        for name, baseline in scenario["baselines"].items():
            assert isinstance(baseline["n"], int) and baseline["n"] > 0, (key, name)
            assert _number(baseline["median_ms"]), (key, name)
            assert _number(scenario["ratios"][name]), (key, name)
    assert set(data["baselines"]) == set().union(*BASELINES.values())


@pytest.mark.timeout(300)
def test_results_json_reports_memory_and_the_checks(run: QuickRun) -> None:
    data = run.results()
    memory = data["memory"]
    assert memory["files"] == 200
    if memory["supported"]:
        points = memory["checkpoints"]
        assert points[0]["files"] == 0 and points[-1]["files"] == 200
        assert 100 in [p["files"] for p in points]
        assert all(_number(p["rss_mib"]) and p["processes"] >= 1 for p in points)
        assert _number(memory["growth_pct_second_half"])
    checks = {c["key"]: c for c in data["checks"]}
    assert set(checks) == CHECKS
    for key, check in checks.items():
        assert check["status"] in {"PASS", "FAIL", "INCONCLUSIVE"}, key
        assert check["passed"] is (check["status"] == "PASS"), key
        assert _number(check["limit"]), key
    # A quick run measures 200 files, not the 3,000 the memory checks name.
    assert checks["memory_after_3000_files"]["status"] == "INCONCLUSIVE"
    # Nor a 4 MiB buffer sent 1,000 times.
    assert checks["text_memory_growth"]["status"] == "INCONCLUSIVE"
    text_memory = data["text_memory"]
    assert text_memory["sends"] == 20 and text_memory["text_bytes"] == 4 * 1024 * 1024
    if text_memory["supported"]:
        assert [p["sends"] for p in text_memory["checkpoints"]][:2] == [0, 1]
        assert text_memory["checkpoints"][-1]["sends"] == 20
        peaks = text_memory["peak_rss_mib_by_process"]
        assert len(peaks) >= 1 and all(_number(p) and p > 0 for p in peaks)
    unchanged = next(s for s in data["scenarios"] if s["key"] == "text_unchanged")
    for cost in ("decode_us", "encode_us", "digest_us"):
        assert _number(unchanged["extra"][cost]), cost


@pytest.mark.timeout(300)
def test_results_md_has_the_table_and_the_checklist(run: QuickRun) -> None:
    text = (run.out / "results.md").read_text()
    lines = text.splitlines()
    assert lines[0] == (
        "| scenario | n | median ms | p95 ms | p99 ms | ratio of the median vs baselines |"
    )
    assert lines[1].startswith("|---|")
    rows = [line for line in lines[2:] if line.startswith("| ")]
    assert len(rows) >= len(SCENARIOS)
    assert sum(line.startswith("- [") for line in lines) == len(CHECKS)
    assert "Done-when checks" in text
    assert text == run.done.stdout  # what is printed is what is written


@pytest.mark.timeout(300)
def test_the_plot_exists_unless_it_was_skipped_for_a_reason(run: QuickRun) -> None:
    plot = run.results()["plot"]
    png = run.out / "latency.png"
    if plot["skipped"]:
        assert isinstance(plot["reason"], str) and plot["reason"]
        assert not png.exists()
    else:
        assert plot["file"] == "latency.png"
        assert png.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
