"""Copies: a compound statement, or a whole function, that appears again elsewhere
in the file, the same but for a few names and values.

A block written twice is the strongest case for a helper: one definition serves
both places, and a fix made in one can no longer miss the other. Only near-exact
copies count (at most :data:`MAX_DIFFERENCES` distinct names or values differ, each
one a parameter of the helper), and only blocks long enough to be worth one.

Finding them costs about the file's size, not the square of its number of
functions. Functions (and statements) that could be copies meet in a bucket by a
cheap key, and each bucket, once asked about, is split by the exact shape of its
members with every leaf (a name, a value, a dotted name) left out: one walk of each
member, which also lists its leaves in order, so that the i-th leaf of two members
of a :class:`_Family` stand in the same place. Which members differ from one in at
most :data:`MAX_DIFFERENCES` of its leaves' values is then a few bit operations over
the whole family per leaf column that varies in it (integers as bit sets: linear in
the family's size, 64 members a machine word). Only those members are compared
leaf by leaf, and only when the leaves alone do not already settle it: a member
whose differences are all values (constants) each in one place is a copy without
a comparison, so a family whose members differ in a value each is counted by bit
count rather than pair by pair. The comparisons left are between near copies that
differ in names, whose number is what the answers report.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Final, NamedTuple, TypeGuard

from gzguide.analysis.facts.astshape import code_lines
from gzguide.analysis.facts.scopes import FunctionNode, Scope
from gzguide.analysis.facts.walk import parameter_names_of

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
    #: Each function's and statement's family and place in it, by ``id`` of its node,
    #: for the buckets asked about so far.
    _families: dict[int, tuple[_Family, int]] = field(default_factory=dict)
    _split: set[tuple[object, ...]] = field(default_factory=set)

    def copy_of(self, scope: Scope) -> FunctionCopy | None:
        """Another function whose body (the docstring left out) copies ``scope``'s, the
        first in the file (with how many more do); a definition of the same qualified
        name (an alternative chosen at import time, or a redefinition) is no copy."""
        node = scope.node
        assert not isinstance(node, ast.ClassDef)
        body = own_body(node)
        if code_lines(body) < MIN_LINES:
            return None
        copies = self._copies(scope, node, body)
        if copies is None:
            return None
        other, count = copies
        found = self._compare(node, _function(other))
        assert found is not None
        differing, renames_only = found
        return FunctionCopy(other, differing, renames_only, more=count - 1)

    def _copies(
        self, scope: Scope, node: FunctionNode, body: list[ast.stmt]
    ) -> tuple[Scope, int] | None:
        """The first function of the file whose body copies ``node``'s, and how many
        do: those the leaves settle are counted at once, the others compared."""
        family, place = self._function_family(node, body)
        near = family.near(place)
        others = near.candidates & ~family.named(scope.qualname)
        settled = near.settled & others
        count = settled.bit_count()
        first = _lowest(settled)
        for index in _bits(others & ~settled):
            if self._copies_one(node, family, place, index, near):
                count += 1
                first = min(first, index)
        if not count:
            return None
        other = family.members[first]
        assert isinstance(other, Scope)
        return other, count

    def _copies_one(
        self, node: FunctionNode, family: _Family, place: int, index: int, near: _Near
    ) -> bool:
        """Whether member ``index`` copies ``node`` (member ``place``): from the leaves
        alone when they differ in constants only, else by comparing the two."""
        if near.constants >> index & 1:
            return family.differing_pairs(place, index) <= MAX_DIFFERENCES
        return self._compare(node, family.function(index)) is not None

    def _function_family(self, node: FunctionNode, body: list[ast.stmt]) -> tuple[_Family, int]:
        """The family of same-shaped bodies ``node``'s is in, and its place there."""
        key = ("def", *_body_key(body))
        if key not in self._split:
            self._split.add(key)
            bucket = self._function_index().get(_body_key(body), [])
            self._add_families(bucket, [own_body(_function(s)) for s in bucket])
        return self._families[id(node)]

    def _add_families(self, members: Sequence[Scope | ast.stmt], trees: list[object]) -> None:
        """Split one bucket into families of equal shape, members kept in bucket order."""
        shaped: dict[tuple[object, ...], list[tuple[Scope | ast.stmt, _Leaves]]] = {}
        for member, tree in zip(members, trees, strict=True):
            leaves = _leaves_of(tree)
            shaped.setdefault(leaves.shape, []).append((member, leaves))
        for group in shaped.values():
            family = _Family([m for m, _ in group], [leaves for _, leaves in group])
            for place, member in enumerate(family.members):
                self._families[id(_node_of(member))] = (family, place)

    def _function_index(self) -> dict[tuple[object, ...], list[Scope]]:
        if self._functions is None:
            self._functions = _function_index(self.functions)
        return self._functions

    def _compare(
        self, a: FunctionNode, b: FunctionNode
    ) -> tuple[tuple[tuple[str, str], ...], bool] | None:
        """What differs between two functions' bodies and whether it is renames only;
        None when one is no copy of the other. Each pair is compared once."""
        if id(a) > id(b):
            return _flipped(self._compare(b, a))
        key = (id(a), id(b))
        if key not in self._pairs:
            self._pairs[key] = self._copy(a, b)
        return self._pairs[key]

    def _copy(
        self, a: FunctionNode, b: FunctionNode
    ) -> tuple[tuple[tuple[str, str], ...], bool] | None:
        found = _parameter_differences(own_body(a), own_body(b))
        if found is None:
            return None
        if not found:
            return (), False
        pairs = tuple(found)
        names = self._names(a), self._names(b)
        renames = _renames(pairs, *names)
        if renames is None or not _renamed_throughout(a, b, pairs, names):
            return None
        return None if _reads_locals_unrenamed(renames, found, names) else (pairs, renames)

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
        for other in self._near_statements(node):
            if _overlap(node, other):
                continue  # itself, or a statement around or inside it
            found = differences(node, other)
            if found is not None:
                return other, len(found)
        return None

    def _near_statements(self, node: ast.stmt) -> Iterator[ast.stmt]:
        """The statements of ``node``'s bucket that may copy it, in the bucket's order:
        all of them for a statement of some other tree."""
        key = ("stmt", *_key(node))
        bucket = self._statement_index().get(_key(node), [])
        if key not in self._split:
            self._split.add(key)
            self._add_families(bucket, list(bucket))
        found = self._families.get(id(node))
        if found is None or found[0].members[found[1]] is not node:
            yield from bucket
            return
        family, place = found
        for index in _bits(family.near(place).candidates):
            other = family.members[index]
            assert isinstance(other, ast.stmt)
            yield other

    def _statement_index(self) -> dict[tuple[str, int, int], list[ast.stmt]]:
        if self._index is None:
            self._index = _index(self.tree)
        return self._index


