"""Local idioms: small rewrites that say the same thing with fewer branches or levels.

Each detector matches one exact shape, so the rewrite it proposes is equivalent to
the code as written, and it reports how much each concern's value drops:

* ``any``/``all``/``next``: a loop that only searches (``for x in xs: if t: return
  True`` then ``return False``);
* ``comprehension``: a loop that only fills a fresh list, set or dict;
* ``membership``: ``x == a or x == b`` is ``x in (a, b)``;
* ``isinstance_tuple``: ``isinstance(x, A) or isinstance(x, B)``;
* ``bool_return``: ``if t: return True`` then ``return False`` is ``return t``;
* ``dict_get``: ``d[k] if k in d else default``, spelled with an ``if`` or a ``try``;
* ``suppress``: ``try: ... except E: pass`` is ``with contextlib.suppress(E):``;
* ``tuple_compare``: ``a.x == b.x and a.y == b.y and a.z == b.z``;
* ``merge_ifs``: an ``if`` whose whole body is another ``if``;
* ``continue_guard``/``return_guard``: a condition that wraps the rest of a loop
  body or function, or an ``else`` that only leaves;
* ``same_arms``: two adjacent arms of an if/elif chain with identical bodies;
* ``setdefault``: ``if k in d: d[k].append(v) else: d[k] = [v]``;
* ``table_of_cases``: three or more ``if``s in a row whose bodies do the same thing
  with other values.

Complexity gains are radon's points; nesting gains are real levels
(``if``/``for``/``while``/``match``); size gains are source lines.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from copy import deepcopy
from itertools import pairwise
from typing import Final

from gzguide.analysis.facts.astshape import code_lines, shape
from gzguide.analysis.facts.twins import differences
from gzguide.analysis.facts.walk import FunctionView, Stmt
from gzguide.analysis.moves.base import UNCLASSIFIED, Concern, Move, code, lines, plural, snippet
from gzguide.analysis.moves.rendering import render

ARROWHEAD: Final = "arrowhead"
#: A guard clause is worth it when the code it lets move out a level has this many
#: lines of code.
GUARD_LINES: Final = 6
#: A lone compound statement under an ``else`` after a return is worth a level from
#: this many lines of code.
NO_ELSE_LINES: Final = 4
#: So many same-shaped ``if``s in a row make a table; two suffice when each is a
#: block of this many lines.
REPEATS: Final = 3
BLOCK_REPEAT_LINES: Final = 4
SWITCH: Final = "switch_on_type"
_BOOL_CALLS: Final = frozenset({"isinstance", "issubclass", "callable", "hasattr", "bool"})
#: ``os.path`` predicates, and ``str``/``bytes`` predicates (which user classes
#: rarely redefine): calls that return a bool, needing no ``bool()`` around them.
_PATH_PREDICATES: Final = frozenset({"isfile", "isdir", "islink", "isabs", "ismount", "exists"})
_STR_PREDICATES: Final = frozenset(
    {
        "startswith",
        "endswith",
        "isdigit",
        "isdecimal",
        "isnumeric",
        "isalpha",
        "isalnum",
        "isspace",
        "isidentifier",
        "islower",
        "isupper",
        "istitle",
        "isascii",
    }
)
_NEGATED: Final[dict[type[ast.cmpop], type[ast.cmpop]]] = {
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.Is: ast.IsNot,
    ast.IsNot: ast.Is,
    ast.In: ast.NotIn,
    ast.NotIn: ast.In,
}


def _target(node: ast.expr) -> str:
    """A loop target as a ``for`` writes it (``a, b``, not ``(a, b)``)."""
    if isinstance(node, ast.Tuple) and node.elts:
        return ", ".join(render(e) for e in node.elts)
    return render(node)


def _span(stmt: Stmt) -> tuple[int, int]:
    return (stmt.line, stmt.end_line)


def _const(node: ast.AST | None, value: object) -> bool:
    return isinstance(node, ast.Constant) and node.value is value


def _same(a: ast.AST, b: ast.AST) -> bool:
    return ast.dump(a) == ast.dump(b)


def negation(test: ast.expr) -> ast.expr:
    """The plain negation of ``test`` (``not x`` -> ``x``, ``a == b`` -> ``a != b``)."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return test.operand
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and type(test.ops[0]) in _NEGATED:
        return ast.Compare(test.left, [_NEGATED[type(test.ops[0])]()], test.comparators)
    if isinstance(test, ast.BoolOp):
        # De Morgan, where every operand has a plain negation: `a != x and b != y`
        # reads better than `not (a == x or b == y)`.
        parts = [negation(v) for v in test.values]
        if not any(isinstance(p, ast.UnaryOp) and isinstance(p.op, ast.Not) for p in parts):
            return ast.BoolOp(ast.And() if isinstance(test.op, ast.Or) else ast.Or(), parts)
    return ast.UnaryOp(ast.Not(), test)


def _is_boolean(test: ast.expr) -> bool:
    if isinstance(test, ast.Compare):
        return True
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return True
    if isinstance(test, ast.BoolOp):
        return all(_is_boolean(v) for v in test.values)
    if not isinstance(test, ast.Call):
        return False
    func = test.func
    if isinstance(func, ast.Name):
        return func.id in _BOOL_CALLS
    if not isinstance(func, ast.Attribute):
        return False
    if func.attr in _PATH_PREDICATES:
        return render(func.value) in ("os.path", "path", "posixpath", "ntpath")
    return func.attr in _STR_PREDICATES


def _body_lines(statements: list[ast.stmt]) -> int:
    if not statements:
        return 0
    return (statements[-1].end_lineno or statements[-1].lineno) - statements[0].lineno + 1


# -- loops -------------------------------------------------------------------------------


