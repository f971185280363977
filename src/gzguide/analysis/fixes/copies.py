"""Fixes of a function that another function of the file copies: one body for both.

* Word for word (or but for the names of their locals), two module-level functions
  or two methods of one class: the second copy's body becomes a call of the first,
  ``return first(a, b)`` or ``return self.first(a, b)``, its parameters passed in
  the places the first takes them (keyword-only ones by keyword, ``*args`` and
  ``**kwargs`` passed on); its signature, decorators and docstring stay. An alias
  (``second = first``) is never the fix: it would change ``second``'s ``__name__``,
  ``__qualname__``, docstring, decorators and defaults, which documentation, pickling,
  registries by name and ``repr`` read.
* But for one or two constants: a new private helper, named for what the two names
  share (``_retry`` for ``retry_http`` and ``retry_https``) and free in the module,
  holds the first copy's body with a parameter for each value that differs, and both
  copies' bodies become a call of it passing their own values. It goes right before
  the first copy: there it is defined before anything the module or class body runs
  at import time could call either copy (right after the second, a call between the
  two definitions would find no helper yet). Methods get a method helper in their
  class (a class method one for two class methods).

Unsafe: each call goes through one more frame (what tracebacks, ``warnings.warn``'s
``stacklevel``, ``logging``'s function name and the recursion limit see), and the
function called is looked up when the copy runs (a patched ``first``, or a subclass
overriding ``first`` or defining the helper's name, now changes the copy too).

No fix, left for a person, where it could not be exact: copies in two classes, a
module function and a method, or not directly in the module or class body; three or
more copies; a difference that is not a constant (a name, a dotted name), or a
constant in an f-string or an annotation; parameters that stand in other places (or,
with ``**kwargs``, under other names); a body using ``super()``, ``__class__``,
``locals()``, ``vars()``, ``dir()``, ``eval``, ``exec``, ``inspect`` or frames, a
``global`` or ``nonlocal`` declaration, a ``match`` (a name in a pattern captures),
or a nested ``def`` or ``class``; ``async def``; a first copy that is decorated
(word for word: it is what the other calls) or a method decorated other than as a
property or class method; the second copy's comments not the first's (they would
be lost); a name of the first copy bound elsewhere in the module.
"""

from __future__ import annotations

import ast
import builtins
import keyword
from collections.abc import Callable, Iterator
from itertools import count
from typing import Final, NamedTuple

from gzguide.analysis.facts.twins import MAX_DIFFERENCES, leaf_key, leaf_pairs, own_body
from gzguide.analysis.facts.walk import FunctionView, parameter_names_of
from gzguide.analysis.fixes.edits import Edit, Fix, Source
from gzguide.analysis.fixes.registry import fixer
from gzguide.analysis.moves.base import Move
from gzguide.analysis.moves.extract import decorator_name
from gzguide.analysis.moves.kinds import Kind

#: Names whose use in a body reads its frame, its class cell or its locals: moved into
#: another function, they would see that function's.
_FRAME_NAMES: Final = frozenset(
    {"super", "__class__", "locals", "vars", "dir", "eval", "exec", "inspect"}
)
_FRAME_ATTRIBUTES: Final = frozenset({"_getframe", "currentframe", "f_back", "f_locals"})
#: What a body must not hold: nested scopes (their definitions would change names),
#: declarations that bind outside, patterns (a parameter's name would capture).
_REFUSED_NODES: Final = (
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.ClassDef,
    ast.Global,
    ast.Nonlocal,
    ast.Match,
)
#: The decorators (by last dotted name) a method copy may have and still be called on
#: its instance: a property's.
_PROPERTY_DECORATORS: Final = frozenset(
    {"property", "cached_property", "setter", "getter", "deleter", "abstractmethod", "override"}
)
#: What a parameter for a value of each type is called (a keyword's name comes first).
_TYPE_NAMES: Final[dict[type | None, str]] = {
    str: "text",
    bytes: "data",
    bool: "flag",
    int: "number",
    float: "number",
}

#: The types a new parameter is annotated with, where the copies annotate theirs.
_ANNOTATED: Final = frozenset({"str", "bytes", "bool", "int", "float"})

#: Both constants where the copies differ, the first copy's and the second's.
_Values = list[tuple[ast.Constant, ast.Constant]]


