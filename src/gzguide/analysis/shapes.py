"""Shape detectors: what a function, class or module looks like, with the evidence.

Each detector looks at one definition (and, for data clumps, at its neighbours in
the file) and returns an :class:`Evidence` when the shape is there, or None. The
evidence names the constructs, lines and identifiers involved, so that advice can
point at them. Detectors never descend into nested functions or classes: those are
measured, classified and advised on their own.

Which detector decides which archetype, in which order and with which parameters,
is data: see ``gzguide/data/archetype-rules.json`` and :mod:`gzguide.analysis.archetypes`.
"""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field

from gzguide.analysis.scopes import FunctionNode, Scope

_NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
_CONTROL = (
    ast.If,
    ast.For,
    ast.AsyncFor,
    ast.While,
    ast.Try,
    ast.TryStar,
    ast.With,
    ast.AsyncWith,
    ast.Match,
)
#: Attribute or key names that hold a discriminating tag.
TAG_NAMES = frozenset({"type", "kind", "tag", "variant", "op", "opcode", "category", "__class__"})
PRIMITIVES = frozenset({"str", "int", "float", "bool", "bytes"})


@dataclass(frozen=True, slots=True)
class Evidence:
    """What a detector found: a summary, the lines it concerns, the names involved."""

    summary: str
    lines: tuple[int, ...] = ()
    names: tuple[str, ...] = ()
    #: Other definitions involved (e.g. functions sharing a parameter clump).
    related: tuple[str, ...] = ()
    extra: dict[str, object] = field(default_factory=dict)


def own_nodes(roots: list[ast.stmt] | list[ast.AST]) -> Iterator[ast.AST]:
    """Every node under ``roots``, not descending into nested definitions."""
    stack: list[ast.AST] = list(reversed(roots))
    while stack:
        node = stack.pop()
        yield node
        stack.extend(c for c in ast.iter_child_nodes(node) if not isinstance(c, _NESTED))


def _text(node: ast.AST, limit: int = 60) -> str:
    try:
        text = ast.unparse(node)
    except (ValueError, RecursionError):
        return "…"
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _label(node: ast.AST) -> str:
    if isinstance(node, ast.If):
        return "if"
    if isinstance(node, ast.For | ast.AsyncFor):
        return "for"
    if isinstance(node, ast.While):
        return "while"
    if isinstance(node, ast.Try | ast.TryStar):
        return "try"
    if isinstance(node, ast.With | ast.AsyncWith):
        return "with"
    return "match"


def parameter_names(node: FunctionNode) -> list[str]:
    """Declared parameter names, in order, ``*args`` and ``**kwargs`` included."""
    args = node.args
    names = [a.arg for a in (*args.posonlyargs, *args.args)]
    if args.vararg:
        names.append(args.vararg.arg)
    names.extend(a.arg for a in args.kwonlyargs)
    if args.kwarg:
        names.append(args.kwarg.arg)
    return names


def own_parameters(scope: Scope) -> list[str]:
    """Parameters a caller passes: without a method's ``self`` or ``cls``."""
    assert not isinstance(scope.node, ast.ClassDef)
    names = parameter_names(scope.node)
    if scope.owner is not None and names and names[0] in ("self", "cls"):
        is_static = any(
            isinstance(d, ast.Name) and d.id == "staticmethod" for d in scope.node.decorator_list
        )
        if not is_static:
            names = names[1:]
    return names


# -- nesting ---------------------------------------------------------------------------


def deepest_nesting(body: list[ast.stmt]) -> list[ast.stmt]:
    """The longest chain of control-flow statements nested in one another.

    An ``elif`` continues its ``if`` rather than nesting in it.
    """
    best: list[ast.stmt] = []

    def walk(statements: list[ast.stmt], chain: list[ast.stmt]) -> None:
        nonlocal best
        for statement in statements:
            if isinstance(statement, _NESTED):
                continue
            if isinstance(statement, _CONTROL):
                here = [*chain, statement]
                if len(here) > len(best):
                    best = here
                for block in _blocks(statement):
                    walk(block, here)
            # Simple statements hold no nested statements.

    walk(body, [])
    return best


