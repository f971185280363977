"""Which files a directory ``analyze`` covers, and in which order.

Every ``.py`` and ``.pyi`` file under the directory, recursively; hidden files and
folders (name starting with ``.``) skipped; symlinked folders not followed (a
symlinked file is analyzed like any file); names that are not valid UTF-8 skipped
(they cannot be echoed in a JSON hint). Paths come back relative to the
directory, ``/``-joined, sorted, so hints sort by file path.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

SOURCE_SUFFIXES = (".py", ".pyi")


def _representable(name: str) -> bool:
    """Whether a file name can be echoed in JSON (undecodable bytes cannot)."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def iter_source_files(root: str) -> Iterator[str]:
    """Relative paths of the source files under ``root`` (unsorted)."""
    stack = [""]
    while stack:
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
    return sorted(iter_source_files(root))
