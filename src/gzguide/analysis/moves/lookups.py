"""Lookup moves: a key looked up or made with a branch that a dict method says at once.

* ``dict_get``: ``d[k] if k in d else default``, spelled with an ``if``;
* ``setdefault``: ``if k in d: d[k].append(v) else: d[k] = [v]``, and an entry
  made when missing and then read (``d.setdefault(k, [])``).
"""

from __future__ import annotations

import ast
from copy import deepcopy
from typing import Final

from gzguide.analysis.facts.walk import FunctionView, Stmt
from gzguide.analysis.moves.base import UNCLASSIFIED, Concern, Move, code, lines, snippet
from gzguide.analysis.moves.kinds import Kind
from gzguide.analysis.moves.registry import statement_rule
from gzguide.analysis.moves.rendering import render
from gzguide.analysis.moves.syntax import (
    reads_key,
    same_tree,
    span_of,
)


def _membership_test(test: ast.expr) -> tuple[ast.expr, ast.expr] | None:
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.In):
        return test.left, test.comparators[0]
    return None


@statement_rule(Kind.DICT_GET, concern=Concern.COMPLEXITY, doc="dict_get", on=(ast.If,))
def _dict_get(stmt: Stmt, view: FunctionView) -> Move | None:
    node = stmt.node
    if isinstance(node, ast.If) and not stmt.is_elif and len(node.body) == 1:
        found = _membership_test(node.test)
        if found is None:
            return None
        key, mapping = found
        first = node.body[0]
        second = node.orelse[0] if len(node.orelse) == 1 else None
        if second is None and not node.orelse:
            second = stmt.next_node() if isinstance(first, ast.Return) else None
        if isinstance(first, ast.Return) and isinstance(second, ast.Return):
            if not reads_key(first.value, key, mapping):
                return None
            default = render(second.value) if second.value else "None"
            result = f"return {render(mapping)}.get({render(key)}, {default})"
        elif (
            isinstance(first, ast.Assign)
            and isinstance(second, ast.Assign)
            and len(first.targets) == len(second.targets) == 1
            and isinstance(first.targets[0], ast.Name)
            and same_tree(first.targets[0], second.targets[0])
            and reads_key(first.value, key, mapping)
        ):
            default = render(second.value)
            target = first.targets[0].id
            result = f"{target} = {render(mapping)}.get({render(key)}, {default})"
        else:
            return None
        span = (node.lineno, second.end_lineno or second.lineno)
        shown = code(ast.parse(result).body[0], 80)
        text = f"{lines(*span).capitalize()} look a key up or fall back: {shown}, 1 point less."
        return Move(Kind.DICT_GET, UNCLASSIFIED, text, span, {Concern.COMPLEXITY: 1}, 4)
    return None


@statement_rule(Kind.SETDEFAULT, concern=Concern.COMPLEXITY, doc="setdefault", on=(ast.If,))
def _setdefault(stmt: Stmt, view: FunctionView) -> Move | None:
    """``if k in d: d[k].append(v) else: d[k] = [v]`` (either order of arms)."""
    node = stmt.node
    if not isinstance(node, ast.If) or stmt.is_elif or len(node.body) != 1 or len(node.orelse) != 1:
        return None
    test = node.test
    if not isinstance(test, ast.Compare) or len(test.ops) != 1:
        return None
    op = test.ops[0]
    if not isinstance(op, ast.In | ast.NotIn):
        return None
    key, mapping = test.left, test.comparators[0]
    present, absent = (
        (node.body[0], node.orelse[0])
        if isinstance(op, ast.In)
        else (
            node.orelse[0],
            node.body[0],
        )
    )
    if not (
        isinstance(present, ast.Expr)
        and isinstance(present.value, ast.Call)
        and isinstance(present.value.func, ast.Attribute)
        and present.value.func.attr == "append"
        and reads_key(present.value.func.value, key, mapping)
        and len(present.value.args) == 1
    ):
        return None
    if not (
        isinstance(absent, ast.Assign)
        and len(absent.targets) == 1
        and reads_key(absent.targets[0], key, mapping)
        and isinstance(absent.value, ast.List)
        and len(absent.value.elts) == 1
    ):
        return None
    rewrite = (
        f"{render(mapping)}.setdefault({render(key)}, []).append({render(present.value.args[0])})"
    )
    text = (
        f"The `if`/`else` at {lines(*span_of(stmt))} starts or extends a list: "
        f"{snippet(rewrite, 70)} (or a `defaultdict(list)`) does both."
    )
    gains = {Concern.COMPLEXITY: 1, Concern.NESTING: 1, Concern.SIZE: 3}
    return Move(Kind.SETDEFAULT, UNCLASSIFIED, text, span_of(stmt), gains, 4)