def _blocks(statement: ast.stmt) -> Iterator[list[ast.stmt]]:
    if isinstance(statement, ast.If):
        yield statement.body
        orelse = statement.orelse
        # elif: its arms are at the same depth as the if's own body
        while len(orelse) == 1 and isinstance(orelse[0], ast.If):
            yield orelse[0].body
            orelse = orelse[0].orelse
        yield orelse
    elif isinstance(statement, ast.Try | ast.TryStar):
        yield statement.body
        for handler in statement.handlers:
            yield handler.body
        yield statement.orelse
        yield statement.finalbody
    elif isinstance(statement, ast.Match):
        for case in statement.cases:
            yield case.body
    elif isinstance(statement, ast.For | ast.AsyncFor | ast.While):
        yield statement.body
        yield statement.orelse
    elif isinstance(statement, ast.With | ast.AsyncWith):
        yield statement.body


def nesting(scope: Scope, min_depth: int) -> Evidence | None:
    chain = deepest_nesting(scope.node.body)
    if len(chain) < min_depth:
        return None
    path = " > ".join(f"{_label(s)} (line {s.lineno})" for s in chain)
    inner = chain[-1]
    return Evidence(
        summary=f"control flow nested {len(chain)} deep: {path}",
        lines=tuple(s.lineno for s in chain),
        extra={"depth": len(chain), "inner": (inner.lineno, inner.end_lineno or inner.lineno)},
    )


# -- dispatch on type or tag -------------------------------------------------------------


def _dispatch_subject(test: ast.expr) -> tuple[str, str] | None:
    """(subject, what it is tested for) when ``test`` checks a type, class or tag."""
    if isinstance(test, ast.BoolOp) and test.values:
        return _dispatch_subject(test.values[0])
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return _dispatch_subject(test.operand)
    if (
        isinstance(test, ast.Call)
        and isinstance(test.func, ast.Name)
        and test.func.id in ("isinstance", "issubclass")
        and len(test.args) == 2
    ):
        return _text(test.args[0]), _text(test.args[1], 30)
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        left, right = test.left, test.comparators[0]
        if not isinstance(test.ops[0], ast.Eq | ast.Is | ast.In | ast.NotEq | ast.IsNot):
            return None
        for subject, value in ((left, right), (right, left)):
            if (
                isinstance(subject, ast.Call)
                and isinstance(subject.func, ast.Name)
                and subject.func.id == "type"
                and len(subject.args) == 1
            ):
                return f"type({_text(subject.args[0])})", _text(value, 30)
            if isinstance(subject, ast.Attribute) and subject.attr in TAG_NAMES:
                return _text(subject), _text(value, 30)
            if (
                isinstance(subject, ast.Subscript)
                and isinstance(subject.slice, ast.Constant)
                and subject.slice.value in TAG_NAMES
            ):
                return _text(subject), _text(value, 30)
    return None


def _if_chains(body: list[ast.stmt]) -> Iterator[list[ast.If]]:
    """Every if/elif chain (outermost ``if`` first), not counting an elif twice."""
    for node in own_nodes(body):
        if isinstance(node, ast.If):
            chain = [node]
            while len(chain[-1].orelse) == 1 and isinstance(chain[-1].orelse[0], ast.If):
                chain.append(chain[-1].orelse[0])
            yield chain


def type_dispatch(scope: Scope, min_arms: int) -> Evidence | None:
    elifs: set[int] = set()
    best: Evidence | None = None
    for chain in _if_chains(scope.node.body):
        if id(chain[0]) in elifs:
            continue
        elifs.update(id(arm) for arm in chain[1:])
        subjects = [_dispatch_subject(arm.test) for arm in chain]
        counts = Counter(s[0] for s in subjects if s is not None)
        if not counts:
            continue
        subject, arms = counts.most_common(1)[0]
        if arms >= min_arms and (best is None or arms > int(str(best.extra["arms"]))):
            kinds = ", ".join([s[1] for s in subjects if s is not None and s[0] == subject][:5])
            best = Evidence(
                summary=f"an if/elif chain on `{subject}` with {arms} arms ({kinds})",
                lines=tuple(arm.lineno for arm in chain),
                names=(subject,),
                extra={"arms": arms, "span": (chain[0].lineno, chain[0].end_lineno or 0)},
            )
    for node in own_nodes(scope.node.body):
        if isinstance(node, ast.Match):
            classes = [c for c in node.cases if isinstance(c.pattern, ast.MatchClass)]
            subject = _text(node.subject)
            tagged = isinstance(node.subject, ast.Attribute) and node.subject.attr in TAG_NAMES
            arms = len(classes) if classes else (len(node.cases) if tagged else 0)
            if arms >= min_arms and (best is None or arms > int(str(best.extra["arms"]))):
                best = Evidence(
                    summary=f"a match on `{subject}` with {arms} type or tag cases",
                    lines=tuple(c.pattern.lineno for c in node.cases),
                    names=(subject,),
                    extra={"arms": arms, "span": (node.lineno, node.end_lineno or 0)},
                )
    return best


