"""LSP positions to string indices, a WorkspaceEdit applied to a text, and its diff."""

from __future__ import annotations

import difflib
import re
from typing import Any

#: Where LSP says a line ends.
BREAK = re.compile(r"\r\n|\r|\n")


def line_starts(text: str) -> list[int]:
    """The string index each line of ``text`` starts at, as LSP counts lines."""
    return [0, *(match.end() for match in BREAK.finditer(text))]


def _width(char: str, encoding: str) -> int:
    """How many code units of the position encoding ``char`` takes."""
    if encoding == "utf-8":
        return len(char.encode("utf-8"))
    if encoding == "utf-16":
        return 2 if ord(char) > 0xFFFF else 1
    return 1


def _line_end(text: str, starts: list[int], line: int) -> int:
    """Where line ``line``'s text ends, before its line break."""
    if line + 1 >= len(starts):
        return len(text)
    end = starts[line + 1]
    return end - 2 if text[end - 2 : end] == "\r\n" else end - 1


def index_of(text: str, starts: list[int], position: dict[str, int], encoding: str) -> int:
    """The string index of an LSP position; a character past its line's end is that end,
    a line past the text's end is the text's end."""
    line = position["line"]
    if line >= len(starts):
        return len(text)
    index, end, units = starts[line], _line_end(text, starts, line), 0
    while index < end and units < position["character"]:
        units += _width(text[index], encoding)
        index += 1
    return index


def text_edits(edit: dict[str, Any], uri: str) -> list[dict[str, Any]]:
    """The TextEdits a WorkspaceEdit makes to ``uri`` (``changes`` or ``documentChanges``)."""
    found = list(edit.get("changes", {}).get(uri, []))
    for change in edit.get("documentChanges", []):
        if change.get("textDocument", {}).get("uri") == uri:
            found += change["edits"]
    return found


def apply(text: str, edits: list[dict[str, Any]], encoding: str) -> str:
    """``text`` with ``edits`` made, all of them ranges of the original text, as LSP says."""
    starts = line_starts(text)
    spans = []
    for edit in edits:
        start = index_of(text, starts, edit["range"]["start"], encoding)
        end = index_of(text, starts, edit["range"]["end"], encoding)
        spans.append((start, end, edit["newText"]))
    for start, end, new in sorted(spans, key=lambda span: span[:2], reverse=True):
        text = text[:start] + new + text[end:]
    return text


def _lines(text: str) -> list[str]:
    """Lines split at ``\\n`` only, each keeping it (what diff and git apply count)."""
    return [line for line in re.split(r"(?<=\n)", text) if line]


def unified_diff(before: str, after: str, path: str) -> str:
    """A diff ``git apply`` takes from the tree's root (a last line without a newline marked)."""
    out = []
    for line in difflib.unified_diff(_lines(before), _lines(after), f"a/{path}", f"b/{path}", n=3):
        out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out)
