"""The oldest Python a project says it supports, read from its metadata.

A fix that writes newer syntax than that (an assignment expression needs 3.8) would
make the file fail to import on a Python the project supports, so such a fix is not
made there. The project is the nearest folder above the file holding a
``pyproject.toml`` (``[project] requires-python``), a ``setup.cfg``
(``python_requires``) or a ``setup.py`` (``python_requires=``); the first of those it
holds that names a version decides. A specifier's lower bounds (``>=3.6``, ``~=3.7``,
``==3.9.*``, ``>3.5``) give the floor; a project that names none has no known floor.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Callable
from functools import lru_cache
from typing import Final

Version = tuple[int, int]

#: A lower bound in a version specifier: its operator and major.minor.
_BOUND: Final = re.compile(r"(>=|~=|==|>)\s*(\d+)\.(\d+)")
_SETUP_CFG: Final = re.compile(r"^\s*python_requires\s*=\s*(.+?)\s*$", re.MULTILINE)
_SETUP_PY: Final = re.compile(r"python_requires\s*=\s*['\"]([^'\"]+)['\"]")
#: Metadata files larger than this are not read (a real one is a few KiB).
_MAX_BYTES: Final = 1 << 20


def oldest_python(path: str) -> Version | None:
    """The oldest Python the project of the file ``path`` supports, if it says."""
    return _floor_of(os.path.dirname(os.path.abspath(path)))


@lru_cache(maxsize=256)
def _floor_of(folder: str) -> Version | None:
    # Cached per folder for the life of the process: a project's supported Pythons
    # change with a release, not while a file is being edited.
    while True:
        here = _metadata_files(folder)
        if here:  # the nearest project decides, whether or not it names a version
            spec = _first_spec(here)
            return floor_of_spec(spec) if spec else None
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def _metadata_files(folder: str) -> list[tuple[str, Callable[[str], str | None]]]:
    """The metadata files the folder holds, each with its reader, in order."""
    paths = ((os.path.join(folder, name), read) for name, read in _READERS)
    return [(path, read) for path, read in paths if os.path.isfile(path)]


def _first_spec(files: list[tuple[str, Callable[[str], str | None]]]) -> str | None:
    for path, read in files:
        text = _text(path)
        spec = read(text) if text is not None else None
        if spec:
            return spec
    return None


def floor_of_spec(spec: str) -> Version | None:
    """The oldest major.minor a version specifier allows (``>=3.6, !=3.7.*`` -> 3.6)."""
    bounds = [(int(major), int(minor)) for _, major, minor in _BOUND.findall(spec)]
    return max(bounds) if bounds else None


def _text(path: str) -> str | None:
    try:
        if os.path.getsize(path) > _MAX_BYTES:
            return None
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return None


def _from_pyproject(text: str) -> str | None:
    try:
        project = tomllib.loads(text).get("project", {})
    except tomllib.TOMLDecodeError:
        return None
    spec = project.get("requires-python") if isinstance(project, dict) else None
    return spec if isinstance(spec, str) else None


def _from_setup_cfg(text: str) -> str | None:
    found = _SETUP_CFG.search(text)
    return found.group(1) if found else None


def _from_setup_py(text: str) -> str | None:
    found = _SETUP_PY.search(text)
    return found.group(1) if found else None


_READERS: Final[tuple[tuple[str, Callable[[str], str | None]], ...]] = (
    ("pyproject.toml", _from_pyproject),
    ("setup.cfg", _from_setup_cfg),
    ("setup.py", _from_setup_py),
)