def _search(stmt: Stmt) -> Move | None:
    """``for x in xs: if t: return R`` followed by ``return D``."""
    node = stmt.node
    if not isinstance(node, ast.For) or node.orelse or len(node.body) != 1:
        return None
    inner = node.body[0]
    if not isinstance(inner, ast.If) or inner.orelse or len(inner.body) != 1:
        return None
    found = inner.body[0]
    after = stmt.next_node()
    if not isinstance(found, ast.Return) or not isinstance(after, ast.Return):
        return None
    span = (node.lineno, after.end_lineno or after.lineno)
    loop = f"The loop at {lines(node.lineno, node.end_lineno or node.lineno)} only searches"
    target, iterable = _target(node.target), render(node.iter)
    if _const(found.value, True) and _const(after.value, False):
        call = snippet(f"return any({render(inner.test)} for {target} in {iterable})", 78)
        text = f"{loop}: {call} replaces it and its `return False`"
        gains = {Concern.COMPLEXITY: 1, Concern.NESTING: 2, Concern.SIZE: _body_lines([node])}
        return Move("any", UNCLASSIFIED, text + ".", span, gains, priority=3)
    if _const(found.value, False) and _const(after.value, True):
        negated = negation(inner.test)
        if isinstance(negated, ast.UnaryOp):  # no plain negation: `not any` reads better
            search = f"not any({render(inner.test)} for {target} in {iterable})"
        else:
            search = f"all({render(negated)} for {target} in {iterable})"
        call = snippet(f"return {search}", 78)
        text = f"{loop}: {call} replaces it and its `return True`"
        gains = {Concern.COMPLEXITY: 1, Concern.NESTING: 2, Concern.SIZE: _body_lines([node])}
        return Move("all", UNCLASSIFIED, text + ".", span, gains, priority=3)
    if found.value is None or isinstance(found.value, ast.Constant):
        return None
    default = render(after.value) if after.value is not None else "None"
    expr = render(found.value)
    generator = f"({expr} for {target} in {iterable} if {render(inner.test)})"
    call = snippet(f"return next({generator}, {default})", 86)
    text = f"{loop} for the first match: {call} says so"
    gains = {Concern.NESTING: 2, Concern.SIZE: _body_lines([node])}
    return Move("next", UNCLASSIFIED, text + ".", span, gains, priority=2)


_EMPTY: Final = {"list": "[]", "set": "set()", "dict": "{}"}


def _fresh_collection(node: ast.stmt | None) -> tuple[str, str] | None:
    """(name, kind) when ``node`` is ``name = []`` / ``set()`` / ``{}`` / ``dict()``."""
    if not isinstance(node, ast.Assign) or len(node.targets) != 1:
        return None
    target, value = node.targets[0], node.value
    if not isinstance(target, ast.Name):
        return None
    if isinstance(value, ast.List) and not value.elts:
        return target.id, "list"
    if isinstance(value, ast.Dict) and not value.keys:
        return target.id, "dict"
    if (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Name)
        and value.func.id in ("list", "set", "dict")
        and not value.args
        and not value.keywords
    ):
        return target.id, value.func.id
    return None


def _fill(statement: ast.stmt, name: str, kind: str) -> str | None:
    """The comprehension element when ``statement`` only adds one item to ``name``."""
    if kind == "dict":
        if (
            isinstance(statement, ast.Assign)
            and len(statement.targets) == 1
            and isinstance(statement.targets[0], ast.Subscript)
            and isinstance(statement.targets[0].value, ast.Name)
            and statement.targets[0].value.id == name
        ):
            key = render(statement.targets[0].slice)
            return f"{key}: {render(statement.value)}"
        return None
    method = "append" if kind == "list" else "add"
    if (
        isinstance(statement, ast.Expr)
        and isinstance(statement.value, ast.Call)
        and isinstance(statement.value.func, ast.Attribute)
        and statement.value.func.attr == method
        and isinstance(statement.value.func.value, ast.Name)
        and statement.value.func.value.id == name
        and len(statement.value.args) == 1
        and not statement.value.keywords
        and not isinstance(statement.value.args[0], ast.Starred)
    ):
        return render(statement.value.args[0])
    return None


def _comprehension(stmt: Stmt, view: FunctionView) -> Move | None:
    node = stmt.node
    if not isinstance(node, ast.For) or node.orelse or len(node.body) != 1:
        return None
    fresh = _fresh_collection(stmt.previous_node())
    if fresh is None:
        return None
    name, kind = fresh
    inner = node.body[0]
    test: ast.expr | None = None
    if isinstance(inner, ast.If) and not inner.orelse and len(inner.body) == 1:
        test, inner = inner.test, inner.body[0]
    element = _fill(inner, name, kind)
    if element is None:
        return None
    # The collection must not be read while it fills (only the add itself).
    if sum(1 for _ in _name_loads(node, name)) != 1:
        return None
    if _inside_try(stmt):
        return None  # an error partway leaves a partial collection; a comprehension none
    target, source = _target(node.target), render(node.iter)
    clause = f" for {target} in {source}"
    if test is not None:
        clause += f" if {render(test)}"
    brackets = ("{", "}") if kind in ("set", "dict") else ("[", "]")
    built = snippet(f"{name} = {brackets[0]}{element}{clause}{brackets[1]}", 90)
    if test is None:
        copied = _copy_of(element, target, source, kind)
        if copied is not None:
            # `{k: v for k, v in d.items()}` copies: the constructor says so.
            built = snippet(f"{name} = {copied}", 90)
    start = node.lineno - 1 if stmt.index > 0 else node.lineno
    previous = stmt.previous_node()
    if previous is not None:
        start = previous.lineno
    span = (start, node.end_lineno or node.lineno)
    text = f"{lines(*span).capitalize()} fill `{name}` in a loop: {built} builds it in one step."
    levels = 2 if test is not None else 1
    gains = {Concern.NESTING: levels, Concern.SIZE: span[1] - span[0]}
    return Move("comprehension", UNCLASSIFIED, text, span, gains, priority=2)


