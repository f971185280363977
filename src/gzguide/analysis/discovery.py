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

import os
import posixpath
import time
from collections.abc import Iterator

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
        root = self.root
        stack = [""]
        while stack and not self._late():
            relative = stack.pop()
            try:
                with os.scandir(os.path.join(root, relative) if relative else root) as entries:
                    for entry in entries:
                        if entry.name.startswith(".") or not _representable(entry.name):
                            continue
                        rel = f"{relative}/{entry.name}" if relative else entry.name
                        try:
                            if entry.is_dir(follow_symlinks=False):
                                stack.append(rel)
                            elif entry.name.endswith(SOURCE_SUFFIXES):
                                yield rel
                        except OSError:
                            continue
            except OSError:
                continue


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
