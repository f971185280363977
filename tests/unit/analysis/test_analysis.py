"""Unit tests of the analysis parts: bands, thresholds, lines, source reading, discovery,
and radon_cc agreement with radon itself on real code."""

from __future__ import annotations

import ast
import json
import os
import sysconfig
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from radon.complexity import cc_visit
from radon.visitors import ComplexityVisitor

from gzguide.analysis.discovery import Walk, source_files
from gzguide.analysis.engine import analyze_bytes
from gzguide.analysis.facts.lines import LineIndex
from gzguide.analysis.facts.parsed import parse_module
from gzguide.analysis.facts.walk import view_of
from gzguide.analysis.policy.thresholds import (
    MetricBand,
    Position,
    ThresholdError,
    default_thresholds,
    parse_thresholds,
)
from gzguide.analysis.source import MAX_SOURCE_BYTES, decode_source, read_source_bytes
from gzguide.workspace import WORKSPACE_TABLE, ThresholdSource
from support.tables import ALL_METRICS, table

# -- bands ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (3.99, Position.BELOW),
        (4.0, Position.APPROACHING),  # exactly at advise: inside
        (5.49, Position.APPROACHING),
        (5.5, Position.APPROACHING_WARN),  # the midpoint of 4 and 7
        (6.99, Position.APPROACHING_WARN),
        (7.0, Position.GATED),  # exactly at warn: no authoring hint
        (11.0, Position.GATED),
    ],
)
def test_higher_is_worse_band_edges(value: float, expected: Position) -> None:
    band = default_thresholds().band("radon_cc")
    assert band is not None
    assert band.position(value) is expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (85.01, Position.BELOW),
        (85.0, Position.APPROACHING),  # exactly at advise
        (77.51, Position.APPROACHING),
        (77.5, Position.APPROACHING_WARN),  # the midpoint of 85 and 70
        (70.01, Position.APPROACHING_WARN),
        (70.0, Position.GATED),  # exactly at warn
        (10.0, Position.GATED),
    ],
)
def test_lower_is_worse_band_edges_for_mi(value: float, expected: Position) -> None:
    band = default_thresholds().band("radon_mi")
    assert band is not None
    assert band.lower_is_worse
    assert band.position(value) is expected


def test_several_rows_of_one_trigger_use_the_first_reached() -> None:
    # radon_raw_nloc has two warn rows (733.2 and 1031.9): the band closes at 733.2
    band = default_thresholds().band("radon_raw_nloc")
    assert band == MetricBand("radon_raw_nloc", 311.75, 733.2, True, False)
    mi = parse_thresholds(
        table(("radon_mi", 85, "advise"), ("radon_mi", 90, "advise"), ("radon_mi", 60, "warn")),
        "t",
    ).band("radon_mi")
    assert mi is not None and mi.advise == 90  # for MI the highest is reached first


def test_without_a_warn_row_the_block_row_closes_the_band_and_it_is_always_approaching() -> None:
    t = parse_thresholds(table(("m", 2, "advise"), ("m", 10, "block")), "t")
    band = t.band("m")
    assert band is not None
    assert band.position(9.99) is Position.APPROACHING
    assert band.position(10) is Position.GATED
    only_advise = parse_thresholds(table(("n", 2, "advise")), "t").band("n")
    assert only_advise is not None and only_advise.position(1e9) is Position.APPROACHING


def test_a_metric_without_an_advise_row_has_no_band() -> None:
    t = parse_thresholds(table(("radon_cc", 7, "warn")), "t")
    assert t.band("radon_cc") is None


@pytest.mark.parametrize(
    "data",
    [
        b"{",
        b"[]",
        table(("radon_cc", -1, "advise")),
        table(("radon_cc", 4, "sometimes")),
        json.dumps({"corpus_revision": 1, "bands": []}).encode(),  # no citation
        table(("radon_cc", 4, "advise")).replace(b'"bands"', b'"extra": 1, "bands"'),
    ],
)
def test_invalid_tables_are_rejected(data: bytes) -> None:
    with pytest.raises(ThresholdError):
        parse_thresholds(data, "t")


def test_the_embedded_table_has_every_metric() -> None:
    assert set(default_thresholds().bands) == ALL_METRICS


# -- the workspace table ----------------------------------------------------------------


