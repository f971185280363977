"""``gz complexity fix``, run as a command on files made for each case."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from support.fixable import FIXED, READS, SEARCH, YIELDS


def gz(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gzguide", "complexity", "fix", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,
    )


def test_fix_writes_the_safe_fix_and_says_what_changed(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text(SEARCH)
    done = gz("m.py", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "m.py:1: Use any(): radon_cc 5 -> 4\n1 fix made in 1 of 1 files\n"
    assert (tmp_path / "m.py").read_text() == FIXED
    again = gz("m.py", cwd=tmp_path)
    assert (again.returncode, again.stdout) == (0, "0 fixes made in 0 of 1 files\n")
    assert (tmp_path / "m.py").read_text() == FIXED


def test_diff_prints_the_change_writes_nothing_and_exits_1(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text(SEARCH)
    done = gz("--diff", "m.py", cwd=tmp_path)
    assert done.returncode == 1
    assert done.stdout.startswith("--- a/m.py\n+++ b/m.py\n")
    assert "+    return any(x < 0 for x in xs)\n" in done.stdout
    assert (tmp_path / "m.py").read_text() == SEARCH
    (tmp_path / "m.py").write_text(FIXED)
    clean = gz("--diff", "m.py", cwd=tmp_path)
    assert (clean.returncode, clean.stdout) == (0, "")


def test_an_unsafe_fix_is_made_only_when_asked(tmp_path: Path) -> None:
    (tmp_path / "g.py").write_text(YIELDS)
    assert gz("g.py", cwd=tmp_path).stdout == "0 fixes made in 0 of 1 files\n"
    assert (tmp_path / "g.py").read_text() == YIELDS
    done = gz("--unsafe-fixes", "g.py", cwd=tmp_path)
    assert done.returncode == 0
    assert (tmp_path / "g.py").read_text().endswith("    yield from xs\n")


def test_select_keeps_the_hints_of_other_metrics_unfixed(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text(SEARCH)
    done = gz("--select", "lizard_nloc", "--diff", "m.py", cwd=tmp_path)
    assert (done.returncode, done.stdout) == (0, "")


def test_no_fix_writes_syntax_older_pythons_the_project_supports_lack(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "p"\nrequires-python = ">=3.7"\n')
    (tmp_path / "m.py").write_text(READS)
    done = gz("m.py", cwd=tmp_path)
    assert (done.returncode, done.stdout) == (0, "0 fixes made in 0 of 1 files\n")
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "p"\nrequires-python = ">=3.8"\n')
    made = gz("m.py", cwd=tmp_path)
    assert made.stdout.endswith("1 fix made in 1 of 1 files\n"), made.stdout
    assert "while chunk := src.read(size):" in (tmp_path / "m.py").read_text()