# -- parameters ------------------------------------------------------------------------


def parameters(scope: Scope, min_count: int) -> Evidence | None:
    names = own_parameters(scope)
    if len(names) < min_count:
        return None
    return Evidence(
        summary=f"{len(names)} parameters ({', '.join(names)})",
        lines=(scope.start_line,),
        names=tuple(names),
    )


def data_clump(
    scope: Scope, functions: list[Scope], min_names: int, min_functions: int
) -> Evidence | None:
    """The same ``min_names``+ parameter names in ``min_functions``+ functions of the file."""
    mine = set(own_parameters(scope)) - {"args", "kwargs"}
    if len(mine) < min_names:
        return None
    shared: list[tuple[frozenset[str], Scope]] = []
    for other in functions:
        if other is scope:
            continue
        common = frozenset(mine.intersection(own_parameters(other)))
        if len(common) >= min_names:
            shared.append((common, other))
    # The clump: the largest name set that enough of the other functions all carry.
    best: tuple[frozenset[str], list[Scope]] | None = None
    for candidate, _ in shared:
        carriers = [other for common, other in shared if candidate <= common]
        if len(carriers) + 1 < min_functions:
            continue
        if best is None or (len(candidate), len(carriers)) > (len(best[0]), len(best[1])):
            best = (candidate, carriers)
    if best is None:
        return None
    names, carriers = best
    ordered = tuple(n for n in own_parameters(scope) if n in names)
    related = tuple(f"`{c.qualname}` (line {c.start_line})" for c in carriers)
    return Evidence(
        summary=f"parameters {', '.join(ordered)} also travel together through "
        + ", ".join(related),
        lines=(scope.start_line, *(c.start_line for c in carriers)),
        names=ordered,
        related=related,
    )


def primitives(scope: Scope, min_params: int, min_literals: int) -> Evidence | None:
    """Primitive-typed parameters, or one value compared against many literal codes."""
    node = scope.node
    assert not isinstance(node, ast.ClassDef)
    own = set(own_parameters(scope))
    typed = [
        a.arg
        for a in (*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs)
        if a.arg in own and isinstance(a.annotation, ast.Name) and a.annotation.id in PRIMITIVES
    ]
    if len(typed) >= min_params:
        return Evidence(
            summary=f"{len(typed)} parameters typed as bare primitives ({', '.join(typed)})",
            lines=(scope.start_line,),
            names=tuple(typed),
        )
    codes: dict[str, set[object]] = {}
    lines: dict[str, list[int]] = {}
    for sub in own_nodes(node.body):
        if isinstance(sub, ast.Compare) and len(sub.ops) == 1:
            if not isinstance(sub.ops[0], ast.Eq | ast.NotEq):
                continue
            left, right = sub.left, sub.comparators[0]
            if isinstance(right, ast.Constant) and isinstance(right.value, str | int):
                if isinstance(right.value, bool) or isinstance(left, ast.Constant):
                    continue
                key = _text(left)
                if _dispatch_subject(sub) is not None:
                    continue  # a tag: that is type dispatch, not a primitive
                codes.setdefault(key, set()).add(right.value)
                lines.setdefault(key, []).append(sub.lineno)
    if not codes:
        return None
    subject, values = max(codes.items(), key=lambda item: len(item[1]))
    if len(values) < min_literals:
        return None
    shown = ", ".join(repr(v) for v in sorted(values, key=str)[:5])
    return Evidence(
        summary=f"`{subject}` compared against {len(values)} literal codes ({shown})",
        lines=tuple(sorted(set(lines[subject]))),
        names=(subject,),
    )


