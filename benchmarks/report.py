"""Results: ``results.json`` (everything), ``results.md`` (docs/performance.md), ``latency.png``.

The done-when checks are computed here from the measured medians and memory
figures and reported as they come out: PASS, FAIL, or INCONCLUSIVE when the run
could not measure what the check names (a quick run's memory figures are for 200
files, not 3,000).
"""

from __future__ import annotations

import datetime
import json
import math
import os
import platform
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.harness import Row
from benchmarks.plan import Plan
from benchmarks.stats import Series, ratio

SCHEMA_VERSION = 1
MEMORY_LIMIT_MIB = 400.0
MEMORY_GROWTH_LIMIT_PCT = 25.0
DONE_WHEN_FILES = 3000
#: The 4 MiB buffer run: how many sends make it conclusive, and its growth limit.
DONE_WHEN_SENDS = 1000
TEXT_MEMORY_GROWTH_LIMIT_PCT = 10.0


@dataclass(frozen=True, slots=True)
class Check:
    key: str
    claim: str
    measured: float | None
    limit: float
    unit: str
    detail: str
    #: PASS / FAIL / INCONCLUSIVE
    status: str

    def to_json(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "claim": self.claim,
            "measured": self.measured,
            "limit": self.limit,
            "unit": self.unit,
            "status": self.status,
            "passed": self.status == "PASS",
            "detail": self.detail,
        }


def machine_info() -> dict[str, Any]:
    return {
        "cpu_count": os.cpu_count(),
        "python_version": platform.python_version(),
        "python_implementation": platform.python_implementation(),
        "python_executable": sys.executable,
        "platform": platform.platform(),
        "machine": platform.machine(),
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
    }


def _row_by_key(rows: list[Row], key: str) -> Row | None:
    return next((r for r in rows if r.key == key), None)


def _baseline(row: Row | None, key: str) -> Series | None:
    if row is None:
        return None
    return next((b for b in row.baselines if b.key == key), None)


def _median(series: Series | None) -> float | None:
    return series.summary().median_ms if series is not None else None


def _status(value: float | None, limit: float, conclusive: bool = True) -> str:
    if value is None or math.isnan(value):
        return "INCONCLUSIVE"
    if not conclusive:
        return "INCONCLUSIVE"
    return "PASS" if value <= limit else "FAIL"


def _ratio_check(
    key: str, claim: str, rows: list[Row], row_key: str, base_key: str, limit: float
) -> Check:
    row = _row_by_key(rows, row_key)
    top = _median(row.series) if row else None
    bottom = _median(_baseline(row, base_key))
    value = ratio(top, bottom)
    detail = f"median {_ms(top)} ms vs {_ms(bottom)} ms"
    return Check(key, claim, value, limit, "×", detail, _status(value, limit))


