"""What changed since a git revision: a file's text at a commit, and which
definitions of a new text differ from an old one.

Old versions are read with ``git`` as a program, never by reading ``.git``
ourselves: :func:`resolve` finds the work tree holding a directory and the commit
a revision names; a :class:`Revision` lists that commit's tree once and reads the
blobs of the paths asked for. A path that is not a regular file at the commit
(untracked, added since, a symlink or a submodule there) has no old text: it is
new as a whole.

:func:`changes` compares definitions by their own text, keyed by qualified name:
a function that only moved (lines inserted above it) is unchanged; one whose
body, decorators or signature changed, or whose qualified name is new (renamed,
or moved into another class), is changed. Texts are compared line by line, each
definition dedented, so line endings (a checkout's CRLF against the LF stored)
and a uniform re-indent of a whole definition do not count as changes. The
module counts as changed when any line of its text differs.
"""

from __future__ import annotations

import os
import subprocess
import textwrap
from collections import Counter
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import Final

from gzguide.analysis.facts.lines import text_lines
from gzguide.analysis.facts.parsed import parse_module
from gzguide.analysis.facts.scopes import Scope, collect_scopes
from gzguide.analysis.source import decode_source

#: The tree entry modes of regular files (plain and executable).
_REGULAR_MODES: Final = frozenset({"100644", "100755"})


class HistoryError(Exception):
    """A revision or work tree that cannot be read (what the user asked is not there)."""


def _git(directory: str, *args: str, stdin: bytes | None = None) -> bytes:
    """The standard output of ``git args`` run in ``directory``; HistoryError on failure."""
    try:
        done = subprocess.run(
            ["git", *args], cwd=directory, input=stdin, capture_output=True, check=False
        )
    except OSError as exc:
        raise HistoryError(f"cannot run git: {exc.strerror or exc}") from None
    if done.returncode != 0:
        reason = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise HistoryError(reason[-1] if reason else f"git {args[0]} failed")
    return done.stdout


def _listing(top: str, commit: str) -> dict[str, str]:
    """The regular files of ``commit``: path relative to the top level -> blob id."""
    out = _git(top, "ls-tree", "-r", "-z", "--full-tree", commit)
    blobs: dict[str, str] = {}
    for entry in out.split(b"\0"):
        meta, _, path = entry.partition(b"\t")
        fields = meta.split(b" ")
        if len(fields) == 3 and fields[0].decode() in _REGULAR_MODES:
            blobs[os.fsdecode(path)] = fields[2].decode()
    return blobs


def _read_blobs(top: str, ids: Collection[str]) -> dict[str, bytes]:
    """The contents of blobs, read by one ``git cat-file --batch``; a missing one is left out."""
    if not ids:
        return {}
    asked = sorted(ids)
    out = _git(top, "cat-file", "--batch", stdin="".join(f"{i}\n" for i in asked).encode())
    found: dict[str, bytes] = {}
    at = 0
    for blob in asked:
        header_end = out.index(b"\n", at)
        header = out[at:header_end].split(b" ")
        at = header_end + 1
        if len(header) == 3:  # else ``<id> missing``: a partial clone's absent blob
            size = int(header[2])
            found[blob] = out[at : at + size]
            at += size + 1
    return found


class Revision:
    """One commit of one work tree; its tree is listed once, when first needed."""

    def __init__(self, top: str, commit: str) -> None:
        #: The work tree's top level, symlinks resolved.
        self.top = top
        #: The commit's full object name.
        self.commit = commit
        self._blobs: dict[str, str] | None = None

    @staticmethod
    def head_commit(top_level: str) -> str:
        """The commit HEAD names in the work tree at ``top_level``; HistoryError if none."""
        return _commit(top_level, "HEAD")

    def relative(self, path: str) -> str:
        """``path`` relative to the top level, ``/``-joined; HistoryError when outside it."""
        absolute = os.path.abspath(path)
        # The folder's symlinks are resolved as git resolves the top level's, the
        # file's own name is kept: a symlinked file is looked up as itself.
        folder = os.path.realpath(os.path.dirname(absolute))
        relative = os.path.relpath(os.path.join(folder, os.path.basename(absolute)), self.top)
        if relative == os.curdir or relative.split(os.sep, 1)[0] == os.pardir:
            raise HistoryError(f"{path}: outside the git work tree {self.top}")
        return relative.replace(os.sep, "/")

    def _blob_ids(self, paths: Sequence[str]) -> list[str | None]:
        if self._blobs is None:
            self._blobs = _listing(self.top, self.commit)
        return [self._blobs.get(self.relative(p)) for p in paths]

    def texts(self, paths: Sequence[str]) -> list[bytes | None]:
        """Each path's bytes at the commit; None for a path with no regular file there."""
        ids = self._blob_ids(paths)
        contents = _read_blobs(self.top, {i for i in ids if i is not None})
        return [contents.get(i) if i is not None else None for i in ids]

    def text(self, path: str) -> bytes | None:
        """``path``'s bytes at the commit; None when it had no regular file there."""
        return self.texts([path])[0]


