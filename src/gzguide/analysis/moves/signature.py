"""Parameter moves: what is true of a signature beyond its length.

lizard counts every declared parameter, the receiver and ``*args``/``**kwargs``
included. A parameter hint needs three or more *named parameters a caller passes*,
and one of these:

* ``flag_split``: a parameter defaulting to ``True``/``False`` that the body only
  tests, where what it selects is a large part of the function: two functions,
  one per value, say at the call site what they do;
* ``parameter_object``: in a signature of four or more such parameters, three or
  more names that travel together through three or more functions of the file
  (``data_clumps``). Not a data clump: functions that
  share one signature shape (the clump at the same places of signatures of the same
  length: a family of callbacks, validators or handlers), overrides of one method,
  dunder methods, nested functions (callbacks shaped by what calls them), and
  constructors that store the values on ``self`` (that class already is the
  object that holds them);
* ``long_list``: a signature of five or more such parameters (``long_parameter_list``).

Finding clumps costs the number of functions times the triples of each signature
(at most ``facts.file.MAX_CLUMP_PARAMETERS`` names, so a bounded number): each triple
indexes the functions taking it (``FileFacts.triples``), each triple's family is
judged once per file, and a hint names two other members and counts the rest.
"""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, replace
from itertools import combinations, islice
from typing import Final

from gzguide.analysis.facts.file import FileFacts, caller_parameters
from gzguide.analysis.facts.scopes import Scope
from gzguide.analysis.moves.base import UNCLASSIFIED, Concern, Move, line_list, listing, names
from gzguide.analysis.moves.kinds import Kind
from gzguide.analysis.moves.registry import rule

MIN_PARAMETERS: Final = 3
LONG_LIST: Final = 5
CLUMP_NAMES: Final = 3
#: Three parameters shared across a few functions are mostly a family of one
#: signature, or plain inputs; a clump is told apart in longer signatures.
CLUMP_SIGNATURE: Final = 4
CLUMP_FUNCTIONS: Final = 3
#: What a flag selects must be at least this share of the function's body lines.
FLAG_SHARE: Final = 0.5

_GAIN: Final = {Concern.PARAMETERS: 1}


@rule(
    Kind.FLAG_SPLIT,
    Kind.PARAMETER_OBJECT,
    Kind.LONG_LIST,
    concern=Concern.PARAMETERS,
    doc="lizard_param_count",
)
def parameter_moves(scope: Scope, facts: FileFacts) -> list[Move]:
    named = caller_parameters(scope)
    if len(named) < MIN_PARAMETERS:
        return []
    found = (
        _flag_split(scope, facts, named),
        _data_clump(scope, facts, named),
        _long_list(scope, named),
    )
    return [m for m in found if m is not None]


def _long_list(scope: Scope, named: list[str]) -> Move | None:
    if len(named) < LONG_LIST:
        return None
    text = (
        f"The signature on line {scope.start_line} takes {len(named)} parameters "
        f"({names(named, 4)}): group those that always travel together into a small "
        "dataclass, or split the function by what its callers want."
    )
    span = (scope.start_line, scope.start_line)
    return Move(Kind.LONG_LIST, "long_parameter_list", text, span, _GAIN)


def _flag_defaults(node: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    args = node.args
    positional = [*args.posonlyargs, *args.args]
    defaulted = [
        *zip(positional[len(positional) - len(args.defaults) :], args.defaults, strict=True),
        *zip(args.kwonlyargs, args.kw_defaults, strict=True),
    ]
    return {a.arg for a, d in defaulted if _is_bool(d)}


def _is_bool(node: ast.expr | None) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, bool)


def _flag_split(scope: Scope, facts: FileFacts, named: list[str]) -> Move | None:
    node = scope.node
    assert not isinstance(node, ast.ClassDef)
    body_lines = max(scope.end_line - node.body[0].lineno + 1, 1)
    for flag in sorted(_flag_defaults(node) & set(named)):
        # From the body's own statements first (the tests must all be there, and hold
        # enough of it), then every statement: none deeper may test the flag; only then
        # the walk: the flag must be read nowhere else; last, the callers.
        tests = _top_tests(node.body, flag)
        placed = _selects_enough(tests, body_lines) and _tests_of(node.body, flag) == tests
        if placed and _only_chooses(scope, facts, tests, named.index(flag), flag):
            return _flag_move(scope, flag, tests)
    return None


def _top_tests(body: list[ast.stmt], flag: str) -> list[ast.If]:
    """The body's own ``if`` statements that test ``flag`` alone: a flag tested inside
    other code chooses a detail of shared work, which two functions would both copy."""
    return [n for n in body if isinstance(n, ast.If) and _tests_only(n, flag)]