def _copy_of(element: str, target: str, source: str, kind: str) -> str | None:
    """``list(xs)``, ``set(xs)`` or ``dict(d)`` where the comprehension would only copy."""
    if kind == "dict":
        key, _, value = element.partition(": ")
        if target in (f"{key}, {value}", f"({key}, {value})"):
            inner = source.removesuffix(".items()")
            return f"dict({inner})"
        return None
    if element == target:
        return f"{kind}({source})"
    return None


def _inside_try(stmt: Stmt) -> bool:
    """Whether ``stmt`` runs in the body of a ``try`` (whose handlers see what it did)."""
    inner, parent = stmt, stmt.parent
    while parent is not None:
        node = parent.node
        if isinstance(node, ast.Try | ast.TryStar) and inner.container is node.body:
            return True
        inner, parent = parent, parent.parent
    return False


def _name_loads(node: ast.AST, name: str) -> Iterator[ast.Name]:
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name) and sub.id == name and isinstance(sub.ctx, ast.Load):
            yield sub


# -- boolean expressions ---------------------------------------------------------------


def _runs(values: list[ast.expr], key: object) -> Iterator[list[ast.expr]]:
    """Maximal runs of adjacent operands sharing the same ``key(operand)`` (not None)."""
    assert callable(key)
    run: list[ast.expr] = []
    run_key: str | None = None
    for value in values:
        k = key(value)
        if k is not None and k == run_key:
            run.append(value)
            continue
        if len(run) >= 2:
            yield run
        run, run_key = ([value], k) if k is not None else ([], None)
    if len(run) >= 2:
        yield run


def _equality_subject(op: type[ast.cmpop]) -> object:
    def key(value: ast.expr) -> str | None:
        if (
            isinstance(value, ast.Compare)
            and len(value.ops) == 1
            and isinstance(value.ops[0], op)
            and isinstance(value.comparators[0], ast.Constant | ast.Name | ast.Attribute)
        ):
            return ast.dump(value.left)
        return None

    return key


def _isinstance_subject(value: ast.expr) -> str | None:
    if (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Name)
        and value.func.id == "isinstance"
        and len(value.args) == 2
        and not value.keywords
    ):
        return ast.dump(value.args[0])
    return None


def _boolean_moves(view: FunctionView) -> Iterator[Move]:
    for boolop in view.boolops:
        is_or = isinstance(boolop.op, ast.Or)
        op = ast.Eq if is_or else ast.NotEq
        word = "in" if is_or else "not in"
        for run in _runs(boolop.values, _equality_subject(op)):
            first = run[0]
            assert isinstance(first, ast.Compare)
            choices = ", ".join(render(v.comparators[0]) for v in run)  # type: ignore[attr-defined]
            merged = f"{render(first.left)} {word} ({choices})"
            joined = " or " if is_or else " and "
            original = joined.join(render(v) for v in run)
            text = (
                f"{code(ast.parse(original, mode='eval').body, 56)} on line {first.lineno} is "
                f"{snippet(merged)}: {plural(len(run) - 1, 'point')} less."
            )
            span = (first.lineno, first.end_lineno or first.lineno)
            yield Move(
                "membership", UNCLASSIFIED, text, span, {Concern.COMPLEXITY: len(run) - 1}, 4
            )
        if is_or:
            ternary = _and_or(boolop)
            if ternary is not None:
                yield ternary
            for run in _runs(boolop.values, _isinstance_subject):
                calls = [v for v in run if isinstance(v, ast.Call)]
                subject = render(calls[0].args[0])
                types = ", ".join(render(c.args[1]) for c in calls)
                text = (
                    f"The {len(calls)} `isinstance({subject}, …)` tests on line {calls[0].lineno} "
                    f"are one: `isinstance({subject}, ({types}))`, "
                    f"{plural(len(calls) - 1, 'point')} less."
                )
                span = (calls[0].lineno, calls[-1].end_lineno or calls[-1].lineno)
                gains = {Concern.COMPLEXITY: len(calls) - 1}
                yield Move("isinstance_tuple", UNCLASSIFIED, text, span, gains, 4)
        else:
            move = _tuple_compare(boolop)
            if move is not None:
                yield move


def _surely_true(node: ast.expr) -> bool:
    """A value that is always truthy: a non-empty literal, or a string built on one."""
    if isinstance(node, ast.Constant):
        return bool(node.value) and node.value is not Ellipsis
    if isinstance(node, ast.Tuple | ast.List | ast.Set) and node.elts:
        return True
    if isinstance(node, ast.Dict) and node.keys:
        return True
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return any(
            isinstance(side, ast.Constant) and isinstance(side.value, str) and side.value
            for side in (node.left, node.right)
        )
    return False


def _and_or(boolop: ast.BoolOp) -> Move | None:
    """``a and b or c`` with ``b`` always truthy is ``b if a else c``."""
    if len(boolop.values) != 2:
        return None
    first, other = boolop.values
    if not (isinstance(first, ast.BoolOp) and isinstance(first.op, ast.And)):
        return None
    if len(first.values) != 2 or not _surely_true(first.values[1]):
        return None
    test, value = first.values
    rewrite = ast.IfExp(test, value, other)
    text = (
        f"{code(boolop, 56)} on line {boolop.lineno} is a conditional expression: "
        f"{code(rewrite, 70)}, 1 point less."
    )
    span = (boolop.lineno, boolop.end_lineno or boolop.lineno)
    return Move("conditional", UNCLASSIFIED, text, span, {Concern.COMPLEXITY: 1}, 4)


def _field_pair(value: ast.expr) -> tuple[str, str, str] | None:
    if (
        isinstance(value, ast.Compare)
        and len(value.ops) == 1
        and isinstance(value.ops[0], ast.Eq)
        and isinstance(value.left, ast.Attribute)
        and isinstance(value.comparators[0], ast.Attribute)
        and isinstance(value.left.value, ast.Name)
        and isinstance(value.comparators[0].value, ast.Name)
        and value.left.attr == value.comparators[0].attr
    ):
        return value.left.value.id, value.comparators[0].value.id, value.left.attr
    return None


