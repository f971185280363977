"""The hint-quality corpus: real third-party code at pinned versions, and its hand labels.

The code itself is not in this repository: the test extra installs the packages at
the versions ``tests/corpus/labels.json`` was labelled against, and this module
finds their files in the running environment. A version that differs fails
loudly instead of comparing labels with code they were not written for.
"""

from __future__ import annotations

import ast
import json
import re
import sysconfig
from dataclasses import dataclass
from functools import cache
from importlib import metadata
from pathlib import Path
from typing import Any

from gzguide.analysis.engine import analyze_bytes
from gzguide.analysis.model import Finding
from gzguide.analysis.policy.thresholds import default_thresholds
from support.paths import TESTS

LABELS = TESTS / "corpus" / "labels.json"
#: Labels of a sample of values from modules ``LABELS`` does not cover.
SAMPLED = TESTS / "corpus" / "labels-sample.json"
SITE = Path(sysconfig.get_paths()["purelib"])

#: Beyond the labelled modules, the automatic checks read whole packages (or the
#: top level of the large ones).
PACKAGES = (
    "structlog",
    "packaging",
    "pluggy",
    "jsonschema",
    "attr",
    "iniconfig",
    "sortedcontainers",
    "mando",
    "referencing",
    "pathspec",
    "colorama",
)
TOP_LEVEL_OF = ("pygments", "_pytest", "hypothesis/internal")
SINGLE_FILES = ("six.py",)


@dataclass(frozen=True)
class Label:
    path: str
    metric: str
    name: str
    start_line: int
    end_line: int
    emit: bool
    archetype: str
    move: str
    note: str


@cache
def document() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(LABELS.read_text(encoding="utf-8"))
    return data


def version_problems() -> list[str]:
    """Installed versions that are not the ones the labels were written against."""
    wrong = []
    for package, pinned in document()["packages"].items():
        try:
            installed = metadata.version(package)
        except metadata.PackageNotFoundError:
            installed = "not installed"
        if installed != pinned:
            wrong.append(f"{package} {installed} (labelled: {pinned})")
    return wrong


@cache
def labels() -> dict[str, dict[tuple[str, int], Label]]:
    """Labels of the fully labelled modules, by path, then by (metric, start line)."""
    return _by_module(document()["modules"])


@cache
def sampled_labels() -> dict[str, dict[tuple[str, int], Label]]:
    """Labels of the sampled values, by path, then by (metric, start line)."""
    sample: dict[str, Any] = json.loads(SAMPLED.read_text(encoding="utf-8"))
    return _by_module(sample["modules"])


def _by_module(modules: list[dict[str, Any]]) -> dict[str, dict[tuple[str, int], Label]]:
    out: dict[str, dict[tuple[str, int], Label]] = {}
    for module in modules:
        path = module["path"]
        out[path] = {
            (row["metric"], row["start_line"]): Label(
                path,
                row["metric"],
                row["name"],
                row["start_line"],
                row["end_line"],
                row["emit"],
                row["archetype"],
                row["move"],
                row["note"],
            )
            for row in module["labels"]
        }
    return out


def corpus_files() -> list[str]:
    """Site-packages-relative paths of every file the automatic checks read."""
    found = set(labels())
    for package in PACKAGES:
        found.update(str(p.relative_to(SITE)) for p in (SITE / package).rglob("*.py"))
    for folder in TOP_LEVEL_OF:
        found.update(str(p.relative_to(SITE)) for p in (SITE / folder).glob("*.py"))
    found.update(SINGLE_FILES)
    return sorted(found)


@cache
def source(path: str) -> bytes:
    return (SITE / path).read_bytes()


@cache
def findings(path: str) -> tuple[Finding, ...]:
    return tuple(analyze_bytes(source(path), default_thresholds()).findings)


@cache
def tree(path: str) -> ast.Module:
    return ast.parse(source(path))


def definition_at(path: str, line: int) -> ast.AST | None:
    """The def or class statement that starts on ``line``."""
    for node in ast.walk(tree(path)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and (
            node.lineno == line
        ):
            return node
    return None


_CITED: re.Pattern[str] = re.compile(
    r"\blines? (\d+(?:-\d+)?(?:(?:, | and )\d+(?:-\d+)?(?! more))*)", re.IGNORECASE
)


def cited_spans(text: str) -> list[tuple[int, int]]:
    """What a move cites: ``line 5``, ``lines 3-9``, ``lines 4, 6 and 9``, as (first, last)."""
    out: list[tuple[int, int]] = []
    for match in _CITED.finditer(text):
        for part in re.split(r", | and ", match.group(1)):
            first, _, last = part.partition("-")
            out.append((int(first), int(last or first)))
    return out


def cited_lines(text: str) -> list[int]:
    """Every line number a move cites."""
    return [n for first, last in cited_spans(text) for n in range(first, last + 1)]