def test_workspace_table_overrides_reloads_and_survives_invalid_files(tmp_path: Path) -> None:
    seen: list[tuple[str, dict[str, Any]]] = []
    source = ThresholdSource(str(tmp_path), lambda e, **f: seen.append((e, f)))
    assert source.current().source == "embedded"
    path = tmp_path / WORKSPACE_TABLE
    path.parent.mkdir(parents=True)
    path.write_bytes(table(("radon_cc", 2, "advise"), ("radon_cc", 3, "warn")))
    active = source.current()
    assert active.source == str(path) and active.band("radon_cc") == MetricBand(
        "radon_cc", 2, 3, True, False
    )
    assert active.band("radon_mi") is None  # absent from the active table: no hints
    path.write_bytes(b"{not json")
    assert source.current().source == "embedded"
    assert seen[-1][0] == "thresholds_rejected"
    path.write_bytes(table(("radon_cc", 1, "advise"), ("radon_cc", 30, "warn")))
    assert source.current().band("radon_cc") == MetricBand("radon_cc", 1, 30, True, False)
    path.unlink()
    assert source.current().source == "embedded"


# -- lines and cursors ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "offsets"),
    [
        (b"a\nb\n", {0: 1, 1: 1, 2: 2, 3: 2, 4: 2, 5: None}),
        (b"a\r\nb", {0: 1, 1: 1, 2: 1, 3: 2, 4: 2, 5: None}),
        (b"a\rb\rc", {0: 1, 1: 1, 2: 2, 4: 3, 5: 3}),
        (b"", {0: 1, 1: None}),
        (b"\n\n", {0: 1, 1: 2, 2: 2}),
    ],
)
def test_line_of_offset(data: bytes, offsets: dict[int, int | None]) -> None:
    index = LineIndex(data)
    for offset, line in offsets.items():
        assert index.line_of(offset) == line, (data, offset)


def test_spans_cover_their_lines_and_the_end_of_file() -> None:
    index = LineIndex(b"x = 1\r\ny = 2\rz = 3\n")
    assert (index.start_of(2), index.end_of(2)) == (7, 13)
    assert index.end_of(3) == index.size + 1  # an offset equal to the length is on line 3


# -- reading sources -------------------------------------------------------------------


def test_only_regular_files_are_read_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.py"
    os.mkfifo(fifo)
    result: list[bytes | None] = []
    reader = threading.Thread(target=lambda: result.append(read_source_bytes(str(fifo))))
    reader.start()
    reader.join(timeout=5)
    assert not reader.is_alive() and result == [None]
    assert read_source_bytes("/dev/zero") is None
    assert read_source_bytes(str(tmp_path)) is None
    assert read_source_bytes(str(tmp_path / "missing.py")) is None
    big = tmp_path / "big.py"
    big.write_bytes(b"#" * (MAX_SOURCE_BYTES + 1))
    assert read_source_bytes(str(big)) is None


@pytest.mark.parametrize(
    ("data", "text"),
    [
        (b"x = 'caf\xc3\xa9'\n", "x = 'café'\n"),
        (b"\xef\xbb\xbfx = 1\n", "x = 1\n"),
        (b"# -*- coding: latin-1 -*-\nx = 'caf\xe9'\n", "# -*- coding: latin-1 -*-\nx = 'café'\n"),
        (b"#!/usr/bin/env python\n# coding=cp1252\ns = '\x80'\n", None),
        (b"x = '\xff'\n", None),  # not UTF-8 and no cookie
        (b"# coding: klingon\nx = 1\n", None),  # unknown codec
    ],
)
def test_pep263_decoding(data: bytes, text: str | None) -> None:
    decoded = decode_source(data)
    if text is None and b"cp1252" in data:
        assert decoded is not None and "€" in decoded
    else:
        assert decoded == text


def test_unparseable_sources_give_no_findings() -> None:
    t = default_thresholds()
    for data in (
        b"def f(:\n",
        b"x = '\xff'\n",
        b"\x00\x00",
        b"def f():\n    return " + b"+".join([b"a"] * 1000),
    ):
        assert analyze_bytes(data, t).findings == []