def _tuple_compare(boolop: ast.BoolOp) -> Move | None:
    pairs = [_field_pair(v) for v in boolop.values]
    if len(pairs) < 3 or any(p is None for p in pairs):
        return None
    known = [p for p in pairs if p is not None]
    if len({(a, b) for a, b, _ in known}) != 1:
        return None
    a, b, _ = known[0]
    fields = [f for _, _, f in known]
    left = ", ".join(f"{a}.{f}" for f in fields)
    right = ", ".join(f"{b}.{f}" for f in fields)
    text = (
        f"The `and` of {len(fields)} field comparisons on line {boolop.lineno} is one "
        f"tuple comparison: `({left}) == ({right})`"
    )
    if len(text) > 200:
        text = (
            f"The `and` of {len(fields)} `{a}.f == {b}.f` comparisons on line {boolop.lineno} "
            "is one tuple comparison"
        )
    text += f", {plural(len(fields) - 1, 'point')} less."
    span = (boolop.lineno, boolop.end_lineno or boolop.lineno)
    return Move("tuple_compare", UNCLASSIFIED, text, span, {Concern.COMPLEXITY: len(fields) - 1}, 4)


# -- returns, lookups, exceptions -----------------------------------------------------------


def _bool_return(stmt: Stmt) -> Move | None:
    node = stmt.node
    if not isinstance(node, ast.If) or stmt.is_elif or len(node.body) != 1:
        return None
    first = node.body[0]
    second: ast.stmt | None
    if node.orelse:
        if len(node.orelse) != 1:
            return None
        second = node.orelse[0]
    else:
        second = stmt.next_node()
    if not isinstance(first, ast.Return) or not isinstance(second, ast.Return):
        return None
    test = node.test
    if _const(first.value, True) and _const(second.value, False):
        result = test
    elif _const(first.value, False) and _const(second.value, True):
        result = negation(test)
    else:
        return None
    shown = render(result) if _is_boolean(result) else f"bool({render(result)})"
    span = (node.lineno, second.end_lineno or second.lineno)
    text = (
        f"{lines(*span).capitalize()} turn a test into True or False: "
        f"{snippet('return ' + shown, 76)} says it directly, 1 point less."
    )
    return Move("bool_return", UNCLASSIFIED, text, span, {Concern.COMPLEXITY: 1}, 4)


def _membership_test(test: ast.expr) -> tuple[ast.expr, ast.expr] | None:
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.In):
        return test.left, test.comparators[0]
    return None


def _reads_key(node: ast.expr | None, key: ast.expr, mapping: ast.expr) -> bool:
    return isinstance(node, ast.Subscript) and _same(node.value, mapping) and _same(node.slice, key)


def _dict_get(stmt: Stmt) -> Move | None:
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
            if not _reads_key(first.value, key, mapping):
                return None
            default = render(second.value) if second.value else "None"
            result = f"return {render(mapping)}.get({render(key)}, {default})"
        elif (
            isinstance(first, ast.Assign)
            and isinstance(second, ast.Assign)
            and len(first.targets) == len(second.targets) == 1
            and isinstance(first.targets[0], ast.Name)
            and _same(first.targets[0], second.targets[0])
            and _reads_key(first.value, key, mapping)
        ):
            default = render(second.value)
            target = first.targets[0].id
            result = f"{target} = {render(mapping)}.get({render(key)}, {default})"
        else:
            return None
        span = (node.lineno, second.end_lineno or second.lineno)
        shown = code(ast.parse(result).body[0], 80)
        text = f"{lines(*span).capitalize()} look a key up or fall back: {shown}, 1 point less."
        return Move("dict_get", UNCLASSIFIED, text, span, {Concern.COMPLEXITY: 1}, 4)
    return None


def _ignored_exception(node: ast.stmt) -> str | None:
    """The exception a ``try`` ignores when it is ``try: ... except E: pass`` and nothing else."""
    if not isinstance(node, ast.Try) or node.orelse or node.finalbody or len(node.handlers) != 1:
        return None
    handler = node.handlers[0]
    if handler.type is None or handler.name is not None:
        return None
    if all(
        isinstance(s, ast.Pass) or (isinstance(s, ast.Expr) and _const(s.value, Ellipsis))
        for s in handler.body
    ):
        types = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
        return ", ".join(render(t) for t in types)
    return None


def _same_handlers(stmt: Stmt) -> Move | None:
    """Adjacent ``except`` clauses with the same body: one clause with a tuple of types."""
    node = stmt.node
    if not isinstance(node, ast.Try | ast.TryStar):
        return None
    handlers = node.handlers
    for first, second in pairwise(handlers):
        if first.type is None or second.type is None or first.name != second.name:
            continue
        if ast.dump(ast.Module(first.body, [])) != ast.dump(ast.Module(second.body, [])):
            continue
        types = [
            *(first.type.elts if isinstance(first.type, ast.Tuple) else [first.type]),
            *(second.type.elts if isinstance(second.type, ast.Tuple) else [second.type]),
        ]
        joined = snippet(f"except ({', '.join(render(t) for t in types)}):", 70)
        text = (
            f"The `except` clauses on lines {first.lineno} and {second.lineno} do the same: "
            f"{joined} says it once"
        )
        gained = {Concern.SIZE: _body_lines(second.body) + 1}
        if isinstance(node, ast.Try):  # radon counts each handler of a plain try
            text += ", 1 point less"
            gained[Concern.COMPLEXITY] = 1
        span = (first.lineno, second.end_lineno or second.lineno)
        return Move("same_handlers", UNCLASSIFIED, text + ".", span, gained, 4)
    return None