def _flipped(
    found: tuple[tuple[tuple[str, str], ...], bool] | None,
) -> tuple[tuple[tuple[str, str], ...], bool] | None:
    """A comparison's result with the two sides of each difference swapped."""
    if found is None:
        return None
    pairs, renames = found
    return tuple((y, x) for x, y in pairs), renames


def _parameter_differences(a: object, b: object) -> dict[tuple[str, str], _Difference] | None:
    """:func:`_differences`, None too when a stored attribute or item differs (no
    parameter of a helper can stand for it)."""
    found = _differences(a, b)
    return None if found is None or any(d.stored for d in found.values()) else found


def _overlap(a: ast.stmt, b: ast.stmt) -> bool:
    """Whether ``b`` is ``a``, or around or inside it (their lines overlap)."""
    a_end = a.end_lineno or a.lineno
    b_end = b.end_lineno or b.lineno
    return b is a or (b.lineno <= a_end and a.lineno <= b_end)


def _index(tree: ast.Module) -> dict[tuple[str, int, int], list[ast.stmt]]:
    index: dict[tuple[str, int, int], list[ast.stmt]] = {}
    pending: list[ast.stmt] = list(tree.body)
    while pending:
        node = pending.pop()
        if isinstance(node, _COMPOUND) and (node.end_lineno or node.lineno) - node.lineno >= 2:
            index.setdefault(_key(node), []).append(node)
        pending.extend(_held(node))
    return index


def _held(node: ast.stmt) -> list[ast.stmt]:
    """The statements ``node`` holds: its blocks, then its handlers' and cases' bodies."""
    return [
        *getattr(node, "body", ()),
        *getattr(node, "orelse", ()),
        *getattr(node, "finalbody", ()),
        *(s for handler in getattr(node, "handlers", ()) for s in handler.body),
        *(s for case in getattr(node, "cases", ()) for s in case.body),
    ]


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


def _node_of(member: Scope | ast.stmt) -> ast.AST:
    return member.node if isinstance(member, Scope) else member