class _Pair(NamedTuple):
    first: ast.FunctionDef
    second: ast.FunctionDef
    #: The class both are methods of; None for two module-level functions.
    owner: ast.ClassDef | None
    #: How a copy is called: "function", "method" or "classmethod".
    binding: str

    @property
    def copies(self) -> tuple[ast.FunctionDef, ast.FunctionDef]:
        return self.first, self.second

    def target(self, caller: ast.FunctionDef, name: str) -> str:
        """What ``caller`` calls to run the function ``name``: ``self.name`` in a method."""
        if self.owner is None:
            return name
        return f"{[*caller.args.posonlyargs, *caller.args.args][0].arg}.{name}"


@fixer(Kind.COPIED_FUNCTION)
def copied_function(move: Move, view: FunctionView, source: Source) -> Fix | None:
    pair = _pair(move, view, source)
    if pair is None or any(refuses(pair, source) for refuses in _REFUSALS):
        return None
    groups = _differing(pair)
    if groups is None:
        return None
    return _helper_fix(move, pair, groups, source) if groups else _call_first(move, pair, source)


def _pair(move: Move, view: FunctionView, source: Source) -> _Pair | None:
    """The two copies, in file order, when they are functions of one module or
    methods of one class, called alike."""
    node = view.node
    held = _held_in(source.tree, node)
    other = _other_copy(move, held[0]) if held is not None else None
    if held is None or other is None or not isinstance(node, ast.FunctionDef):
        return None
    first, second = sorted((node, other), key=lambda n: n.lineno)
    return _called_alike(first, second, held[1])


def _called_alike(
    first: ast.FunctionDef, second: ast.FunctionDef, owner: ast.ClassDef | None
) -> _Pair | None:
    binding = _binding(first, owner)
    if binding is None or binding != _binding(second, owner):
        return None
    return _Pair(first, second, owner, binding)


def _other_copy(move: Move, body: list[ast.stmt]) -> ast.FunctionDef | None:
    """The function of ``body`` the move names as the copy."""
    span = move.related[0][:2] if move.related else None
    found = (s for s in body if isinstance(s, ast.FunctionDef) and _span(s) == span)
    return next(found, None)


def _span(node: ast.stmt) -> tuple[int, int]:
    return node.lineno, node.end_lineno or node.lineno


def _held_in(tree: ast.Module, node: ast.stmt) -> tuple[list[ast.stmt], ast.ClassDef | None] | None:
    """The body ``node`` is directly in, and the class it is a method of, if any."""
    if _holds(tree.body, node):
        return tree.body, None
    classes = (c for c in ast.walk(tree) if isinstance(c, ast.ClassDef) and _holds(c.body, node))
    owner = next(classes, None)
    return (owner.body, owner) if owner is not None else None


def _holds(body: list[ast.stmt], node: ast.stmt) -> bool:
    return any(s is node for s in body)


def _binding(node: ast.FunctionDef, owner: ast.ClassDef | None) -> str | None:
    """How the copy is called; None for a method that may not get its instance."""
    if owner is None:
        return "function"
    names = [decorator_name(d) for d in node.decorator_list]
    if not [*node.args.posonlyargs, *node.args.args]:
        return None  # no parameter to call it on
    if names == ["classmethod"]:
        return "classmethod"
    return "method" if set(names) <= _PROPERTY_DECORATORS else None


# -- what differs ----------------------------------------------------------------------


def _differing(pair: _Pair) -> dict[tuple[object, object], _Values] | None:
    """The constants where the bodies differ, by the pair of values (one parameter for
    each); None where they differ in anything else, or their parameters stand in other
    places."""
    if not _same_signature(pair.first.args, pair.second.args):
        return None
    found = leaf_pairs(own_body(pair.first), own_body(pair.second))
    if found is None:
        return None
    names = _Names(pair.first, pair.second)
    fixed = _fixed_constants(pair.first)
    groups: dict[tuple[object, object], _Values] = {}
    for x, y in found:
        if not _same_in_place(x, y, names, fixed, groups):
            return None
    return groups if len(groups) <= MAX_DIFFERENCES else None


def _same_signature(a: ast.arguments, b: ast.arguments) -> bool:
    """Whether two signatures take the same kinds of parameters in the same places
    (and, with ``**kwargs``, the same names: any other name could be in it)."""
    shape = [(len(x.posonlyargs), len(x.args), len(x.kwonlyargs)) for x in (a, b)]
    if shape[0] != shape[1] or (a.vararg is None) != (b.vararg is None):
        return False
    if (a.kwarg is None) != (b.kwarg is None):
        return False
    return a.kwarg is None or parameter_names_of(a) == parameter_names_of(b)