def top_level(directory: str) -> str:
    """The top level of the git work tree holding ``directory``, symlinks resolved;
    HistoryError when it is in none."""
    if not os.path.isdir(directory):
        raise HistoryError(f"{directory}: no such folder")
    try:
        top = _git(directory, "rev-parse", "--show-toplevel")
    except HistoryError as exc:
        raise HistoryError(f"{directory}: not in a git work tree ({exc})") from None
    return os.path.realpath(os.fsdecode(top.rstrip(b"\n")))


def resolve(directory: str, revision: str) -> Revision:
    """The commit ``revision`` names in the work tree holding ``directory``.

    HistoryError when ``directory`` is not in a git work tree or the revision
    names no commit there.
    """
    if not revision or revision.startswith("-"):
        raise HistoryError(f"{revision!r} is not a revision")
    top = top_level(directory)
    return Revision(top, _commit(top, revision))


def _commit(top_level: str, revision: str) -> str:
    """The full name of the commit ``revision`` names in the work tree at ``top_level``."""
    try:
        commit = _git(top_level, "rev-parse", "--verify", "--quiet", f"{revision}^{{commit}}")
    except HistoryError:
        raise HistoryError(f"{revision}: no such commit in {top_level}") from None
    return commit.decode().strip()


def _own_text(lines: Sequence[str], scope: Scope) -> str:
    """A definition's lines, decorators included, dedented, ``\\n``-joined."""
    node = scope.node
    first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
    return textwrap.dedent("\n".join(lines[first - 1 : scope.end_line]))


def own_text(lines: Sequence[str]) -> str:
    """The text a definition is compared by: its lines, dedented, ``\\n``-joined."""
    return textwrap.dedent("\n".join(lines))


def definition_texts(data: bytes) -> frozenset[str] | None:
    """The text of every def and class of a file, from its header's first line to its
    end (decorators left out); None when the bytes are not Python."""
    parsed = parse_module(data)
    if parsed is None:
        return None
    lines = text_lines(parsed.text)
    return frozenset(
        own_text(lines[s.start_line - 1 : s.end_line]) for s in collect_scopes(parsed.tree)
    )


def _definitions(text: str, scopes: Iterable[Scope]) -> list[tuple[Scope, str]]:
    lines = text_lines(text)
    return [(s, _own_text(lines, s)) for s in scopes]


@dataclass(frozen=True, slots=True)
class Changes:
    """Which parts of a new text differ from an old text."""

    #: Whether the text differs at all (what a module value's change is).
    module: bool
    #: The keys (:attr:`Scope.key`) of the new text's changed definitions.
    definitions: frozenset[tuple[int, int]]

    def covers(self, scope: Scope | None) -> bool:
        """Whether a value of ``scope`` (None: the module) is on changed code."""
        return self.module if scope is None else scope.key in self.definitions


def _old_definitions(old: bytes) -> Counter[tuple[str, str]]:
    parsed = parse_module(old)
    if parsed is None:
        return Counter()
    return Counter(
        (s.qualname, own) for s, own in _definitions(parsed.text, collect_scopes(parsed.tree))
    )


def changes(new_text: str, new_scopes: Sequence[Scope], old: bytes | None) -> Changes:
    """What of ``new_text`` (its definitions: ``new_scopes``) differs from ``old``.

    ``old`` is the old file's bytes, None when there was no old file; old bytes
    that are not valid Python have no definitions, so every new one is changed.
    Each old definition vouches for one new definition of the same qualified name
    and text, so a duplicate added next to an unchanged one is a change.
    """
    old_text = decode_source(old) if old is not None else None
    if old is None or old_text is None:
        return Changes(True, frozenset(s.key for s in new_scopes))
    changed = _unmatched(_definitions(new_text, new_scopes), _old_definitions(old))
    return Changes(text_lines(new_text) != text_lines(old_text), changed)


def _unmatched(
    new: Iterable[tuple[Scope, str]], old: Counter[tuple[str, str]]
) -> frozenset[tuple[int, int]]:
    """The keys of the new definitions that no old one vouches for (each vouches once)."""
    changed: set[tuple[int, int]] = set()
    for scope, own in new:
        if old[scope.qualname, own] > 0:
            old[scope.qualname, own] -= 1
        else:
            changed.add(scope.key)
    return frozenset(changed)
