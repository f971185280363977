"""Fixes of ``dict_lookup``: a chain that maps values of one subject to fixed values,
as a dict and one lookup.

Each arm must test the subject with ``==`` against a literal, or ``in`` a literal
tuple, list or set (each item a key), or an ``or`` of such tests; every arm returns
a value, or every arm assigns one to the same name. One rewrite per shape:

* arms that return, with an ``else:`` that returns ``d``, or (no ``else``) followed
  in their block by ``return d``, which goes too: ``return TABLE.get(x, d)``
  (``TABLE.get(x)`` for ``None``); a ladder of ``if ...: return`` that ends the
  function's body returns None after it, and becomes ``return TABLE.get(x)``.
* arms that assign ``y``, with an ``else:`` that assigns ``y = d``:
  ``y = TABLE.get(x, d)``; with no ``else`` only where ``y`` is the subject itself
  (``letter = "a"`` when ``letter == "alpha"``), which then keeps its value:
  ``y = TABLE.get(y, y)``.

``TABLE[x]`` is never written: no chain here raises ``KeyError`` where no arm
matches. Any other fall-through (more code after the chain, an ``else`` that does
more, an arm that tests something else, ``is``, ``startswith``) is left for a person.

Where every key and value is a literal constant, the table is a module constant,
placed before the top-level statement that holds the function (above the comments
right over it), named for what it maps: ``_Y_BY_X`` for the assigned name or the
function's name (``get_`` left out) by the subject's name, ``_X_REPLACEMENTS`` where
a name is mapped onto itself, ``_Y_TABLE`` where the subject has no name (a call);
no fix where that name is already used in the module. Where a key or value is a name
(a local, a module's constant or function), the dict is written inline, evaluated
where the chain was: a module constant would evaluate those names once, at import,
where one may not be bound yet, or be bound to another value later. The verifier
compares each def and class, never the module's own values (its Halstead figures,
line counts and MI, which a new constant changes by design), so a module constant
keeps its promise: only the function changes.

No fix is safe. A dict finds its key by hash, then ``==``: keys equal to each other
are one (``1``, ``1.0`` and ``True``; two such keys of a chain get no fix, the chain
giving the first arm's value); a subject that cannot be hashed raises ``TypeError``
where ``==`` answered; a class may define ``__eq__`` and ``__hash__`` apart, or
``__eq__`` to say yes to a literal; the subject is evaluated once, not once per arm;
and an inline dict evaluates every value, where the chain evaluated the one it
returned.
"""

from __future__ import annotations

import ast
from typing import Final, NamedTuple

from gzguide.analysis.facts.walk import FunctionView, Stmt
from gzguide.analysis.fixes.edits import Edit, Fix, Pos, Source
from gzguide.analysis.fixes.registry import fixer, one_line, operand, statement_at
from gzguide.analysis.moves.base import Move
from gzguide.analysis.moves.dispatch import Arm, chain_arms, value_arm
from gzguide.analysis.moves.kinds import Kind
from gzguide.analysis.moves.syntax import extent, if_chain

#: A table longer than this on one line (indentation included) is written an entry a
#: line, as formatters wrap a display.
ONE_LINE_CHARS: Final = 88
#: What a dict's value may not be bare (a tuple needs its parentheses in a display).
_LOOSE_VALUE: Final = (ast.Tuple, ast.NamedExpr, ast.Yield, ast.YieldFrom, ast.Lambda)
#: What a function's name loses in its table's name (``get_kind`` maps to kinds).
_VERB: Final = "get_"

Entry = tuple[ast.expr, ast.expr]


class _Lookup(NamedTuple):
    """A chain read as a lookup: what it tests, its entries, what it sets, its default
    (None: none, the lookup gives None) and its last statement (the fix replaces the
    lines from the chain's first to there)."""

    subject: ast.expr
    entries: list[Entry]
    target: str
    default: ast.expr | None
    last: ast.stmt

    @property
    def parts(self) -> list[ast.expr]:
        """The expressions the fix writes again."""
        parts = [self.subject, *(part for entry in self.entries for part in entry)]
        return parts if self.default is None else [*parts, self.default]


