"""Comments that silence hints: ``# gzguide: ignore`` and lizard's ``#lizard forgive``.

* ``# gzguide: ignore`` at the end of a line of a ``def`` or ``class`` header (from
  the ``def``/``class`` line to the line before its body) silences that definition's
  hints; ``# gzguide: ignore[radon_cc, lizard_nloc]`` only those metrics'. On a
  line of its own above the module's first statement (its docstring aside), it
  silences the module's hints (or those metrics').
* ``#lizard forgive`` (or ``forgives``) silences the ``lizard_*`` hints of the
  function lizard itself would forgive: the first one whose end lizard reaches
  after the comment (in practice the function the comment sits in).
  ``#lizard forgives(metric, ...)`` silences those lizard metrics of the function
  the comment sits in. ``#lizard forgive global`` concerns code outside functions,
  which gets no function hints anyway.

Silencing only hides hints: ``gz complexity measure`` still lists every value.
"""

from __future__ import annotations

import ast
import re
import tokenize
from bisect import bisect_right
from dataclasses import dataclass, field
from typing import Final

from gzguide.analysis.facts.scopes import Scope

_IGNORE: Final = re.compile(r"#\s*gzguide:\s*ignore(?:\[([^\]]*)\])?", re.IGNORECASE)
_LIZARD_METRICS: Final = {
    "cyclomatic_complexity": "lizard_ccn",
    "ccn": "lizard_ccn",
    "nloc": "lizard_nloc",
    "length": "lizard_nloc",
    "parameter_count": "lizard_param_count",
    "parameters": "lizard_param_count",
    "max_nesting_depth": "lizard_nesting_depth",
    "nesting_depth": "lizard_nesting_depth",
}
LIZARD_HINTS: Final = frozenset(
    {"lizard_ccn", "lizard_nloc", "lizard_param_count", "lizard_nesting_depth"}
)

_MENTION: Final = re.compile(r"gzguide|lizard forgive", re.IGNORECASE)
_LAYOUT: Final = frozenset(
    {tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER}
)

#: Silenced metrics: None stands for all of them.
Silenced = frozenset[str] | None


@dataclass(frozen=True, slots=True)
class Directives:
    #: line -> metrics a ``# gzguide: ignore`` comment on it silences.
    ignores: dict[int, Silenced] = field(default_factory=dict)
    #: Lines holding only a comment (for the module-level form).
    comment_only: frozenset[int] = frozenset()
    #: ``#lizard forgive`` lines; ``#lizard forgives(...)`` lines and their metrics.
    forgives: tuple[int, ...] = ()
    forgives_some: tuple[tuple[int, frozenset[str]], ...] = ()
    #: Lines holding code tokens, sorted (where lizard sees a function end).
    code_lines: tuple[int, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.ignores or self.forgives or self.forgives_some)


def read_directives(text: str, tokens: list[tokenize.TokenInfo]) -> Directives:
    """The directives of a module's comments (``text`` only decides whether to look)."""
    if _MENTION.search(text) is None:
        return NO_DIRECTIVES
    ignores: dict[int, Silenced] = {}
    comment_only: set[int] = set()
    forgives: list[int] = []
    forgives_some: list[tuple[int, frozenset[str]]] = []
    code: set[int] = set()
    for token in tokens:
        kind, line = token.type, token.start[0]
        if kind == tokenize.COMMENT:
            if line not in code:
                comment_only.add(line)
            _comment(token.string, line, ignores, forgives, forgives_some)
        elif kind not in _LAYOUT:
            code.update(range(line, token.end[0] + 1))
    return Directives(
        ignores, frozenset(comment_only), tuple(forgives), tuple(forgives_some), tuple(sorted(code))
    )


NO_DIRECTIVES: Final = Directives()


def _comment(
    text: str,
    line: int,
    ignores: dict[int, Silenced],
    forgives: list[int],
    forgives_some: list[tuple[int, frozenset[str]]],
) -> None:
    match = _IGNORE.search(text)
    if match is not None:
        _ignore(ignores, line, match.group(1))
    else:
        _forgive(text, line, forgives, forgives_some)


def _ignore(ignores: dict[int, Silenced], line: int, listed: str | None) -> None:
    """A ``# gzguide: ignore`` comment, with the metrics it lists (None: all of them)."""
    if listed is None:
        ignores[line] = None
    else:
        ignores[line] = _merge(ignores.get(line, frozenset()), _listed(listed))


