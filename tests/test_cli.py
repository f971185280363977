"""The one-shot command: ``gz complexity guide PATH... [--json]``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from protocol_client import ServerProcess, hint_field_order, validator_for

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"


def gz(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
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
    with ServerProcess(args=("--workers", "0"), cwd=ROOT) as server:
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
