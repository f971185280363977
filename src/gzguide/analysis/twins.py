"""Copies: a compound statement, or a whole function, that appears again elsewhere
in the file, the same but for a few names and values.

A block written twice is the strongest case for a helper: one definition serves
both places, and a fix made in one can no longer miss the other. Only near-exact
copies count (at most :data:`MAX_DIFFERENCES` distinct names or values differ, each
one a parameter of the helper), and only blocks long enough to be worth one.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field, replace
from typing import Final

from gzguide.analysis.astshape import code_lines
from gzguide.analysis.scopes import FunctionNode, Scope

#: A copy may differ in at most this many distinct names or values.
MAX_DIFFERENCES: Final = 2
#: A block shorter than this many lines of code is not worth a shared helper.
MIN_LINES: Final = 4

_COMPOUND: Final = (ast.If, ast.For, ast.AsyncFor, ast.While, ast.Try, ast.With, ast.AsyncWith)
_LEAVES: Final = (ast.Name, ast.Constant, ast.Attribute)
_SKIPPED: Final = frozenset(
    {"ctx", "type_comment", "lineno", "col_offset", "end_lineno", "end_col_offset"}
)


def _key(node: ast.stmt) -> tuple[str, int, int]:
    """Cheap to compute and the same for copies: what the index is keyed by."""
    body = getattr(node, "body", ())
    return (type(node).__name__, (node.end_lineno or node.lineno) - node.lineno, len(body))


@dataclass(frozen=True, slots=True)
class FunctionCopy:
    """Another function of the file whose body is a copy of one function's body."""

    other: Scope
    #: (this function's name or value, the copy's) where they differ, in source order.
    differing: tuple[tuple[str, str], ...]
    #: Whether every difference is a name each function binds itself (a parameter in
    #: the same place, or a local): then the shared definition needs no extra parameter.
    renames_only: bool
    #: How many other functions of the file copy it too.
    more: int = 0


@dataclass(eq=False)
class Twins:
    """The compound statements and functions of one module, indexed for finding copies."""

    tree: ast.Module
    functions: list[Scope] = field(default_factory=list)
    _index: dict[tuple[str, int, int], list[ast.stmt]] | None = field(default=None)
    _functions: dict[tuple[str, ...], list[Scope]] | None = field(default=None)

    def copy_of(self, scope: Scope) -> FunctionCopy | None:
        """Another function whose body (the docstring left out) copies ``scope``'s, the
        first in the file (with how many more do); a definition of the same qualified
        name (an alternative chosen at import time, or a redefinition) is no copy."""
        node = scope.node
        assert not isinstance(node, ast.ClassDef)
        body = own_body(node)
        if code_lines(body) < MIN_LINES:
            return None
        if self._functions is None:
            self._functions = _function_index(self.functions)
        first: FunctionCopy | None = None
        more = 0
        for other in self._functions.get(_body_key(body), ()):
            if other.qualname == scope.qualname:
                continue
            assert not isinstance(other.node, ast.ClassDef)
            found = _differences(body, own_body(other.node))
            if found is None or any(d.stored for d in found.values()):
                continue  # a stored attribute or item is no parameter of a helper
            pairs = tuple(found)
            renames = _renames(pairs, node, other.node)
            if renames is None:
                continue
            if not renames and _reads_locals(found, node, other.node):
                continue  # `entry.delay` of a loop's `entry`: no value a caller can pass
            if first is None:
                first = FunctionCopy(other, pairs, renames)
            else:
                more += 1
        return None if first is None else replace(first, more=more)

    def twin_of(self, node: ast.stmt) -> tuple[ast.stmt, int] | None:
        """Another statement of the file that copies ``node`` (the first one found),
        with how many names and values differ."""
        if not isinstance(node, _COMPOUND) or code_lines([node]) < MIN_LINES:
            return None
        if self._index is None:
            self._index = _index(self.tree)
        end = node.end_lineno or node.lineno
        for other in self._index.get(_key(node), ()):
            other_end = other.end_lineno or other.lineno
            if other is node or (other.lineno <= end and node.lineno <= other_end):
                continue  # itself, or a statement around or inside it
            found = differences(node, other)
            if found is not None:
                return other, len(found)
        return None


def _index(tree: ast.Module) -> dict[tuple[str, int, int], list[ast.stmt]]:
    index: dict[tuple[str, int, int], list[ast.stmt]] = {}
    pending: list[ast.stmt] = list(tree.body)
    while pending:
        node = pending.pop()
        if isinstance(node, _COMPOUND) and (node.end_lineno or node.lineno) - node.lineno >= 2:
            index.setdefault(_key(node), []).append(node)
        for name in ("body", "orelse", "finalbody"):
            pending.extend(getattr(node, name, ()))
        for handler in getattr(node, "handlers", ()):
            pending.extend(handler.body)
        for case in getattr(node, "cases", ()):
            pending.extend(case.body)
    return index


