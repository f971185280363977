"""The hint engine end to end: golden hint lists, every metric's values against radon and
lizard on real code, and the rule that lizard_ccn and radon_cc never speak twice."""

from __future__ import annotations

import re
import sysconfig
from pathlib import Path
from typing import Any

import pytest
from radon.complexity import cc_visit
from radon.metrics import h_visit, mi_visit
from radon.raw import analyze

from gzguide.analysis.engine import analyze_bytes
from gzguide.analysis.inventory import values_of
from gzguide.analysis.model import Finding
from gzguide.analysis.policy.thresholds import default_thresholds, parse_thresholds
from support import tables
from support.paths import EXAMPLES


def pinned(findings: list[Finding]) -> list[tuple[str, int, int, float, str, str]]:
    return [
        (f.metric, f.start_line, f.end_line, f.crossing_value, f.precedence_band, f.archetype)
        for f in findings
    ]


def findings_for(path: Path) -> list[Finding]:
    return analyze_bytes(path.read_bytes(), default_thresholds()).findings


# -- golden ----------------------------------------------------------------------------


def test_golden_orders() -> None:
    findings = findings_for(EXAMPLES / "orders.py")
    assert pinned(findings) == [
        ("radon_cc", 27, 42, 6.0, "approaching_warn", "arrowhead"),
        ("radon_cc", 45, 55, 5.0, "approaching", "switch_on_type"),
        ("radon_cc", 76, 85, 6.0, "approaching_warn", "unclassified"),
    ]
    shipping, describe, overdue = (f.move for f in findings)
    assert "line 31" in shipping and "`elif`" in shipping
    assert "lines 47-54" in describe and "4 short arms: clear as it is" in describe
    assert "any(qty > 0 and sku.startswith('BO-') for sku, qty, _price in order.lines)" in overdue


def test_golden_shipping() -> None:
    findings = findings_for(EXAMPLES / "shipping.py")
    assert pinned(findings) == [
        ("radon_cc", 29, 38, 5.0, "approaching", "unclassified"),
        ("radon_cc", 41, 49, 5.0, "approaching", "unclassified"),
        ("radon_cc", 52, 58, 4.0, "approaching", "message_chain"),
        ("cohesion_lcom4", 61, 81, 2.0, "approaching", "unclassified"),
    ]
    by_line = {(f.metric, f.start_line): f for f in findings}
    table = by_line[("radon_cc", 29)].move
    assert "lines 30-37" in table and "dict lookup" in table
    census = by_line[("radon_cc", 41)].move
    # No move: the census is the budget left under warn, and where the points are.
    assert census == (
        "1 more decision point stays under warn at 7; now: 3 `if`s (lines 43, 45 and 47), "
        "`and` (line 47)."
    )
    chain = by_line[("radon_cc", 52)].move
    assert "desk().phone" in chain and "line 57" in chain
    depot = by_line[("cohesion_lcom4", 61)].move
    assert "`receive` and `pick` (lines 69-75) use `stock`" in depot
    assert "`assign_van` and `vans_on` (lines 77-81) use `rota`" in depot


def test_every_headline_is_one_line_and_every_move_is_located() -> None:
    for path in EXAMPLES.glob("*.py"):
        for f in findings_for(path):
            assert "\n" not in f.headline and f.headline
            assert "\n" not in f.move and len(f.move) <= 240
            assert re.search(r"\bline[s]? \d", f.move), f.move  # it names where it applies


# -- radon_cc and lizard_ccn never say the same thing ------------------------------------


def test_lizard_ccn_speaks_only_when_radon_cc_is_below_its_band() -> None:
    source = b"def f(a, b):\n    if a == 1 or a == 2 or a == 3:\n        return b\n    return a\n"
    table = parse_thresholds(
        tables.table(("radon_cc", 3, "advise"), ("lizard_ccn", 2, "advise")), "t"
    )
    metrics = [f.metric for f in analyze_bytes(source, table).findings]
    assert metrics == ["radon_cc"]  # both in band: radon_cc speaks for both
    higher = parse_thresholds(
        tables.table(("radon_cc", 50, "advise"), ("lizard_ccn", 2, "advise")), "t"
    )
    (only,) = analyze_bytes(source, higher).findings
    assert only.metric == "lizard_ccn" and "`a in (1, 2, 3)`" in only.move


def test_lizard_ccn_needs_a_move_that_lowers_it() -> None:
    """Unlike radon_cc, lizard_ccn is not owed a hint: without a true move, none."""
    source = (
        b"def f(a, b):\n    if a:\n        return 1\n    if b:\n        return 2\n    return 3\n"
    )
    higher = parse_thresholds(
        tables.table(("radon_cc", 50, "advise"), ("lizard_ccn", 2, "advise")), "t"
    )
    assert analyze_bytes(source, higher).findings == []


