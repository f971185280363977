"""Class moves: Extract Class where the methods really fall apart, and the large-class label.

LCOM4 (see :mod:`gzguide.analysis.metrics.cohesion`) counts every group of methods that
shares no member. Many such groups are not responsibilities to move out: factory
class methods, static helpers, dunders and properties serve the whole class;
methods that only call inherited ones share the base class's state; a method that
reads one attribute the initializer set is not a class of its own. So a cohesion
hint is given only when, among the *working* methods (plain instance methods that
use some member of the class), at least two groups of two or more methods each
use attributes that no other group uses. The move names those groups.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from gzguide.analysis.metrics.cohesion import (
    INITIALIZERS,
    ClassCohesion,
    _is_empty,
    _methods_of,
    _references,
)
from gzguide.analysis.moves.base import MAX_MOVE_CHARS, UNCLASSIFIED, Concern, Move, lines, names
from gzguide.analysis.moves.kinds import Kind
from gzguide.analysis.moves.registry import rule

MIN_GROUP_METHODS: Final = 2
#: What makes a class large (any one of them).
LARGE_METHODS: Final = 15
LARGE_LINES: Final = 300
LARGE_ATTRIBUTES: Final = 12

_PROPERTIES: Final = frozenset({"property", "cached_property", "setter", "getter", "deleter"})
_SERVICE_DECORATORS: Final = frozenset(
    {"property", "cached_property", "staticmethod", "classmethod", "setter", "getter", "deleter"}
)


def _decorator_names(method: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    found: set[str] = set()
    for decorator in method.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        if isinstance(target, ast.Name):
            found.add(target.id)
        elif isinstance(target, ast.Attribute):
            found.add(target.attr)
    return found


def _is_working(method: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    name = method.name
    if name in INITIALIZERS or (name.startswith("__") and name.endswith("__")):
        return False
    return not (_decorator_names(method) & _SERVICE_DECORATORS) and not _is_empty(method)


@dataclass(frozen=True, slots=True)
class _Group:
    methods: list[str]
    attributes: list[str]
    first_line: int
    last_line: int


def _groups(cls: ast.ClassDef, graph: ClassCohesion) -> list[_Group]:
    definitions: dict[str, list[ast.FunctionDef | ast.AsyncFunctionDef]] = {}
    for method in _methods_of(cls.body):
        definitions.setdefault(method.name, []).append(method)
    methods = set(definitions)
    working = [n for n, defs in definitions.items() if all(_is_working(d) for d in defs)]
    inherits = any(not (isinstance(b, ast.Name) and b.id == "object") for b in cls.bases)
    own = _own_members(cls, definitions) if inherits else set()
    parent: dict[str, str] = {}

    def find(name: str) -> str:
        parent.setdefault(name, name)
        while parent[name] != name:
            parent[name] = parent[parent[name]]
            name = parent[name]
        return name

    uses: dict[str, frozenset[str]] = {}
    for name in working:
        refs = graph.references.get(name, frozenset())
        if not refs:
            continue
        uses[name] = refs
        for ref in refs:
            # A member the class does not define comes from a base: it is shared state.
            member = ref if ref in methods or not inherits or ref in own else "<base>"
            parent[find(member)] = find(name)
    # A property links its name to the attribute behind it; initializers and dunders
    # touch every attribute and link nothing.
    for name, defs in definitions.items():
        if name not in uses and any(_decorator_names(d) & _PROPERTIES for d in defs):
            for ref in graph.references.get(name, frozenset()):
                parent[find(ref)] = find(name)
    grouped: dict[str, list[str]] = {}
    for name in uses:
        grouped.setdefault(find(name), []).append(name)
    out = []
    for members in grouped.values():
        attributes = sorted({r for m in members for r in uses[m]} - methods)
        first = min(d.lineno for m in members for d in definitions[m])
        last = max(d.end_lineno or d.lineno for m in members for d in definitions[m])
        ordered = sorted(members, key=lambda m: definitions[m][0].lineno)
        out.append(_Group(ordered, attributes, first, last))
    return sorted(out, key=lambda g: g.first_line)


def _own_members(
    cls: ast.ClassDef, definitions: dict[str, list[ast.FunctionDef | ast.AsyncFunctionDef]]
) -> set[str]:
    """What the class itself defines: names bound in its body, and what its
    initializers set or use."""
    found: set[str] = set()
    for stmt in cls.body:
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [getattr(stmt, "target", None)]
        found.update(t.id for t in targets if isinstance(t, ast.Name))
    for name in INITIALIZERS:
        for definition in definitions.get(name, ()):
            found |= _references(definition, cls.name)
    return found


def is_large(cls: ast.ClassDef) -> str | None:
    """Why the class is large, or None."""
    methods = [s for s in cls.body if isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef)]
    size = (cls.end_lineno or cls.lineno) - cls.lineno + 1
    attributes = {
        node.attr
        for node in ast.walk(cls)
        if isinstance(node, ast.Attribute)
        and isinstance(node.ctx, ast.Store)
        and isinstance(node.value, ast.Name)
        and node.value.id == "self"
    }
    if len(methods) >= LARGE_METHODS:
        return f"{len(methods)} methods"
    if size >= LARGE_LINES:
        return f"{size} lines"
    if len(attributes) >= LARGE_ATTRIBUTES:
        return f"{len(attributes)} attributes"
    return None


def _aliases_the_receiver(cls: ast.ClassDef) -> bool:
    """Whether a method binds its receiver to another name (``c = self``, to walk a
    chain of parents): what it reaches through that name is invisible to the groups.
    Only statements are looked at: such an alias is an assignment of its own."""
    for method in _methods_of(cls.body):
        args = method.args.posonlyargs + method.args.args
        if not args:
            continue
        receiver = args[0].arg
        pending: list[ast.stmt] = list(method.body)
        while pending:
            node = pending.pop()
            if (
                isinstance(node, ast.Assign | ast.AnnAssign)
                and isinstance(node.value, ast.Name)
                and node.value.id == receiver
            ):
                return True
            for name in ("body", "orelse", "finalbody"):
                pending.extend(getattr(node, name, ()))
            for part in (*getattr(node, "handlers", ()), *getattr(node, "cases", ())):
                pending.extend(part.body)
    return False


@rule(Kind.EXTRACT_CLASS, concern=Concern.COHESION, doc="cohesion_lcom4")
def cohesion_move(
    cls: ast.ClassDef,
    graph: ClassCohesion,
    read_outside: Callable[[], frozenset[str]] = frozenset,
) -> Move | None:
    """Extract Class, where the working methods fall into groups that share nothing
    and no public attribute of theirs is read from outside the class (``read_outside``
    gives the attribute names the file reads on other objects; asked only when the
    groups hold): a split would change that interface, which callers use as one
    object."""
    groups = [g for g in _groups(cls, graph) if len(g.methods) >= MIN_GROUP_METHODS]
    own: list[_Group] = []
    for group in groups:
        others = {a for g in groups if g is not group for a in g.attributes}
        if set(group.attributes) - others:
            own.append(group)
    if len(own) < 2:
        return None
    if _aliases_the_receiver(cls):
        return None
    public = {a for g in own for a in g.attributes if not a.startswith("_")}
    if public and public & read_outside():
        return None
    # Fewer names of each group until the move fits inline whole.
    for shown_methods, shown_attributes in ((3, 2), (2, 2), (2, 1), (1, 1)):
        parts = [
            f"{names(g.methods, shown_methods)} ({lines(g.first_line, g.last_line)}) "
            f"use {names(g.attributes, shown_attributes)}"
            for g in own[:2]
        ]
        text = (
            f"{parts[0]}; {parts[1]}: nothing else links them. Move one group, with the "
            "attributes only it uses, into a class of its own."
        )
        if len(text) <= MAX_MOVE_CHARS:
            break
    large = is_large(cls)
    archetype = "large_class" if large else UNCLASSIFIED
    span = (cls.lineno, cls.end_lineno or cls.lineno)
    return Move(Kind.EXTRACT_CLASS, archetype, text, span, {Concern.COHESION: len(own) - 1}, 1)
