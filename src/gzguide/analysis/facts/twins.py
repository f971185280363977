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

from gzguide.analysis.facts.astshape import code_lines
from gzguide.analysis.facts.scopes import FunctionNode, Scope

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
    _functions: dict[tuple[object, ...], list[Scope]] | None = field(default=None)
    _pairs: dict[tuple[int, int], tuple[tuple[tuple[str, str], ...], bool] | None] = field(
        default_factory=dict
    )
    _bound: dict[int, _Names] = field(default_factory=dict)

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
            found = self._compare(node, other.node)
            if found is None:
                continue
            if first is None:
                first = FunctionCopy(other, *found)
            else:
                more += 1
        return None if first is None else replace(first, more=more)

    def _compare(
        self, a: FunctionNode, b: FunctionNode
    ) -> tuple[tuple[tuple[str, str], ...], bool] | None:
        """What differs between two functions' bodies and whether it is renames only;
        None when one is no copy of the other. Each pair is compared once."""
        flipped = id(a) > id(b)
        key = (id(b), id(a)) if flipped else (id(a), id(b))
        if key not in self._pairs:
            first, second = (b, a) if flipped else (a, b)
            self._pairs[key] = self._copy(first, second)
        found = self._pairs[key]
        if found is None or not flipped:
            return found
        pairs, renames = found
        return tuple((y, x) for x, y in pairs), renames

    def _copy(
        self, a: FunctionNode, b: FunctionNode
    ) -> tuple[tuple[tuple[str, str], ...], bool] | None:
        found = _differences(own_body(a), own_body(b))
        if found is None or any(d.stored for d in found.values()):
            return None  # a stored attribute or item is no parameter of a helper
        if not found:
            return (), False
        pairs = tuple(found)
        names = self._names(a), self._names(b)
        renames = _renames(pairs, *names)
        if renames is None:
            return None
        if not renames and _reads_locals(found, *names):
            return None  # `entry.delay` of a loop's `entry`: no value a caller can pass
        return pairs, renames

    def _names(self, node: FunctionNode) -> _Names:
        found = self._bound.get(id(node))
        if found is None:
            found = self._bound[id(node)] = _Names(node)
        return found

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


def _body_key(body: list[ast.stmt]) -> tuple[object, ...]:
    """Cheap to compute and the same for copies: each statement's kind, how many
    statements it holds and what kind of value it has."""
    return tuple(
        (type(s).__name__, len(getattr(s, "body", ())), type(getattr(s, "value", None)).__name__)
        for s in body
    )


def _function_index(functions: list[Scope]) -> dict[tuple[object, ...], list[Scope]]:
    index: dict[tuple[object, ...], list[Scope]] = {}
    for scope in functions:
        node = scope.node
        assert not isinstance(node, ast.ClassDef)
        index.setdefault(_body_key(own_body(node)), []).append(scope)
    return index


class _Names:
    """The names a function binds: its parameters in order, and the names it assigns."""

    def __init__(self, node: FunctionNode) -> None:
        args = node.args
        named = [a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)]
        self.parameters = named + [a.arg for a in (args.vararg, args.kwarg) if a is not None]
        self.stored = {
            n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
        }
        self.locals = self.stored - set(self.parameters)


def _renames(pairs: tuple[tuple[str, str], ...], a: _Names, b: _Names) -> bool | None:
    """Whether every difference is only a name each function gives its own value (a
    parameter in the same place, or a local, one for one); None when parameters in
    different places stand for each other (two swapped): then the copies do not do
    the same with different values."""
    renamed: dict[str, str] = {}
    only = True
    for x, y in pairs:
        if x in a.parameters and y in b.parameters:
            if a.parameters.index(x) != b.parameters.index(y):
                return None
        elif not (x in a.locals and y in b.locals):
            only = False
            continue
        if renamed.setdefault(x, y) != y:
            return None
    if len(set(renamed.values())) != len(renamed):
        return None
    return only


def _reads_locals(found: dict[tuple[str, str], _Difference], a: _Names, b: _Names) -> bool:
    """Whether a differing value that is no rename reads a local variable of its function."""
    local = a.locals | b.locals
    return any(d.reads & local and not (x in local and y in local) for (x, y), d in found.items())


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


def _leaf_key(node: ast.expr) -> tuple[object, ...]:
    """What a leaf is, cheaper to make than its source text: equal for equal leaves."""
    parts: list[object] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Constant):
        parts.append((type(node.value), node.value, node.kind))
    else:
        assert isinstance(node, ast.Name)
        parts.append(node.id)
    return tuple(parts)


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
            if _leaf_key(x) != _leaf_key(y):
                left, right = ast.unparse(x), ast.unparse(y)
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