def own_body(node: FunctionNode) -> list[ast.stmt]:
    """A function's statements after its docstring."""
    body = node.body
    first = body[0]
    if (
        isinstance(first, ast.Expr)
        and isinstance(first.value, ast.Constant)
        and isinstance(first.value.value, str)
    ):
        return body[1:]
    return body


def _body_key(body: list[ast.stmt]) -> tuple[str, ...]:
    return tuple(type(s).__name__ for s in body)


def _function_index(functions: list[Scope]) -> dict[tuple[str, ...], list[Scope]]:
    index: dict[tuple[str, ...], list[Scope]] = {}
    for scope in functions:
        node = scope.node
        assert not isinstance(node, ast.ClassDef)
        index.setdefault(_body_key(own_body(node)), []).append(scope)
    return index


def _parameters(node: FunctionNode) -> list[str]:
    args = node.args
    named = [a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)]
    return named + [a.arg for a in (args.vararg, args.kwarg) if a is not None]


def _renames(pairs: tuple[tuple[str, str], ...], a: FunctionNode, b: FunctionNode) -> bool | None:
    """Whether every difference is only a name each function gives its own value (a
    parameter in the same place, or a local, one for one); None when parameters in
    different places stand for each other (two swapped): then the copies do not do
    the same with different values."""
    params = _parameters(a), _parameters(b)
    stored = _stored(a), _stored(b)
    renamed: dict[str, str] = {}
    only = True
    for x, y in pairs:
        if x in params[0] and y in params[1]:
            if params[0].index(x) != params[1].index(y):
                return None
        elif not (x in stored[0] and y in stored[1]) or x in params[0] or y in params[1]:
            only = False
            continue
        if renamed.setdefault(x, y) != y:
            return None
    if len(set(renamed.values())) != len(renamed):
        return None
    return only


def _reads_locals(
    found: dict[tuple[str, str], _Difference], a: FunctionNode, b: FunctionNode
) -> bool:
    """Whether a differing value that is no rename reads a local variable of its function."""
    local = (_stored(a) - set(_parameters(a))) | (_stored(b) - set(_parameters(b)))
    return any(
        pair_reads & local and not (pair[0] in local and pair[1] in local)
        for pair, pair_reads in ((p, d.reads) for p, d in found.items())
    )


def _stored(node: FunctionNode) -> set[str]:
    """The names a function assigns."""
    return {
        n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
    }


def differences(a: ast.AST, b: ast.AST) -> set[tuple[str, str]] | None:
    """The distinct (name or value in ``a``, its counterpart in ``b``) pairs where two
    trees of the same structure differ; None when the structures differ or when more
    than :data:`MAX_DIFFERENCES` pairs do."""
    found = _differences(a, b)
    return None if found is None else set(found)


@dataclass(slots=True)
class _Difference:
    #: Whether either side is an attribute or item being assigned.
    stored: bool
    #: The variables either side reads (``entry`` in ``entry.delay``).
    reads: set[str]


def _is_leaf(node: object) -> bool:
    """A name, a constant, or a dotted name (``os.path.sep``): what a parameter can
    stand for as it is. ``f().x`` is compared part by part instead."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name | ast.Constant)


def _root(node: ast.expr) -> str | None:
    while isinstance(node, ast.Attribute):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _differences(a: object, b: object) -> dict[tuple[str, str], _Difference] | None:
    """:func:`differences` in the order they appear, with what each side stores and reads."""
    found: dict[tuple[str, str], _Difference] = {}
    pending: list[tuple[object, object]] = [(a, b)]
    while pending:
        x, y = pending.pop()
        if isinstance(x, _LEAVES) and isinstance(y, _LEAVES) and _is_leaf(x) and _is_leaf(y):
            left, right = ast.unparse(x), ast.unparse(y)
            if left != right:
                stored = not isinstance(x, ast.Name) and isinstance(
                    getattr(x, "ctx", None), ast.Store | ast.Del
                )
                reads = {r for r in (_root(x), _root(y)) if r is not None}
                seen = found.get((left, right))
                if seen is None:
                    found[(left, right)] = _Difference(stored, reads)
                else:
                    seen.stored = seen.stored or stored
                if len(found) > MAX_DIFFERENCES:
                    return None
            continue
        if isinstance(x, list) and isinstance(y, list):
            if len(x) != len(y):
                return None
            # Reversed, so that the stack hands them back in source order.
            pending.extend(reversed(list(zip(x, y, strict=True))))
            continue
        if isinstance(x, ast.AST) and isinstance(y, ast.AST):
            if type(x) is not type(y):
                return None
            pending.extend(
                reversed(
                    [
                        (getattr(x, f, None), getattr(y, f, None))
                        for f in x._fields
                        if f not in _SKIPPED
                    ]
                )
            )
            continue
        if x != y:
            return None
    return found
