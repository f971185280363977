"""The one-shot command: ``gz complexity guide PATH... [--json]``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from support.paths import EXAMPLES, REPO
from support.protocol_client import ServerProcess, hint_field_order, validator_for
from support.tables import table


def gz(*args: str, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gzguide", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,
    )


def test_json_output_is_exactly_what_the_server_answers() -> None:
    done = gz("complexity", "guide", "examples/", "--json")
    assert done.returncode == 0, done.stderr
    hints = json.loads(done.stdout)
    assert hints, "the shipped example should produce hints"
    validator = validator_for("authoring_hint.schema.json")
    for hint in hints:
        validator.validate(hint)
        assert tuple(hint) == hint_field_order()
    with ServerProcess(args=("--workers", "0"), cwd=REPO) as server:
        server.initialize()
        assert server.hints("examples/") == hints
        server.close_stdin()
        server.finish()


def test_table_output_for_people() -> None:
    done = gz("complexity", "guide", "examples/orders.py")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("examples/orders.py:")
    assert "radon_cc=" in done.stdout and "->" in done.stdout
    assert lines[-1].endswith("in 1 file.")


def test_several_paths_and_a_file_without_hints(tmp_path: Path) -> None:
    calm = tmp_path / "calm.py"
    calm.write_text("def f():\n    return 1\n")
    done = gz("complexity", "guide", str(calm))
    assert done.returncode == 0
    assert done.stdout.startswith("No hints")
    both = gz("complexity", "guide", str(calm), str(EXAMPLES / "orders.py"), "--json")
    assert {h["file_path"] for h in json.loads(both.stdout)} == {str(EXAMPLES / "orders.py")}


def test_relative_paths_resolve_against_root(tmp_path: Path) -> None:
    done = gz("complexity", "guide", "orders.py", "--json", "--root", str(EXAMPLES), cwd=tmp_path)
    assert done.returncode == 0
    assert {h["file_path"] for h in json.loads(done.stdout)} == {"orders.py"}


def test_usage_errors() -> None:
    assert gz("complexity", "guide").returncode == 2
    assert gz("complexity", "guide", "--server", "x.py").returncode == 2
    assert gz("complexity", "guide", "--server", "--workers", "-1").returncode == 2
    assert gz("complexity", "guide", "--server", "--analysis-timeout", "0").returncode == 2


def test_measure_lists_every_value_even_where_no_hint_is_given(tmp_path: Path) -> None:
    module = tmp_path / "plain.py"
    # In radon_cc's band (4), and silenced: no hint, but measure still shows it.
    module.write_text(
        "def f(a, b):  # gzguide: ignore\n"
        "    if a:\n        return 1\n    if b:\n        return 2\n"
        "    return 3 if a and b else 4\n"
    )
    assert gz("complexity", "guide", str(module)).stdout.startswith("No hints")
    done = gz("complexity", "measure", str(module), "--json")
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)
    by_metric = {r["metric"]: r for r in rows if r["kind"] == "function"}
    assert by_metric["radon_cc"]["value"] == 5
    assert by_metric["radon_cc"]["name"] == "f"
    assert {r["metric"] for r in rows} == {
        "radon_cc", "lizard_nloc", "lizard_param_count", "lizard_nesting_depth", "lizard_ccn",
        "radon_mi", "radon_hal_volume", "radon_hal_difficulty", "radon_hal_effort",
        "radon_raw_nloc", "radon_raw_lloc",
    }  # fmt: skip
    text = gz("complexity", "measure", str(module))
    assert f"{module}:1-6  function f  radon_cc=5" in text.stdout


def test_measure_a_folder_and_what_cannot_be_measured(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "ok.py").write_text("class C:\n    def m(self):\n        return self.x\n")
    (tmp_path / "pkg" / "broken.py").write_text("def (:\n")
    done = gz("complexity", "measure", "pkg", "--json", cwd=tmp_path)
    assert done.returncode == 1  # one file was not Python
    assert "pkg/broken.py: not analyzable Python" in done.stderr
    rows = json.loads(done.stdout)
    assert {r["file_path"] for r in rows} == {"pkg/ok.py"}
    assert any(r["metric"] == "cohesion_lcom4" and r["name"] == "C" for r in rows)


FOUR = (
    "def four(a, b, c):\n    if a:\n        return 1\n    if b:\n        return 2\n"
    "    if c:\n        return 3\n    return 0\n"
)


def gz_stdin(data: bytes, *args: str, cwd: Path = REPO) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "gzguide", "complexity", "guide", *args],
        input=data,
        capture_output=True,
        cwd=cwd,
        timeout=120,
    )


def test_stdin_path_reports_the_text_on_stdin_as_that_name(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "m.py").write_text("def calm():\n    return 1\n")  # never read
    done = gz_stdin(FOUR.encode(), "--stdin-path", "pkg/m.py", "--json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    hints = json.loads(done.stdout)
    assert [(h["file_path"], h["metric"], h["start_line"]) for h in hints] == [
        ("pkg/m.py", "radon_cc", 1)
    ]
    # Exactly what a 1.1 session answers for the same text.
    with ServerProcess(args=("--workers", "0"), cwd=tmp_path) as server:
        server.initialize("1.1")
        assert server.hints("pkg/m.py", text=FOUR) == hints
        server.close_stdin()
        server.finish()
    table = gz_stdin(FOUR.encode(), "--stdin-path", "unsaved.py")
    assert table.stdout.decode().startswith("unsaved.py:1-8  radon_cc=4")


def test_stdin_path_takes_the_workspace_table_of_root(tmp_path: Path) -> None:
    rules = tmp_path / ".gzkit" / "rules"
    rules.mkdir(parents=True)
    (rules / "complexity-thresholds.json").write_bytes(
        table(("radon_cc", 5, "advise"), ("radon_cc", 8, "warn"))
    )
    assert json.loads(gz_stdin(FOUR.encode(), "--stdin-path", "m.py", "--json").stdout)
    rooted = gz_stdin(FOUR.encode(), "--stdin-path", "m.py", "--json", "--root", str(tmp_path))
    assert json.loads(rooted.stdout) == []


def test_stdin_path_gives_no_hints_for_what_a_file_would_get_none_for() -> None:
    for data in (b"def broken(:\n", b"", b"\xff\xfe not utf-8 \x80\n"):
        done = gz_stdin(data, "--stdin-path", "m.py", "--json")
        assert (done.returncode, json.loads(done.stdout)) == (0, []), data
    over = FOUR.encode() + b"#" * (4 * 1024 * 1024)
    done = gz_stdin(over, "--stdin-path", "m.py", "--json")
    assert (done.returncode, json.loads(done.stdout)) == (0, [])
    assert b"more than 4194304 bytes" in done.stderr


def test_stdin_path_usage_errors() -> None:
    assert gz_stdin(b"", "--stdin-path", "m.py", "x.py").returncode == 2
    assert gz_stdin(b"", "--stdin-path", "").returncode == 2
    assert gz_stdin(b"", "--server", "--stdin-path", "m.py").returncode == 2
