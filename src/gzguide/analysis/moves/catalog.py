"""Every family of moves, imported here so that each registers its rules.

Whoever runs the rules over a function imports :func:`function_moves` from here,
never from the registry, so that no family can be missing when they run.
"""

from __future__ import annotations

from gzguide.analysis.moves import (
    booleans,
    classes,
    conditionals,
    copies,
    dispatch,
    exceptions,
    extract,
    lookups,
    loops,
    modules,
    objects,
    signature,
)
from gzguide.analysis.moves.registry import RULES, function_moves

#: The modules that hold rules, one per family.
FAMILIES: tuple[object, ...] = (
    booleans,
    classes,
    conditionals,
    copies,
    dispatch,
    exceptions,
    extract,
    lookups,
    loops,
    modules,
    objects,
    signature,
)

__all__ = ["FAMILIES", "RULES", "function_moves"]
