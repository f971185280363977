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
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Final, TypeGuard

from gzguide.analysis.metrics.cohesion import (
    INITIALIZERS,
    ClassCohesion,
    _is_empty,
    _methods_of,
    _references,
)
from gzguide.analysis.moves.base import MAX_MOVE_CHARS, UNCLASSIFIED, Concern, Move, lines, names
from gzguide.analysis.moves.interfaces import Classes, may_override
from gzguide.analysis.moves.kinds import Kind
from gzguide.analysis.moves.partition import Partition
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


_Definitions = dict[str, list[ast.FunctionDef | ast.AsyncFunctionDef]]


def _groups(cls: ast.ClassDef, graph: ClassCohesion) -> list[_Group]:
    definitions: _Definitions = {}
    for method in _methods_of(cls.body):
        definitions.setdefault(method.name, []).append(method)
    uses = _working_uses(definitions, graph)
    links = _links(cls, definitions, uses)
    _link_properties(links, definitions, graph, uses)
    groups = [_group(members, definitions, uses) for members in links.groups(uses, _same)]
    return sorted(groups, key=lambda g: g.first_line)


def _same(name: str) -> str:
    return name


def _working_uses(definitions: _Definitions, graph: ClassCohesion) -> dict[str, frozenset[str]]:
    """The members each working method uses (a method that uses none is left out)."""
    uses: dict[str, frozenset[str]] = {}
    for name, defs in definitions.items():
        refs = graph.references.get(name, frozenset())
        if refs and all(_is_working(d) for d in defs):
            uses[name] = refs
    return uses


def _links(
    cls: ast.ClassDef, definitions: _Definitions, uses: dict[str, frozenset[str]]
) -> Partition:
    """Each working method joined to the members it uses."""
    local = _defined_here(cls, definitions)
    links = Partition()
    for name, refs in uses.items():
        for ref in refs:
            # A member the class does not define comes from a base: it is shared state.
            links.join(ref if local is None or ref in local else "<base>", name)
    return links


def _defined_here(cls: ast.ClassDef, definitions: _Definitions) -> set[str] | None:
    """The members the class defines itself; None when it has no base but ``object``
    (then every member it uses is its own)."""
    if all(isinstance(b, ast.Name) and b.id == "object" for b in cls.bases):
        return None
    return set(definitions) | _own_members(cls, definitions)


def _link_properties(
    links: Partition,
    definitions: _Definitions,
    graph: ClassCohesion,
    uses: dict[str, frozenset[str]],
) -> None:
    """A property links its name to the attribute behind it; initializers and dunders
    touch every attribute and link nothing."""
    for name, defs in definitions.items():
        if name not in uses and any(_decorator_names(d) & _PROPERTIES for d in defs):
            for ref in graph.references.get(name, frozenset()):
                links.join(ref, name)


def _group(
    members: list[str], definitions: _Definitions, uses: dict[str, frozenset[str]]
) -> _Group:
    defs = [d for m in members for d in definitions[m]]
    attributes = sorted(_used_by(members, uses) - definitions.keys())
    first = min(d.lineno for d in defs)
    last = max(d.end_lineno or d.lineno for d in defs)
    ordered = sorted(members, key=lambda m: definitions[m][0].lineno)
    return _Group(ordered, attributes, first, last)


def _used_by(members: list[str], uses: dict[str, frozenset[str]]) -> set[str]:
    return {r for m in members for r in uses[m]}


def _own_members(cls: ast.ClassDef, definitions: _Definitions) -> set[str]:
    """What the class itself defines: names bound in its body, and what its
    initializers set or use."""
    found = _bound_in_body(cls)
    for name in INITIALIZERS:
        for definition in definitions.get(name, ()):
            found |= _references(definition, cls.name)
    return found


def _bound_in_body(cls: ast.ClassDef) -> set[str]:
    found: set[str] = set()
    for stmt in cls.body:
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [getattr(stmt, "target", None)]
        found.update(t.id for t in targets if isinstance(t, ast.Name))
    return found


def is_large(cls: ast.ClassDef) -> str | None:
    """Why the class is large, or None."""
    methods = _method_count(cls)
    if methods >= LARGE_METHODS:
        return f"{methods} methods"
    size = (cls.end_lineno or cls.lineno) - cls.lineno + 1
    if size >= LARGE_LINES:
        return f"{size} lines"
    attributes = len(_self_attributes(cls))
    if attributes >= LARGE_ATTRIBUTES:
        return f"{attributes} attributes"
    return None