def _function(scope: Scope) -> FunctionNode:
    node = scope.node
    assert not isinstance(node, ast.ClassDef)
    return node


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
        self.parameters = parameter_names_of(node.args)
        self.stored = _stored_names(node)
        self.locals = self.stored - set(self.parameters)


def _stored_names(node: ast.AST) -> set[str]:
    return {
        n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
    }


def _renames(pairs: tuple[tuple[str, str], ...], a: _Names, b: _Names) -> bool | None:
    """Whether every difference is only a name each function gives its own value (a
    parameter in the same place, or a local, one for one); None when parameters in
    different places stand for each other (two swapped): then the copies do not do
    the same with different values."""
    renamed: dict[str, str] = {}
    only = True
    for x, y in pairs:
        rename = _is_rename(x, y, a, b)
        if rename is None:
            return None
        if not rename:
            only = False
            continue
        if renamed.setdefault(x, y) != y:
            return None
    if len(set(renamed.values())) != len(renamed):
        return None
    return only


def _renamed_throughout(
    a: FunctionNode,
    b: FunctionNode,
    pairs: tuple[tuple[str, str], ...],
    names: tuple[_Names, _Names],
) -> bool:
    """Whether each name one function has where the other has another stands for it
    everywhere: ``infer(v) for k, v in items`` beside ``infer(k) for k, v in items``
    differs in one place, but there ``v`` is ``k`` and elsewhere ``v`` (jedi's
    ``_dict_values`` and ``_dict_keys``, which do different things). Asked only of
    copies with such a difference."""
    renamed = {x: y for x, y in pairs if _is_rename(x, y, *names)}
    return not renamed or _aligned_as(renamed, leaf_pairs(own_body(a), own_body(b)) or [])


def _aligned_as(renamed: dict[str, str], aligned: list[tuple[ast.expr, ast.expr]]) -> bool:
    back = {y: x for x, y in renamed.items()}
    return all(_stands_for(x, y, renamed, back) for x, y in aligned)


def _reads_locals_unrenamed(
    renames: bool, found: dict[tuple[str, str], _Difference], names: tuple[_Names, _Names]
) -> bool:
    """A value that differs, no rename, and reads a local (``entry.delay`` of a loop's
    ``entry``): no value a caller can pass."""
    return not renames and _reads_locals(found, *names)


def _stands_for(x: ast.expr, y: ast.expr, renamed: dict[str, str], back: dict[str, str]) -> bool:
    if not (isinstance(x, ast.Name) and isinstance(y, ast.Name)):
        return True
    return renamed.get(x.id, y.id) == y.id and back.get(y.id, x.id) == x.id


def _is_rename(x: str, y: str, a: _Names, b: _Names) -> bool | None:
    """Whether ``x`` and ``y`` are names their functions bind (parameters in the same
    place, or locals); None for parameters in different places."""
    if x in a.parameters and y in b.parameters:
        return True if a.parameters.index(x) == b.parameters.index(y) else None
    return x in a.locals and y in b.locals


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


def leaf_key(node: ast.expr) -> tuple[object, ...]:
    """What a leaf is, cheaper to make than its source text: equal for equal leaves."""
    key = _key_if_leaf(node)
    assert key is not None
    return key


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
        if not _same_but_leaves(x, y, found, pending):
            return None
    return found


def _same_but_leaves(
    x: object,
    y: object,
    found: dict[tuple[str, str], _Difference],
    pending: list[tuple[object, object]],
) -> bool:
    """Compare one pair of parts: two leaves that differ are recorded in ``found``, the
    parts of two lists or nodes go to ``pending``; False when the structures differ
    or too many leaves do."""
    keys = _leaf_keys(x, y)
    if keys is None:
        return _same_parts(x, y, pending)
    if keys[0] == keys[1]:
        return True
    assert isinstance(x, ast.expr) and isinstance(y, ast.expr)
    _record(x, y, found)
    return len(found) <= MAX_DIFFERENCES


def _leaf_keys(x: object, y: object) -> tuple[object, object] | None:
    """The keys of two leaves (:func:`leaf_key`); None unless both are leaves."""
    if not (isinstance(x, _LEAVES) and isinstance(y, _LEAVES)):
        return None
    a, b = _key_if_leaf(x), _key_if_leaf(y)
    return None if a is None or b is None else (a, b)