# -- every metric's hints carry radon's and lizard's values, on real code ------------------


def _corpus() -> list[Path]:
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    names = [
        "abc", "bisect", "calendar", "cmd", "codeop", "colorsys", "contextlib", "copy",
        "csv", "dataclasses", "difflib", "enum", "filecmp", "fnmatch", "fractions",
        "ftplib", "getopt", "gettext", "glob", "gzip", "hashlib", "heapq", "hmac",
        "imaplib", "ipaddress", "keyword", "linecache", "mailbox", "netrc", "numbers",
        "operator", "optparse", "pprint", "queue", "quopri", "random", "sched", "secrets",
        "selectors", "shlex", "smtplib", "statistics", "string", "stringprep", "tabnanny",
        "textwrap", "timeit", "token", "trace", "types", "uuid", "wave", "weakref", "zipapp",
    ]  # fmt: skip
    return [p for p in (stdlib / f"{n}.py" for n in names) if p.exists()]


def _lizard_values(text: str) -> dict[int, tuple[int, int, int, int]]:
    lizard = pytest.importorskip("lizard")
    from lizard_core.file_analyzer import FileAnalyzer

    info = FileAnalyzer(lizard.get_extensions(["nd"])).analyze_source_code("x.py", text)
    return {
        f.start_line: (f.nloc, f.parameter_count, f.max_nesting_depth, f.cyclomatic_complexity)
        for f in info.function_list
    }


def _module_expectations(text: str) -> dict[str, float]:
    halstead = h_visit(text).total
    raw = analyze(text)
    return {
        "radon_mi": mi_visit(text, True),
        "radon_hal_volume": halstead.volume,
        "radon_hal_difficulty": halstead.difficulty,
        "radon_hal_effort": halstead.effort,
        "radon_raw_nloc": raw.sloc,
        "radon_raw_lloc": raw.lloc,
    }


_LIZARD_INDEX = {
    "lizard_nloc": 0,
    "lizard_param_count": 1,
    "lizard_nesting_depth": 2,
    "lizard_ccn": 3,
}


def _radon_blocks(text: str) -> dict[int, int]:
    """radon's cyclomatic complexity per def line, closures and methods included."""
    found: dict[int, int] = {}

    def add(blocks: Any) -> None:
        for block in blocks:
            if hasattr(block, "methods"):
                add(block.methods)
                add(block.inner_classes)
            else:
                found[block.lineno] = block.complexity
                add(block.closures)

    add(cc_visit(text))
    return found


def test_measure_agrees_with_radon_and_lizard_on_every_value() -> None:
    """Every value `gz complexity measure` gives, in or out of any band, is radon's or
    lizard's; and the corpus puts every metric inside its advise band somewhere."""
    compared: dict[str, int] = dict.fromkeys(tables.ALL_METRICS, 0)
    in_band: dict[str, int] = dict.fromkeys(tables.ALL_METRICS, 0)
    table = default_thresholds()
    for path in _corpus():
        data = path.read_bytes()
        text = data.decode()
        values = values_of(data)
        assert values is not None
        lizard_by_line = _lizard_values(text)
        radon_by_line = _radon_blocks(text)
        module_values = _module_expectations(text)
        for v in values:
            band = table.band(v.metric)
            if band is not None and band.position(v.value).value.startswith("approaching"):
                in_band[v.metric] += 1
            if v.metric in module_values:
                assert v.kind == "module" and v.start_line == 1
                assert v.value == pytest.approx(module_values[v.metric], rel=1e-9), (path, v)
                compared[v.metric] += 1
            elif v.metric in _LIZARD_INDEX:
                expected: Any = lizard_by_line.get(v.start_line)
                if expected is not None:  # lizard lists this function
                    assert v.value == expected[_LIZARD_INDEX[v.metric]], (path, v)
                    compared[v.metric] += 1
            elif v.metric == "radon_cc" and v.start_line in radon_by_line:
                assert v.value == radon_by_line[v.start_line], (path, v)
                compared[v.metric] += 1
    assert all(in_band[m] for m in tables.ALL_METRICS), in_band
    for metric in tables.ALL_METRICS - {"cohesion_lcom4"}:  # LCOM4 is ours: no reference
        assert compared[metric] > 0, metric


def test_every_hint_carries_the_measured_value() -> None:
    table = default_thresholds()
    for path in _corpus()[:20]:
        data = path.read_bytes()
        values = {(v.metric, v.start_line, v.end_line): v.value for v in values_of(data) or []}
        for f in analyze_bytes(data, table).findings:
            assert values[(f.metric, f.start_line, f.end_line)] == f.crossing_value
