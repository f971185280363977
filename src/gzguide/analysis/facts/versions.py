"""Which Pythons a module says it runs on: the versions it tests ``sys.version_info``
against, and the marks of a module that still runs on Python 2.

A move that needs newer syntax or a newer library (an assignment expression, ``yield
from``, ``min(..., default=)``) is wrong where the module runs on a Python that lacks
it: a module that tests ``sys.version_info < (3, 8)`` runs on something older than 3.8.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from typing import Final

Version = tuple[int, int]

#: The version a module that still runs on Python 2 is taken to test.
PYTHON_3: Final[Version] = (3, 0)
#: Names whose tests or imports mean the module still runs on Python 2.
_PYTHON_2_MARKS: Final = frozenset({"PY2", "PY3", "string_types", "text_type", "iteritems"})
#: ``__future__`` features that only a module running on Python 2 imports.
_PYTHON_2_FUTURES: Final = frozenset(
    {"print_function", "unicode_literals", "absolute_import", "division"}
)


def oldest_tested(tree: ast.Module) -> Version | None:
    """The oldest version ``tree`` says it may run below (it runs on one older than
    that), or None when it tests none."""
    found = [v for node in ast.walk(tree) if type(node) in _TELLING for v in _versions(node)]
    return min(found, default=None)


#: The nodes that can tell a version (the rest of the tree is skipped unlooked at).
_TELLING: Final = frozenset({ast.Compare, ast.ImportFrom, ast.Name, ast.Attribute, ast.alias})


def _versions(node: ast.AST) -> Iterator[Version]:
    match node:
        case ast.Compare(left=left, comparators=[right]) if _is_version_info(left):
            version = _version_of(right)
            if version is not None:
                yield version
        case ast.ImportFrom(module="__future__", names=names) if any(
            a.name in _PYTHON_2_FUTURES for a in names
        ):
            yield PYTHON_3
        case ast.Name(id=name) | ast.Attribute(attr=name) | ast.alias(name=name) if (
            name in _PYTHON_2_MARKS
        ):
            yield PYTHON_3


def _is_version_info(node: ast.expr) -> bool:
    """``sys.version_info``, or an item or slice of it (``[0]``, ``[:2]``)."""
    match node:
        case ast.Subscript(value=value):
            return _is_version_info(value)
        case ast.Attribute(value=ast.Name(id="sys"), attr="version_info"):
            return True
    return False


def _version_of(node: ast.expr) -> Version | None:
    """``3`` as (3, 0), ``(3, 8)`` or ``(3, 8, 1)`` as (3, 8)."""
    match node:
        case ast.Constant(value=int() as major) if not isinstance(major, bool):
            return (major, 0)
        case ast.Tuple(elts=[ast.Constant(value=int() as major), *rest]):
            minor = rest[0].value if rest and isinstance(rest[0], ast.Constant) else 0
            return (major, minor if isinstance(minor, int) else 0)
    return None