class _Names:
    """How the names of two functions correspond: a parameter to the one in its place,
    a local to one local only, a global to itself."""

    def __init__(self, ours: ast.FunctionDef, theirs: ast.FunctionDef) -> None:
        self.places = _places(ours), _places(theirs)
        self.stored = _stored(ours), _stored(theirs)
        self.renamed: tuple[dict[str, str], dict[str, str]] = ({}, {})

    def alike(self, x: str, y: str) -> bool:
        """Whether ``x`` here and ``y`` there are one name (each time they meet)."""
        if self.places[0].get(x) != self.places[1].get(y) or not self._scoped_alike(x, y):
            return False
        forth, back = self.renamed
        return forth.setdefault(x, y) == y and back.setdefault(y, x) == x

    def _scoped_alike(self, x: str, y: str) -> bool:
        """Whether both are locals, or the same global (or parameters)."""
        local = x in self.stored[0]
        if local != (y in self.stored[1]):
            return False
        return x == y or local or x in self.places[0]


def _places(node: ast.FunctionDef) -> dict[str, int]:
    return {name: i for i, name in enumerate(parameter_names_of(node.args))}


def _stored(node: ast.FunctionDef) -> set[str]:
    return {
        n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
    }


def _same_in_place(
    x: ast.expr,
    y: ast.expr,
    names: _Names,
    fixed: set[int],
    groups: dict[tuple[object, object], _Values],
) -> bool:
    """Whether two leaves in the same place mean the same (a name, or a name rooted in
    one, that each function binds alike), or are two constants a caller can pass (then
    recorded in ``groups``)."""
    a, b = leaf_key(x), leaf_key(y)
    roots = _roots(a, b)
    if roots is not None:
        return names.alike(*roots)
    if a == b:
        return True
    if isinstance(x, ast.Constant) and isinstance(y, ast.Constant) and id(x) not in fixed:
        groups.setdefault((a, b), []).append((x, y))
        return True
    return False


def _roots(a: tuple[object, ...], b: tuple[object, ...]) -> tuple[str, str] | None:
    """The names two leaves are rooted in (``self`` of ``self.x``), where they are the
    same but for them."""
    x, y = a[-1], b[-1]
    if a[:-1] != b[:-1] or not isinstance(x, str) or not isinstance(y, str):
        return None
    return x, y


def _fixed_constants(node: ast.FunctionDef) -> set[int]:
    """The constants no name can stand for: parts of f-strings, and annotations of
    variables (never evaluated)."""
    held = (h for n in ast.walk(node) for h in _unevaluated(n))
    return {id(c) for h in held for c in ast.walk(h) if isinstance(c, ast.Constant)}


def _unevaluated(node: ast.AST) -> tuple[ast.AST, ...]:
    if isinstance(node, ast.AnnAssign):
        return (node.annotation,)
    return (node,) if isinstance(node, ast.JoinedStr) else ()


# -- what no fix is made for -----------------------------------------------------------


def _reads_its_frame(pair: _Pair, source: Source) -> bool:
    """Whether a body reads what moving it would change, or holds what cannot move."""
    bodies = (s for f in pair.copies for s in own_body(f))
    return any(_refused(n) for s in bodies for n in ast.walk(s))


def _refused(node: ast.AST) -> bool:
    match node:
        case ast.Name(id=name):
            return name in _FRAME_NAMES
        case ast.Attribute(attr=attr):
            return attr in _FRAME_ATTRIBUTES
    return isinstance(node, _REFUSED_NODES)


def _loses_comments(pair: _Pair, source: Source) -> bool:
    """Whether the second copy's body has comments the first does not (its body goes)."""
    ours, theirs = (source.comments(_body_start(f), _span(f)[1]) for f in pair.copies)
    return ours is None or ours != theirs


def _body_start(node: ast.FunctionDef) -> int:
    return own_body(node)[0].lineno


def _shares_lines(pair: _Pair, source: Source) -> bool:
    """Whether a body starts on a line after something else (``def f(): x = 1``)."""
    starts = (own_body(f)[0] for f in pair.copies)
    return any(source.line(s.lineno)[: source.start(s)[1]].strip() for s in starts)


