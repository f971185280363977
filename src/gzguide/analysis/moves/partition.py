"""Names joined into groups that share nothing (disjoint sets, with path halving).

The class and module moves link names that use or mention each other and read the
groups that come out: each group is known by one of its names, its root.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TypeVar

_T = TypeVar("_T")


class Partition:
    """Names in groups; a name not seen before is a group of its own."""

    def __init__(self, names: Iterable[str] = ()) -> None:
        self._parent = {name: name for name in names}

    def find(self, name: str) -> str:
        """The root of ``name``'s group."""
        parent = self._parent
        parent.setdefault(name, name)
        while parent[name] != name:
            parent[name] = parent[parent[name]]
            name = parent[name]
        return name

    def join(self, name: str, other: str) -> None:
        """Make one group of ``name``'s and ``other``'s (under ``other``'s root)."""
        root = self.find(other)
        self._parent[self.find(name)] = root

    def groups(self, items: Iterable[_T], name: Callable[[_T], str]) -> list[list[_T]]:
        """``items`` by the group of their ``name``, in the order each group is first met."""
        grouped: dict[str, list[_T]] = {}
        for item in items:
            grouped.setdefault(self.find(name(item)), []).append(item)
        return list(grouped.values())
