"""``prepare``: the round's packages unpacked into a git work tree, and the files to open.

Every file is committed, so that each one the listing opens is unedited at ``HEAD``:
what an editor shows on code nobody is touching.
"""

from __future__ import annotations

import json
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tools.review.choose import candidates, excluded, sample
from tools.review.fetch import Unpacked, copy_stdlib, fetch_package

MANIFEST = "manifest.json"
TREE = "tree"


@dataclass(frozen=True)
class Round:
    number: int
    out: Path
    specs: list[str]
    stdlib: list[str]
    per_package: int = 4
    #: Tree-relative globs of files not to open (``black/src/blib2to3/*``).
    exclude: tuple[str, ...] = ()


def _entry(unpacked: Unpacked, spec: str, tree: Path, chosen: Round) -> dict[str, Any]:
    """The manifest's record of one package: what it is and which of its files are opened."""
    base = unpacked.folder if unpacked.folder.is_dir() else unpacked.folder.parent
    inside = base.relative_to(tree)
    found = candidates(unpacked.folder)
    files = [r for r in found if not excluded((inside / r).as_posix(), list(chosen.exclude))]
    picked = sample(files, chosen.number, chosen.per_package)
    return {
        "spec": spec,
        "name": unpacked.name,
        "version": unpacked.version,
        "kind": unpacked.kind,
        "folder": unpacked.folder.relative_to(tree).as_posix(),
        "eligible": len(files),
        "files": [(base / rel).relative_to(tree).as_posix() for rel in picked],
    }


def _git(tree: Path, *args: str) -> None:
    identity = ["-c", "user.name=review", "-c", "user.email=review@localhost"]
    subprocess.run(["git", *identity, *args], cwd=tree, check=True, capture_output=True)


def commit_tree(tree: Path, number: int) -> None:
    """Everything in the tree committed; ``-f`` since an sdist's own .gitignore may name
    files it ships."""
    _git(tree, "init", "-q")
    _git(tree, "add", "-A", "-f", ".")
    _git(tree, "commit", "-q", "--no-verify", "-m", f"review round {number}: packages unedited")


def prepare(chosen: Round) -> dict[str, Any]:
    """Lay the round out under ``chosen.out`` and write its manifest."""
    tree = chosen.out / TREE
    if tree.exists():
        raise FileExistsError(f"{tree} exists: prepare writes a round once")
    tree.mkdir(parents=True)
    entries = []
    with tempfile.TemporaryDirectory(prefix="review-downloads-") as scratch:
        for spec in chosen.specs:
            unpacked = fetch_package(spec, tree, Path(scratch))
            entries.append(_entry(unpacked, spec, tree, chosen))
    entries += [_entry(copy_stdlib(m, tree), m, tree, chosen) for m in chosen.stdlib]
    commit_tree(tree, chosen.number)
    manifest = {
        "round": chosen.number,
        "per_package": chosen.per_package,
        "exclude": list(chosen.exclude),
        "packages": entries,
    }
    text = json.dumps(manifest, indent=2, ensure_ascii=False)
    (chosen.out / MANIFEST).write_text(text + "\n", "utf-8")
    return manifest
