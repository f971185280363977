"""Where a definition's name is in its header: what a gate line points at."""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence
from typing import Final

from gzguide.analysis.facts.scopes import FunctionNode

#: The keywords before a definition's name, with the blanks and line continuations
#: that may follow each.
_BEFORE_NAME: Final = re.compile(r"(?:(?:async|def|class)(?:[ \t\f]|\\\n)+)+")
#: How many lines a header may span before its name (``async \``, ``def \``, name).
_HEADER_LINES: Final = 3


def name_position(lines: Sequence[str], node: FunctionNode | ast.ClassDef) -> tuple[int, int]:
    """The 1-based line and column (in characters) of the name of ``node``.

    ``lines`` are the file's text lines (:func:`~gzguide.analysis.facts.lines.text_lines`).
    Where the header is not the expected keywords and name, the definition's own
    position is given instead.
    """
    first = lines[node.lineno - 1]
    # The tree's columns count UTF-8 bytes; a gate's count characters.
    column = len(first.encode("utf-8")[: node.col_offset].decode("utf-8", "ignore"))
    window = "\n".join(lines[node.lineno - 1 : node.lineno - 1 + _HEADER_LINES])
    found = _BEFORE_NAME.match(window, column)
    if found is None or not window.startswith(node.name, found.end()):
        return node.lineno, column + 1
    before = window[: found.end()]
    return node.lineno + before.count("\n"), found.end() - before.rfind("\n")
