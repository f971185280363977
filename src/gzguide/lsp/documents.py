"""The open documents: their text as the client holds it, kept in sync by its changes.

A document's text is held as a Python string; its UTF-8 bytes are what the
analysis reads, encoded once per version. Changes come whole (the full text) or as
a range replaced by new text, ranges in the session's position encoding
(:mod:`gzguide.lsp.positions`), applied one after the other as LSP orders: each
range refers to the text the previous change left.
"""

from __future__ import annotations

from urllib.parse import unquote, urlsplit

import msgspec

from gzguide.lsp.positions import LineIndex
from gzguide.lsp.types import ContentChange

#: Language ids analyzed (other documents are kept in sync but get no diagnostics).
PYTHON_LANGUAGES = frozenset({"python"})
PYTHON_SUFFIXES = (".py", ".pyi")


def path_of(uri: str) -> str:
    """The file a ``file:`` URI names; any other URI stands for itself."""
    parts = urlsplit(uri)
    if parts.scheme != "file":
        return uri
    path = unquote(parts.path)
    if parts.netloc and parts.netloc != "localhost":
        return f"//{parts.netloc}{path}"
    return path


class Document:
    """One open document."""

    __slots__ = ("_data", "_index", "language_id", "path", "text", "uri", "version")

    def __init__(self, uri: str, language_id: str, version: int, text: str) -> None:
        self.uri = uri
        self.path = path_of(uri)
        self.language_id = language_id
        self.version = version
        self.text = text
        self._index: LineIndex | None = None
        self._data: bytes | None = None

    @property
    def analyzed(self) -> bool:
        """Whether its hints are wanted: a Python document."""
        return self.language_id in PYTHON_LANGUAGES or self.path.endswith(PYTHON_SUFFIXES)

    @property
    def index(self) -> LineIndex:
        if self._index is None:
            self._index = LineIndex(self.text)
        return self._index

    @property
    def data(self) -> bytes:
        """The text as UTF-8, what is analyzed."""
        if self._data is None:
            self._data = self.text.encode("utf-8")
        return self._data

    def replace(self, version: int, text: str) -> None:
        self.version = version
        self.text = text
        self._index = None
        self._data = None

    def apply(self, version: int, changes: list[ContentChange], encoding: str) -> None:
        """Apply a ``didChange``'s changes in order; the document is then at ``version``."""
        text = self.text
        index = self._index
        for change in changes:
            if isinstance(change.range, msgspec.UnsetType):
                text, index = change.text, None
                continue
            if index is None:
                index = LineIndex(text)
            start, end = change.range.start, change.range.end
            first = index.offset(start.line, start.character, encoding)
            last = index.offset(end.line, end.character, encoding)
            if last < first:
                first, last = last, first
            text = text[:first] + change.text + text[last:]
            index = None
        self.replace(version, text)
