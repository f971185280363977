"""The soak's workspace: files copied from the standard library, and the edits made to them.

The files are copied at run time from the installed standard library (nothing is
stored in the repository). :class:`Editor` edits them while the server serves:
functions appended, removed and rewritten, same-size rewrites with the
modification time put back, deletions and re-creations, atomic saves, truncation
to empty, syntax errors, renames.
"""

from __future__ import annotations

import contextlib
import os
import posixpath
import random
import sysconfig
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

# Two lines of the same byte length: the first adds a branch, the second does not,
# so flipping one changes a function's complexity without changing the file's size.
BRANCH_LINE = b"    if a: a = 1\n"
QUIET_LINE = b"    # xxxxxxxxx\n"
assert len(BRANCH_LINE) == len(QUIET_LINE)
TOGGLES_PER_FUNCTION = 6
#: Functions appended to one file at most, so the workspace does not grow without end.
MAX_FUNCTIONS = 4


# -- the workspace ---------------------------------------------------------------


def stdlib_sources(min_size: int = 1_500, max_size: int = 24_000) -> list[Path]:
    """Modest-sized source files of the installed standard library, sorted."""
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    packages = (
        "",
        "email",
        "json",
        "http",
        "logging",
        "concurrent/futures",
        "importlib",
        "xml/dom",
    )
    found: list[Path] = []
    for package in packages:
        folder = stdlib / package if package else stdlib
        for path in sorted(folder.glob("*.py")):
            with contextlib.suppress(OSError):
                if min_size <= path.stat().st_size <= max_size:
                    found.append(path)
    return found


#: Folders of the workspace (relative), and the share of files placed in each.
FOLDERS = ("", "", "", "pkg_a", "pkg_a/sub", "pkg_b", "pkg_b/deep/er")


@dataclass
class SourceFile:
    """One workspace file: its two names, its base text and the edits made to it."""

    names: tuple[str, str]
    base: bytes
    functions: list[list[bool]] = field(default_factory=list)
    state: str = "ok"  # ok, empty, broken or deleted
    current: int = 0  # which of the two names it lives under

    @property
    def rel(self) -> str:
        return self.names[self.current]

    @property
    def other(self) -> str:
        return self.names[1 - self.current]

    def render(self) -> bytes:
        """The bytes the file holds in its current state."""
        if self.state == "empty":
            return b""
        parts = [self.base]
        parts.extend(function_bytes(index, toggles) for index, toggles in enumerate(self.functions))
        if self.state == "broken":
            parts.append(b"\n\ndef soak_broken(:\n    pass\n")
        return b"".join(parts)


def function_bytes(index: int, toggles: list[bool]) -> bytes:
    """The source of the ``index``-th appended function (a branch line per toggle on)."""
    lines = b"".join(BRANCH_LINE if on else QUIET_LINE for on in toggles)
    return b"\n\ndef soak_edit_%d(a, b):\n    total = a\n%b    return total + b\n" % (index, lines)


class Workspace:
    """The temporary workspace: files on disk and the model of what they hold."""

    def __init__(self, root: Path, files: list[SourceFile], folders: list[str]) -> None:
        self.root = root
        self.files = files
        self.folders = folders

    @classmethod
    def build(cls, root: Path, rng: random.Random, count: int) -> Workspace:
        sources = stdlib_sources()
        if len(sources) < count:
            raise RuntimeError(f"only {len(sources)} stdlib files fit, {count} wanted")
        chosen = rng.sample(sources, count)
        files = []
        for index, source in enumerate(chosen):
            folder = FOLDERS[index % len(FOLDERS)]
            stem = f"m{index:03d}_{source.stem}"
            names = (posixpath.join(folder, f"{stem}.py"), posixpath.join(folder, f"{stem}_r.py"))
            if index % 25 == 7:  # a few stubs: directory analyze covers .pyi too
                names = (names[0] + "i", names[1] + "i")
            files.append(SourceFile(names=names, base=source.read_bytes()))
        workspace = cls(root, files, sorted({f for f in FOLDERS if f}))
        workspace._write_all()
        return workspace

    def _write_all(self) -> None:
        for folder in (*self.folders, ".hidden"):
            (self.root / folder).mkdir(parents=True, exist_ok=True)
        for source in self.files:
            self.write(source)
        # Never covered by a directory analyze: hidden, or not a Python source.
        (self.root / ".hidden" / "skipped.py").write_bytes(self.files[0].base)
        (self.root / "pkg_a" / "notes.txt").write_text("not python\n")

    def path(self, rel: str) -> Path:
        return self.root / rel

    def write(self, source: SourceFile) -> None:
        self.path(source.rel).write_bytes(source.render())

    def total_bytes(self) -> int:
        return sum(len(s.render()) for s in self.files)


