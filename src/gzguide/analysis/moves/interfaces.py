"""Whether a method of a class may be its base class's: an override of an interface.

A class that implements an interface (an abstract base's methods, a protocol another
library calls) cannot hand some of those methods to another class: callers reach them
on this object. What a base defines is known for a base defined in the module (its
own methods, and its bases' in turn) and for a builtin class (``dict``, ``Exception``:
read from the running interpreter, whose builtins a module's are); a base imported or
built elsewhere may define any method, so each method may be its override.
"""

from __future__ import annotations

import ast
import builtins
from collections.abc import Mapping
from typing import Final

#: Bases that define no method a class could override (``Generic[T]``'s are its own).
_EMPTY: Final = frozenset({"object", "Generic"})

Classes = Mapping[str, ast.ClassDef]


def top_level_classes(tree: ast.Module) -> dict[str, ast.ClassDef]:
    """The classes a module defines at its top level, by name (the last of a name)."""
    return {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}


def may_override(cls: ast.ClassDef, method: str, local: Classes) -> bool:
    """Whether ``method`` of ``cls`` may override a method of one of its bases."""
    return any(_base_may_define(base, method, local, {cls.name}) for base in cls.bases)


def _base_may_define(base: ast.expr, method: str, local: Classes, seen: set[str]) -> bool:
    name = _base_name(base)
    if name is None:
        return True  # `mod.Base`, a call: defined elsewhere
    if name in _EMPTY:
        return False
    if name in local:
        return name not in seen and _class_may_define(local[name], method, local, seen | {name})
    return _builtin_may_define(name, method)


def _builtin_may_define(name: str, method: str) -> bool:
    """For a builtin class, whether it has ``method``; any other name may."""
    builtin = getattr(builtins, name, None)
    return hasattr(builtin, method) if isinstance(builtin, type) else True


def _class_may_define(cls: ast.ClassDef, method: str, local: Classes, seen: set[str]) -> bool:
    if any(_defines(node, method) for node in cls.body):
        return True
    return any(_base_may_define(base, method, local, seen) for base in cls.bases)


def _defines(node: ast.stmt, method: str) -> bool:
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        return node.name == method
    if isinstance(node, ast.Assign):
        return any(isinstance(t, ast.Name) and t.id == method for t in node.targets)
    return False


def _base_name(base: ast.expr) -> str | None:
    """The plain name a base is written as (``Generic[T]`` as ``Generic``)."""
    if isinstance(base, ast.Subscript):
        base = base.value
    return base.id if isinstance(base, ast.Name) else None
