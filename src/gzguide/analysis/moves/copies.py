"""Copy moves: a function, or a block, that another part of the file writes again.

* ``copied_function``: a function whose body another function of the file copies
  (but for at most two values a caller can pass, or the names of its locals) gets
  one move for both: keep one, or one helper taking what differs as parameters;
* a block written twice is named where an extraction proposes it (one helper then
  serves both copies): :func:`where_copied`.

The copies themselves are found by :class:`~gzguide.analysis.facts.twins.Twins`.
"""

from __future__ import annotations

import ast
from dataclasses import replace
from typing import Final, NamedTuple

from gzguide.analysis.facts.astshape import code_lines
from gzguide.analysis.facts.file import FileFacts
from gzguide.analysis.facts.scopes import Scope
from gzguide.analysis.facts.twins import FunctionCopy, own_body
from gzguide.analysis.moves.base import (
    MAX_MOVE_CHARS,
    UNCLASSIFIED,
    Concern,
    Move,
    lines,
    listing,
    plural,
    snippet,
)
from gzguide.analysis.moves.kinds import Kind
from gzguide.analysis.moves.registry import rule
from gzguide.analysis.moves.rendering import render


class BlockCopy(NamedTuple):
    """A copy of a statement elsewhere in the file."""

    #: Where it is and how close (``"lines 9-14 (in `load`) word for word"``).
    where: str
    node: ast.stmt
    #: How many names or values differ.
    differing: int


def where_copied(node: ast.stmt, scope: Scope, facts: FileFacts) -> BlockCopy | None:
    """Where a copy of the statement ``node`` of ``scope`` is in the file, and how close."""
    twin = facts.twins.twin_of(node)
    if twin is None:
        return None
    other, differing = twin
    where = lines(other.lineno, other.end_lineno or other.lineno)
    owner = facts.function_at(other.lineno)
    if owner is not None and owner.key != scope.key:
        where += f" (in `{owner.node.name}`)"
    return BlockCopy(where + _how_close(differing), other, differing)


def _how_close(differing: int) -> str:
    if not differing:
        return " word for word"
    if differing == 1:
        return " but for one name or value"
    return f" but for {differing} names or values"


#: The longest method (in code lines) whose parallel copy stays as it is.
MIRROR_LINES: Final = 10


@rule(Kind.COPIED_FUNCTION, concern=Concern.SIZE, doc="copied_function")
def copied_function(scope: Scope, facts: FileFacts) -> Move | None:
    """One definition for this function and another of the file that copies it."""
    found = facts.twins.copy_of(scope)
    if found is None or _mirrors(scope, found) or _stores_apart(scope, found):
        return None
    if _typed_apart(scope.node, found.other.node):
        return None
    node = scope.node
    assert not isinstance(node, ast.ClassDef)
    text = _copy_text(scope, found, facts.tree)
    size = code_lines(own_body(node))
    span = (scope.start_line, scope.end_line)
    other = found.other
    copy = (other.start_line, other.end_line, f"the copy: `{other.qualname}`")
    move = Move(Kind.COPIED_FUNCTION, UNCLASSIFIED, text, span, {Concern.SIZE: size}, 3)
    return replace(move, related=(copy,))


def _mirrors(scope: Scope, found: FunctionCopy) -> bool:
    """Whether the copies are short methods of two parallel classes that differ only
    where the classes' names do (``IPv4Address`` in ``IPv4Interface``, ``IPv6Address``
    in ``IPv6Interface``): each refers to its own counterpart, which is the design, and
    for a few lines a helper taking the counterpart is clumsier than the two methods."""
    owners = _two_classes(scope.owner, found.other.owner)
    if owners is None or not found.differing or not _short(scope):
        return False
    return _as_the_names_differ(owners[0].name, owners[1].name, found.differing)


def _as_the_names_differ(ours: str, theirs: str, differing: tuple[tuple[str, str], ...]) -> bool:
    """Whether each difference is the one between the two class names."""
    mine, other = _differing_part(ours, theirs)
    return bool(mine or other) and all(a.replace(mine, other) == b for a, b in differing)


def _typed_apart(one: ast.stmt, other: ast.stmt) -> bool:
    """Whether two copies declare different types (a parameter's or the return's): each
    is an interface of its own (``list_schema`` returning a ``ListSchema``,
    ``set_schema`` a ``SetSchema``), which one helper would blur for type checkers."""
    return _annotations(one) != _annotations(other)


def _annotations(node: ast.stmt) -> list[str]:
    if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        return []
    args = node.args
    every = [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]
    shown = [a.annotation for a in every if a is not None]
    return [ast.dump(t) for t in (*shown, node.returns) if t is not None]


def _short(scope: Scope) -> bool:
    node = scope.node
    assert not isinstance(node, ast.ClassDef)
    return code_lines(own_body(node)) <= MIRROR_LINES


def _two_classes(
    ours: ast.ClassDef | None, theirs: ast.ClassDef | None
) -> tuple[ast.ClassDef, ast.ClassDef] | None:
    """The classes of two methods, when they are methods of two classes."""
    if ours is None or theirs is None or ours is theirs:
        return None
    return ours, theirs


def _differing_part(a: str, b: str) -> tuple[str, str]:
    """What is left of ``a`` and ``b`` without their common prefix and suffix."""
    start = _common_length(a, b)
    end = _common_length(a[start:][::-1], b[start:][::-1])
    return a[start : len(a) - end], b[start : len(b) - end]


def _common_length(a: str, b: str) -> int:
    """How many characters ``a`` and ``b`` begin with in common."""
    pairs = zip(a, b, strict=False)
    return next((i for i, (x, y) in enumerate(pairs) if x != y), min(len(a), len(b)))


