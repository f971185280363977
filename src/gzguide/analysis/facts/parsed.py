"""One parsed version of a source file: the single parse every metric shares."""

from __future__ import annotations

import ast
import io
import tokenize
import warnings
from dataclasses import dataclass, field
from functools import cached_property

from gzguide.analysis.facts.lines import LineIndex
from gzguide.analysis.source import decode_source


@dataclass(eq=False)
class ParsedModule:
    """Raw bytes, decoded text, AST and line index of one file version.

    Built once per file version by :func:`parse_module`; every metric reads from it
    and none parses again.
    """

    data: bytes
    text: str
    tree: ast.Module
    lines: LineIndex = field(repr=False)

    @cached_property
    def tokens(self) -> list[tokenize.TokenInfo]:
        """The file's tokens: the one tokenize pass that every token-based metric shares.

        Empty if the tokenizer rejects text that the parser accepted (not expected).
        """
        try:
            return list(tokenize.generate_tokens(io.StringIO(self.text).readline))
        except (tokenize.TokenError, SyntaxError):
            return []

    @property
    def last_line(self) -> int:
        return self.lines.line_count


def parse_module(data: bytes) -> ParsedModule | None:
    """Decode and parse ``data``; None when it is not decodable, valid Python source.

    The code is compiled to an AST only: never imported, never executed.
    """
    text = decode_source(data)
    if text is None:
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError):
        return None
    return ParsedModule(data=data, text=text, tree=tree, lines=LineIndex(data))
