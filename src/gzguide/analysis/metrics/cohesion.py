"""LCOM4 (lack of cohesion of methods, Hitz & Montazeri) for every class of a module.

The definition implemented, for one ``class`` statement C:

Nodes
    The methods of C: every ``def`` / ``async def`` in C's own body, including
    those nested in the body's ``if``, ``for`` / ``while`` (and their ``else``),
    ``try`` (all its blocks), ``with`` and ``match`` blocks, but not those of
    nested classes or inner functions. Methods are identified by *name*: a
    property's getter, setter and deleter, ``typing.overload`` variants and
    alternative definitions under ``if``/``else`` are one node. Properties, class
    methods and static methods are nodes like any other method, and so are dunder
    methods, except:

    * initializers, ``__init__``, ``__new__`` and ``__post_init__``: they usually
      assign every attribute and would glue every method together (the convention
      of the ``lcom`` tool). They are not nodes and what they access is ignored;
    * *empty* methods, whose body holds nothing but docstrings (string
      statements), ``pass``, ``...`` and ``raise NotImplementedError`` (with or
      without arguments): abstract or placeholder methods share no state by
      construction and would each add a component. A name is empty only if all
      of its definitions are.

    Methods inherited from base classes are not nodes (they are not in C's body).

Member references
    Inside a method (its whole body: inner functions, lambdas, comprehensions and
    classes defined there included, but not its decorators or defaults) a
    *receiver* expression is: the method's first positional parameter, whatever
    its name (``self``, or ``cls`` in a class method or ``__new__``-like hook;
    ``@staticmethod`` methods and methods without positional parameters have
    none), C's own name (in every method, static ones included), ``type(<first
    parameter>)`` and ``<first parameter>.__class__``. ``<receiver>.name`` records
    a reference to member ``name``, whether read, written, deleted or called; so
    does ``getattr`` / ``setattr`` / ``hasattr`` / ``delattr`` on a receiver with a
    constant string. An inner function or lambda that rebinds the first parameter's
    name as a parameter hides the outer receiver in its body. ``super().name`` is
    not a reference (it names the base class's member), nor is ``other.name`` for
    any other object.

Edges
    Methods and the members they reference share one namespace, as Python
    attribute lookup does: method m is linked to member n whenever m references n.
    Two methods are in the same component when they are linked through such
    references: they reference a common member (an instance or class attribute,
    or an inherited method or attribute), or one references the other (a call
    ``self.m()`` or a bound-method reference ``self.m``, a property read
    ``self.p``).

LCOM4
    The number of connected components among the nodes. A class with no nodes
    (no methods, or only initializers and empty methods) has LCOM4 = 0.

Each component lists its method names sorted; components are ordered by the line of
their earliest method definition.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Final, NamedTuple

from gzguide.analysis.facts.parsed import ParsedModule
from gzguide.analysis.facts.walk import children

#: Methods that are not nodes of the graph: object initializers.
INITIALIZERS = frozenset({"__init__", "__new__", "__post_init__"})

_REFLECTION = frozenset({"getattr", "setattr", "hasattr", "delattr"})

_FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef


class ClassCohesion(NamedTuple):
    lcom4: int
    #: Method names of each connected component, each list sorted; components
    #: ordered by the line of their earliest method.
    components: list[list[str]]
    lineno: int
    end_lineno: int
    name: str
    #: The members each node method references (what the graph was built from).
    references: dict[str, frozenset[str]]


def class_cohesion(module: ParsedModule) -> dict[tuple[int, int], ClassCohesion]:
    """LCOM4 of every class in ``module``, nested ones included.

    Keyed by the ``(lineno, col_offset)`` of each ``ast.ClassDef``.
    """
    return {
        (node.lineno, node.col_offset): _cohesion_of(node) for node in _class_defs(module.tree.body)
    }


def _class_defs(body: list[ast.stmt]) -> Iterator[ast.ClassDef]:
    """Every class statement under ``body``, at any depth.

    Only statement lists are searched: a class statement never hides in an
    expression, and skipping expressions makes this far cheaper than ``ast.walk``.
    """
    stack = [body]
    while stack:
        for stmt in stack.pop():
            if isinstance(stmt, ast.ClassDef):
                yield stmt
            stack.extend(_searched_blocks(stmt))


def _searched_blocks(stmt: ast.stmt) -> list[list[ast.stmt]]:
    """The statement lists ``stmt`` holds, in the order the class search takes them."""
    held: list[list[ast.stmt]] = [getattr(stmt, f, []) for f in ("body", "orelse", "finalbody")]
    held.extend(part.body for part in (*getattr(stmt, "handlers", ()), *getattr(stmt, "cases", ())))
    return held


def _cohesion_of(cls: ast.ClassDef) -> ClassCohesion:
    definitions: dict[str, list[_FunctionNode]] = {}
    for method in _methods_of(cls.body):
        definitions.setdefault(method.name, []).append(method)
    nodes = _graph_nodes(definitions)
    members, references = _connected(nodes, definitions, cls.name)
    components = _components(nodes, members, definitions)
    return ClassCohesion(
        lcom4=len(components),
        components=components,
        lineno=cls.lineno,
        end_lineno=cls.end_lineno if cls.end_lineno is not None else cls.lineno,
        name=cls.name,
        references=references,
    )


def _graph_nodes(definitions: dict[str, list[_FunctionNode]]) -> list[str]:
    """The methods that are nodes of the graph: not initializers, not all placeholders."""
    return [
        name
        for name, defs in definitions.items()
        if name not in INITIALIZERS and not all(_is_empty(d) for d in defs)
    ]


def _connected(
    nodes: list[str], definitions: dict[str, list[_FunctionNode]], class_name: str
) -> tuple[_Members, dict[str, frozenset[str]]]:
    """Each node joined to the members it references, and what each references."""
    members = _Members()
    references: dict[str, frozenset[str]] = {}
    for name in nodes:
        members.add(name)
        found: set[str] = set()
        for method in definitions[name]:
            found |= _references(method, class_name)
        for ref in found:
            members.union(name, ref)
        references[name] = frozenset(found)
    return members, references


def _components(
    nodes: list[str], members: _Members, definitions: dict[str, list[_FunctionNode]]
) -> list[list[str]]:
    """The connected components, each sorted, in the order of their earliest method."""
    groups: dict[str, list[str]] = {}
    for name in nodes:
        groups.setdefault(members.find(name), []).append(name)
    first_line = {name: min(d.lineno for d in definitions[name]) for name in nodes}
    return sorted(
        (sorted(group) for group in groups.values()),
        key=lambda group: min(first_line[name] for name in group),
    )


def _methods_of(body: Iterable[ast.stmt]) -> Iterator[_FunctionNode]:
    """Function definitions of a class body, looking into its compound statements."""
    for stmt in body:
        if isinstance(stmt, _FunctionNode):
            yield stmt
        elif not isinstance(stmt, ast.ClassDef):
            for block in _blocks_in_order(stmt):
                yield from _methods_of(block)


def _blocks_in_order(stmt: ast.stmt) -> list[list[ast.stmt]]:
    """The statement lists a compound statement holds, in source order."""
    held: list[list[ast.stmt]] = [getattr(stmt, "body", [])]
    held.extend(handler.body for handler in getattr(stmt, "handlers", ()))
    held.append(getattr(stmt, "orelse", []))
    held.append(getattr(stmt, "finalbody", []))
    held.extend(case.body for case in getattr(stmt, "cases", ()))
    return held


def _is_empty(method: _FunctionNode) -> bool:
    """Whether the body is only a docstring, ``pass``, ``...`` or ``raise NotImplementedError``."""
    return all(_is_placeholder(stmt) for stmt in method.body)


def _is_placeholder(stmt: ast.stmt) -> bool:
    """``pass``, ``...``, a string (docstring) or ``raise NotImplementedError[(...)]``."""
    match stmt:
        case ast.Pass():
            return True
        case ast.Expr(value=ast.Constant(value=value)):
            return value is Ellipsis or isinstance(value, str)
        case ast.Raise(exc=ast.Call(func=ast.Name(id=name)) | ast.Name(id=name)):
            return name == "NotImplementedError"
    return False


def _is_staticmethod(method: _FunctionNode) -> bool:
    for decorator in method.decorator_list:
        if isinstance(decorator, ast.Name) and decorator.id == "staticmethod":
            return True
        if isinstance(decorator, ast.Attribute) and decorator.attr == "staticmethod":
            return True
    return False


def _first_parameter(args: ast.arguments) -> str | None:
    positional = args.posonlyargs or args.args
    return positional[0].arg if positional else None


def _parameter_names(args: ast.arguments) -> set[str]:
    names = {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)}
    if args.vararg is not None:
        names.add(args.vararg.arg)
    if args.kwarg is not None:
        names.add(args.kwarg.arg)
    return names


def _references(method: _FunctionNode, class_name: str) -> set[str]:
    """Names of the members of the class that ``method`` references through a receiver."""
    receiver = None if _is_staticmethod(method) else _first_parameter(method.args)
    # Fast path: one flat walk. Valid unless an inner function or lambda takes a
    # parameter named like the receiver (rare), which needs the scoped visitor.
    found: set[str] = set()
    stack: list[ast.AST] = list(method.body)
    steps = _REFERENCE_STEPS
    while stack:
        node = stack.pop()
        stack.extend(children(node))
        step = steps.get(type(node))
        if step is None:
            continue
        name = step(node, receiver, class_name)
        if name is _HIDDEN:
            return _scoped_references(method, receiver, class_name)
        if name is not None:
            found.add(name)
    return found


def _attribute_reference(node: ast.Attribute, receiver: str | None, class_name: str) -> str | None:
    if node.attr != "__class__" and _is_receiver(node.value, receiver, class_name):
        return node.attr
    return None


def _scope_reference(
    node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda, receiver: str | None, class_name: str
) -> str | None:
    """An inner scope references nothing itself; one whose parameter hides the receiver
    makes the flat walk wrong (:data:`_HIDDEN`)."""
    if receiver is not None and receiver in _parameter_names(node.args):
        return _HIDDEN
    return None


def _scoped_references(method: _FunctionNode, receiver: str | None, class_name: str) -> set[str]:
    finder = _ScopedFinder(receiver, class_name)
    for item in method.body:
        finder.visit(item)
    return finder.found


def _is_receiver(node: ast.expr, receiver: str | None, class_name: str) -> bool:
    """``<receiver>``, the class's name, ``type(<receiver>)`` or ``<receiver>.__class__``."""
    match node:
        case ast.Name(id=name):
            return name in (receiver, class_name)
        case (
            ast.Attribute(attr="__class__", value=ast.Name(id=name))
            | ast.Call(func=ast.Name(id="type"), args=[ast.Name(id=name)], keywords=[])
        ):
            return receiver is not None and name == receiver
    return False