def _stores_apart(scope: Scope, found: FunctionCopy) -> bool:
    """Whether the copies only store values, in classes that share no base: sharing a
    run of assignments would need a new base class for no logic at all."""
    node = scope.node
    assert not isinstance(node, ast.ClassDef)
    return _only_stores(own_body(node)) and not _shared_bases(scope.owner, found.other.owner)


def _only_stores(body: list[ast.stmt]) -> bool:
    """Whether ``body`` only assigns, or fills in defaults (``if x is None: self.x = ...``)."""
    return all(_stores(s) for s in body)


def _stores(node: ast.stmt) -> bool:
    match node:
        case ast.Assign() | ast.AnnAssign() | ast.Expr(value=ast.Constant()):
            return True
        case ast.If(body=body, orelse=orelse):
            return _only_stores(body) and _only_stores(orelse)
    return False


def _keep_inherited(parent: str, same_name: bool) -> str:
    """A copy in a subclass of the class that holds the other."""
    kept = f"keep the one in `{parent}`, which the other class extends"
    return (
        f"{kept}, and drop the copy"
        if same_name
        else f"{kept}, and make the other name refer to it"
    )


def _extended(ours: ast.ClassDef | None, theirs: ast.ClassDef | None) -> str | None:
    """The one of two classes the other names as a base, if either does."""
    owners = _two_classes(ours, theirs)
    if owners is None:
        return None
    first, second = owners
    if first.name in {render(b) for b in second.bases}:
        return first.name
    return second.name if second.name in {render(b) for b in first.bases} else None


def _shared_bases(ours: ast.ClassDef | None, theirs: ast.ClassDef | None) -> list[str]:
    """The bases both classes name (``object`` aside), in the order the first names them."""
    owners = _two_classes(ours, theirs)
    if owners is None:
        return []
    other = {render(b) for b in owners[1].bases} - {"object"}
    return [name for b in owners[0].bases if (name := render(b)) in other]


def _copy_text(scope: Scope, found: FunctionCopy, tree: ast.Module) -> str:
    other = found.other
    prefix = scope.qualname.rpartition(".")[0]
    name = other.qualname.removeprefix(f"{prefix}.") if prefix else other.qualname
    where = f"`{name}` ({lines(other.start_line, other.end_line)}) is this {scope.kind}"
    if not found.differing or found.renames_only:
        return _same_text(where, scope, found, tree)
    return _differing_text(where, found)


def _same_text(where: str, scope: Scope, found: FunctionCopy, tree: ast.Module) -> str:
    """For a copy that differs in nothing a caller passes: one definition is enough."""
    same = "word for word" if not found.differing else "but for the names of its locals"
    return f"{where} {same}{_also(found.more)}: {_keep(scope, found, tree)}."


def _keep(scope: Scope, found: FunctionCopy, tree: ast.Module) -> str:
    owner = found.other.owner
    if owner is scope.owner or owner is None:
        return f"keep one and have the {'others' if found.more else 'other'} call it"
    parent = _extended(scope.owner, owner)
    if parent is not None:
        return _keep_inherited(parent, scope.node.name == found.other.node.name)
    base = _free_shared_base(scope, found, tree)
    if base is not None:
        return f"one definition in `{base}`, which both extend, can serve {_both(found.more)}"
    return f"one definition in a base class for {_both(found.more)} can serve them"


def _free_shared_base(scope: Scope, found: FunctionCopy, tree: ast.Module) -> str | None:
    """The first base both classes name, if the copies can move into it."""
    shared = _shared_bases(scope.owner, found.other.owner)
    names = {scope.node.name, found.other.node.name}
    return shared[0] if shared and _free_base(tree, shared[0], names) else None


def _free_base(tree: ast.Module, base: str, names: set[str]) -> bool:
    """Whether a definition of the copies (their ``names``) in ``base`` would change no
    other class: ``base`` is a class of this file that defines none of them, and, for
    copies of one name, every class of the file that extends it defines that name itself
    (else it would inherit the new one; a class of their own serves the two then)."""
    classes = [n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)]
    if not _lacks(classes, base, names):
        return False
    return len(names) > 1 or all(names <= _defines(c) for c in _heirs(classes, base))


def _lacks(classes: list[ast.ClassDef], base: str, names: set[str]) -> bool:
    """Whether ``base`` is one class of ``classes`` that defines none of ``names``."""
    defined = [c for c in classes if c.name == base]
    return len(defined) == 1 and not _defines(defined[0]) & names


def _heirs(classes: list[ast.ClassDef], base: str) -> list[ast.ClassDef]:
    """The classes that name ``base`` as a base."""
    return [c for c in classes if base in map(render, c.bases)]


def _defines(cls: ast.ClassDef) -> set[str]:
    """The names of the methods ``cls`` defines itself."""
    return {s.name for s in cls.body if isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef)}


def _differing_text(where: str, found: FunctionCopy) -> str:
    """For a copy that differs in values: one helper taking them as parameters."""
    theirs = listing([snippet(b, 40) for _, b in found.differing])
    ours = ", ".join(snippet(a, 40) for a, _ in found.differing)
    tail = f"{_also(found.more)}: one helper taking {_which(found)} can serve {_both(found.more)}."
    text = f"{where} but for {theirs} (here {ours}){tail}"
    if len(text) > MAX_MOVE_CHARS:
        text = f"{where} but for {theirs}{tail}"
    return text


def _both(more: int) -> str:
    return "all" if more else "both"


def _also(more: int) -> str:
    if not more:
        return ""
    verb = "copies" if more == 1 else "copy"
    return f", and {plural(more, 'other')} {verb} it too"


def _which(found: FunctionCopy) -> str:
    if found.more:
        return "parameters for what differs"
    return "it as a parameter" if len(found.differing) == 1 else "them as parameters"