def _third_copy(pair: _Pair, source: Source) -> bool:
    """Whether another function of the file copies them too (a family of three is
    left for a person)."""
    body = own_body(pair.first)
    functions = (n for n in ast.walk(source.tree) if isinstance(n, ast.FunctionDef))
    return any(_near(body, own_body(f)) for f in functions if not _holds(list(pair.copies), f))


def _near(body: list[ast.stmt], other: list[ast.stmt]) -> bool:
    """Whether ``other`` has the shape of ``body`` and differs in few leaves."""
    found = leaf_pairs(body, other) if len(body) == len(other) else None
    if found is None:
        return False
    keys = ((leaf_key(x), leaf_key(y)) for x, y in found)
    return len({(a, b) for a, b in keys if a != b}) <= MAX_DIFFERENCES


_REFUSALS: Final[tuple[Callable[[_Pair, Source], bool], ...]] = (
    _reads_its_frame,
    _shares_lines,
    _loses_comments,
    _third_copy,
)


# -- word for word ---------------------------------------------------------------------


def _call_first(move: Move, pair: _Pair, source: Source) -> Fix | None:
    """The second copy's body as a call of the first."""
    first, second = pair.first, pair.second
    plain = [] if pair.binding != "classmethod" else ["classmethod"]
    if [decorator_name(d) for d in first.decorator_list] != plain:
        return None  # a decorated function is not its body
    if _bindings(source.tree, first.name) != 1:
        return None  # the name may not be this function when the copy runs
    call = _call(pair, second, first.name, [])
    title = f"Make `{second.name}` call `{first.name}`"
    return Fix(move.kind, title, (_body_edit(second, call, source),), safe=False)


def _bindings(tree: ast.Module, name: str) -> int:
    """How many times the module binds ``name`` (as a variable, a definition, an import,
    a parameter or an attribute)."""
    return sum(1 for n in ast.walk(tree) if name in _bound_names(n))


def _bound_names(node: ast.AST) -> tuple[str, ...]:
    match node:
        case (
            ast.Name(id=name, ctx=ast.Store() | ast.Del())
            | ast.Attribute(attr=name, ctx=ast.Store() | ast.Del())
        ):
            return (name,)
        case (
            ast.FunctionDef(name=name)
            | ast.AsyncFunctionDef(name=name)
            | ast.ClassDef(name=name)
            | ast.arg(arg=name)
        ):
            return (name,)
        case ast.alias(name=name, asname=alias):
            return (alias or name.partition(".")[0],)
    return ()


def _call(pair: _Pair, caller: ast.FunctionDef, name: str, values: list[str]) -> str:
    """``caller``'s call of ``name`` with its own parameters and ``values`` (after the
    positional parameters, where the helper takes them)."""
    mine, theirs = caller.args, pair.first.args
    skip = 0 if pair.owner is None else 1
    positional = [a.arg for a in (*mine.posonlyargs, *mine.args)][skip:]
    star = [f"*{mine.vararg.arg}"] if mine.vararg is not None else []
    named = [f"{k.arg}={a.arg}" for k, a in zip(theirs.kwonlyargs, mine.kwonlyargs, strict=True)]
    double = [f"**{mine.kwarg.arg}"] if mine.kwarg is not None else []
    arguments = ", ".join([*positional, *values, *star, *named, *double])
    return f"{pair.target(caller, name)}({arguments})"


def _body_edit(node: ast.FunctionDef, call: str, source: Source) -> Edit:
    """``node``'s body (after its docstring, up to the end of its last line) as one
    ``return`` of ``call``."""
    last = _span(node)[1]
    return Edit(source.start(own_body(node)[0]), (last, len(source.line(last))), f"return {call}")


# -- one helper for both ---------------------------------------------------------------


def _helper_fix(
    move: Move, pair: _Pair, groups: dict[tuple[object, object], _Values], source: Source
) -> Fix | None:
    """A helper holding the first copy's body, a parameter for each value that
    differs, and both copies' bodies as calls of it."""
    name = _helper_name(pair, source)
    values = list(groups.values())
    text = _helper_text(pair, name, values, source) if name is not None else None
    if name is None or text is None:
        return None
    at = (_insertion_line(pair.first, source), 0)
    calls = (
        _body_edit(node, _call(pair, node, name, _passed(values, side, source)), source)
        for side, node in enumerate(pair.copies)
    )
    return Fix(move.kind, f"Share one helper, `{name}`", (Edit(at, at, text), *calls), safe=False)