@fixer(Kind.DICT_LOOKUP)
def dict_lookup(move: Move, view: FunctionView, source: Source) -> Fix | None:
    found = _lookup_at(view, move.span[0], source)
    edits = _edits(view, source, *found) if found is not None else None
    return Fix(move.kind, "Look the value up in a dict", edits, safe=False) if edits else None


def _lookup_at(view: FunctionView, line: int, source: Source) -> tuple[ast.If, _Lookup] | None:
    """The chain that starts on ``line`` as a lookup, when the fix can write it."""
    found = statement_at(view, line, ast.If)
    if found is None:
        return None
    lookup = _lookup_of(view, *found)
    return (
        (found[1], lookup) if lookup is not None and _writable(source, found[1], lookup) else None
    )


def _edits(
    view: FunctionView, source: Source, node: ast.If, lookup: _Lookup
) -> tuple[Edit, ...] | None:
    if _constant(lookup):
        return _with_constant(view, source, node, lookup)
    return (_inline(view, source, node, lookup),)


def _lookup_of(view: FunctionView, stmt: Stmt, node: ast.If) -> _Lookup | None:
    arms = chain_arms(stmt, node)
    targets = {value_arm(body) for _, body, _ in arms}
    tested = _entries(arms)
    target = targets.pop() if len(targets) == 1 else None
    if target is None or tested is None:
        return None
    subject, entries = tested
    fallen = _fallthrough(view, stmt, node, len(arms), target, subject)
    return None if fallen is None else _Lookup(subject, entries, target, *fallen)


def _fallthrough(
    view: FunctionView, stmt: Stmt, node: ast.If, arms: int, target: str, subject: ast.expr
) -> tuple[ast.expr | None, ast.stmt] | None:
    """What the chain gives where no arm matches (None: None), and the last statement
    that goes; None for any other fall-through."""
    chain = if_chain(node)
    if chain[-1].orelse:
        return _final_else(chain[-1].orelse, target, node)
    if len(chain) > 1:
        arms = 1  # an elif chain is one statement
    after = stmt.container[stmt.index + arms :]
    last = stmt.container[stmt.index + arms - 1]
    if target == "return":
        return _returned_after(view, stmt, after, last)
    return _kept(subject, target, last)


def _final_else(
    final: list[ast.stmt], target: str, node: ast.If
) -> tuple[ast.expr, ast.stmt] | None:
    """The value an ``else`` of one statement gives the target, as the arms do."""
    match final:
        case [ast.Return(value=ast.expr() as value) | ast.Assign(value=value)] if (
            value_arm(final) == target
        ):
            return value, node
    return None


def _returned_after(
    view: FunctionView, stmt: Stmt, after: list[ast.stmt], last: ast.stmt
) -> tuple[ast.expr | None, ast.stmt] | None:
    """A chain of returns: the ``return`` right after it, or the function's end."""
    match after:
        case [ast.Return(value=value) as returned, *_] if value is None or value_arm([returned]):
            return value, returned
        case [] if stmt.container is view.node.body:
            return None, last
    return None


def _kept(subject: ast.expr, target: str, last: ast.stmt) -> tuple[ast.expr, ast.stmt] | None:
    """A chain that assigns its own subject keeps its value where no arm matches."""
    match subject:
        case ast.Name(id=name) if name == target:
            return subject, last
    return None


# -- the keys ------------------------------------------------------------------------


def _entries(arms: list[Arm]) -> tuple[ast.expr, list[Entry]] | None:
    """The subject every arm tests, and each key with its arm's value, in order."""
    tested = _all_tested([arm[0] for arm in arms])
    if tested is None or not _one_subject(tested):
        return None
    return tested[0][0], _paired(tested, [_value_of(body) for _, body, _ in arms])


def _paired(tested: list[_Tested], values: list[ast.expr]) -> list[Entry]:
    """Each key of each arm with that arm's value."""
    return [(key, value) for (_, keys), value in zip(tested, values, strict=True) for key in keys]


def _value_of(body: list[ast.stmt]) -> ast.expr:
    match body:
        case [ast.Return(value=ast.expr() as value) | ast.Assign(value=value)]:
            return value
    raise AssertionError("an arm that only produces a value")


