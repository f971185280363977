"""How long a fuzz property may run: pytest-timeout's limit, sized by its examples."""

from __future__ import annotations


def timeout_for(examples: int, seconds_each: float) -> int:
    """pytest-timeout's limit for a property: only there to stop a hang."""
    return max(300, int(examples * seconds_each))