def _reflected_name(node: ast.Call, receiver: str | None, class_name: str) -> str | None:
    """``name`` for ``getattr(<receiver>, "name", ...)`` and its siblings, else None."""
    match node:
        case ast.Call(
            func=ast.Name(id=func), args=[target, ast.Constant(value=str() as name), *_]
        ) if func in _REFLECTION and _is_receiver(target, receiver, class_name):
            return name
    return None


#: Stands for "an inner scope hides the receiver" among the names a step finds.
_HIDDEN: Final = "\0hidden"
#: What each kind of node may reference (any other: nothing).
_REFERENCE_STEPS: Final[dict[type[ast.AST], Callable[[Any, str | None, str], str | None]]] = {
    ast.Attribute: _attribute_reference,
    ast.Call: _reflected_name,
    ast.FunctionDef: _scope_reference,
    ast.AsyncFunctionDef: _scope_reference,
    ast.Lambda: _scope_reference,
}


class _ScopedFinder(ast.NodeVisitor):
    """The same references as the fast path, honouring parameters that hide the receiver."""

    def __init__(self, receiver: str | None, class_name: str) -> None:
        self.receiver = receiver
        self.class_name = class_name
        self.found: set[str] = set()

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if node.attr != "__class__" and _is_receiver(node.value, self.receiver, self.class_name):
            self.found.add(node.attr)
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        name = _reflected_name(node, self.receiver, self.class_name)
        if name is not None:
            self.found.add(name)
        self.generic_visit(node)

    def _visit_scope(
        self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda, body: list[ast.AST]
    ) -> None:
        saved = self.receiver
        if saved is None or saved not in _parameter_names(node.args):
            self.generic_visit(node)
            return
        # Decorators, defaults and annotations belong to the enclosing scope.
        if not isinstance(node, ast.Lambda):
            self._visit_decorations(node)
        self.visit(node.args)
        self.receiver = None
        for item in body:
            self.visit(item)
        self.receiver = saved

    def _visit_decorations(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        for decorator in node.decorator_list:
            self.visit(decorator)
        if node.returns is not None:
            self.visit(node.returns)

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        self._visit_scope(node, list(node.body))

    def visit_AsyncFunctionDef(self, node: ast.AsyncFunctionDef) -> None:
        self._visit_scope(node, list(node.body))

    def visit_Lambda(self, node: ast.Lambda) -> None:
        self._visit_scope(node, [node.body])


class _Members:
    """Union-find over member names (methods and attributes share a namespace)."""

    __slots__ = ("_parent",)

    def __init__(self) -> None:
        self._parent: dict[str, str] = {}

    def add(self, name: str) -> None:
        self._parent.setdefault(name, name)

    def find(self, name: str) -> str:
        parent = self._parent
        parent.setdefault(name, name)
        root = name
        while parent[root] != root:
            root = parent[root]
        while parent[name] != root:
            parent[name], name = root, parent[name]
        return root

    def union(self, a: str, b: str) -> None:
        root_a, root_b = self.find(a), self.find(b)
        if root_a != root_b:
            self._parent[root_b] = root_a
