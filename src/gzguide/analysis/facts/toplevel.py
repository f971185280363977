"""The module's top-level definitions, and every name each of them mentions.

What the module split (:mod:`gzguide.analysis.moves.modules`) links its groups by.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, replace
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
    carriers = _carriers(tree, lines, {d.name for d in definitions})
    return tuple(_carried(_entry(d, lines), carriers) for d in definitions)


def _carriers(tree: ast.Module, lines: list[str], defined: set[str]) -> dict[str, frozenset[str]]:
    """The module-level names whose values hold definitions (``_GETTERS = [_a, _b]``,
    and ``_ALL = _GETTERS + [...]`` after it), each with the definitions it holds: a
    definition that reads such a name uses those definitions, as if it named them."""
    carriers: dict[str, frozenset[str]] = {}
    for statement in tree.body:
        if isinstance(statement, _Definition):
            continue
        mentions = set(_IDENTIFIER.findall("\n".join(_lines_of(statement, lines))))
        held = frozenset(mentions & defined).union(
            *(carriers[n] for n in mentions & carriers.keys())
        )
        if held:
            for name in _bound(statement):
                carriers[name] = carriers.get(name, frozenset()) | held
    return carriers


def _lines_of(node: ast.stmt, lines: list[str]) -> list[str]:
    return lines[node.lineno - 1 : node.end_lineno or node.lineno]


def _bound(statement: ast.stmt) -> set[str]:
    """The names a module-level statement binds (in any block it holds)."""
    return {
        n.id
        for n in ast.walk(statement)
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
    }


def _carried(entry: TopLevel, carriers: dict[str, frozenset[str]]) -> TopLevel:
    """``entry`` naming, too, the definitions held by the module names it reads."""
    read = entry.mentions & carriers.keys()
    if not read:
        return entry
    held = frozenset().union(*(carriers[n] for n in read)) - {entry.name}
    return replace(entry, mentions=entry.mentions | held)


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