def checks(
    rows: list[Row], memory: dict[str, Any], text_memory: dict[str, Any] | None = None
) -> list[Check]:
    out = [
        _ratio_check(
            "warm_vs_bare_round_trip",
            "warm analyze p50 ≤ 1.5× the bare framed round trip",
            rows,
            "warm_analyze",
            "bare_round_trip",
            1.5,
        ),
        _ratio_check(
            "cold_pool_vs_workers_0",
            "cold analyze (pool) p50 ≤ 1.2× `--workers 0`",
            rows,
            "cold_analyze",
            "workers_0",
            1.2,
        ),
        _ratio_check(
            "engine_vs_parse_visitors_floor",
            "cold analysis in-process ≤ 1.25× ast.parse + cc_visit_ast + h_visit_ast + raw.analyze",
            rows,
            "engine_floor",
            "parse_visitors_floor",
            1.25,
        ),
        _ratio_check(
            "engine_vs_floor_function_dense",
            "the same on a function-dense module ≤ 1.25×",
            rows,
            "engine_floor_dense",
            "parse_visitors_floor_dense",
            1.25,
        ),
        _ratio_check(
            "startup_vs_interpreter_imports",
            "startup p50 ≤ 1.5× interpreter + `import msgspec, structlog`",
            rows,
            "startup",
            "interpreter_imports",
            1.5,
        ),
        _ratio_check(
            "text_edit_vs_same_text_in_process",
            "a buffer edited and sent as text: edit to hints p50 ≤ 1.25× the in-process "
            "analysis of the same text",
            rows,
            "text_edit",
            "engine_same_text",
            1.25,
        ),
        _ratio_check(
            "text_unchanged_vs_warm_file",
            "an unchanged buffer sent again p50 ≤ 1.2× the warm file path",
            rows,
            "text_unchanged",
            "warm_file",
            1.2,
        ),
    ]
    files = memory.get("files", 0)
    full_size = files >= DONE_WHEN_FILES
    size_note = "" if full_size else f" (only {files} files in this run: rerun without --quick)"
    final = memory.get("rss_mib_final")
    out.append(
        Check(
            "memory_after_3000_files",
            f"process-tree RSS < {MEMORY_LIMIT_MIB:g} MiB after {DONE_WHEN_FILES:,} files",
            final,
            MEMORY_LIMIT_MIB,
            "MiB",
            f"{final} MiB after {files} files{size_note}",
            _strict(final, MEMORY_LIMIT_MIB, full_size),
        )
    )
    growth = memory.get("growth_pct_second_half")
    out.append(
        Check(
            "memory_growth_second_half",
            f"RSS growth < {MEMORY_GROWTH_LIMIT_PCT:g}% over the second half",
            growth,
            MEMORY_GROWTH_LIMIT_PCT,
            "%",
            f"{memory.get('rss_mib_half')} → {final} MiB{size_note}",
            _strict(growth, MEMORY_GROWTH_LIMIT_PCT, full_size),
        )
    )
    text_memory = text_memory or {}
    sends = text_memory.get("sends", 0)
    full_sends = sends >= DONE_WHEN_SENDS
    text_growth = text_memory.get("growth_pct_second_half")
    sends_note = "" if full_sends else f" (only {sends} sends in this run: rerun without --quick)"
    out.append(
        Check(
            "text_memory_growth",
            f"a 4 MiB buffer sent {DONE_WHEN_SENDS:,} times: process-tree RSS growth "
            f"< {TEXT_MEMORY_GROWTH_LIMIT_PCT:g}% over the second half",
            text_growth,
            TEXT_MEMORY_GROWTH_LIMIT_PCT,
            "%",
            f"{text_memory.get('rss_mib_half')} → {text_memory.get('rss_mib_final')} MiB"
            f"{sends_note}",
            _strict(text_growth, TEXT_MEMORY_GROWTH_LIMIT_PCT, full_sends),
        )
    )
    info_row = _row_by_key(rows, "warm_analyze")
    off_row = _row_by_key(rows, "warm_analyze_log_off")
    on = _median(info_row.series) if info_row else None
    off = _median(off_row.series) if off_row else None
    overhead = None
    if on is not None and off:
        overhead = round((on / off - 1) * 100, 2)
    out.append(
        Check(
            "logging_overhead",
            "logging overhead (warm analyze, info vs error) < 10%",
            overhead,
            10.0,
            "%",
            f"median {_ms(on)} ms with info logging vs {_ms(off)} ms with --log-level error",
            _strict(overhead, 10.0, True),
        )
    )
    return out


def _strict(value: float | None, limit: float, conclusive: bool) -> str:
    """PASS when strictly below ``limit`` (the memory and logging checks say "<")."""
    if value is None or not conclusive:
        return "INCONCLUSIVE"
    return "PASS" if value < limit else "FAIL"


# -- formatting --------------------------------------------------------------------


def _ms(value: float | None) -> str:
    if value is None:
        return "–"
    if value >= 100:
        return f"{value:,.0f}"
    if value >= 10:
        return f"{value:.1f}"
    if value >= 1:
        return f"{value:.2f}"
    return f"{value:.3f}"


def _times(value: float | None) -> str:
    if value is None:
        return "–"
    return f"{value:.3g}×"


def row_json(row: Row) -> dict[str, Any]:
    summary = row.series.summary()
    baselines: dict[str, Any] = {}
    ratios: dict[str, float | None] = {}
    for base in row.baselines:
        base_summary = base.summary()
        baselines[base.key] = {
            "label": base.label,
            "description": base.description,
            **base_summary.to_json(),
        }
        ratios[base.key] = ratio(summary.median_ms, base_summary.median_ms)
    return {
        "key": row.key,
        "title": row.title,
        "description": row.series.description,
        **summary.to_json(),
        "baselines": baselines,
        "ratios": ratios,
        "notes": row.notes,
        "extra": row.extra,
    }