def suppress_moves(view: FunctionView) -> Iterator[Move]:
    """One move for all ``try``/``except E: pass`` blocks of the function."""
    found = [(s, e) for s in view.statements if (e := _ignored_exception(s.node)) is not None]
    if not found:
        return
    first, exception = found[0]
    at = ", ".join(str(s.line) for s, _ in found[:4])
    if len(found) == 1:
        text = (
            f"The `try` at {lines(*_span(first))} only ignores {snippet(exception, 48)}: "
            f"{snippet(f'with contextlib.suppress({exception}):', 60)} says so, 1 point less."
        )
    else:
        text = (
            f"The {len(found)} `try`/`except …: pass` blocks (lines {at}) only ignore errors: "
            f"`with contextlib.suppress(…):` says so, {len(found)} points less."
        )
    span = (first.line, found[-1][0].end_line)
    gains = {Concern.COMPLEXITY: len(found), Concern.SIZE: 2 * len(found)}
    yield Move("suppress", UNCLASSIFIED, text, span, gains, 4)


# -- nesting --------------------------------------------------------------------------------


def _merge_ifs(stmt: Stmt, view: FunctionView) -> Move | None:
    """An ``if`` (or the last ``elif``) whose whole body is an ``if``, neither with an else."""
    node = stmt.node
    if not isinstance(node, ast.If) or node.orelse or len(node.body) != 1:
        return None
    inner = node.body[0]
    if not isinstance(inner, ast.If) or inner.orelse:
        return None
    keyword = "elif" if stmt.is_elif else "if"
    test = ast.BoolOp(ast.And(), [node.test, inner.test])
    merged = snippet(f"{keyword} {render(test)}:", 76)
    text = (
        f"The `{keyword}` on line {node.lineno} holds only the `if` on line {inner.lineno}: "
        f"{merged} is one test and one level less."
    )
    span = (node.lineno, inner.lineno)
    archetype = ARROWHEAD if view.is_arrowhead() else UNCLASSIFIED
    region = (inner.lineno, inner.end_lineno or inner.lineno)
    return Move("merge_ifs", archetype, text, span, {Concern.NESTING: 1}, 3, region)


def _case_shape(node: ast.If) -> object:
    """An ``if`` of a run of cases: its test and body, values left out."""
    return (shape(node.test), tuple(shape(s) for s in node.body))


def repeated_ifs(view: FunctionView) -> Iterator[Move]:
    """Three or more ``if`` statements in a row whose bodies do the same thing with
    other values (a message, a key, a type): a table of those values and one ``if``
    in a loop say it once."""
    for block in _blocks_of(view):
        run: list[ast.If] = []
        for node in [*block, None]:
            case = _small_if(node)
            if case is not None and (not run or _case_shape(case) == _case_shape(run[0])):
                run.append(case)
                continue
            lengths = [(c.end_lineno or c.lineno) - c.lineno + 1 for c in run]
            # Two cases make a helper only when they are near copies (the helper's
            # parameters are what differs); three or more make a table anyway.
            pair = (
                len(run) == 2
                and min(lengths) >= BLOCK_REPEAT_LINES
                and differences(run[0], run[1]) is not None
            )
            if len(run) >= REPEATS or pair:
                first, last = run[0], run[-1]
                span = (first.lineno, last.end_lineno or last.lineno)
                if len(run) == 2:
                    text = (
                        f"The `if`s at {lines(first.lineno, first.end_lineno or 0)} and "
                        f"{lines(last.lineno, span[1])} do the same thing with other values: "
                        "one helper, called for each, says it once."
                    )
                else:
                    text = (
                        f"The {len(run)} `if`s at {lines(*span)} do the same thing with other "
                        "values: a table of those values and one `if` in a loop say it once."
                    )
                archetype = SWITCH if _one_subject_by_type(run) else UNCLASSIFIED
                gains = {Concern.SIZE: span[1] - span[0] + 1 - len(run) - 3}
                yield Move("table_of_cases", archetype, text, span, gains, 3)
            run = [case] if case is not None else []


def _one_subject_by_type(run: list[ast.If]) -> bool:
    """Whether every test is ``isinstance`` of the same subject."""
    subjects = set()
    for case in run:
        test = case.test
        if not (
            isinstance(test, ast.Call)
            and isinstance(test.func, ast.Name)
            and test.func.id == "isinstance"
            and len(test.args) == 2
        ):
            return False
        subjects.add(ast.dump(test.args[0]))
    return len(subjects) == 1


def _small_if(node: ast.stmt | None) -> ast.If | None:
    """An ``if`` without ``else`` of one or two statements: a case a table can hold."""
    if isinstance(node, ast.If) and not node.orelse and len(node.body) <= 2:
        return node
    return None


def _blocks_of(view: FunctionView) -> Iterator[list[ast.stmt]]:
    yield view.node.body
    seen: set[int] = set()
    for stmt in view.statements:
        if id(stmt.container) not in seen:
            seen.add(id(stmt.container))
            if stmt.container is not view.node.body:
                yield stmt.container


def _fails(body: list[ast.stmt]) -> bool:
    """Whether a block ends by raising or exiting the program."""
    last = body[-1]
    if isinstance(last, ast.Raise):
        return True
    call = last.value if isinstance(last, ast.Expr) else None
    if isinstance(call, ast.Call):
        func = call.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        return name in ("exit", "_exit", "abort", "fail")
    return False


