"""The oldest Python a project supports, from its metadata, and the fixes it keeps out:
a fix writing newer syntax would break the import on a Python the project supports
(a fresh review's CherryPy, which supports 3.6, offered `while line := ...` as safe)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gzguide.analysis.fixes.planner import file_fixes, fix_text
from gzguide.pyfloor import floor_of_spec, oldest_python
from support.fixable import READS
from support.moves import OPEN


@pytest.mark.parametrize(
    ("spec", "floor"),
    [
        (">=3.6", (3, 6)),
        (">=3.6, !=3.7.*", (3, 6)),
        ("~=3.9", (3, 9)),
        (">=2.7, !=3.0.*, !=3.1.*", (2, 7)),
        ("==3.10.*", (3, 10)),
        ("<4", None),
        ("", None),
    ],
)
def test_a_specifier_gives_its_lower_bound(spec: str, floor: tuple[int, int] | None) -> None:
    assert floor_of_spec(spec) == floor


def test_the_nearest_project_above_the_file_says(tmp_path: Path) -> None:
    package = tmp_path / "src" / "pkg"
    package.mkdir(parents=True)
    module = package / "mod.py"
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "p"\nrequires-python = ">=3.7"\n')
    assert oldest_python(str(module)) == (3, 7)
    inner = tmp_path / "other"
    inner.mkdir()
    (inner / "setup.cfg").write_text("[options]\npython_requires = >=3.9\n")
    assert oldest_python(str(inner / "m.py")) == (3, 9)
    silent = tmp_path / "silent"
    silent.mkdir()
    (silent / "setup.py").write_text("from setuptools import setup\nsetup(name='s')\n")
    assert oldest_python(str(silent / "m.py")) is None  # a project that names none


def test_a_fix_needing_a_newer_python_than_the_project_supports_is_not_made() -> None:
    assert [o.fix.kind for o in file_fixes(READS, OPEN)] == ["walrus_loop"]
    assert [o.fix.kind for o in file_fixes(READS, OPEN, oldest=(3, 8))] == ["walrus_loop"]
    assert file_fixes(READS, OPEN, oldest=(3, 7)) == []
    assert fix_text(READS, OPEN, oldest=(3, 6)) == (READS, [])