# -- envy and chains -------------------------------------------------------------------


def envy(scope: Scope, min_accesses: int, ratio: float) -> Evidence | None:
    """Most attribute traffic goes to one other object rather than to ``self``."""
    node = scope.node
    assert not isinstance(node, ast.ClassDef)
    names = parameter_names(node)
    self_name = names[0] if scope.owner is not None and names else None
    counts: Counter[str] = Counter()
    attributes: dict[str, set[str]] = {}
    for sub in own_nodes(node.body):
        if isinstance(sub, ast.Attribute) and isinstance(sub.value, ast.Name):
            counts[sub.value.id] += 1
            attributes.setdefault(sub.value.id, set()).add(sub.attr)
    own = counts.pop(self_name, 0) if self_name else 0
    if not counts:
        return None
    target, used = counts.most_common(1)[0]
    if target not in names and target not in _assigned_locals(node):
        return None  # a module or a global, not an object this function works on
    if used < min_accesses or used < ratio * own:
        return None
    attrs = sorted(attributes[target])
    return Evidence(
        summary=f"{used} uses of `{target}`'s attributes ({', '.join(attrs[:6])}) "
        f"against {own} of its own",
        names=(target, *attrs),
        extra={"target": target, "used": used, "own": own},
    )


def _assigned_locals(node: FunctionNode) -> set[str]:
    found: set[str] = set()
    for sub in own_nodes(node.body):
        if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
            found.add(sub.id)
    return found


def _chain_links(node: ast.expr) -> tuple[int, int]:
    """(links, intermediate calls) of an attribute/call chain ending at ``node``."""
    links, calls, first = 0, 0, True
    current: ast.expr = node
    while True:
        if isinstance(current, ast.Call):
            if not first:
                calls += 1
            current = current.func
        elif isinstance(current, ast.Attribute):
            links += 1
            current = current.value
        elif isinstance(current, ast.Subscript):
            current = current.value
        else:
            return links + 1, calls
        first = False


def message_chain(body: list[ast.stmt], min_links: int) -> Evidence | None:
    """The longest ``a.b().c.d()``-style chain: ``min_links``+ links through a call."""
    inner: set[int] = set()
    best: tuple[int, ast.expr] | None = None
    for sub in own_nodes(body):
        if not isinstance(sub, ast.Attribute | ast.Call) or id(sub) in inner:
            continue
        # mark the chain's inner parts so they are not counted as chains of their own
        part: ast.expr = sub
        while isinstance(part, ast.Call | ast.Attribute | ast.Subscript):
            part = part.func if isinstance(part, ast.Call) else part.value
            inner.add(id(part))
        links, calls = _chain_links(sub)
        if links >= min_links and calls >= 1 and (best is None or links > best[0]):
            best = (links, sub)
    if best is None:
        return None
    links, expr = best
    return Evidence(
        summary=f"`{_text(expr, 90)}` reaches through {links} links (line {expr.lineno})",
        lines=(expr.lineno,),
        names=(_text(expr),),
    )


# -- classes -----------------------------------------------------------------------------


def class_size(
    node: ast.ClassDef, min_methods: int, min_lines: int, min_attributes: int
) -> Evidence | None:
    methods = [s for s in node.body if isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef)]
    attributes: set[str] = set()
    for method in methods:
        if not method.args.args:
            continue
        first = method.args.args[0].arg
        for sub in own_nodes(method.body):
            if (
                isinstance(sub, ast.Attribute)
                and isinstance(sub.ctx, ast.Store)
                and isinstance(sub.value, ast.Name)
                and sub.value.id == first
            ):
                attributes.add(sub.attr)
    lines = (node.end_lineno or node.lineno) - node.lineno + 1
    reasons = []
    if len(methods) >= min_methods:
        reasons.append(f"{len(methods)} methods")
    if lines >= min_lines:
        reasons.append(f"{lines} lines")
    if len(attributes) >= min_attributes:
        reasons.append(f"{len(attributes)} instance attributes")
    if not reasons:
        return None
    return Evidence(
        summary=f"class `{node.name}` has " + ", ".join(reasons),
        lines=(node.lineno,),
        names=(node.name,),
        extra={"methods": [m.name for m in methods], "span": (node.lineno, node.end_lineno)},
    )
