"""What some detectors need to know about the whole file, each fact computed on first use.

Most hints are decided from their own definition. A few need the file: which
other functions take the same parameters (a data clump). Each of these is computed
once per file, only when a detector asks; the walk of each function
(:func:`view_of`) is made once.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from functools import cached_property
from itertools import combinations
from typing import Final

from gzguide.analysis.facts.keywords import NO_KEYWORDS, KeywordLines
from gzguide.analysis.facts.scopes import FunctionNode, Scope
from gzguide.analysis.facts.toplevel import TopLevel
from gzguide.analysis.facts.twins import Twins
from gzguide.analysis.facts.versions import Version, oldest_tested
from gzguide.analysis.facts.walk import FunctionView, children, view_of
from gzguide.analysis.metrics.cohesion import ClassCohesion
from gzguide.analysis.moves.interfaces import top_level_classes

#: Signatures longer than this are not searched for shared triples (there are
#: n*(n-1)*(n-2)/6 of them); such a signature gets a long-parameter-list hint anyway.
MAX_CLUMP_PARAMETERS: Final = 10


@dataclass(eq=False)
class FileFacts:
    tree: ast.Module
    scopes: list[Scope]
    #: The LCOM4 graph of each class, by its key.
    classes: dict[tuple[int, int], ClassCohesion] = field(default_factory=dict)
    #: The top-level definitions and the names each mentions.
    top_level: tuple[TopLevel, ...] = ()
    keywords: KeywordLines = NO_KEYWORDS
    _views: dict[tuple[int, int], FunctionView] = field(default_factory=dict)
    #: What detectors work out once per file and share (keyed by the detector).
    memo: dict[object, object] = field(default_factory=dict)

    def view(self, scope: Scope) -> FunctionView:
        """The one walk of a function's own code (made once per file version)."""
        found = self._views.get(scope.key)
        if found is None:
            assert not isinstance(scope.node, ast.ClassDef)
            found = view_of(scope.node, self.keywords)
            self._views[scope.key] = found
        return found

    @cached_property
    def oldest_python(self) -> Version | None:
        """The oldest Python the module says it may run below, if it says so."""
        return oldest_tested(self.tree)

    def runs_on(self, needed: Version | None) -> bool:
        """Whether code that needs Python ``needed`` (None: any) runs wherever the
        module does."""
        if needed is None:
            return True  # asked for every move: the module is only walked for a few
        oldest = self.oldest_python
        return oldest is None or oldest > needed

    @cached_property
    def twins(self) -> Twins:
        """The file's compound statements, for finding copies of a block."""
        return Twins(self.tree, self.functions)

    @cached_property
    def attributes_read_outside(self) -> frozenset[str]:
        """Attribute names the file reads on some object other than ``self``/``cls``
        (``req.headers``): the public face of its classes' state."""
        found: set[str] = set()
        stack: list[ast.AST] = list(self.tree.body)
        while stack:
            node = stack.pop()
            stack.extend(children(node))
            if type(node) is ast.Attribute:
                value = node.value
                if not (type(value) is ast.Name and value.id in ("self", "cls")):
                    found.add(node.attr)
        return frozenset(found)

    def function_at(self, line: int) -> Scope | None:
        """The innermost function whose lines hold ``line``."""
        holding = [s for s in self.functions if s.start_line <= line <= s.end_line]
        return max(holding, key=lambda s: s.start_line) if holding else None

    @cached_property
    def top_classes(self) -> dict[str, ast.ClassDef]:
        """The module's top-level classes by name (what a class's base may be)."""
        return top_level_classes(self.tree)

    @cached_property
    def functions(self) -> list[Scope]:
        return [s for s in self.scopes if s.is_function]

    @cached_property
    def nested_functions(self) -> set[tuple[int, int]]:
        """Keys of the functions defined inside another function (not methods, not top level)."""
        return {s.key for s in self.functions if s.owner is None and "." in s.qualname}

    @cached_property
    def triples(self) -> dict[tuple[str, str, str], list[Scope]]:
        """Every three parameter names that one function takes, -> the functions taking them."""
        index: dict[tuple[str, str, str], list[Scope]] = {}
        for scope in self.functions:
            names = sorted(set(self.parameters[scope.key]))
            if 3 <= len(names) <= MAX_CLUMP_PARAMETERS:
                for triple in combinations(names, 3):
                    index.setdefault(triple, []).append(scope)
        return index

    @cached_property
    def parameters(self) -> dict[tuple[int, int], list[str]]:
        """Each function's named parameters a caller passes, by the function's key."""
        return {s.key: caller_parameters(s) for s in self.functions}


def _is_static(node: FunctionNode) -> bool:
    return any(
        (isinstance(d, ast.Name) and d.id == "staticmethod")
        or (isinstance(d, ast.Attribute) and d.attr == "staticmethod")
        for d in node.decorator_list
    )


def receiver_of(scope: Scope) -> str | None:
    """A method's ``self`` or ``cls`` parameter (whatever its name); None otherwise."""
    node = scope.node
    assert not isinstance(node, ast.ClassDef)
    if scope.owner is None or _is_static(node):
        return None
    positional = [*node.args.posonlyargs, *node.args.args]
    return positional[0].arg if positional else None


def caller_parameters(scope: Scope) -> list[str]:
    """The named parameters a caller passes: no receiver, no ``*args`` or ``**kwargs``."""
    node = scope.node
    assert not isinstance(node, ast.ClassDef)
    args = node.args
    named = [a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)]
    receiver = receiver_of(scope)
    if receiver is not None and named and named[0] == receiver:
        named = named[1:]
    return named
