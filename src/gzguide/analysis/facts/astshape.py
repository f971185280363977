"""The shape of a piece of code: its structure with the names and values left out,
and how long it reads.

Two statements of the same shape do the same thing with other values (a message, a
key, a type): the detectors of repeated cases compare shapes.
"""

from __future__ import annotations

import ast


def shape(node: ast.AST) -> object:
    """The node's structure with every name, attribute and constant left out (a tuple
    of those is a value too: ``isinstance(x, A)`` and ``isinstance(x, (A, B))`` alike)."""
    if _is_value(node):
        return "value"
    fields = (getattr(node, name, None) for name in node._fields if name not in _UNSHAPED)
    return (type(node).__name__, *(_field_shape(value) for value in fields))


_VALUES = (ast.Name, ast.Constant, ast.Attribute)
_UNSHAPED = ("ctx", "type_comment")


def _is_value(node: ast.AST) -> bool:
    return isinstance(node, _VALUES) or (
        isinstance(node, ast.Tuple) and all(isinstance(e, _VALUES) for e in node.elts)
    )


def _field_shape(value: object) -> object:
    if isinstance(value, list):
        return tuple(shape(v) if isinstance(v, ast.AST) else v for v in value)
    if isinstance(value, ast.AST):
        return shape(value)
    return value


def code_lines(statements: list[ast.stmt]) -> int:
    """Lines that hold code, blank lines and comments left out: how long a body reads."""
    held: set[int] = set()
    pending = list(statements)
    while pending:
        node = pending.pop()
        inner = _inner(node)
        if not inner:
            held.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))
            continue
        held.add(node.lineno)
        _take_inner(inner, held, pending)
    return len(held)


def _inner(node: ast.stmt) -> list[ast.stmt | ast.ExceptHandler | ast.match_case]:
    return [
        child
        for name in ("body", "orelse", "finalbody", "handlers", "cases")
        for child in getattr(node, name, ())
    ]


def _take_inner(
    inner: list[ast.stmt | ast.ExceptHandler | ast.match_case],
    held: set[int],
    pending: list[ast.stmt],
) -> None:
    """Statements to look into next; an except handler or a match case: its header
    line, then its body."""
    for child in inner:
        if isinstance(child, ast.stmt):
            pending.append(child)
        else:
            header = child.pattern if isinstance(child, ast.match_case) else child
            held.add(header.lineno)
            pending.extend(child.body)
