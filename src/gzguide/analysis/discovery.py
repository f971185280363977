"""Which files a directory ``analyze`` covers, and in which order.

Every ``.py`` and ``.pyi`` file under the directory, recursively; hidden files and
folders (name starting with ``.``) skipped; symlinked folders not followed (a
symlinked file is analyzed like any file); names that are not valid UTF-8 skipped
(they cannot be echoed in a JSON hint). Paths come back relative to the
directory, ``/``-joined, sorted, so hints sort by file path.

A walk can be given a deadline (``time.monotonic()`` seconds): a tree too large to
list in time yields what was found by then, and says so.
"""

from __future__ import annotations

import contextlib
import os
import posixpath
import time
from collections.abc import Iterator
from typing import Final

SOURCE_SUFFIXES = (".py", ".pyi")


def _representable(name: str) -> bool:
    """Whether a file name can be echoed in JSON (undecodable bytes cannot)."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


class Walk:
    """The source files under a directory, found until an optional deadline."""

    def __init__(self, root: str, deadline: float | None = None) -> None:
        self.root = root
        self.deadline = deadline
        #: False when the deadline cut the walk short.
        self.complete = True

    def files(self) -> list[str]:
        """Relative paths, sorted."""
        return sorted(self._iter())

    def _late(self) -> bool:
        if self.deadline is not None and time.monotonic() >= self.deadline:
            self.complete = False
        return not self.complete

    def _iter(self) -> Iterator[str]:
        stack = [""]
        while stack and not self._late():
            folders, files = self._scan(stack.pop())
            stack.extend(folders)
            yield from files

    def _scan(self, relative: str) -> tuple[list[str], list[str]]:
        """The folders and the source files right in the folder ``relative``, as far
        as it can be read."""
        found: tuple[list[str], list[str]] = ([], [])
        with contextlib.suppress(OSError), os.scandir(self._path(relative)) as entries:
            for entry in entries:
                kind = _kind(entry)
                if kind is not None:
                    found[kind].append(f"{relative}/{entry.name}" if relative else entry.name)
        return found

    def _path(self, relative: str) -> str:
        return os.path.join(self.root, relative) if relative else self.root


#: What :func:`_kind` says an entry is: the index of its list in :meth:`Walk._scan`.
_FOLDER: Final = 0
_SOURCE: Final = 1


def _kind(entry: os.DirEntry[str]) -> int | None:
    """Whether a directory entry is a folder to walk, a source file, or neither (hidden,
    a name JSON cannot echo, another kind of file, or one that cannot be looked at)."""
    if entry.name.startswith(".") or not _representable(entry.name):
        return None
    try:
        if entry.is_dir(follow_symlinks=False):
            return _FOLDER
    except OSError:
        return None
    return _SOURCE if entry.name.endswith(SOURCE_SUFFIXES) else None


def source_files(root: str) -> list[str]:
    return Walk(root).files()


def covered_files(path: str) -> list[tuple[str, str]]:
    """The files a requested path covers, each as (path shown, path read).

    A folder covers its source files, shown joined to the folder as it was given
    (``/``-joined, as hints show them); anything else covers itself.
    """
    if not os.path.isdir(path):
        return [(path, path)]
    return [(posixpath.join(path, r), os.path.join(path, r)) for r in source_files(path)]