def _else_after_return(stmt: Stmt) -> Move | None:
    """``if c: ... return x`` with an ``else`` of several statements: the else's body can
    move out a level (the ``if`` branch never falls through to it)."""
    node = stmt.node
    if not isinstance(node, ast.If) or stmt.is_elif or not node.orelse:
        return None
    if not isinstance(node.body[-1], ast.Return | ast.Raise | ast.Continue | ast.Break):
        return None
    orelse = node.orelse
    if len(orelse) == 1 and isinstance(orelse[0], ast.If):
        return None  # an elif: a chain of cases reads well as one
    if not any(_compound(s) for s in orelse):
        return None
    if len(orelse) < 2 and code_lines(orelse) < NO_ELSE_LINES:
        return None  # one short statement under the else reads as well as beside it
    leaves = type(node.body[-1]).__name__.lower()
    inner = lines(orelse[0].lineno, orelse[-1].end_lineno or orelse[-1].lineno)
    text = (
        f"The `if` on line {node.lineno} ends in a `{leaves}`, so its `else` is not needed: "
        f"{inner} can move out a level."
    )
    return Move("no_else", UNCLASSIFIED, text, _span(stmt), {Concern.NESTING: 1}, 2)


def _guard_before_return(stmt: Stmt, view: FunctionView) -> Move | None:
    """``if c: <work>; return x`` then a final ``return y``: ``if not c: return y`` first."""
    node = stmt.node
    if not isinstance(node, ast.If) or stmt.is_elif or node.orelse or stmt.parent is not None:
        return None
    after = stmt.next_node()
    if not isinstance(after, ast.Return) or stmt.index + 2 != len(stmt.container):
        return None
    if not isinstance(node.body[-1], ast.Return) or not any(_compound(s) for s in node.body):
        return None  # work that falls through to the final return is clear as it is
    if code_lines(node.body) < GUARD_LINES:
        return None
    guard = ast.If(negation(node.test), [after], [])
    inner = lines(node.body[0].lineno, node.body[-1].end_lineno or node.body[-1].lineno)
    text = (
        f"The `if` on line {node.lineno} wraps the function's work and the last line returns "
        f"the other case: {code(guard, 60)} first lets {inner} move out a level."
    )
    span = (node.lineno, after.end_lineno or after.lineno)
    return Move("return_guard", ARROWHEAD, text, span, {Concern.NESTING: 1}, 2)


def _jumps(statements: list[ast.stmt]) -> bool:
    """Whether any of ``statements`` holds a return, yield, break or continue."""
    return any(
        isinstance(n, ast.Return | ast.Yield | ast.YieldFrom | ast.Break | ast.Continue)
        for s in statements
        for n in ast.walk(s)
    )


def _compound(node: ast.stmt) -> bool:
    return isinstance(
        node, ast.If | ast.For | ast.AsyncFor | ast.While | ast.Try | ast.With | ast.Match
    )


def _wrapping_guard(stmt: Stmt, view: FunctionView) -> Move | None:
    """The last statement of a loop body or of the function is an ``if`` that wraps it."""
    node = stmt.node
    if not isinstance(node, ast.If) or stmt.is_elif or stmt.next_node() is not None:
        return None
    parent = stmt.parent
    in_loop = parent is not None and isinstance(parent.node, ast.For | ast.AsyncFor | ast.While)
    if in_loop:
        assert parent is not None
        if stmt.container is not parent.node.body:  # type: ignore[attr-defined]
            return None
    elif parent is not None:
        return None
    body_lines = code_lines(node.body)
    if not any(_compound(s) for s in node.body) or body_lines < GUARD_LINES:
        return None  # flattening a few plain lines by a level changes little
    if not node.orelse:
        if not in_loop and (body_lines * 2 < code_lines(view.node.body) or _fails(node.body)):
            return None  # not the main path: an error exit reads better where it is
        guard = ast.If(negation(node.test), [ast.Continue() if in_loop else ast.Return()], [])
        where = "loop body" if in_loop else "function"
        inner = lines(node.body[0].lineno, node.body[-1].end_lineno or 0)
        text = (
            f"The `if` on line {node.lineno} wraps the rest of the {where}: starting with "
            f"{code(guard, 60)} lets {inner} move out a level."
        )
        kind = "continue_guard" if in_loop else "return_guard"
        return Move(kind, ARROWHEAD, text, _span(stmt), {Concern.NESTING: 1}, 2)
    # An else that only leaves: handle it first.
    orelse = node.orelse
    if len(orelse) > 2 or isinstance(orelse[0], ast.If):
        return None
    last = orelse[-1]
    if body_lines < 3 or code_lines(orelse) * 2 > body_lines:
        return None
    if not isinstance(last, ast.Return | ast.Raise | ast.Continue | ast.Break):
        if in_loop or len(orelse) > 1 or code_lines(orelse) > 1 or _jumps(orelse):
            return None  # two cases of some size each read well side by side
        # The function ends with this if: its short else can go first and return.
        test = code(negation(node.test), 50)
        inner = lines(node.body[0].lineno, node.body[-1].end_lineno or 0)
        text = (
            f"The `else` of the `if` on line {node.lineno} is the short case: put it first, "
            f"under {test} and followed by `return`, and {inner} move out a level."
        )
        return Move("else_guard", ARROWHEAD, text, _span(stmt), {Concern.NESTING: 1}, 2)
    word = type(last).__name__.lower()
    test = code(negation(node.test), 50)
    inner = lines(node.body[0].lineno, node.body[-1].end_lineno or 0)
    text = (
        f"The `else` of the `if` on line {node.lineno} only does a `{word}`: put it first, "
        f"under {test}, and {inner} move out a level."
    )
    return Move("else_guard", ARROWHEAD, text, _span(stmt), {Concern.NESTING: 1}, 2)


def _else_if(stmt: Stmt, view: FunctionView) -> Move | None:
    """``else:`` whose whole body is an ``if``: that is an ``elif``."""
    node = stmt.node
    if not isinstance(node, ast.If) or len(node.orelse) != 1:
        return None
    inner = node.orelse[0]
    if not isinstance(inner, ast.If) or inner.col_offset == node.col_offset:
        return None  # already an elif
    text = (
        f"The `else` of the `if` on line {node.lineno} holds only the `if` on line "
        f"{inner.lineno}: making it an `elif` takes a level away."
    )
    archetype = ARROWHEAD if view.is_arrowhead() else UNCLASSIFIED
    span = (node.lineno, inner.lineno)
    region = (inner.lineno, inner.end_lineno or inner.lineno)
    return Move("else_if", archetype, text, span, {Concern.NESTING: 1}, 3, region)


