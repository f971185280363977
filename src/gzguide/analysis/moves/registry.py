"""The one registry of the detectors that find moves.

Every kind of move is one :class:`~gzguide.analysis.moves.kinds.Kind` member. A
detector is registered by one decorator, which names the kinds it gives, the
concern it is for and its section of ``docs/hints.md``:

* :func:`statement_rule`: looks at one statement of a function (of the node
  types given), with the function's walk at hand; returns a move or None;
* :func:`function_rule`: looks at a whole function once; yields moves;
* :func:`rule`: a detector the policy calls itself, because it needs more than
  one function (a signature and the file's other functions, a class's graph, the
  module's definitions, a block the examiner has checked).

:func:`function_moves` runs the first two kinds over a function. Which move of
those found a hint carries is the policy's business, and it breaks ties between
moves by their place in the code, never by the order in which rules run.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final, TypeVar

from gzguide.analysis.moves.base import Concern, Move
from gzguide.analysis.moves.kinds import Kind

if TYPE_CHECKING:
    from gzguide.analysis.facts.walk import FunctionView, Stmt


StatementDetector = Callable[["Stmt", "FunctionView"], Move | None]
FunctionDetector = Callable[["FunctionView"], Iterable[Move]]
_D = TypeVar("_D", bound=Callable[..., object])


@dataclass(frozen=True, slots=True)
class Rule:
    """One registered detector."""

    detect: Callable[..., object]
    kinds: tuple[Kind, ...]
    concern: Concern
    #: The anchor of its section in ``docs/hints.md``.
    doc: str
    #: The statement types it looks at; empty for a whole-function or policy rule.
    on: tuple[type[ast.stmt], ...] = ()
    #: Whether :func:`function_moves` runs it once per function.
    per_function: bool = False

    @property
    def name(self) -> str:
        return self.detect.__name__

    @property
    def family(self) -> str:
        """The module it lives in (``loops``, ``conditionals``, ...)."""
        return self.detect.__module__.rpartition(".")[2]


#: Every detector, in the order its module registered it.
RULES: Final[list[Rule]] = []
_BY_TYPE: Final[dict[type[ast.stmt], list[StatementDetector]]] = {}
_PER_FUNCTION: Final[list[FunctionDetector]] = []


def statement_rule(
    *kinds: Kind, concern: Concern, doc: str, on: tuple[type[ast.stmt], ...]
) -> Callable[[StatementDetector], StatementDetector]:
    def register(detect: StatementDetector) -> StatementDetector:
        RULES.append(Rule(detect, kinds, concern, doc, on))
        for node_type in on:
            _BY_TYPE.setdefault(node_type, []).append(detect)
        return detect

    return register


def function_rule(
    *kinds: Kind, concern: Concern, doc: str
) -> Callable[[FunctionDetector], FunctionDetector]:
    def register(detect: FunctionDetector) -> FunctionDetector:
        RULES.append(Rule(detect, kinds, concern, doc, per_function=True))
        _PER_FUNCTION.append(detect)
        return detect

    return register


def rule(*kinds: Kind, concern: Concern, doc: str) -> Callable[[_D], _D]:
    def register(detect: _D) -> _D:
        RULES.append(Rule(detect, kinds, concern, doc))
        return detect

    return register


def function_moves(view: FunctionView) -> list[Move]:
    """Every move the statement and function rules find in one function."""
    found: list[Move] = []
    for stmt in view.statements:
        for detect in _BY_TYPE.get(type(stmt.node), ()):
            move = detect(stmt, view)
            if move is not None:
                found.append(move)
    for whole in _PER_FUNCTION:
        found.extend(whole(view))
    return found
