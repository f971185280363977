"""New code: which definitions of an open buffer the census is shown on.

The census (a hint that proposes no change) is a budget for the function being
written, so by default it is shown only on new code. A definition is new when its
text, from its header to its end and dedented, is not the text of a definition of the
buffer's baseline: the file as committed at git ``HEAD`` (a file untracked or not in
``HEAD``, or a work tree with no commit yet, has no old definitions: it is new as a
whole), or, outside a git work tree, the text the buffer had at ``didOpen``. A function
that only moved is not new; one renamed, or with a line of its own changed, is.

Old versions are read with ``git`` (:mod:`gzguide.history`) when a document is
opened and saved (a commit is made between saves), and cached per ``HEAD`` commit:
a commit's tree is listed once and each file's definitions are parsed once.
"""

from __future__ import annotations

import os

from gzguide.analysis.model import Finding
from gzguide.history import HistoryError, Revision, definition_texts, own_text, top_level
from gzguide.lsp.positions import LineIndex


class Baseline:
    """The definitions a buffer's are compared with."""

    __slots__ = ("source", "texts")

    def __init__(self, texts: frozenset[str] | None, source: str) -> None:
        #: The old definitions' texts; None when there is no old version.
        self.texts = texts
        #: Where they come from (``HEAD``, ``didOpen``), for the log.
        self.source = source

    def is_new(self, finding: Finding, index: LineIndex) -> bool:
        """Whether the definition ``finding`` is about is new code."""
        if self.texts is None:
            return True
        last = min(finding.end_line, index.line_count)
        lines = [index.line(n) for n in range(finding.start_line - 1, last)]
        return own_text(lines) not in self.texts


def of_text(text: str, source: str) -> Baseline:
    return Baseline(definition_texts(text.encode("utf-8", "surrogatepass")), source)


class Baselines:
    """Each buffer's baseline, old versions read from git and cached per commit."""

    def __init__(self) -> None:
        #: The revision each work tree's HEAD named when last looked at, by top level.
        self._revisions: dict[str, Revision] = {}
        self._texts: dict[tuple[str, str], frozenset[str] | None] = {}

    def of(self, path: str, opened: str) -> Baseline:
        """The baseline of the buffer of ``path`` whose text at ``didOpen`` was ``opened``."""
        folder = os.path.dirname(path)
        try:
            top = top_level(folder) if os.path.isabs(path) else None
        except HistoryError:
            top = None
        if top is None:
            return of_text(opened, "didOpen")
        try:
            return Baseline(self._committed(top, path), "HEAD")
        except HistoryError:
            return Baseline(None, "HEAD")  # no commit yet, or git failed: all of it is new

    def _committed(self, top: str, path: str) -> frozenset[str] | None:
        revision = self._head(top)
        key = (revision.commit, revision.relative(path))
        if key not in self._texts:
            old = revision.text(path)
            self._texts[key] = definition_texts(old) if old is not None else None
        return self._texts[key]

    def _head(self, top: str) -> Revision:
        """The work tree's HEAD, its tree listing kept while HEAD names the same commit."""
        commit = Revision.head_commit(top)
        known = self._revisions.get(top)
        if known is None or known.commit != commit:
            known = self._revisions[top] = Revision(top, commit)
        return known