def _passed(values: list[_Values], side: int, source: Source) -> list[str]:
    """The values that differ, as the first copy (``side`` 0) or the second writes them."""
    return [source.segment(group[0][side]) for group in values]


def _helper_name(pair: _Pair, source: Source) -> str | None:
    mentioned = _mentioned(source.tree)
    return next((n for n in _helper_names(pair) if n not in mentioned), None)


def _one_line(node: ast.expr) -> bool:
    return node.lineno == node.end_lineno


def _mentioned(tree: ast.Module) -> set[str]:
    """Every name the module binds or reads, every attribute and every string: a new
    name must be none of them."""
    found: set[str] = set()
    for node in ast.walk(tree):
        found.update(_bound_names(node))
        found.update(_named(node))
    return found


def _named(node: ast.AST) -> tuple[str, ...]:
    match node:
        case ast.Name(id=name) | ast.Attribute(attr=name) | ast.keyword(arg=str() as name):
            return (name,)
        case ast.Constant(value=str() as text) if text.isidentifier():
            return (text,)
    return ()


def _helper_names(pair: _Pair) -> Iterator[str]:
    """Names for the helper: the words both copies' names share (``_retry`` for
    ``retry_http`` and ``retry_https``), then both names (``_load_or_dump``)."""
    ours, theirs = _words(pair.first.name), _words(pair.second.name)
    head = _common(ours, theirs)
    tail = _common(ours[len(head) :][::-1], theirs[len(head) :][::-1])[::-1]
    if head or tail:
        yield "_" + "_".join([*head, *tail])
    yield "_" + "_".join([*ours, "or", *theirs])


def _words(name: str) -> list[str]:
    return [w for w in name.split("_") if w]


def _common(a: list[str], b: list[str]) -> list[str]:
    """The words ``a`` and ``b`` begin with alike."""
    same = 0
    while same < min(len(a), len(b)) and a[same] == b[same]:
        same += 1
    return a[:same]


def _parameter_names(pair: _Pair, values: list[_Values], helper: str) -> list[str]:
    """A name for each value that differs, free in both copies: the keyword it is
    passed as, else what its type holds (``text``, ``number``, ``flag``)."""
    taken = {helper} | _local_names(pair.first) | _local_names(pair.second)
    keywords = _keywords(pair.first)
    names: list[str] = []
    for group in values:
        chosen = next(n for n in _numbered(_named_for(group, keywords)) if n not in taken)
        taken.add(chosen)
        names.append(chosen)
    return names


def _local_names(node: ast.FunctionDef) -> set[str]:
    """The variables a function reads or binds (a parameter of any of their names would
    take its place)."""
    found = (
        n.id if isinstance(n, ast.Name) else n.arg
        for n in ast.walk(node)
        if isinstance(n, ast.Name | ast.arg)
    )
    return set(found)


def _keywords(node: ast.FunctionDef) -> dict[int, str]:
    """The keyword each value passed by keyword is passed as, by the value's ``id``."""
    passed = (k for k in ast.walk(node) if isinstance(k, ast.keyword))
    return {id(k.value): k.arg for k in passed if k.arg}


def _named_for(group: _Values, keywords: dict[int, str]) -> str:
    passed = {keywords.get(id(x)) for x, _ in group}
    name = passed.pop() if len(passed) == 1 else None
    if name is not None and _plain_name(name):
        return name
    return _TYPE_NAMES.get(_type_of(group), "value")


def _type_of(group: _Values) -> type | None:
    """The one type of every value in ``group`` (None when they have several)."""
    kinds = {type(c.value) for pair in group for c in pair}
    return kinds.pop() if len(kinds) == 1 else None


def _plain_name(name: str) -> bool:
    """A name a parameter may take without hiding a builtin or reading as a keyword."""
    reserved = keyword.iskeyword(name) or keyword.issoftkeyword(name)
    return not reserved and not hasattr(builtins, name) and not name.startswith("_")


def _numbered(name: str) -> Iterator[str]:
    yield name
    yield from (f"{name}_{n}" for n in count(2))


def _helper_text(pair: _Pair, name: str, values: list[_Values], source: Source) -> str | None:
    """The helper's definition, and the blank lines after it (None where a value, or
    the signature, would span lines)."""
    parameters = dict(zip(_parameter_names(pair, values, name), values, strict=True))
    signature = _signature(pair.first, _added(pair, parameters, source), source)
    if signature is None or not _on_lines_of_their_own(values):
        return None
    newline, indent = source.newline, source.indent(pair.first.lineno)
    head = f"{indent}@classmethod{newline}" if pair.binding == "classmethod" else ""
    body = newline.join(_body_lines(pair.first, parameters, source))
    gap = newline * (2 if pair.owner is None else 1)
    return f"{head}{indent}def {name}{signature}:{newline}{body}{newline}{gap}"