# -- edits --------------------------------------------------------------------------


def new_toggles(rng: random.Random) -> list[bool]:
    return [rng.random() < 0.6 for _ in range(TOGGLES_PER_FUNCTION)]


class Editor:
    """Edits workspace files the ways an editor and a developer do."""

    KINDS = (
        ("append_function", 5),
        ("remove_function", 3),
        ("change_body", 5),
        ("same_size_rewrite", 4),
        ("atomic_save", 2),
        ("delete", 1),
        ("delete_recreate", 1),
        ("truncate", 1),
        ("syntax_error", 1),
        ("rename", 1),
    )

    def __init__(self, workspace: Workspace, rng: random.Random) -> None:
        self.ws = workspace
        self.rng = rng
        self.counts: Counter[str] = Counter()

    def pick_kind(self, source: SourceFile) -> str:
        """What to do to ``source``; a broken, empty or missing file is usually restored."""
        if source.state != "ok" and self.rng.random() < 0.7:
            return "restore"
        kinds = [kind for kind, _ in self.KINDS]
        weights = [weight for _, weight in self.KINDS]
        return self.rng.choices(kinds, weights)[0]

    def edit(self, source: SourceFile, kind: str) -> str:
        """Apply one edit of ``kind`` to ``source`` on disk; returns the kind applied."""
        if source.state == "deleted" and kind not in ("restore", "delete_recreate"):
            kind = "restore"
        getattr(self, f"_{kind}")(source)
        self.counts[kind] += 1
        return kind

    def _rewrite(self, source: SourceFile) -> None:
        source.state = "ok"
        self.ws.write(source)

    def _restore(self, source: SourceFile) -> None:
        self._rewrite(source)

    def add_function(self, source: SourceFile) -> None:
        """Append a function to the model; at the cap, one is removed first (sizes stay steady)."""
        if len(source.functions) >= MAX_FUNCTIONS:
            source.functions.pop(self.rng.randrange(len(source.functions)))
        source.functions.append(new_toggles(self.rng))

    def _append_function(self, source: SourceFile) -> None:
        self.add_function(source)
        self._rewrite(source)

    def save_typed_function(self, source: SourceFile, toggles: list[bool]) -> None:
        """Save a buffer into which the next function (of ``toggles``) was typed."""
        assert source.state == "ok" and len(source.functions) < MAX_FUNCTIONS
        source.functions.append(toggles)
        self._rewrite(source)
        self.counts["save_buffer"] += 1

    def _remove_function(self, source: SourceFile) -> None:
        if source.functions:
            source.functions.pop(self.rng.randrange(len(source.functions)))
        self._rewrite(source)

    def _change_body(self, source: SourceFile) -> None:
        if not source.functions:
            source.functions.append([])
        index = self.rng.randrange(len(source.functions))
        size = self.rng.choice([n for n in range(2, 9) if n != len(source.functions[index])])
        source.functions[index] = [self.rng.random() < 0.6 for _ in range(size)]
        self._rewrite(source)

    def _same_size_rewrite(self, source: SourceFile) -> None:
        """Flip one branch line in place and put the old modification time back."""
        candidates = [t for t in source.functions if t]
        if source.state != "ok" or not candidates:
            self._append_function(source)
            return
        path = self.ws.path(source.rel)
        before = path.stat()
        toggles = self.rng.choice(candidates)
        slot = self.rng.randrange(len(toggles))
        toggles[slot] = not toggles[slot]
        data = source.render()
        assert len(data) == before.st_size
        with open(path, "r+b") as handle:
            handle.write(data)
        os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))

    def _atomic_save(self, source: SourceFile) -> None:
        """Write a hidden temporary file next to it and rename it over (a new inode)."""
        source.state = "ok"
        self.add_function(source)
        path = self.ws.path(source.rel)
        temporary = path.with_name(f".{path.name}.tmp")
        temporary.write_bytes(source.render())
        os.replace(temporary, path)

    def _delete(self, source: SourceFile) -> None:
        self.ws.path(source.rel).unlink()
        source.state = "deleted"

    def _delete_recreate(self, source: SourceFile) -> None:
        with contextlib.suppress(FileNotFoundError):
            self.ws.path(source.rel).unlink()
        self._rewrite(source)

    def _truncate(self, source: SourceFile) -> None:
        os.truncate(self.ws.path(source.rel), 0)
        source.state = "empty"

    def _syntax_error(self, source: SourceFile) -> None:
        source.state = "broken"
        self.ws.write(source)

    def _rename(self, source: SourceFile) -> None:
        old = self.ws.path(source.rel)
        source.current = 1 - source.current
        os.rename(old, self.ws.path(source.rel))
