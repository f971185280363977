"""Fixes of a key looked up or made with a branch that a dict method says at once.

* ``dict_get``: ``if k in d: return d[k]`` then ``return x`` (or the same with
  assignments) becomes ``return d.get(k, x)`` (``v = d.get(k, x)``);
* ``setdefault``: ``if k in d: d[k].append(v) else: d[k] = [v]`` becomes
  ``d.setdefault(k, []).append(v)``; ``if k not in d: d[k] = []`` followed by a
  statement that reads ``d[k]`` once becomes that statement with
  ``d.setdefault(k, [])`` in its place (``d.setdefault(k, []).add(v)``,
  ``entry = d.setdefault(k, [])``); followed by anything else, the ``if`` alone
  becomes ``d.setdefault(k, [])``.

Safe only where ``d`` is a plain ``dict``: for it alone is ``get`` (``setdefault``)
the ``in`` test and the subscript in one. A class of its own may define
``__contains__``, ``__getitem__``, ``get`` and ``setdefault`` apart, a
``defaultdict`` makes a missing entry on ``d[k]``, and an object may have no ``get``
at all. ``d`` is taken to be a plain ``dict`` when it is a local name the function
binds once, to a dict display, a dict comprehension or a call of the builtin
``dict`` (whatever its arguments, that gives a plain ``dict``), in a statement that
runs before the ``if`` (earlier in a block the ``if`` is in), and no other code may
bind it (not a parameter, not ``global`` or ``nonlocal``, bound by no other statement
of the function or of a function nested in it). Passing the dict on does no harm:
no callee can rebind the function's name, nor change a ``dict``'s class. Code that
rebinds a local through its frame object (a debugger) is not considered. ``d``
written any other way (a parameter, ``self.d``) gives an unsafe fix; anything but a
name or an attribute read gives none.

The key is worked out once where the branch worked it out two or three times: no
fix when that could run code or give another value (a call, a subscript, an
operator). A name or a constant (or a tuple of them) is the same each time it is
read; its ``__hash__`` and ``__eq__`` run fewer times, but a ``dict`` itself calls
them a number of times that depends on its layout, so no code can count on them. An
attribute may be a property that runs code each time: unsafe.

What the rewrite evaluates at another moment must do nothing but give a value:
``get`` evaluates its default even when the key is there, and ``setdefault(k,
[]).append(v)`` makes the entry before it evaluates ``v`` (the branch did after).
Safe when that value is a constant or a name that is surely bound there (a
parameter, the variable of a loop around, or a name an earlier statement of a block
around assigns; never deleted, nor the name of an ``except ... as``, which unbinds
it); unsafe otherwise (a name may be unbound, an attribute may run code). The same
holds for the statement that reads the entry the ``if`` made: the entry is made
where that statement reads ``d[k]``, so the fix is safe only when nothing of it is
evaluated before that read (``d[k].add(v)``, ``entry = d[k]``, ``return d[k].name``,
or ``d[k][i] = v`` with such a ``v``); otherwise (``out.append(d[k])``) unsafe, and
no fix where what comes before could rebind a name the key or the mapping reads (a
``:=``; a call, when the name is not the function's own).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from typing import Final, NamedTuple

from gzguide.analysis.facts.walk import FunctionView, Stmt
from gzguide.analysis.fixes.edits import Edit, Fix, Source
from gzguide.analysis.fixes.registry import fixer, one_line, operand, statement_at
from gzguide.analysis.moves.base import Move
from gzguide.analysis.moves.kinds import Kind
from gzguide.analysis.moves.lookups import present_or_absent
from gzguide.analysis.moves.syntax import extent, mentions, otherwise, reads_key, same_tree

#: Whether a fix is safe (True), unsafe (False), or not to be made at all (None).
Verdict = bool | None


def _worst(*verdicts: Verdict) -> Verdict:
    if any(v is None for v in verdicts):
        return None
    return all(verdicts)


class _Lookup(NamedTuple):
    """The ``if k in d`` of a move: the statement, the key and the mapping."""

    stmt: Stmt
    key: ast.expr
    mapping: ast.expr

    def written(self, *others: ast.expr | None) -> bool:
        """Whether the key, the mapping and ``others`` are each on one line (the
        rewrite puts them on one)."""
        return one_line(self.key, self.mapping, *(o for o in others if o is not None))

    def call(self, source: Source, method: str, default: str) -> str:
        """``d.method(k, default)``, the key and the mapping as written."""
        return f"{source.segment(self.mapping)}.{method}({operand(source, self.key)}, {default})"

    def verdict(self, view: FunctionView, source: Source) -> Verdict:
        """Whether looking the key up once in the mapping, with a dict method, is safe."""
        return _worst(_key_verdict(self.key), _mapping_verdict(view, self, source))


# -- dict_get ------------------------------------------------------------------------


@fixer(Kind.DICT_GET)
def dict_get(move: Move, view: FunctionView, source: Source) -> Fix | None:
    stmt = _if_at(move, view, source)
    got = _got(source, stmt) if stmt is not None else None
    if got is None:
        return None
    lookup, said, default, last = got
    verdict = _worst(lookup.verdict(view, source), _value_verdict(view, lookup.stmt, default))
    if verdict is None or extent(last)[1] != move.span[1]:
        return None
    text = f"{said} {lookup.call(source, 'get', _fallback(source, default))}"
    edit = Edit(source.start(lookup.stmt.node), source.end(last), text)
    return Fix(move.kind, "Use dict.get()", (edit,), verdict)


def _if_at(move: Move, view: FunctionView, source: Source) -> Stmt | None:
    """The ``if`` the move starts at, when it is no ``elif`` and the lines the move
    edits hold no comment (which the rewrite would drop)."""
    found = statement_at(view, move.span[0], ast.If)
    if found is None or found[0].is_elif or source.has_comment(*move.span):
        return None
    return found[0]


def _fallback(source: Source, default: ast.expr | None) -> str:
    """The default of ``get``: a bare ``return`` gave None."""
    return operand(source, default) if default is not None else "None"


def _got(source: Source, stmt: Stmt) -> tuple[_Lookup, str, ast.expr | None, ast.stmt] | None:
    """The lookup, what the statement says (``return``, ``v =``), the fallback and the
    statement that gives it."""
    last: ast.stmt
    match stmt.node, otherwise(stmt):
        case (
            ast.If(
                test=ast.Compare(left=key, ops=[ast.In()], comparators=[mapping]),
                body=[ast.Return(value=found)],
            ),
            ast.Return(value=default) as last,
        ):
            said = "return"
        case (
            ast.If(
                test=ast.Compare(left=key, ops=[ast.In()], comparators=[mapping]),
                body=[ast.Assign(targets=[ast.Name() as target], value=found)],
                orelse=[ast.Assign(targets=[other], value=default) as last],
            ),
            _,
        ) if same_tree(target, other):
            said = f"{source.segment(target)} ="
        case _:
            return None
    lookup = _Lookup(stmt, key, mapping)
    if not reads_key(found, key, mapping) or not lookup.written(default):
        return None
    return lookup, said, default, last


# -- setdefault ----------------------------------------------------------------------


@fixer(Kind.SETDEFAULT)
def setdefault(move: Move, view: FunctionView, source: Source) -> Fix | None:
    stmt = _if_at(move, view, source)
    if stmt is None:
        return None
    if isinstance(stmt.node, ast.If) and stmt.node.orelse:
        return _append_fix(move, view, source, stmt)
    made = _made(stmt, source)
    if made is None:
        return None
    if move.span[1] > stmt.end_line:
        return _make_and_use_fix(move, view, source, made)
    return _make_fix(move, view, source, made)


def _append_fix(move: Move, view: FunctionView, source: Source, stmt: Stmt) -> Fix | None:
    """``d.setdefault(k, []).append(v)`` in place of the ``if``/``else``."""
    parts = _appending(stmt)
    if parts is None:
        return None
    lookup, item = parts
    verdict = _worst(lookup.verdict(view, source), _value_verdict(view, stmt, item))
    if verdict is None or not lookup.written(item):
        return None
    text = f"{lookup.call(source, 'setdefault', '[]')}.append({operand(source, item)})"
    edit = Edit(source.start(stmt.node), source.end(stmt.node), text)
    return Fix(move.kind, "Use dict.setdefault()", (edit,), verdict)


def _appending(stmt: Stmt) -> tuple[_Lookup, ast.expr] | None:
    """The lookup and the item of ``if k in d: d[k].append(v) else: d[k] = [v]`` (or
    its arms the other way round under ``not in``)."""
    arms = present_or_absent(stmt.node)
    if arms is None:
        return None
    key, mapping, present, absent = arms
    item = _appended(present, key, mapping)
    started = _started(absent, key, mapping)
    # The move reads only that a one-item list is made: it must hold the item.
    if item is not None and started is not None and same_tree(item, started):
        return _Lookup(stmt, key, mapping), item
    return None


def _appended(statement: ast.stmt, key: ast.expr, mapping: ast.expr) -> ast.expr | None:
    """The item of ``mapping[key].append(item)``, when it counts no point of its own
    (the branch had it twice: both copies counted)."""
    match statement:
        case ast.Expr(
            value=ast.Call(
                func=ast.Attribute(value=extended, attr="append"), args=[item], keywords=[]
            )
        ) if reads_key(extended, key, mapping) and not _has_points(item):
            return item
    return None


def _started(statement: ast.stmt, key: ast.expr, mapping: ast.expr) -> ast.expr | None:
    """The item of ``mapping[key] = [item]``."""
    match statement:
        case ast.Assign(targets=[started], value=ast.List(elts=[item])) if reads_key(
            started, key, mapping
        ):
            return item
    return None


def _has_points(node: ast.expr) -> bool:
    return any(isinstance(n, ast.BoolOp | ast.IfExp | ast.comprehension) for n in ast.walk(node))


class _Made(NamedTuple):
    """``if k not in d: d[k] = default``: the lookup and the default."""

    lookup: _Lookup
    default: ast.expr

    def call(self, source: Source) -> str:
        return self.lookup.call(source, "setdefault", operand(source, self.default))


def _made(stmt: Stmt, source: Source) -> _Made | None:
    match stmt.node:
        case ast.If(
            test=ast.Compare(left=key, ops=[ast.NotIn()], comparators=[mapping]),
            body=[ast.Assign(targets=[made], value=default)],
            orelse=[],
        ) if reads_key(made, key, mapping) and _built_as_written(default, source):
            lookup = _Lookup(stmt, key, mapping)
            return _Made(lookup, default) if lookup.written(default) else None
    return None


#: The builtins a default may be made by (called with nothing).
_EMPTY_MAKERS: Final = frozenset({"list", "set", "dict", "tuple", "frozenset"})


def _built_as_written(default: ast.expr, source: Source) -> bool:
    """Whether the default is a literal, or a call of the builtin it names: built on
    every call, a class the module binds in its place could do anything."""
    match default:
        case ast.Call(func=ast.Name(id=name)):
            return name in _EMPTY_MAKERS and not source.binds(name)
    return not any(isinstance(n, ast.Call) for n in ast.walk(default))


def _make_fix(move: Move, view: FunctionView, source: Source, made: _Made) -> Fix | None:
    """``d.setdefault(k, [])`` in place of the ``if``."""
    verdict = made.lookup.verdict(view, source)
    if verdict is None:
        return None
    node = made.lookup.stmt.node
    edit = Edit(source.start(node), source.end(node), made.call(source))
    return Fix(move.kind, "Use dict.setdefault()", (edit,), verdict)


def _make_and_use_fix(move: Move, view: FunctionView, source: Source, made: _Made) -> Fix | None:
    """The ``if`` gone, and ``d.setdefault(k, [])`` in place of the next statement's
    one read of ``d[k]``."""
    stmt = made.lookup.stmt
    used = stmt.next_node()
    read = _the_read(used, made.lookup) if used is not None else None
    if used is None or read is None or extent(used)[1] != move.span[1]:
        return None
    verdict = _worst(made.lookup.verdict(view, source), _order_verdict(view, used, read, made))
    if verdict is None:
        return None
    edits = (
        Edit(source.start(stmt.node), source.start(used), ""),
        Edit(source.start(read), source.end(read), made.call(source)),
    )
    return Fix(move.kind, "Use dict.setdefault()", edits, verdict)


def _the_read(used: ast.stmt, lookup: _Lookup) -> ast.Subscript | None:
    """The one read of ``d[k]`` in ``used``. None where it rebinds a name with ``:=``
    (which could change the key before it is read), or holds an f-string (whose parts
    the tree may place wrongly, and where the call's quotes may not go)."""
    parts = _expressions(used)
    if any(isinstance(n, ast.NamedExpr | ast.JoinedStr) for n in parts):
        return None
    match [n for n in parts if reads_key(n, lookup.key, lookup.mapping)]:
        case [ast.Subscript(ctx=ast.Load()) as read]:
            return read
    return None


def _expressions(node: ast.AST) -> list[ast.expr]:
    return [n for n in ast.walk(node) if isinstance(n, ast.expr)]


def _order_verdict(view: FunctionView, used: ast.stmt, read: ast.Subscript, made: _Made) -> Verdict:
    """Safe where the read is the first thing the statement evaluates that could see
    the entry missing; unsafe otherwise (what comes before sees no entry now, and if
    it raises none is made); no fix where what comes before could rebind a name the
    key or the mapping reads, which then would not be the one the ``if`` tested."""
    if _read_first(view, made.lookup.stmt, used, read):
        return True
    return False if _kept_local(view, made.lookup) else None


def _kept_local(view: FunctionView, lookup: _Lookup) -> bool:
    """Whether each name the key and the mapping read is the function's own: bound in
    its code, neither ``global`` nor ``nonlocal``, and seen by no function in it (a
    call could rebind it otherwise)."""
    names = _names_in(lookup.key) | _names_in(lookup.mapping)
    own = all(n in view.stores and n not in view.declared for n in names)
    return own and not any(mentions(n, names) for n in _inner_functions(view))


def _names_in(node: ast.expr) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _inner_functions(view: FunctionView) -> list[ast.AST]:
    """The functions and classes defined in the function, lambdas included."""
    lambdas = [n for n in ast.walk(view.node) if isinstance(n, ast.Lambda)]
    return [*view.nested_nodes, *lambdas]


def _read_first(view: FunctionView, stmt: Stmt, used: ast.stmt, read: ast.Subscript) -> bool:
    """Whether ``read`` is the first thing ``used`` evaluates that could see the entry
    missing: the value itself, or the object a chain of attributes, calls and
    subscripts starts from; or, in ``d[k][i] = v`` (``d[k].a = v``), the target's,
    when the value is only a constant or a surely bound name (``stmt``, the ``if``
    right before, says which)."""
    match used:
        case ast.Assign(targets=[target], value=value) if _value_verdict(view, stmt, value):
            first = _chain_of(target)
        case _:
            first = _chain_of(_value_of(used))
    return any(part is read for part in first)


def _chain_of(node: ast.expr | None) -> Iterator[ast.expr]:
    """``node``, then what it starts from (``a.b(c)[d]``: the whole, ``a.b(c)``,
    ``a.b``, ``a``), up to the first thing that is no chain link."""
    while node is not None:
        yield node
        node = _chain_start(node)


def _value_of(used: ast.stmt) -> ast.expr | None:
    """The value a simple statement evaluates first (an augmented assignment reads its
    target first)."""
    match used:
        case ast.Assign(value=value) | ast.AnnAssign(value=value) | ast.Return(value=value):
            return value
        case ast.Expr(value=value):
            return value
    return None


def _chain_start(node: ast.expr) -> ast.expr | None:
    match node:
        case ast.Attribute(value=inner) | ast.Subscript(value=inner) | ast.Call(func=inner):
            return inner
    return None


# -- what is safe --------------------------------------------------------------------


def _key_verdict(key: ast.expr) -> Verdict:
    """A name or a constant reads the same each time; an attribute may run code; any
    other key is not worked out once in place of several times."""
    match key:
        case ast.Constant() | ast.Name():
            return True
        case ast.Attribute(value=inner):
            return None if _key_verdict(inner) is None else False
        case ast.Tuple(elts=parts):
            return _worst(*map(_key_verdict, parts))
    return None


def _mapping_verdict(view: FunctionView, lookup: _Lookup, source: Source) -> Verdict:
    match lookup.mapping:
        case ast.Name(id=name):
            return _plain_dict(view, lookup.stmt, source, name)
        case ast.Attribute() as read:
            return None if _key_verdict(read) is None else False
    return None


def _value_verdict(view: FunctionView, stmt: Stmt, value: ast.expr | None) -> bool:
    """Whether evaluating ``value`` (at another moment, or when it was not) only gives
    a value: a constant, a surely bound name, or a literal container of those."""
    match value:
        case None | ast.Constant():
            return True
        case ast.Name(id=name):
            return _surely_bound(view, stmt, name)
    parts = _literal_parts(value)
    return parts is not None and all(_value_verdict(view, stmt, p) for p in parts)


def _literal_parts(value: ast.expr) -> list[ast.expr] | None:
    """The items of a tuple, list, set or dict display (none with ``**`` in it)."""
    match value:
        case ast.Tuple(elts=parts) | ast.List(elts=parts) | ast.Set(elts=parts):
            return parts
        case ast.Dict(keys=keys, values=values) if all(k is not None for k in keys):
            return [*filter(None, keys), *values]
    return None


def _plain_dict(view: FunctionView, stmt: Stmt, source: Source, name: str) -> bool:
    """Whether ``name`` is surely a plain ``dict`` at ``stmt``: the ``**`` parameter
    (a fresh ``dict`` on every call) bound by nothing else, or bound to a dict once in
    the function, before ``stmt``, and by nothing else."""
    if name in view.declared:
        return False
    if name == _keywords_parameter(view):
        return _bindings(view, name) == 0
    return name not in view.params and _made_once(view, stmt, source, name)


def _keywords_parameter(view: FunctionView) -> str | None:
    kwarg = view.node.args.kwarg
    return kwarg.arg if kwarg is not None else None


def _made_once(view: FunctionView, stmt: Stmt, source: Source, name: str) -> bool:
    if _bindings(view, name) != 1:
        return False
    made = _binding_statement(view, name)
    return made is not None and _fresh_dict(made, source) and _runs_before(stmt, made.node)


def _binding_statement(view: FunctionView, name: str) -> Stmt | None:
    """The ``name = ...`` (or ``name: T = ...``) statement of the function."""
    for stmt in view.statements:
        match stmt.node:
            case (
                ast.Assign(targets=[ast.Name(id=bound)])
                | ast.AnnAssign(target=ast.Name(id=bound), value=ast.expr())
            ) if bound == name:
                return stmt
    return None


def _fresh_dict(stmt: Stmt, source: Source) -> bool:
    match stmt.node:
        case ast.Assign(value=ast.Dict() | ast.DictComp()):
            return True
        case ast.AnnAssign(value=ast.Dict() | ast.DictComp()):
            return True
        case (
            ast.Assign(value=ast.Call(func=ast.Name(id="dict")))
            | ast.AnnAssign(value=ast.Call(func=ast.Name(id="dict")))
        ):
            return not source.binds("dict")
    return False


def _runs_before(stmt: Stmt, made: ast.stmt) -> bool:
    """Whether ``made`` comes earlier in a block ``stmt`` is in (directly or inside
    statements of it): it has run whenever ``stmt`` runs."""
    inner: Stmt | None = stmt
    while inner is not None:
        if any(s is made for s in inner.container[: inner.index]):
            return True
        inner = inner.parent
    return False


def _surely_bound(view: FunctionView, stmt: Stmt, name: str) -> bool:
    """Whether ``name`` holds a value at ``stmt``: a parameter, the variable of a loop
    whose body holds it, or assigned by an earlier statement of a block around it; and
    deleted nowhere, nor ``global`` or ``nonlocal``."""
    if name in view.declared or _deleted(view, name):
        return False
    return name in view.params or name in _bound_before(stmt)


def _bound_before(stmt: Stmt) -> Iterator[str]:
    """The names bound whenever ``stmt`` runs: by the simple statements before it in
    each block around it, and by the loops whose body holds it (each pass of the body
    comes after the loop binds its variable)."""
    inner, parent = stmt, stmt.parent
    while True:
        for earlier in inner.container[: inner.index]:
            yield from _assigned(earlier)
        if parent is None:
            return
        yield from _loop_variables(inner, parent)
        inner, parent = parent, parent.parent


def _loop_variables(inner: Stmt, parent: Stmt) -> list[str]:
    """The names ``parent`` binds before ``inner`` runs, when it is a loop whose body
    holds ``inner``."""
    match parent.node:
        case ast.For(target=target, body=body) | ast.AsyncFor(target=target, body=body):
            return _stored(target) if inner.container is body else []
    return []


def _assigned(node: ast.stmt) -> list[str]:
    """The names a simple statement binds (a compound one may not have run its part
    that binds)."""
    match node:
        case ast.Import(names=aliases) | ast.ImportFrom(names=aliases):
            return list(map(_alias_name, aliases))
        case ast.AnnAssign(value=None):
            return []
    return _stored(*_targets(node))


def _targets(node: ast.stmt) -> list[ast.expr]:
    match node:
        case ast.Assign(targets=targets):
            return targets
        case ast.AnnAssign(target=target) | ast.AugAssign(target=target):
            return [target]
    return []


def _stored(*targets: ast.expr) -> list[str]:
    found = [n for t in targets for n in ast.walk(t)]
    return [n.id for n in found if isinstance(n, ast.Name) and _is_store(n)]


def _is_store(node: ast.Name) -> bool:
    return isinstance(node.ctx, ast.Store)


def _deleted(view: FunctionView, name: str) -> bool:
    """Whether ``name`` may be unbound after it was bound: a ``del`` of it, or an
    ``except ... as`` of that name, which unbinds it when the handler ends."""
    return any(_unbinds(n, name) for n in ast.walk(view.node))


def _unbinds(node: ast.AST, name: str) -> bool:
    match node:
        case ast.Name(id=deleted, ctx=ast.Del()) | ast.ExceptHandler(name=str() as deleted):
            return deleted == name
    return False


def _bindings(view: FunctionView, name: str) -> int:
    """How many times the function's code (and that of the functions in it) binds or
    deletes ``name``, or declares it ``global`` or ``nonlocal``."""
    inner = (n for s in view.node.body for n in ast.walk(s))
    return sum(name in _names_bound(n) for n in inner)


#: The field of each kind of node that holds the one name it binds, if it binds one.
_NAME_FIELDS: Final[dict[type[ast.AST], str]] = {
    ast.FunctionDef: "name",
    ast.AsyncFunctionDef: "name",
    ast.ClassDef: "name",
    ast.ExceptHandler: "name",
    ast.MatchAs: "name",
    ast.MatchStar: "name",
    ast.MatchMapping: "rest",
    ast.arg: "arg",
}


def _names_bound(node: ast.AST) -> list[str]:
    """The names ``node`` binds itself (not those of the nodes in it)."""
    match node:
        case ast.Name(id=bound, ctx=ast.Store() | ast.Del()):
            return [bound]
        case ast.Global(names=names) | ast.Nonlocal(names=names):
            return names
        case ast.alias() as imported:
            return [_alias_name(imported)]
    held: object = getattr(node, _NAME_FIELDS.get(type(node), ""), None)
    return [held] if isinstance(held, str) else []


def _alias_name(imported: ast.alias) -> str:
    """The name an import binds (``import a.b`` binds ``a``)."""
    return (imported.asname or imported.name).partition(".")[0]