def _same_parts(x: object, y: object, pending: list[tuple[object, object]]) -> bool:
    """Compare two parts that are not both leaves: the parts of two lists or nodes go
    to ``pending``; False when the structures differ."""
    if isinstance(x, list) and isinstance(y, list):
        return _same_lists(x, y, pending)
    if isinstance(x, ast.AST) and isinstance(y, ast.AST):
        return _same_nodes(x, y, pending)
    return x == y


def leaf_pairs(a: object, b: object) -> list[tuple[ast.expr, ast.expr]] | None:
    """Every two leaves (names, constants, dotted names) in the same place of two
    trees, equal or not, in source order; None when the structures differ."""
    found: list[tuple[ast.expr, ast.expr]] = []
    pending: list[tuple[object, object]] = [(a, b)]
    while pending:
        x, y = pending.pop()
        if _both_leaves(x, y):
            assert isinstance(y, ast.expr)
            found.append((x, y))
        elif not _same_parts(x, y, pending):
            return None
    return found


def _both_leaves(x: object, y: object) -> TypeGuard[ast.expr]:
    return isinstance(x, _LEAVES) and isinstance(y, _LEAVES) and _is_leaf(x) and _is_leaf(y)


def _record(x: ast.expr, y: ast.expr, found: dict[tuple[str, str], _Difference]) -> None:
    """One more place where the leaves differ, with what either side stores and reads."""
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


def _same_lists(x: list[object], y: list[object], pending: list[tuple[object, object]]) -> bool:
    if len(x) != len(y):
        return False
    # Reversed, so that the stack hands them back in source order.
    pending.extend(reversed(list(zip(x, y, strict=True))))
    return True


def _same_nodes(x: ast.AST, y: ast.AST, pending: list[tuple[object, object]]) -> bool:
    if type(x) is not type(y):
        return False
    pending.extend([(getattr(x, f, None), getattr(y, f, None)) for f in _compared_fields(type(x))])
    return True


# -- the index: same shapes, then leaves told apart by bit operations ------------------

#: A place after every member of any family.
_PAST: Final = 1 << 62
#: What stands for a leaf in a shape.
_LEAF: Final = object()


class _Leaves(NamedTuple):
    """One walk of a tree, in the order :func:`_differences` compares it."""

    #: The tree's structure, each leaf as :data:`_LEAF`: equal exactly when the
    #: comparison of the two trees would not fail on their structure.
    shape: tuple[object, ...]
    #: What each leaf is (:func:`leaf_key`), in order.
    keys: tuple[object, ...]
    #: Whether each leaf is a plain constant (no name, nothing stored).
    constant: tuple[bool, ...]


def _leaves_of(tree: object) -> _Leaves:
    shape: list[object] = []
    keys: list[object] = []
    constant: list[bool] = []
    pending: list[object] = [tree]
    while pending:
        x = pending.pop()
        key = _key_if_leaf(x) if isinstance(x, _LEAVES) else None
        if key is None:
            shape.append(_shape_token(x, pending))
            continue
        shape.append(_LEAF)
        keys.append(key)
        constant.append(isinstance(x, ast.Constant))
    return _Leaves(tuple(shape), tuple(keys), tuple(constant))


def _key_if_leaf(node: ast.expr) -> tuple[object, ...] | None:
    """:func:`leaf_key` of a leaf (:func:`_is_leaf`), None for any other node: one walk
    down an attribute chain for both."""
    parts: list[object] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Constant):
        parts.append((type(node.value), node.value, node.kind))
    elif isinstance(node, ast.Name):
        parts.append(node.id)
    else:
        return None
    return tuple(parts)


def _shape_token(x: object, pending: list[object]) -> object:
    """What ``x`` itself adds to a shape (a list's length, a node's kind, a plain
    value), its parts pushed to be walked next, in the order they are compared."""
    if isinstance(x, list):
        pending.extend(reversed(x))
        return ("list", len(x))
    if isinstance(x, ast.AST):
        kind = type(x)
        pending.extend([getattr(x, f, None) for f in _compared_fields(kind)])
        return kind
    return ("value", x)


def _compared_fields(kind: type[ast.AST]) -> tuple[str, ...]:
    """A node type's fields that a comparison walks, last first (the order they are
    pushed to be walked in), worked out once per type."""
    found = _FIELDS_BY_TYPE.get(kind)
    if found is None:
        found = _FIELDS_BY_TYPE[kind] = tuple(
            reversed([f for f in kind._fields if f not in _SKIPPED])
        )
    return found


