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
    if isinstance(node, ast.Name | ast.Constant | ast.Attribute) or (
        isinstance(node, ast.Tuple)
        and all(isinstance(e, ast.Name | ast.Constant | ast.Attribute) for e in node.elts)
    ):
        return "value"
    parts: list[object] = [type(node).__name__]
    for name in node._fields:
        if name in ("ctx", "type_comment") or (name == "attr" and isinstance(node, ast.Attribute)):
            continue
        value = getattr(node, name, None)
        if isinstance(value, list):
            parts.append(tuple(shape(v) if isinstance(v, ast.AST) else v for v in value))
        elif isinstance(value, ast.AST):
            parts.append(shape(value))
        else:
            parts.append(value)
    return tuple(parts)


def code_lines(statements: list[ast.stmt]) -> int:
    """Lines that hold code, blank lines and comments left out: how long a body reads."""
    held: set[int] = set()
    pending = list(statements)
    while pending:
        node = pending.pop()
        inner = [
            child
            for name in ("body", "orelse", "finalbody", "handlers", "cases")
            for child in getattr(node, name, ())
        ]
        if not inner:
            held.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))
            continue
        held.add(node.lineno)
        for child in inner:
            if isinstance(child, ast.stmt):
                pending.append(child)
            else:  # an except handler or a match case: its header, then its body
                header = child.pattern if isinstance(child, ast.match_case) else child
                held.add(header.lineno)
                pending.extend(child.body)
    return len(held)