_Tested = tuple[ast.expr, list[ast.expr]]


def _tested(test: ast.expr) -> _Tested | None:
    """The subject a test compares, and the keys it compares it with."""
    match test:
        case ast.Compare(left=left, ops=[ast.Eq()], comparators=[right]):
            return _side(left, right) or _side(right, left)
        case ast.Compare(
            left=left,
            ops=[ast.In()],
            comparators=[ast.Tuple(elts=keys) | ast.List(elts=keys) | ast.Set(elts=keys)],
        ):
            return _among(left, keys)
        case ast.BoolOp(op=ast.Or(), values=values):
            return _joined(values)
    return None


def _among(subject: ast.expr, keys: list[ast.expr]) -> _Tested | None:
    """``subject in (keys)``, when each is a key and the subject is none."""
    return (subject, keys) if keys and all(map(_key, keys)) and not _key(subject) else None


def _side(subject: ast.expr, key: ast.expr) -> _Tested | None:
    return (subject, [key]) if _key(key) and not _key(subject) else None


def _joined(values: list[ast.expr]) -> _Tested | None:
    """The subject and keys of an ``or`` of tests of one subject."""
    tested = _all_tested(values)
    if tested is None or not _one_subject(tested):
        return None
    return tested[0][0], [key for _, keys in tested for key in keys]


def _all_tested(tests: list[ast.expr]) -> list[_Tested] | None:
    """What each test compares, when each compares a subject with keys."""
    found: list[_Tested] = []
    for test in tests:
        tested = _tested(test)
        if tested is None:
            return None
        found.append(tested)
    return found


def _one_subject(tested: list[_Tested]) -> bool:
    return len({ast.dump(subject) for subject, _ in tested}) == 1


def _key(node: ast.expr) -> bool:
    """A key a dict can hold as the chain compared it: a literal, or a name spelled as a
    constant (``OPTIONAL``, ``Kind.OPEN``)."""
    match node:
        case ast.Constant():
            return True
        case ast.UnaryOp(op=ast.USub() | ast.UAdd(), operand=ast.Constant()):
            return True
        case ast.Tuple(elts=elts):
            return all(map(_key, elts))
        case ast.Name(id=name) | ast.Attribute(attr=name):
            return name.isupper() and _dotted(node)
    return False


def _dotted(node: ast.expr) -> bool:
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name)


def _literal(node: ast.expr) -> bool:
    """A literal constant, as a module constant may hold it (none is mutable here)."""
    try:
        ast.literal_eval(node)
    except ValueError:
        return False
    return True


def _distinct(source: Source, keys: list[ast.expr]) -> bool:
    """Whether no two keys are one to a dict (``1`` and ``1.0``, a name twice), and
    every literal one can be hashed."""
    literals = [k for k in keys if _literal(k)]
    names = [source.segment(k) for k in keys if not _literal(k)]
    return _unequal(literals) and len(set(names)) == len(names)


def _unequal(literals: list[ast.expr]) -> bool:
    """Whether no two of ``literals`` are equal, and each can be hashed."""
    try:
        values = {ast.literal_eval(k) for k in literals}
    except TypeError:
        return False
    return len(values) == len(literals)


def _constant(lookup: _Lookup) -> bool:
    return all(_literal(k) and _literal(v) for k, v in lookup.entries)


def _writable(source: Source, node: ast.If, lookup: _Lookup) -> bool:
    """Whether the fix can write the chain's parts as they are: each on one line, no
    comment on the lines that go, no two keys that a dict would make one."""
    if not one_line(*lookup.parts) or source.has_comment(node.lineno, extent(lookup.last)[1]):
        return False
    return _distinct(source, [key for key, _ in lookup.entries])


# -- the text ------------------------------------------------------------------------


def _with_constant(
    view: FunctionView, source: Source, node: ast.If, lookup: _Lookup
) -> tuple[Edit, ...] | None:
    """The table as a module constant before the statement that holds the function,
    and the lookup in it."""
    name = _table_name(view, lookup)
    if _used(source, name):
        return None
    before = f"{name} = "
    table = _display(source, lookup.entries, "", _step(view, source), before)
    place = _table_place(view, source)
    added = Edit(place, place, before + table + _newline(source) * 3)
    return added, _replaced(source, node, lookup, name)