def _method_count(cls: ast.ClassDef) -> int:
    return len([s for s in cls.body if isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef)])


def _self_attributes(cls: ast.ClassDef) -> set[str]:
    """The attributes of ``self`` the class sets."""
    return {
        node.attr
        for node in ast.walk(cls)
        if isinstance(node, ast.Attribute)
        and isinstance(node.ctx, ast.Store)
        and isinstance(node.value, ast.Name)
        and node.value.id == "self"
    }


def _aliases_the_receiver(cls: ast.ClassDef) -> bool:
    """Whether a method binds its receiver to another name (``c = self``, to walk a
    chain of parents): what it reaches through that name is invisible to the groups.
    Only statements are looked at: such an alias is an assignment of its own."""
    return any(_aliases_its_receiver(method) for method in _methods_of(cls.body))


def _aliases_its_receiver(method: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    args = method.args.posonlyargs + method.args.args
    if not args:
        return False
    receiver = args[0].arg
    return any(_is_alias_of(node, receiver) for node in _statements(method.body))


def _is_alias_of(node: ast.stmt, receiver: str) -> bool:
    match node:
        case ast.Assign(value=ast.Name(id=name)) | ast.AnnAssign(value=ast.Name(id=name)):
            return name == receiver
    return False


def _statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """Every statement of ``body``, nested ones included, in no particular order."""
    pending = list(body)
    while pending:
        node = pending.pop()
        yield node
        for name in ("body", "orelse", "finalbody"):
            pending.extend(getattr(node, name, ()))
        for part in (*getattr(node, "handlers", ()), *getattr(node, "cases", ())):
            pending.extend(part.body)


@rule(Kind.EXTRACT_CLASS, concern=Concern.COHESION, doc="cohesion_lcom4")
def cohesion_move(
    cls: ast.ClassDef,
    graph: ClassCohesion,
    read_outside: Callable[[], frozenset[str]] = frozenset,
    local_classes: Callable[[], Classes] = dict,
) -> Move | None:
    """Extract Class, where the working methods fall into groups that share nothing
    and no public attribute of theirs is read from outside the class (``read_outside``
    gives the attribute names the file reads on other objects; asked only when the
    groups hold): a split would change that interface, which callers use as one
    object."""
    own = _separate_groups(cls, graph)
    if len(own) < 2 or _held_as_one(cls, own, read_outside):
        return None
    if _implements_a_base(cls, own, local_classes()):
        return None
    archetype = "large_class" if is_large(cls) else UNCLASSIFIED
    span = (cls.lineno, cls.end_lineno or cls.lineno)
    gains = {Concern.COHESION: len(own) - 1}
    return Move(Kind.EXTRACT_CLASS, archetype, _cohesion_text(own), span, gains, 1)


def _implements_a_base(cls: ast.ClassDef, own: list[_Group], local: Classes) -> bool:
    """Whether two groups each hold a method that may override a base's: the class
    implements an interface whose methods callers reach on this one object (a
    fresh review's dnspython ``_DatagramSocket``, whose ``sendto`` and ``recvfrom``
    use the transport and the protocol of one asyncio endpoint)."""
    overriding = (g for g in own if any(may_override(cls, m, local) for m in g.methods))
    return sum(1 for _ in overriding) >= 2


def _separate_groups(cls: ast.ClassDef, graph: ClassCohesion) -> list[_Group]:
    """The groups of two or more methods that use an attribute no other group uses."""
    groups = [g for g in _groups(cls, graph) if len(g.methods) >= MIN_GROUP_METHODS]
    return [g for g in groups if set(g.attributes) - _used_by_others(groups, g)]


def _used_by_others(groups: list[_Group], group: _Group) -> set[str]:
    return {a for g in groups if g is not group for a in g.attributes}


def _held_as_one(
    cls: ast.ClassDef, own: list[_Group], read_outside: Callable[[], frozenset[str]]
) -> bool:
    """Whether the object is used as one: through an alias of its receiver, a special
    method over two groups, or a public attribute other code reads."""
    if _aliases_the_receiver(cls) or _tied_by_specials(cls, own) or _built_together(cls, own):
        return True
    return _read_from_outside(own, read_outside)


def _built_together(cls: ast.ClassDef, own: list[_Group]) -> bool:
    """Whether ``__init__`` builds attributes of two groups from one value (``self._dict``
    and ``self._list`` both from ``items``): two views of the same data, kept in step,
    which a split would part (the ninth fresh review's starlette ``ImmutableMultiDict``)."""
    fed: dict[str, set[int]] = {}
    for attributes, read in _init_assignments(cls):
        groups = _group_indexes(attributes, own)
        for name in read:
            fed.setdefault(name, set()).update(groups)
    return any(len(groups) >= 2 for groups in fed.values())


def _is_init(node: ast.stmt) -> TypeGuard[ast.FunctionDef]:
    return isinstance(node, ast.FunctionDef) and node.name == "__init__"


def _init_assignments(cls: ast.ClassDef) -> Iterator[tuple[set[str], set[str]]]:
    """For each assignment to the receiver's attributes in the class's ``__init__``: the
    attributes, and the other names its value reads."""
    for init in filter(_is_init, cls.body):
        receiver = _receiver_of(init)
        for node in (n for n in ast.walk(init) if isinstance(n, ast.Assign)):
            yield _receiver_targets(node, receiver), _names_read(node.value) - {receiver}


def _receiver_targets(node: ast.Assign, receiver: str) -> set[str]:
    return {t.attr for t in node.targets if _on_receiver(t, receiver)}


def _receiver_of(method: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    return method.args.args[0].arg if method.args.args else ""


def _names_read(node: ast.expr) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _on_receiver(target: ast.expr, receiver: str | None) -> TypeGuard[ast.Attribute]:
    match target:
        case ast.Attribute(value=ast.Name(id=name)):
            return name == receiver
    return False


def _group_indexes(attributes: set[str], own: list[_Group]) -> set[int]:
    return {i for i, g in enumerate(own) if attributes & set(g.attributes)}


def _tied_by_specials(cls: ast.ClassDef, own: list[_Group]) -> bool:
    """Whether a special method (``__getstate__``, ``__eq__``, ``__repr__``...: not
    ``__init__``) uses attributes of two groups: the object is saved, compared or shown
    as one, which a split would break."""
    specials = [node for node in cls.body if _is_special(node)]
    return any(_groups_used(_receiver_attributes(node), own) >= 2 for node in specials)


def _is_special(node: ast.stmt) -> TypeGuard[ast.FunctionDef | ast.AsyncFunctionDef]:
    match node:
        case ast.FunctionDef(name=name) | ast.AsyncFunctionDef(name=name):
            return name.startswith("__") and name.endswith("__") and name != "__init__"
    return False


def _receiver_attributes(node: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """The attributes a method uses on its receiver."""
    receiver = _receiver_of(node)
    return {
        n.attr
        for n in ast.walk(node)
        if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == receiver
    }


def _groups_used(attributes: set[str], own: list[_Group]) -> int:
    return sum(1 for g in own if attributes & set(g.attributes))


def _read_from_outside(own: list[_Group], read_outside: Callable[[], frozenset[str]]) -> bool:
    """Whether the file reads a public attribute of the groups on another object."""
    public = {a for g in own for a in g.attributes if not a.startswith("_")}
    return bool(public) and bool(public & read_outside())


#: How many methods and attributes of each group a move names, fewest last.
_SHOWN: Final = ((3, 2), (2, 2), (2, 1), (1, 1))


def _cohesion_text(own: list[_Group]) -> str:
    """Fewer names of each group until the move fits inline whole."""
    text = ""
    for shown_methods, shown_attributes in _SHOWN:
        text = _cohesion_words(own, shown_methods, shown_attributes)
        if len(text) <= MAX_MOVE_CHARS:
            break
    return text


def _cohesion_words(own: list[_Group], shown_methods: int, shown_attributes: int) -> str:
    parts = [
        f"{names(g.methods, shown_methods)} ({lines(g.first_line, g.last_line)}) "
        f"use {names(g.attributes, shown_attributes)}"
        for g in own[:2]
    ]
    return (
        f"{parts[0]}; {parts[1]}: nothing else links them. Move one group, with the "
        "attributes only it uses, into a class of its own."
    )