def _first_match(stmt: Stmt, view: FunctionView) -> Move | None:
    """``for x in xs: if t: ...; break`` (nothing else in the loop): ``if any(t ...):``."""
    node = stmt.node
    if not isinstance(node, ast.For) or node.orelse or len(node.body) != 1:
        return None
    inner = node.body[0]
    if not isinstance(inner, ast.If) or inner.orelse or len(inner.body) < 2:
        return None
    if not isinstance(inner.body[-1], ast.Break):
        return None
    targets = {n.id for n in ast.walk(node.target) if isinstance(n, ast.Name)}
    action = inner.body[:-1]
    if any(isinstance(n, ast.Name) and n.id in targets for a in action for n in ast.walk(a)):
        return None  # the action uses the match itself: that is next(), not any()
    test = f"any({render(inner.test)} for {_target(node.target)} in {render(node.iter)})"
    text = (
        f"The loop at {lines(node.lineno, node.end_lineno or node.lineno)} only looks for a "
        f"match before acting once: {snippet('if ' + test + ':', 80)} says so, a level less."
    )
    archetype = ARROWHEAD if view.is_arrowhead() else UNCLASSIFIED
    return Move("any", archetype, text, _span(stmt), {Concern.NESTING: 1}, 3)


def _same_arms(stmt: Stmt) -> Move | None:
    node = stmt.node
    if not isinstance(node, ast.If) or stmt.is_elif:
        return None
    arms: list[ast.If] = [node]
    while len(arms[-1].orelse) == 1 and isinstance(arms[-1].orelse[0], ast.If):
        arms.append(arms[-1].orelse[0])
    if len(arms) < 2:
        return None
    for a, b in pairwise(arms):
        # Cheap tests first: most adjacent arms differ in shape or size.
        if [type(x) for x in a.body] != [type(x) for x in b.body]:
            continue
        if _body_lines(a.body) != _body_lines(b.body):
            continue
        if ast.dump(ast.Module(a.body, [])) == ast.dump(ast.Module(b.body, [])):
            text = (
                f"The arms on lines {a.lineno} and {b.lineno} run the same code: "
                f"join their tests with `or` and write it once."
            )
            gains = {Concern.SIZE: _body_lines(b.body) + 1}
            span = (a.lineno, b.end_lineno or b.lineno)
            return Move("same_arms", UNCLASSIFIED, text, span, gains, 3)
    return None


def _setdefault(stmt: Stmt) -> Move | None:
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
        and _reads_key(present.value.func.value, key, mapping)
        and len(present.value.args) == 1
    ):
        return None
    if not (
        isinstance(absent, ast.Assign)
        and len(absent.targets) == 1
        and _reads_key(absent.targets[0], key, mapping)
        and isinstance(absent.value, ast.List)
        and len(absent.value.elts) == 1
    ):
        return None
    rewrite = (
        f"{render(mapping)}.setdefault({render(key)}, []).append({render(present.value.args[0])})"
    )
    text = (
        f"The `if`/`else` at {lines(*_span(stmt))} starts or extends a list: "
        f"{snippet(rewrite, 70)} (or a `defaultdict(list)`) does both."
    )
    gains = {Concern.COMPLEXITY: 1, Concern.NESTING: 1, Concern.SIZE: 3}
    return Move("setdefault", UNCLASSIFIED, text, _span(stmt), gains, 4)


def _make_then_use(stmt: Stmt) -> Move | None:
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
        and _reads_key(made.targets[0], key, mapping)
        and _plain_default(made.value)
    ):
        return None
    gains = {Concern.COMPLEXITY: 1, Concern.NESTING: 1, Concern.SIZE: 1}
    call = ast.Call(
        ast.Attribute(mapping, "setdefault", ast.Load()), [key, made.value], keywords=[]
    )
    start, end = _span(stmt)
    used = stmt.next_node()
    rewrite = _in_place_of(used, key, mapping, call) if used is not None else None
    if used is None or rewrite is None:
        makes = f"Line {start} makes" if start == end else f"Lines {start}-{end} make"
        text = (
            f"{makes} the entry when it is missing: "
            f"{snippet(render(call), 70)} does the same in one statement, 1 point less."
        )
        return Move("setdefault", UNCLASSIFIED, text, (start, end), gains, 4)
    span = (start, used.end_lineno or used.lineno)
    text = (
        f"{lines(*span).capitalize()} make the entry when it is missing, then use it: "
        f"{snippet(render(rewrite), 70)} does both, 1 point less."
    )
    return Move("setdefault", UNCLASSIFIED, text, span, {**gains, Concern.SIZE: 2}, 4)


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
                if _reads_key(child, key, mapping):
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


def _breaks(statements: list[ast.stmt]) -> bool:
    """Whether a ``break`` in ``statements`` ends the loop they are the body of (a
    nested loop's own body breaks that loop; its ``else`` breaks this one)."""
    pending = list(statements)
    while pending:
        node = pending.pop()
        if isinstance(node, ast.Break):
            return True
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            continue
        if isinstance(node, ast.For | ast.AsyncFor | ast.While):
            pending.extend(node.orelse)
            continue
        for field in ("body", "orelse", "finalbody"):
            pending.extend(getattr(node, field, ()))
        for part in (*getattr(node, "handlers", ()), *getattr(node, "cases", ())):
            pending.extend(part.body)
    return False