def test_the_analyzed_code_is_never_executed(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    source = f"open({str(marker)!r}, 'w').write('x')\nimport os\nos._exit(3)\n".encode()
    analyze_bytes(source, default_thresholds())
    assert not marker.exists()


# -- discovery ---------------------------------------------------------------------------


def test_directory_discovery(tmp_path: Path) -> None:
    (tmp_path / "pkg" / "sub").mkdir(parents=True)
    (tmp_path / "pkg" / "a.py").write_text("")
    (tmp_path / "pkg" / "b.pyi").write_text("")
    (tmp_path / "pkg" / "notes.txt").write_text("")
    (tmp_path / "pkg" / "sub" / "c.py").write_text("")
    (tmp_path / "pkg" / ".hidden.py").write_text("")
    (tmp_path / "pkg" / ".venv").mkdir()
    (tmp_path / "pkg" / ".venv" / "d.py").write_text("")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "e.py").write_text("")
    (tmp_path / "pkg" / "linked").symlink_to(outside, target_is_directory=True)
    (tmp_path / "pkg" / "f.py").symlink_to(outside / "e.py")
    os.close(os.open(os.fsencode(tmp_path / "pkg") + b"/bad\xff.py", os.O_CREAT | os.O_WRONLY))
    assert source_files(str(tmp_path / "pkg")) == ["a.py", "b.pyi", "f.py", "sub/c.py"]


def test_a_walk_past_its_deadline_stops_and_says_so(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("")
    on_time = Walk(str(tmp_path), deadline=time.monotonic() + 60)
    assert on_time.files() == ["a.py"] and on_time.complete
    late = Walk(str(tmp_path), deadline=time.monotonic() - 1)
    assert late.files() == [] and not late.complete


# -- radon_cc against radon, on real code -------------------------------------------------


def _radon_blocks(blocks: list[Any]) -> list[Any]:
    """Every function radon reports, methods and closures at any depth included."""
    found = []
    for block in blocks:
        if hasattr(block, "methods"):
            found.extend(_radon_blocks(block.methods))
            found.extend(_radon_blocks(block.inner_classes))
        else:
            found.append(block)
            found.extend(_radon_blocks(block.closures))
    return found


def _corpus() -> list[Path]:
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    names = ["argparse", "ast", "configparser", "csv", "difflib", "inspect", "json/decoder"]
    names += ["logging/__init__", "pathlib", "shutil", "string", "tarfile", "textwrap", "zipfile"]
    files = [stdlib / f"{n}.py" for n in names]
    import radon

    files += sorted(Path(radon.__file__).parent.glob("*.py"))
    return [f for f in files if f.exists()]


@pytest.mark.parametrize("path", _corpus(), ids=lambda p: p.name)
def test_radon_cc_hints_are_exactly_radons_advise_band(path: Path) -> None:
    data = path.read_bytes()
    text = data.decode()
    expected = {
        (b.lineno, float(b.complexity))
        for b in _radon_blocks(cc_visit(text))
        if 4 <= b.complexity < 7
    }
    module = parse_module(data)
    assert module is not None
    report = analyze_bytes(data, default_thresholds())
    got = {(f.start_line, f.crossing_value) for f in report.findings if f.metric == "radon_cc"}
    # We also score defs radon never reports (inside classes inside functions); every
    # def radon does report must match it exactly.
    reported_lines = {b.lineno for b in _radon_blocks(cc_visit(text))}
    assert {g for g in got if g[0] in reported_lines} == expected
    ends = {
        (n.lineno, n.end_lineno)
        for n in ast.walk(module.tree)
        if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
    }
    for finding in report.findings:
        if finding.metric == "radon_cc":
            assert (finding.start_line, finding.end_line) in ends


@pytest.mark.parametrize("path", _corpus(), ids=lambda p: p.name)
def test_the_walk_counts_what_radon_counts(path: Path) -> None:
    """The decision points the walk finds add up to radon's complexity, minus one,
    for the whole function and for every statement a move could take out."""
    tree = ast.parse(path.read_bytes())
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            radon_value = ComplexityVisitor.from_ast(node).functions[0].complexity
            view = view_of(node)
            assert view.total_points == radon_value - 1, (path.name, node.lineno)
            assert sum(p.weight for p in view.points) == radon_value - 1, (path.name, node.lineno)


def test_the_walk_follows_radon_on_asserts_lambdas_and_nested_defs() -> None:
    body = ast.parse(
        "def f(a, b):\n"
        "    assert a and b\n"  # 1: an assert, whatever it holds
        "    key = lambda x: x or a\n"  # 1: a lambda's conditions count for f
        "    def inner(x):\n"
        "        if x:\n"  # inner's own
        "            return 1\n"
        "    return key\n"
    ).body[0]
    assert isinstance(body, ast.FunctionDef)
    view = view_of(body)
    assert {p.kind: p.weight for p in view.points} == {"assert": 1, "or": 1}
    assert view.total_points == 2