def _on_lines_of_their_own(values: list[_Values]) -> bool:
    """Whether each value that differs is written on one line (a call passes it)."""
    return all(_one_line(c) for group in values for pair in group for c in pair)


def _added(pair: _Pair, parameters: dict[str, _Values], source: Source) -> list[str]:
    """The helper's new parameters, annotated where the copy annotates its own."""
    if not _annotates(pair.first):
        return list(parameters)
    return [_typed(name, group, source) for name, group in parameters.items()]


def _annotates(node: ast.FunctionDef) -> bool:
    """Whether the function annotates a parameter or what it returns."""
    args = node.args
    every = [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]
    return node.returns is not None or any(a.annotation for a in every if a is not None)


def _typed(name: str, group: _Values, source: Source) -> str:
    """``name``, annotated with its values' type where that is one builtin the module
    does not rebind."""
    kind = _type_of(group)
    shown = kind.__name__ if kind is not None else ""
    return f"{name}: {shown}" if shown in _ANNOTATED and not source.binds(shown) else name


def _signature(node: ast.FunctionDef, added: list[str], source: Source) -> str | None:
    """``(parameters) -> returns``: the first copy's, without defaults, and ``added``
    after its positional ones; None when it would span lines."""
    args = node.args
    returns = f" -> {source.segment(node.returns)}" if node.returns is not None else ""
    text = f"({', '.join([*_positional(args, added, source), *_rest(args, source)])}){returns}"
    return None if len(text.splitlines()) > 1 else text


def _positional(args: ast.arguments, added: list[str], source: Source) -> list[str]:
    """The positional parameters and ``added``, a ``/`` after the positional-only ones,
    or after all of them where there are ``**kwargs`` (a keyword of an added name could
    be in them)."""
    positional = [_parameter(a, source) for a in (*args.posonlyargs, *args.args)] + added
    slash = len(positional) if args.kwarg is not None else len(args.posonlyargs)
    return [*positional[:slash], "/", *positional[slash:]] if slash else positional


def _rest(args: ast.arguments, source: Source) -> list[str]:
    """``*args`` (or ``*``), the keyword-only parameters and ``**kwargs``."""
    star = [f"*{_parameter(args.vararg, source)}"] if args.vararg is not None else []
    star = star or (["*"] if args.kwonlyargs else [])
    named = [_parameter(a, source) for a in args.kwonlyargs]
    double = [f"**{_parameter(args.kwarg, source)}"] if args.kwarg is not None else []
    return [*star, *named, *double]


def _parameter(node: ast.arg, source: Source) -> str:
    if node.annotation is None:
        return node.arg
    return f"{node.arg}: {source.segment(node.annotation)}"


def _body_lines(node: ast.FunctionDef, parameters: dict[str, _Values], source: Source) -> list[str]:
    """The lines of ``node``'s body with each differing constant as its parameter."""
    where: dict[int, list[tuple[int, int, str]]] = {}
    for name, group in parameters.items():
        for x, _ in group:
            (line, start), (_, end) = source.start(x), source.end(x)
            where.setdefault(line, []).append((start, end, name))
    first, last = _body_start(node), _span(node)[1]
    return [_replaced(source.line(n), where.get(n, [])) for n in range(first, last + 1)]


def _replaced(line: str, spans: list[tuple[int, int, str]]) -> str:
    for start, end, text in sorted(spans, reverse=True):
        line = line[:start] + text + line[end:]
    return line


def _insertion_line(node: ast.FunctionDef, source: Source) -> int:
    """The line the helper goes before: the first copy's first decorator, or its
    ``def``, or the comments right above them at their indentation."""
    line = node.decorator_list[0].lineno if node.decorator_list else node.lineno
    indent = source.indent(node.lineno)
    while line > 1 and _comment_above(source, line - 1, indent):
        line -= 1
    return line


def _comment_above(source: Source, line: int, indent: str) -> bool:
    text = source.line(line)
    in_string = line in source.string_lines
    return not in_string and source.indent(line) == indent and text.lstrip().startswith("#")