def _inline(view: FunctionView, source: Source, node: ast.If, lookup: _Lookup) -> Edit:
    """The lookup in a dict written where the chain was."""
    indent = source.indent(node.lineno)
    before, after = _assigned(lookup), _call(source, lookup)
    table = _display(source, lookup.entries, indent, _step(view, source), before, after)
    return _replaced(source, node, lookup, table)


def _replaced(source: Source, node: ast.If, lookup: _Lookup, table: str) -> Edit:
    text = f"{_assigned(lookup)}{table}{_call(source, lookup)}"
    return Edit(source.start(node), source.end(lookup.last), text)


def _assigned(lookup: _Lookup) -> str:
    return "return " if lookup.target == "return" else f"{lookup.target} = "


def _call(source: Source, lookup: _Lookup) -> str:
    """``.get(x, default)``; ``.get(x)`` where the default is None."""
    subject = source.segment(lookup.subject)
    default = lookup.default
    if default is None or (isinstance(default, ast.Constant) and default.value is None):
        return f".get({subject})"
    return f".get({subject}, {operand(source, default)})"


def _display(
    source: Source, entries: list[Entry], indent: str, step: str, before: str, after: str = ""
) -> str:
    """The dict of ``entries``: on one line where that fits, else an entry a line."""
    items = [
        f"{operand(source, k, _LOOSE_VALUE)}: {operand(source, v, _LOOSE_VALUE)}"
        for k, v in entries
    ]
    one = "{" + ", ".join(items) + "}"
    if len(indent + before + one + after) <= ONE_LINE_CHARS:
        return one
    end = _newline(source)
    return "{" + end + "".join(f"{indent}{step}{item},{end}" for item in items) + indent + "}"


def _newline(source: Source) -> str:
    """The line break the file is written with."""
    return "\r\n" if "\r\n" in source.text else "\n"


def _step(view: FunctionView, source: Source) -> str:
    """The indentation a block adds in this file, as the function's body has it."""
    outer, inner = source.indent(view.node.lineno), source.indent(view.node.body[0].lineno)
    if view.node.body[0].lineno > view.node.lineno and inner.startswith(outer) and inner != outer:
        return inner[len(outer) :]
    return "    "


def _table_place(view: FunctionView, source: Source) -> Pos:
    """The start of the top-level statement that holds the function: its first
    decorator, or the comments right above it (they speak of it)."""
    line = view.node.lineno
    top = next(s for s in source.tree.body if s.lineno <= line <= extent(s)[1])
    decorators = getattr(top, "decorator_list", [])
    first = min([top.lineno, *(d.lineno for d in decorators)])
    while first - 1 in source.comment_lines and source.line(first - 1).lstrip().startswith("#"):
        first -= 1
    return (first, 0)


def _table_name(view: FunctionView, lookup: _Lookup) -> str:
    """``_Y_BY_X``: what the table gives (the name assigned, or the function's) by
    what it is keyed on."""
    key = _word(_name_of(lookup.subject))
    returned = lookup.target == "return"
    value = _word(view.node.name.removeprefix(_VERB) if returned else lookup.target)
    if key == value:
        return f"_{value}_TABLE" if returned else f"_{key}_REPLACEMENTS"
    return f"_{value}_BY_{key}" if key else f"_{value}_TABLE"


def _word(name: str) -> str:
    return name.strip("_").upper() or ("VALUE" if name else "")


def _name_of(subject: ast.expr) -> str:
    """The name the subject goes by: a name's, an attribute's, a key's ("" : none)."""
    match subject:
        case ast.Name(id=name) | ast.Attribute(attr=name):
            return name
        case ast.Subscript(slice=ast.Constant(value=str() as key)) if key.isidentifier():
            return key
    return ""


def _used(source: Source, name: str) -> bool:
    """Whether the module binds or reads ``name`` anywhere (a table of that name would
    take its place)."""
    return source.binds(name) or any(
        isinstance(node, ast.Name) and node.id == name for node in ast.walk(source.tree)
    )
