"""The module's top-level definitions, and every name each of them mentions.

What the module split (:mod:`gzguide.analysis.moves.modules`) links its groups by.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import Final

_Definition = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
#: Where the parser ends a line, and what an identifier looks like (ASCII is enough
#: here: a definition's name is matched against these, and a miss only splits less).
_LINE_END: Final = re.compile(r"\r\n|\r|\n")
_IDENTIFIER: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass(frozen=True, slots=True)
class TopLevel:
    """A top-level function or class, and every name that appears in it."""

    name: str
    start: int
    end: int
    mentions: frozenset[str]
    #: Module names it declares ``global``: state it shares with whatever reads them.
    declares: frozenset[str] = frozenset()


def top_level(tree: ast.Module, text: str) -> tuple[TopLevel, ...]:
    """The module's top-level definitions with the names each mentions.

    Every identifier in a definition's lines counts, strings and comments included:
    a mention can only make the module look more connected than it is, never less.
    """
    definitions = [d for d in tree.body if isinstance(d, _Definition)]
    if not definitions:
        return ()
    lines = _LINE_END.split(text)
    return tuple(_entry(d, lines) for d in definitions)


def _entry(d: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef, lines: list[str]) -> TopLevel:
    start = d.decorator_list[0].lineno if d.decorator_list else d.lineno
    end = d.end_lineno or d.lineno
    mentions = frozenset(_IDENTIFIER.findall("\n".join(lines[start - 1 : end])))
    # The keyword is among the identifiers found: only then is the tree walked.
    declares = _declared(d) if "global" in mentions else frozenset()
    return TopLevel(d.name, start, end, mentions, declares)


def _declared(d: ast.AST) -> frozenset[str]:
    """The names ``global`` statements anywhere in ``d`` declare."""
    return frozenset(name for n in ast.walk(d) if isinstance(n, ast.Global) for name in n.names)
