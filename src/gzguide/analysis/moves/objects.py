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


def _walk(node: ast.expr, params: set[str]) -> tuple[str, list[str]] | None:
    """(the parameter, the attributes from it outwards) when the chain ``node`` walks from
    one of ``params`` through other objects' structure."""
    attributes, calls, root = _links(node)
    match root:
        case ast.Name(id=name) if (
            name in params
            and len(attributes) >= MIN_LINKS
            and calls >= 1
            and BUILTIN_METHODS.isdisjoint(attributes)
        ):
            return name, attributes
    return None


@rule(Kind.HIDE_DELEGATE, concern=Concern.COMPLEXITY, doc="message_chain")
def chain_move(view: FunctionView, receiver: str | None) -> Move | None:
    params = set(view.params) - {receiver, "self", "cls"}
    walks = ((node, w) for node in view.chains if (w := _walk(node, params)) is not None)
    # The longest walk; of those as long, the first.
    best = max(walks, key=lambda found: len(found[1][1]), default=None)
    if best is None:
        return None
    expr, (root, attributes) = best
    text = (
        f"{code(expr, 64)} (line {expr.lineno}) reaches through {names(attributes[:-1], 3)} "
        f"to get `{attributes[-1]}`: a method on `{root}`'s class that returns it "
        "hides the walk."
    )
    line = expr.lineno
    return Move(Kind.HIDE_DELEGATE, "message_chain", text, (line, line), {Concern.COMPLEXITY: 0}, 0)
