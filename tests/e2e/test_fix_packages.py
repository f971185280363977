"""Behaviour kept on real code: ``gz complexity fix`` on real packages' source, and their
own suites, run before and after, give every test the same outcome.

Each package is its source distribution at a pinned version (its sha256 checked), kept
in a cache that outlives the run, so only a first run needs the package index. The fix
is made on the package's source folder only, never on its tests. Which fixes there are
is whatever the fixers offer on the day: no list of kinds here, only "at least one".
"""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import sys
import tarfile
import tempfile
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path
from typing import NamedTuple

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]

#: Where the downloaded source distributions are kept between runs.
CACHE = Path.home() / ".cache" / "gzguide-test-sdists"


class Package(NamedTuple):
    """A pinned source distribution and how its own suite is run."""

    name: str
    version: str
    #: the file the package index serves for ``name==version``
    filename: str
    sha256: str
    #: the import package's folder inside the unpacked sdist: what is fixed
    source: str
    #: the suite's folder inside the unpacked sdist
    tests: str
    #: a floor under the tests that pass before the fix: the suite really ran
    min_passed: int
    pytest_args: tuple[str, ...] = ()

    @property
    def module(self) -> str:
        return Path(self.source).name


PACKAGES = (
    Package(
        "boltons",
        "26.2.0",
        "boltons-26.2.0.tar.gz",
        "d39cfd15c1a1c3bd4d705c82252fa9edb8e4f5e8cc039f8e39afac7b1b47e92c",
        "boltons",
        "tests",
        min_passed=470,
    ),
    # Its dev-server tests start real servers and wait on them: left out for time; its
    # per-test timeouts are pytest-timeout's marks, so that plugin is loaded.
    Package(
        "werkzeug",
        "3.1.9",
        "werkzeug-3.1.9.tar.gz",
        "55ca7c70a75689be937aa27f8ff4b018f06ff4838fc73045560bf0f5a1291060",
        "src/werkzeug",
        "tests",
        min_passed=860,
        pytest_args=("-p", "pytest_timeout", "-m", "not dev_server"),
    ),
    Package(
        "docutils",
        "0.23",
        "docutils-0.23.tar.gz",
        "746f5060322511280a1e50eb76846ed6bf2342984b2ac04dc42caa1a8d78799e",
        "docutils",
        "test",
        min_passed=420,
    ),
)

#: What a suite's process imports the probe plugin as (it reports the module's file).
PROBE = "gzguide_suite_probe"
PROBE_SOURCE = """\
import os
import sys


def pytest_sessionfinish(session, exitstatus):
    module = sys.modules.get(os.environ["GZGUIDE_PROBE_MODULE"])
    with open(os.environ["GZGUIDE_PROBE_OUT"], "w", encoding="utf-8") as out:
        out.write(getattr(module, "__file__", None) or "")
"""

#: The children of a JUnit ``testcase`` that say it did not simply pass.
VERDICTS = frozenset({"failure", "error", "skipped"})
FIXES_MADE = re.compile(r"^(\d+) fix(?:es)? made in ", re.MULTILINE)


def sha256_of(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def sdist(package: Package) -> Path:
    """The package's source distribution, from the cache or else downloaded into it."""
    cached = CACHE / package.filename
    if cached.is_file() and sha256_of(cached) == package.sha256:
        return cached
    CACHE.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=CACHE) as into:
        subprocess.run(
            [
                *(sys.executable, "-m", "pip", "download", "-q", "--disable-pip-version-check"),
                *("--no-binary", ":all:", "--no-deps", "-d", into),
                f"{package.name}=={package.version}",
            ],
            check=True,
            timeout=600,
        )
        fetched = Path(into) / package.filename
        assert sha256_of(fetched) == package.sha256, f"{fetched.name} is not the pinned file"
        fetched.replace(cached)
    return cached


def unpack(archive: Path, into: Path) -> Path:
    """The sdist's one top folder, unpacked under ``into``."""
    with tarfile.open(archive) as tar:
        tar.extractall(into, filter="data")
    (root,) = into.iterdir()
    return root