def _text_memory_lines(report: dict[str, Any]) -> list[str]:
    """The 4 MiB buffer run's table: RSS as the sends go, and each process's peak."""
    if not report.get("checkpoints"):
        return []
    out = [
        "",
        f"Memory, a {report['text_bytes']:,}-byte buffer ({report['request_bytes']:,}-byte "
        f"request) sent {report['sends']:,} times, one in {report['changed_every']} changed:",
        "",
        "| sends | processes | RSS MiB (sum) | RSS MiB by process |",
        "|--:|--:|--:|---|",
    ]
    for point in report["checkpoints"]:
        each = " + ".join(f"{v:.1f}" for v in point["rss_mib_by_process"])
        cells = [f"{point['sends']:,}", str(point["processes"]), f"{point['rss_mib']:.1f}", each]
        out.append("| " + " | ".join(cells) + " |")
    peaks = " + ".join(f"{v:.1f}" for v in report["peak_rss_mib_by_process"])
    growth = report.get("growth_pct_second_half")
    out += [
        "",
        f"Peak resident size (VmHWM) by process, the frontend first: {peaks} MiB. "
        f"Growth over the second half: {growth if growth is not None else '–'} %.",
    ]
    return out


def markdown(
    rows: list[Row],
    memory: dict[str, Any],
    found: list[Check],
    machine: dict[str, Any],
    wall_s: float,
    quick: bool,
    text_memory: dict[str, Any] | None = None,
) -> str:
    out = [
        "| scenario | n | median ms | p95 ms | p99 ms | ratio of the median vs baselines |",
        "|---|--:|--:|--:|--:|---|",
    ]
    for row in rows:
        s = row.series.summary()
        parts = []
        for base in row.baselines:
            parts.append(f"{_times(ratio(s.median_ms, base.summary().median_ms))} {base.label}")
        cells = [
            row.title,
            str(s.n),
            _ms(s.median_ms),
            _ms(s.p95_ms),
            _ms(s.p99_ms),
            " · ".join(parts) or "–",
        ]
        out.append("| " + " | ".join(cells) + " |")
    out += [
        "",
        "Baselines, measured with each scenario in the same run (interleaved with it; "
        "the slow ones in a second loop of the scenario):",
        "",
        "| scenario | baseline | n | median ms | p95 ms | p99 ms |",
        "|---|---|--:|--:|--:|--:|",
    ]
    for row in rows:
        for base in row.baselines:
            b = base.summary()
            cells = [row.key, base.label, str(b.n), _ms(b.median_ms), _ms(b.p95_ms), _ms(b.p99_ms)]
            out.append("| " + " | ".join(cells) + " |")
    if memory.get("checkpoints"):
        out += [
            "",
            f"Memory, {memory['files']:,} distinct files ({memory['lines']:,} lines), "
            f"one request each, {memory['workers']} workers:",
            "",
            "| files analyzed | processes | RSS MiB (sum) | PSS MiB (sum) |",
            "|--:|--:|--:|--:|",
        ]
        for point in memory["checkpoints"]:
            pss = point["pss_mib"]
            cells = [
                f"{point['files']:,}",
                str(point["processes"]),
                f"{point['rss_mib']:.1f}",
                f"{pss:.1f}" if pss is not None else "–",
            ]
            out.append("| " + " | ".join(cells) + " |")
        growth = memory.get("growth_pct_second_half")
        out.append("")
        out.append(f"Growth over the second half: {growth if growth is not None else '–'} %.")
    out += _text_memory_lines(text_memory or {})
    out += ["", "Done-when checks:", ""]
    for check in found:
        box = "x" if check.status == "PASS" else " "
        value = "–" if check.measured is None else f"{check.measured:g}{check.unit}"
        out.append(f"- [{box}] **{check.status}** {check.claim}: measured {value} ({check.detail})")
    if quick:
        out += [
            "",
            "A quick run takes a few samples of each: its verdicts are indicative only, "
            "and the memory checks need the full run's 3,000 files.",
        ]
    run = "quick run (few samples, small sizes)" if quick else "full run"
    out += [
        "",
        f"{run}; {machine['cpu_count']} CPUs, Python {machine['python_version']}, "
        f"{machine['platform']}, {machine['date']}; suite wall time {wall_s:.1f} s.",
    ]
    return "\n".join(out) + "\n"


# -- the plot ----------------------------------------------------------------------


