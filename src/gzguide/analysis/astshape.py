"""The shape of a piece of code: its structure, with the names and values left out.

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