@statement_rule(Kind.SETDEFAULT, concern=Concern.COMPLEXITY, doc="setdefault", on=(ast.If,))
def _make_then_use(stmt: Stmt, view: FunctionView) -> Move | None:
    """``if k not in d: d[k] = []`` then a statement using ``d[k]`` once: that
    statement with ``d.setdefault(k, [])`` in its place; followed by anything else,
    the ``if`` alone is ``d.setdefault(k, [])``."""
    node = stmt.node
    if not isinstance(node, ast.If) or node.orelse or len(node.body) != 1:
        return None
    test = node.test
    if not (
        isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.NotIn)
    ):
        return None
    key, mapping = test.left, test.comparators[0]
    made = node.body[0]
    if not (
        isinstance(made, ast.Assign)
        and len(made.targets) == 1
        and reads_key(made.targets[0], key, mapping)
        and _plain_default(made.value)
    ):
        return None
    gains = {Concern.COMPLEXITY: 1, Concern.NESTING: 1, Concern.SIZE: 1}
    call = ast.Call(
        ast.Attribute(mapping, "setdefault", ast.Load()), [key, made.value], keywords=[]
    )
    start, end = span_of(stmt)
    used = stmt.next_node()
    rewrite = _in_place_of(used, key, mapping, call) if used is not None else None
    if used is None or rewrite is None:
        makes = f"Line {start} makes" if start == end else f"Lines {start}-{end} make"
        text = (
            f"{makes} the entry when it is missing: "
            f"{snippet(render(call), 70)} does the same in one statement, 1 point less."
        )
        return Move(Kind.SETDEFAULT, UNCLASSIFIED, text, (start, end), gains, 4)
    span = (start, used.end_lineno or used.lineno)
    text = (
        f"{lines(*span).capitalize()} make the entry when it is missing, then use it: "
        f"{snippet(render(rewrite), 70)} does both, 1 point less."
    )
    return Move(Kind.SETDEFAULT, UNCLASSIFIED, text, span, {**gains, Concern.SIZE: 2}, 4)


def _plain_default(node: ast.expr) -> bool:
    """A default that ``setdefault`` may build on every call: constants, and literals
    or empty ``list()``/``set()``/``dict()`` made of them (nothing with an effect)."""
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.List | ast.Tuple | ast.Set):
        return all(_plain_default(e) for e in node.elts)
    if isinstance(node, ast.Dict):
        return all(k is not None and _plain_default(k) for k in node.keys) and all(
            _plain_default(v) for v in node.values
        )
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in ("list", "set", "dict", "tuple", "frozenset")
        and not node.args
        and not node.keywords
    )


#: Where a part of an expression may not be evaluated (or is evaluated later, or
#: many times): ``d.setdefault`` there would not make the entry exactly once.
_LAZY: Final = (
    ast.BoolOp,
    ast.IfExp,
    ast.Lambda,
    ast.ListComp,
    ast.SetComp,
    ast.DictComp,
    ast.GeneratorExp,
)


def _in_place_of(
    used: ast.stmt, key: ast.expr, mapping: ast.expr, call: ast.Call
) -> ast.stmt | None:
    """``used`` with its one read of ``mapping[key]`` replaced by ``call``; None when it
    reads it more or less than once, writes it, is a compound statement, or reads it
    where it may not run."""
    if not isinstance(used, ast.Assign | ast.AugAssign | ast.AnnAssign | ast.Expr | ast.Return):
        return None
    found: list[tuple[ast.AST, str, int | None]] = []  # (parent, field, index)

    def visit(parent: ast.AST, lazy: bool) -> bool:
        for field_name, value in ast.iter_fields(parent):
            items = value if isinstance(value, list) else [value]
            for index, child in enumerate(items):
                if not isinstance(child, ast.expr):
                    continue
                if reads_key(child, key, mapping):
                    if lazy or not isinstance(child.ctx, ast.Load):  # type: ignore[attr-defined]
                        return False
                    found.append((parent, field_name, index if isinstance(value, list) else None))
                    continue
                if not visit(child, lazy or isinstance(child, _LAZY)):
                    return False
        return True

    rewritten = deepcopy(used)
    if not visit(rewritten, False) or len(found) != 1:
        return None
    parent, field_name, index = found[0]
    if index is None:
        setattr(parent, field_name, call)
    else:
        getattr(parent, field_name)[index] = call
    return rewritten
