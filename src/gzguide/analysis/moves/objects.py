"""Message chains: a walk through other objects' structure to reach one value.

A chain counts when it starts at one of the function's parameters (not the
receiver, not a module, not a literal), reaches through four or more attributes
with at least one call on the way (``order.customer().address().city``), and no
link is a method of a built-in type (``text.strip().split()`` walks through
values, not objects). One method on the first object can then hide the walk
(Hide Delegate): the function stops depending on the shape of every link.
"""

from __future__ import annotations

import ast
from typing import Final

from gzguide.analysis.facts.walk import FunctionView
from gzguide.analysis.moves.base import Concern, Move, code, names
from gzguide.analysis.moves.kinds import Kind
from gzguide.analysis.moves.registry import rule

MIN_LINKS: Final = 4
#: Methods of str, bytes, list, dict, set, files and regular expression matches.
BUILTIN_METHODS: Final = frozenset(
    {
        "strip",
        "lstrip",
        "rstrip",
        "split",
        "rsplit",
        "splitlines",
        "join",
        "lower",
        "upper",
        "casefold",
        "title",
        "capitalize",
        "swapcase",
        "replace",
        "format",
        "format_map",
        "encode",
        "decode",
        "startswith",
        "endswith",
        "find",
        "rfind",
        "index",
        "rindex",
        "count",
        "partition",
        "rpartition",
        "zfill",
        "ljust",
        "rjust",
        "center",
        "expandtabs",
        "translate",
        "isdigit",
        "isalpha",
        "isalnum",
        "isspace",
        "isupper",
        "islower",
        "get",
        "items",
        "keys",
        "values",
        "copy",
        "pop",
        "popitem",
        "setdefault",
        "update",
        "append",
        "extend",
        "insert",
        "remove",
        "sort",
        "reverse",
        "clear",
        "add",
        "discard",
        "union",
        "intersection",
        "difference",
        "read",
        "readline",
        "readlines",
        "write",
        "writelines",
        "seek",
        "tell",
        "close",
        "match",
        "search",
        "fullmatch",
        "sub",
        "subn",
        "group",
        "groups",
        "groupdict",
        "span",
        "start",
        "end",
    }
)


def _links(node: ast.expr) -> tuple[list[str], int, ast.expr]:
    """(attribute names from the root outwards, calls on the way, the root)."""
    attributes: list[str] = []
    calls = 0
    current = node
    first = True
    while True:
        if isinstance(current, ast.Call):
            calls += not first
            current = current.func
        elif isinstance(current, ast.Attribute):
            attributes.append(current.attr)
            current = current.value
        elif isinstance(current, ast.Subscript):
            current = current.value
        else:
            break
        first = False
    attributes.reverse()
    return attributes, calls, current


@rule(Kind.HIDE_DELEGATE, concern=Concern.COMPLEXITY, doc="message_chain")
def chain_move(view: FunctionView, receiver: str | None) -> Move | None:
    params = set(view.params) - {receiver, "self", "cls"}
    best: tuple[int, ast.expr, list[str]] | None = None
    for node in view.chains:
        attributes, calls, root = _links(node)
        if not isinstance(root, ast.Name) or root.id not in params:
            continue
        if len(attributes) < MIN_LINKS or calls < 1:
            continue
        if any(a in BUILTIN_METHODS for a in attributes):
            continue
        if best is None or len(attributes) > best[0]:
            best = (len(attributes), node, attributes)
    if best is None:
        return None
    _, expr, attributes = best
    root = _links(expr)[2]
    assert isinstance(root, ast.Name)
    text = (
        f"{code(expr, 64)} (line {expr.lineno}) reaches through {names(attributes[:-1], 3)} "
        f"to get `{attributes[-1]}`: a method on `{root.id}`'s class that returns it "
        "hides the walk."
    )
    line = expr.lineno
    return Move(Kind.HIDE_DELEGATE, "message_chain", text, (line, line), {Concern.COMPLEXITY: 0}, 0)