def plot(rows: list[Row], path: Path) -> dict[str, Any]:
    """Latency CDFs, one panel per scenario with its baselines; skipped without matplotlib."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.ticker import FuncFormatter, NullFormatter
    except ImportError:
        reason = "matplotlib is not installed (pip install '.[bench]'); latency.png skipped"
        print(f"note: {reason}", file=sys.stderr)
        return {"file": None, "skipped": True, "reason": reason}
    try:
        columns = 3
        panels = len(rows)
        lines = math.ceil(panels / columns)
        figure, axes = plt.subplots(lines, columns, figsize=(15, 3.6 * lines), squeeze=False)
        # (a fixed layout below: tight_layout over log axes costs seconds on a small machine)
        plain = FuncFormatter(lambda value, _pos: f"{value:g}")
        some = FuncFormatter(_some_minor_label)
        for ax, row in zip(axes.flat, rows, strict=False):
            low, high = math.inf, 0.0
            for series, style in [(row.series, "-"), *((b, "--") for b in row.baselines)]:
                values = sorted(series.ms())
                if not values:
                    continue
                low, high = min(low, values[0]), max(high, values[-1])
                fractions = [(i + 1) / len(values) for i in range(len(values))]
                label = "gzguide" if series is row.series else series.label
                ax.step(values, fractions, style, where="post", label=f"{label} (n={len(values)})")
            ax.set_title(row.key, fontsize=10)
            if not high:
                ax.text(0.5, 0.5, "no samples", ha="center", transform=ax.transAxes)
                continue
            ax.set_xscale("log")
            ax.xaxis.set_major_formatter(plain)
            # Within about a decade there may be no power of ten to label: label 2, 3, 5 too.
            narrow = math.log10(high / low) < 1.3
            ax.xaxis.set_minor_formatter(some if narrow else NullFormatter())
            ax.set_ylim(0, 1.02)
            ax.set_xlabel("latency (ms, log scale)")
            ax.set_ylabel("fraction ≤ x")
            ax.grid(True, which="major", alpha=0.3)
            ax.legend(fontsize=7, loc="upper left")
        for ax in list(axes.flat)[panels:]:
            ax.set_visible(False)
        figure.suptitle("gzguide latency CDFs (solid) with baselines (dashed)")
        height = 3.6 * lines
        figure.subplots_adjust(
            left=0.05, right=0.98, top=1 - 0.9 / height, bottom=0.6 / height, hspace=0.5
        )
        figure.savefig(path, dpi=90)
        plt.close(figure)
    except Exception as exc:  # a plot must never fail the run
        reason = f"plotting failed: {exc!r}"
        print(f"note: {reason}", file=sys.stderr)
        return {"file": None, "skipped": True, "reason": reason}
    return {"file": path.name, "skipped": False, "reason": None}


def _some_minor_label(value: float, _pos: int | None) -> str:
    """A minor tick's label when its leading digit is 2, 3 or 5 (others stay bare)."""
    if value <= 0:
        return ""
    leading = round(value / 10 ** math.floor(math.log10(value)))
    return f"{value:g}" if leading in (2, 3, 5) else ""


def write_all(
    out: Path,
    rows: list[Row],
    memory: dict[str, Any],
    setup: dict[str, Any],
    plan: Plan,
    started: float,
    text_memory: dict[str, Any] | None = None,
) -> tuple[str, float]:
    """Write the three outputs; the Markdown table, and the suite's wall time.

    ``started`` is when the suite started (``time.monotonic()``); the wall time
    runs from then to after the plot, so it covers everything a run costs.
    """
    out.mkdir(parents=True, exist_ok=True)
    machine = machine_info()
    found = checks(rows, memory, text_memory)
    plotted = plot(rows, out / "latency.png")
    wall_s = time.monotonic() - started
    text = markdown(rows, memory, found, machine, wall_s, plan.quick, text_memory)
    baselines: dict[str, str] = {}
    for row in rows:
        for base in row.baselines:
            baselines.setdefault(base.key, base.description)
    document = {
        "schema_version": SCHEMA_VERSION,
        "quick": plan.quick,
        "wall_time_s": round(wall_s, 2),
        "machine": machine,
        "setup": setup,
        "scenarios": [row_json(row) for row in rows],
        "baselines": baselines,
        "memory": memory,
        "text_memory": text_memory or {},
        "checks": [c.to_json() for c in found],
        "plot": plotted,
    }
    (out / "results.json").write_text(json.dumps(document, indent=2, allow_nan=False) + "\n")
    (out / "results.md").write_text(text)
    return text, wall_s