def _only_chooses(
    scope: Scope, facts: FileFacts, tests: list[ast.If], position: int, flag: str
) -> bool:
    """Whether the flag is read only by its tests, and the file's callers pick its value."""
    node = scope.node
    assert not isinstance(node, ast.ClassDef)
    return _read_only_by(tests, flag, scope, facts) and _callers_choose(
        facts.tree, node.name, position, flag
    )


def _callers_choose(tree: ast.Module, name: str, position: int, flag: str) -> bool:
    """Whether the file's calls of ``name`` say which value they want: there is one,
    and each passes ``flag`` as a literal or leaves it out. A caller that passes a
    variable on would only move the ``if`` into itself (and a function called from
    outside the file is someone's interface)."""
    passed = [_flag_argument(call, position, flag) for call in _calls_of(tree, name)]
    return bool(passed) and all(a is None or isinstance(a, ast.Constant) for a in passed)


def _calls_of(tree: ast.Module, name: str) -> Iterator[ast.Call]:
    for node in ast.walk(tree):
        match node:
            case ast.Call(func=ast.Name(id=called) | ast.Attribute(attr=called)) if called == name:
                yield node


def _flag_argument(call: ast.Call, position: int, flag: str) -> ast.expr | None:
    """What a call passes for the flag: by keyword, or at its place; None if nothing."""
    by_name = next((k.value for k in call.keywords if k.arg == flag), None)
    if by_name is not None:
        return by_name
    return _at_position(call.args, position)


def _at_position(args: list[ast.expr], position: int) -> ast.expr | None:
    """The argument at ``position``; a ``*args`` before it is no literal either."""
    for arg in args[: position + 1]:
        if isinstance(arg, ast.Starred):
            return arg
    return args[position] if position < len(args) else None


def _selects_enough(tests: list[ast.If], body_lines: int) -> bool:
    """Whether the ``if``s hold four lines or more, and a large part of the body."""
    selected = sum((t.end_lineno or t.lineno) - t.lineno + 1 for t in tests)
    return bool(tests) and selected >= 4 and selected >= body_lines * FLAG_SHARE


def _read_only_by(tests: list[ast.If], flag: str, scope: Scope, facts: FileFacts) -> bool:
    return len(facts.view(scope).loads.get(flag, ())) == len(tests)


def _flag_move(scope: Scope, flag: str, tests: list[ast.If]) -> Move:
    where = (
        f"the `if` on line {tests[0].lineno}"
        if len(tests) == 1
        else f"the `if`s on lines {line_list([t.lineno for t in tests], 3)}"
    )
    text = (
        f"`{flag}` only chooses between the branches of {where}: two "
        "functions, one for each value, would let each call say what it does."
    )
    end = tests[-1].end_lineno or tests[-1].lineno
    branches = tuple((t.lineno, t.end_lineno or t.lineno, f"a test of `{flag}`") for t in tests)
    move = Move(Kind.FLAG_SPLIT, UNCLASSIFIED, text, (scope.start_line, end), _GAIN, 2)
    return replace(move, related=branches)


def _tests_of(body: list[ast.stmt], flag: str) -> list[ast.If]:
    """The ``if`` statements of the function (not elifs) that test ``flag`` alone."""
    found = [n for n in _own_statements(body) if isinstance(n, ast.If) and _tests_only(n, flag)]
    return sorted(found, key=lambda n: n.lineno)


def _own_statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """The statements of ``body`` in source order, nested ones included, but not those
    of nested functions and classes."""
    stack = list(reversed(body))
    while stack:
        node = stack.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            continue
        yield node
        for block in reversed(_blocks_of(node)):
            stack.extend(reversed(block))


def _blocks_of(node: ast.stmt) -> list[list[ast.stmt]]:
    blocks: list[list[ast.stmt]] = [
        getattr(node, name, []) for name in ("body", "orelse", "finalbody")
    ]
    match node:
        case ast.Try(handlers=handlers) | ast.TryStar(handlers=handlers):
            blocks.extend(h.body for h in handlers)
        case ast.Match(cases=cases):
            blocks.extend(c.body for c in cases)
    return blocks


def _tests_only(node: ast.If, flag: str) -> bool:
    match node.test:
        case ast.Name(id=name) | ast.UnaryOp(ast.Not(), ast.Name(id=name)):
            return name == flag
    return False


def _stores_on_self(scope: Scope, params: frozenset[str]) -> bool:
    """An initializer that keeps its parameters as attributes (it is their object)."""
    node = scope.node
    if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) or node.name != "__init__":
        return False
    return len(_kept_on_attributes(node) & params) >= CLUMP_NAMES