def _loop_else_without_break(stmt: Stmt, view: FunctionView) -> Move | None:
    """A loop ``else`` with no ``break`` to skip it: it always runs."""
    node = stmt.node
    if not isinstance(node, ast.For | ast.AsyncFor | ast.While) or not node.orelse:
        return None
    if _breaks(node.body):
        return None
    body_end = node.body[-1].end_lineno or node.body[-1].lineno
    else_line = next(
        (
            p.line
            for p in view.points
            if p.kind == "loop_else" and body_end <= p.line <= node.orelse[0].lineno
        ),
        node.orelse[0].lineno,
    )
    loop = "`for`" if isinstance(node, ast.For | ast.AsyncFor) else "`while`"
    text = (
        f"The {loop} loop on line {node.lineno} has no `break`, so its `else` (line "
        f"{else_line}) always runs: drop the `else:` and unindent its body, 1 point less."
    )
    gains = {Concern.COMPLEXITY: 1, Concern.SIZE: 1}
    return Move("loop_else", UNCLASSIFIED, text, (node.lineno, else_line), gains, 3)


def _walrus_loop(stmt: Stmt) -> Move | None:
    """``while True: x = f(); if not x: break; ...``: ``while x := f():``."""
    node = stmt.node
    if not (
        isinstance(node, ast.While)
        and not node.orelse
        and isinstance(node.test, ast.Constant)
        and node.test.value in (True, 1)
        and len(node.body) >= 3
    ):
        return None
    made, leave = node.body[0], node.body[1]
    if not (
        isinstance(made, ast.Assign)
        and len(made.targets) == 1
        and isinstance(made.targets[0], ast.Name)
        and isinstance(leave, ast.If)
        and not leave.orelse
        and len(leave.body) == 1
        and isinstance(leave.body[0], ast.Break)
    ):
        return None
    name = made.targets[0].id
    test = leave.test
    walrus = ast.NamedExpr(ast.Name(name, ast.Store()), made.value)
    if (
        isinstance(test, ast.UnaryOp)
        and isinstance(test.op, ast.Not)
        and isinstance(test.operand, ast.Name)
        and test.operand.id == name
    ):
        header: ast.expr = walrus
    elif (
        isinstance(test, ast.Compare)
        and isinstance(test.left, ast.Name)
        and test.left.id == name
        and len(test.ops) == 1
        and isinstance(test.ops[0], ast.Is)
        and _const(test.comparators[0], None)
    ):
        header = ast.Compare(walrus, [ast.IsNot()], [ast.Constant(None)])
    else:
        return None
    rendered = render(header)
    if header is walrus:
        rendered = rendered.removeprefix("(").removesuffix(")")
    text = (
        f"Lines {node.lineno}-{leave.end_lineno} read a value and stop when there is none: "
        f"`while {rendered}:` does both, 1 point less."
    )
    gains = {Concern.COMPLEXITY: 1, Concern.NESTING: 1, Concern.SIZE: 2}
    return Move("walrus_loop", UNCLASSIFIED, text, (node.lineno, leave.end_lineno or 0), gains, 4)


def _membership_else(stmt: Stmt, view: FunctionView) -> Move | None:
    """``for x in xs: if x == v: break`` with an ``else``: ``if v not in xs:`` and
    the ``else`` body."""
    node = stmt.node
    if not isinstance(node, ast.For) or not node.orelse or len(node.body) != 1:
        return None
    inner = node.body[0]
    if not (
        isinstance(inner, ast.If)
        and not inner.orelse
        and len(inner.body) == 1
        and isinstance(inner.body[0], ast.Break)
        and isinstance(node.target, ast.Name)
    ):
        return None
    test = inner.test
    if not (
        isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)
    ):
        return None
    name = node.target.id
    sides = [test.left, test.comparators[0]]
    loop_side = [n for n in sides if isinstance(n, ast.Name) and n.id == name]
    if len(loop_side) != 1:
        return None
    (value,) = [n for n in sides if n is not loop_side[0]]
    if any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(value)):
        return None
    end = (node.end_lineno or node.lineno, node.end_col_offset or 0)
    if any(p > end for p in view.loads.get(name, ())):
        return None  # the loop's variable is read after it: the loop also sets it
    rewrite = ast.Compare(value, [ast.NotIn()], [node.iter])
    else_line = next(
        (p.line for p in view.points if p.kind == "loop_else" and node.lineno < p.line),
        node.orelse[0].lineno,
    )
    text = (
        f"The loop on line {node.lineno} only tests membership: `if {render(rewrite)}:` "
        f"with its `else` body (line {else_line}) does the same, 2 points less."
    )
    gains = {Concern.COMPLEXITY: 2, Concern.NESTING: 1, Concern.SIZE: 2}
    return Move("membership_else", UNCLASSIFIED, text, (node.lineno, else_line), gains, 4)


def idiom_moves(view: FunctionView) -> list[Move]:
    """Every idiom of this list that matches somewhere in the function."""
    found: list[Move] = []
    for stmt in view.statements:
        node = stmt.node
        if isinstance(node, ast.For | ast.AsyncFor | ast.While):
            useless_else = _loop_else_without_break(stmt, view)
            if useless_else is not None:
                found.append(useless_else)
            walrus = _walrus_loop(stmt)
            if walrus is not None:
                found.append(walrus)
        if isinstance(node, ast.For):
            for move in (
                _search(stmt),
                _comprehension(stmt, view),
                _first_match(stmt, view),
                _membership_else(stmt, view),
            ):
                if move is not None:
                    found.append(move)
        elif isinstance(node, ast.Try | ast.TryStar):
            handlers = _same_handlers(stmt)
            if handlers is not None:
                found.append(handlers)
        elif isinstance(node, ast.If):
            for move in (
                _bool_return(stmt),
                _dict_get(stmt),
                _merge_ifs(stmt, view),
                _wrapping_guard(stmt, view),
                _same_arms(stmt),
                _else_if(stmt, view),
                _setdefault(stmt),
                _make_then_use(stmt),
                _else_after_return(stmt),
                _guard_before_return(stmt, view),
            ):
                if move is not None:
                    found.append(move)
    found.extend(_boolean_moves(view))
    found.extend(suppress_moves(view))
    found.extend(repeated_ifs(view))
    return found