_FIELDS_BY_TYPE: dict[type[ast.AST], tuple[str, ...]] = {}


def _lowest(mask: int) -> int:
    """The lowest member of a bit set; past any member when it is empty."""
    return (mask & -mask).bit_length() - 1 if mask else _PAST


def _bits(mask: int) -> Iterator[int]:
    """The members of a bit set, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


class _Near(NamedTuple):
    """The members of a family that may copy one of them (itself included)."""

    #: Those that differ from it in at most :data:`MAX_DIFFERENCES` of its leaves' values.
    candidates: int
    #: Of those, the ones that differ in constants only (a constant on both sides
    #: wherever they differ): a copy whatever the two functions bind (a constant is
    #: neither a name nor stored) when at most that many pairs of constants differ.
    constants: int
    #: Of those, the ones that differ in at most that many columns: a copy for sure.
    settled: int


@dataclass(eq=False)
class _Family:
    """Trees of one shape, and for each leaf column that varies among them, which
    members hold which leaf there (as bit sets: bit i is member i)."""

    members: list[Scope | ast.stmt]
    leaves: list[_Leaves]
    every: int = 0
    #: Column -> leaf key -> the members holding that leaf there: the columns that
    #: vary, one for each set of columns that always hold the same leaves (a value
    #: written three times, changed in all three in every member, is one column).
    columns: dict[int, dict[object, int]] = field(default_factory=dict)
    #: Column -> the members whose leaf there is a plain constant.
    constant: dict[int, int] = field(default_factory=dict)
    _names: dict[str, int] | None = None

    def __post_init__(self) -> None:
        self.every = (1 << len(self.members)) - 1
        seen: set[tuple[object, ...]] = set()
        for column in range(len(self.leaves[0].keys)):
            down = tuple(leaves.keys[column] for leaves in self.leaves)
            if down in seen or len(set(down)) == 1:
                continue  # a column like one before it, or the same in every member
            seen.add(down)
            self.columns[column] = _holders(down)
            self.constant[column] = _constant_members(self.leaves, column)

    def function(self, index: int) -> FunctionNode:
        member = self.members[index]
        assert isinstance(member, Scope)
        return _function(member)

    def named(self, qualname: str) -> int:
        """The members that are functions of this qualified name."""
        if self._names is None:
            self._names = {}
            for index, member in enumerate(self.members):
                if isinstance(member, Scope):
                    self._names[member.qualname] = self._names.get(member.qualname, 0) | 1 << index
        return self._names.get(qualname, 0)

    def near(self, place: int) -> _Near:
        """Which members differ from member ``place`` in at most
        :data:`MAX_DIFFERENCES` of its leaves' values, which of those in constants
        only, and in at most that many columns: counters over the whole family."""
        ours = self.leaves[place]
        by_value: dict[object, int] = {}
        columns = _AtMostTwo()
        unsure = 0
        for column, held in self.columns.items():
            value = ours.keys[column]
            changed = self.every ^ held[value]
            by_value[value] = by_value.get(value, 0) | changed
            columns.add(changed)
            unsure |= changed & ~self.constant[column] if ours.constant[column] else changed
        values = _AtMostTwo()
        for changed in by_value.values():
            values.add(changed)
        candidates = self.every & ~values.more
        constants = candidates & ~unsure
        return _Near(candidates, constants, constants & ~columns.more)

    def differing_pairs(self, one: int, other: int) -> int:
        """How many distinct pairs of leaves differ between two members."""
        a, b = self.leaves[one].keys, self.leaves[other].keys
        return len({(a[c], b[c]) for c in self.columns if a[c] != b[c]})


@dataclass(slots=True)
class _AtMostTwo:
    """Bit sets counting, member by member, how many of the sets added hold it: once,
    twice, more (:data:`MAX_DIFFERENCES` is two)."""

    once: int = 0
    twice: int = 0
    more: int = 0

    def add(self, members: int) -> None:
        self.more |= self.twice & members
        self.twice |= self.once & members
        self.once |= members


def _holders(down: tuple[object, ...]) -> dict[object, int]:
    """Leaf key -> the members holding it, for one column."""
    held: dict[object, int] = {}
    for index, key in enumerate(down):
        held[key] = held.get(key, 0) | 1 << index
    return held


def _constant_members(leaves: list[_Leaves], column: int) -> int:
    found = 0
    for index, member in enumerate(leaves):
        if member.constant[column]:
            found |= 1 << index
    return found
