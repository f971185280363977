"""Bringing one package's source (or a stdlib module's files) into the review tree."""

from __future__ import annotations

import email.parser
import importlib.util
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Unpacked:
    """A package laid out under the tree: its folder, name, version and where it came from."""

    folder: Path
    name: str
    version: str
    kind: str


def folder_name(spec: str) -> str:
    """A requirement's project name, normalized as PyPI normalizes it (``pdfminer.six`` is
    ``pdfminer-six``)."""
    match = re.match(r"[A-Za-z0-9][A-Za-z0-9._-]*", spec.strip())
    if match is None:
        raise ValueError(f"not a requirement spec: {spec!r}")
    return re.sub(r"[-_.]+", "-", match.group(0)).lower()


def _pip_download(spec: str, into: Path, binary: str) -> Path | None:
    """The one archive ``pip download`` saved, or None when it could not get one."""
    command = [sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d", str(into)]
    done = subprocess.run(
        [*command, binary, ":all:", spec], capture_output=True, text=True, check=False
    )
    saved = sorted(into.iterdir())
    return saved[0] if done.returncode == 0 and len(saved) == 1 else None


def download(spec: str, into: Path) -> tuple[Path, str]:
    """The package's sdist when PyPI has one that pip can prepare, else its wheel."""
    for binary, kind in (("--no-binary", "sdist"), ("--only-binary", "wheel")):
        attempt = Path(tempfile.mkdtemp(prefix=f"{kind}-", dir=into))
        archive = _pip_download(spec, attempt, binary)
        if archive is not None:
            return archive, kind
    raise RuntimeError(f"pip could download neither an sdist nor a wheel of {spec!r}")


def _metadata(root: Path) -> tuple[str, str]:
    """Name and version from the archive's own PKG-INFO or METADATA."""
    found = [root / "PKG-INFO", *root.glob("*.dist-info/METADATA")]
    for path in found:
        if path.is_file():
            headers = email.parser.Parser().parsestr(path.read_text("utf-8", "replace"))
            return str(headers["Name"]), str(headers["Version"])
    raise RuntimeError(f"no PKG-INFO or METADATA in {root}")


def unpack(archive: Path, kind: str, folder: Path) -> Unpacked:
    """``archive`` unpacked into ``folder``, without the sdist's top-level directory, so that
    its pyproject.toml, setup.cfg or setup.py sits right at the package's root."""
    scratch = Path(tempfile.mkdtemp(prefix="unpack-", dir=archive.parent))
    shape = "zip" if kind == "wheel" else None
    shutil.unpack_archive(archive, scratch, format=shape, filter="data")
    entries = list(scratch.iterdir())
    root = entries[0] if len(entries) == 1 and entries[0].is_dir() else scratch
    name, version = _metadata(root)
    shutil.copytree(root, folder, symlinks=True)
    return Unpacked(folder, name, version, kind)


def fetch_package(spec: str, tree: Path, scratch: Path) -> Unpacked:
    archive, kind = download(spec, scratch)
    return unpack(archive, kind, tree / folder_name(spec))


def stdlib_dir() -> Path:
    return Path(sysconfig.get_paths()["stdlib"])


def copy_stdlib(module: str, tree: Path) -> Unpacked:
    """The module's source from the running Python's stdlib, at the same relative path
    under ``tree/stdlib`` (a package's folder whole, its ``.py`` files only)."""
    spec = importlib.util.find_spec(module)
    if spec is None or spec.origin is None or not spec.origin.endswith(".py"):
        raise RuntimeError(f"{module!r} is not a pure-Python stdlib module")
    origin = Path(spec.origin)
    source = origin.parent if spec.submodule_search_locations else origin
    target = tree / "stdlib" / source.relative_to(stdlib_dir())
    target.parent.mkdir(parents=True, exist_ok=True)
    if source.is_dir():
        shutil.copytree(source, target, ignore=_not_python)
    else:
        shutil.copy2(source, target)
    version = ".".join(map(str, sys.version_info[:3]))
    return Unpacked(target, module, version, "stdlib")


def _not_python(folder: str, names: list[str]) -> list[str]:
    """What a stdlib package's copy leaves out: caches and anything but source."""
    return [n for n in names if n == "__pycache__" or not _is_source(Path(folder) / n)]


def _is_source(path: Path) -> bool:
    return path.is_dir() or path.suffix == ".py"