def _kept_on_attributes(node: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """The names the function assigns, as they are, to attributes."""
    return {
        sub.value.id
        for sub in ast.walk(node)
        if isinstance(sub, ast.Assign)
        and isinstance(sub.value, ast.Name)
        and any(isinstance(t, ast.Attribute) for t in sub.targets)
    }


@dataclass(frozen=True, slots=True)
class _Family:
    """The functions sharing three parameter names, and whether they are a real clump."""

    members: tuple[Scope, ...]
    clump: frozenset[str]
    is_clump: bool
    #: The members again, to tell one at once.
    holds: frozenset[Scope]

    def others(self, scope: Scope, shown: int) -> tuple[list[str], int]:
        """The first ``shown`` members other than ``scope`` (one of them), named, and
        how many others there are: what a hint names, without walking the whole
        family for each of its members."""
        named = (f"`{o.node.name}` (line {o.start_line})" for o in self.members if o is not scope)
        return list(islice(named, shown)), len(self.members) - 1


def _family(facts: FileFacts, triple: tuple[str, str, str]) -> _Family:
    key = ("clump", triple)
    known = facts.memo.get(key)
    if isinstance(known, _Family):
        return known
    family = _find_family(facts, triple)
    facts.memo[key] = family
    return family


def _find_family(facts: FileFacts, triple: tuple[str, str, str]) -> _Family:
    members = _members(facts, triple)
    signatures = [facts.parameters[f.key] for f in members]
    clump = frozenset.intersection(*(frozenset(p) for p in signatures)) if members else frozenset()
    return _Family(members, clump, _is_clump(members, signatures, clump), frozenset(members))


def _members(facts: FileFacts, triple: tuple[str, str, str]) -> tuple[Scope, ...]:
    """The functions whose signatures hold the three names and may be part of a clump."""
    names = frozenset(triple)
    return tuple(
        f
        for f in facts.triples.get(triple, ())
        if not _stores_on_self(f, names)
        and not f.node.name.startswith("__")
        and f.key not in facts.nested_functions
    )


def _is_clump(
    members: tuple[Scope, ...], signatures: list[list[str]], clump: frozenset[str]
) -> bool:
    return (
        len(members) >= CLUMP_FUNCTIONS
        and len({f.node.name for f in members}) >= CLUMP_FUNCTIONS  # not overrides of one method
        and not _one_shape(signatures, clump)  # not a family of callbacks
    )


def _data_clump(scope: Scope, facts: FileFacts, named: list[str]) -> Move | None:
    if len(named) < CLUMP_SIGNATURE or not _may_clump(scope, facts):
        return None
    # The three of its names that most functions share, and what they all share.
    best = _most_shared(facts, named)
    if best is None:
        return None
    family = _family(facts, best)
    if not family.is_clump or scope not in family.holds:
        return None
    return _clump_move(scope, named, family)


def _may_clump(scope: Scope, facts: FileFacts) -> bool:
    """Dunder methods have the signature their protocol gives them; a nested
    function, the one its caller (often the code it is handed to) needs."""
    node = scope.node
    assert not isinstance(node, ast.ClassDef)
    return not node.name.startswith("__") and scope.key not in facts.nested_functions


def _most_shared(facts: FileFacts, named: list[str]) -> tuple[str, str, str] | None:
    """The first of the triples of ``named`` that the most functions of the file share."""
    best: tuple[str, str, str] | None = None
    for triple in combinations(sorted(set(named)), 3):
        if best is None or len(facts.triples.get(triple, ())) > len(facts.triples.get(best, ())):
            best = triple
    return best


def _clump_move(scope: Scope, named: list[str], family: _Family) -> Move:
    ordered = [n for n in named if n in family.clump]
    shown, count = family.others(scope, 2)
    text = (
        f"{names(ordered)} also travel together through {listing(shown, 2, count)}: "
        "one small dataclass can carry them."
    )
    span = (scope.start_line, scope.start_line)
    return Move(Kind.PARAMETER_OBJECT, "data_clumps", text, span, _GAIN, 1)


def _one_shape(signatures: list[list[str]], clump: frozenset[str]) -> bool:
    """Whether most signatures put the clump at the same places, with the same length.

    That is the mark of a protocol (handlers a dispatch table calls alike, keyword
    validators, logging processors), whatever the other parameters are named.
    """
    shapes = Counter(
        (len(s), tuple(i for i, name in enumerate(s) if name in clump)) for s in signatures
    )
    return max(shapes.values()) * 4 >= len(signatures) * 3