def _forgive(
    text: str, line: int, forgives: list[int], forgives_some: list[tuple[int, frozenset[str]]]
) -> None:
    """A ``#lizard forgive`` comment, or ``#lizard forgives(metric, ...)``."""
    stripped = text.lstrip("#").strip()
    if not stripped.startswith("lizard forgive") or stripped.startswith("lizard forgive global"):
        return
    some = re.match(r"lizard forgives?\(([^)]*)\)", stripped)
    if some is None:
        forgives.append(line)
    else:
        metrics = frozenset(_LIZARD_METRICS.get(n, n) for n in _listed(some.group(1)))
        forgives_some.append((line, metrics))


def _listed(names: str) -> frozenset[str]:
    """The names of a comma-separated list, blanks left out."""
    return frozenset(n.strip() for n in names.split(",") if n.strip())


def _header_lines(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> range:
    first_body = node.body[0].lineno if node.body else node.lineno
    return range(node.lineno, max(first_body - 1, node.lineno) + 1)


def _merge(a: Silenced, b: Silenced) -> Silenced:
    if a is None or b is None:
        return None
    return a | b


@dataclass(frozen=True, slots=True)
class Silencer:
    """Which metrics are silenced for each definition and for the module."""

    by_scope: dict[tuple[int, int], Silenced]
    module: Silenced | frozenset[str]

    def silenced(self, scope: Scope | None, metric: str) -> bool:
        found = self.module if scope is None else self.by_scope.get(scope.key, frozenset())
        return found is None or metric in found


def silencer(directives: Directives, tree: ast.Module, scopes: list[Scope]) -> Silencer | None:
    """What the comments silence, or None when nothing is silenced."""
    if not directives:
        return None
    by_scope = _ignored_definitions(directives, scopes)
    _forgive_functions(by_scope, directives, [s for s in scopes if s.is_function])
    return Silencer(by_scope, _module_silenced(directives, tree))


def _ignored_definitions(
    directives: Directives, scopes: list[Scope]
) -> dict[tuple[int, int], Silenced]:
    """What the ``# gzguide: ignore`` comments of each definition's header silence."""
    by_scope: dict[tuple[int, int], Silenced] = {}
    for scope in scopes:
        found = _header_ignores(directives, scope)
        if found is None or found:
            by_scope[scope.key] = found
    return by_scope


def _header_ignores(directives: Directives, scope: Scope) -> Silenced:
    found: Silenced = frozenset()
    for line in _header_lines(scope.node):
        # A comment on a line of its own after the signature is in the body.
        if line in directives.ignores and line not in directives.comment_only:
            found = _merge(found, directives.ignores[line])
    return found


def _forgive_functions(
    by_scope: dict[tuple[int, int], Silenced], directives: Directives, functions: list[Scope]
) -> None:
    """Silences what the ``#lizard forgive`` and ``#lizard forgives(...)`` comments do."""
    closing = {s.key: _closing_line(directives.code_lines, s.end_line) for s in functions}
    for line in directives.forgives:
        _silence(by_scope, _forgiven(line, functions, closing), LIZARD_HINTS)
    for line, metrics in directives.forgives_some:
        _silence(by_scope, _open_at(line, functions, closing), metrics & LIZARD_HINTS)


def _forgiven(
    line: int, functions: list[Scope], closing: dict[tuple[int, int], float]
) -> Scope | None:
    """The function a ``#lizard forgive`` on ``line`` forgives: the first lizard ends
    after the comment (of two ending there, the inner one)."""
    after = [s for s in functions if closing[s.key] > line]
    return min(after, key=lambda s: (closing[s.key], -s.start_line)) if after else None


def _open_at(
    line: int, functions: list[Scope], closing: dict[tuple[int, int], float]
) -> Scope | None:
    """The innermost function ``line`` is in (as lizard ends functions)."""
    open_ones = [s for s in functions if s.start_line <= line < closing[s.key]]
    return max(open_ones, key=lambda s: s.start_line) if open_ones else None


def _silence(
    by_scope: dict[tuple[int, int], Silenced], scope: Scope | None, metrics: Silenced
) -> None:
    if scope is not None:
        by_scope[scope.key] = _merge(by_scope.get(scope.key, frozenset()), metrics)


def _closing_line(code_lines: tuple[int, ...], end_line: int) -> float:
    """The line of the first code after a function's last line (where lizard ends it)."""
    index = bisect_right(code_lines, end_line)
    return code_lines[index] if index < len(code_lines) else float("inf")


def _module_silenced(directives: Directives, tree: ast.Module) -> Silenced:
    limit = _first_statement_line(tree)
    found: Silenced = frozenset()
    for line, metrics in directives.ignores.items():
        if line < limit and line in directives.comment_only:
            found = _merge(found, metrics)
    return found


def _first_statement_line(tree: ast.Module) -> float:
    """The line of the module's first statement, its docstring aside."""
    body = tree.body
    match body:
        case [ast.Expr(value=ast.Constant(value=str())), *rest]:
            body = rest
    return body[0].lineno if body else float("inf")