def add_metadata(package: Package, root: Path) -> None:
    """The metadata an install would put beside the package (a suite may ask
    ``importlib.metadata`` for its own version)."""
    info = root / Path(package.source).parent / f"{package.module}-{package.version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_bytes((root / "PKG-INFO").read_bytes())


def outcomes(junit: Path) -> dict[str, tuple[str, ...]]:
    """Each test id's verdicts (a test with failed subtests has one failure for each)."""
    found: dict[str, tuple[str, ...]] = {}
    seen: Counter[str] = Counter()
    for case in ET.parse(junit).getroot().iter("testcase"):
        test_id = f"{case.get('classname')}::{case.get('name')}"
        seen[test_id] += 1
        if seen[test_id] > 1:
            test_id = f"{test_id}#{seen[test_id]}"
        verdicts = sorted(f"{c.tag}:{c.get('type', '')}" for c in case if c.tag in VERDICTS)
        found[test_id] = tuple(verdicts) or ("passed",)
    return found


class SuiteRun(NamedTuple):
    outcomes: dict[str, tuple[str, ...]]
    #: the file the suite's process imported the package from
    imported: str


def run_suite(package: Package, root: Path, work: Path, label: str) -> SuiteRun:
    """The package's own suite, run on the unpacked source with the project's pytest.

    Plugin autoloading is off, so the plugins installed for this project's own tests
    cannot change how another project's suite runs; no bytecode is written, so the run
    after the fix cannot meet a cached module of the source before it.
    """
    junit, probe_out = work / f"{label}.xml", work / f"{label}.probe"
    env = {key: value for key, value in os.environ.items() if not key.startswith("PYTEST_")}
    env |= {
        "PYTHONPATH": os.pathsep.join([str(root / Path(package.source).parent), str(work)]),
        "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONHASHSEED": "0",
        "GZGUIDE_PROBE_MODULE": package.module,
        "GZGUIDE_PROBE_OUT": str(probe_out),
    }
    done = subprocess.run(
        [
            *(sys.executable, "-m", "pytest", package.tests, "-q", "-p", "no:cacheprovider"),
            *("-p", PROBE, "--continue-on-collection-errors", f"--junitxml={junit}"),
            *package.pytest_args,
        ],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode in (0, 1), done.stdout[-3000:] + done.stderr[-3000:]
    return SuiteRun(outcomes(junit), probe_out.read_text(encoding="utf-8"))


def fix(package: Package, root: Path) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "gzguide", "complexity", "fix", package.source],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def changed(before: dict[str, tuple[str, ...]], after: dict[str, tuple[str, ...]]) -> list[str]:
    return [
        f"{test_id}: {before.get(test_id, 'absent')} -> {after.get(test_id, 'absent')}"
        for test_id in sorted(before.keys() | after.keys())
        if before.get(test_id) != after.get(test_id)
    ]


@pytest.mark.parametrize("package", PACKAGES, ids=[package.name for package in PACKAGES])
def test_the_packages_own_suite_gives_the_same_outcomes_after_every_safe_fix(
    package: Package, tmp_path: Path
) -> None:
    root = unpack(sdist(package), tmp_path / "sdist")
    add_metadata(package, root)
    (tmp_path / f"{PROBE}.py").write_text(PROBE_SOURCE)

    before = run_suite(package, root, tmp_path, "before")
    assert Path(before.imported).is_relative_to(root / package.source), before.imported
    passed = sum(verdicts == ("passed",) for verdicts in before.outcomes.values())
    assert passed >= package.min_passed, f"only {passed} tests passed before any fix"

    report = fix(package, root)
    made = FIXES_MADE.search(report)
    assert made is not None, report
    assert int(made.group(1)) >= 1, report

    after = run_suite(package, root, tmp_path, "after")
    assert Path(after.imported).is_relative_to(root / package.source), after.imported
    assert changed(before.outcomes, after.outcomes) == [], report
