"""How often the cyclic garbage collector looks at new objects while code is analyzed.

An analysis allocates a syntax tree and the facts built over it: hundreds of thousands
of objects that live until it ends, few of them garbage. With CPython's default (a
young collection every 700 allocations, each older one every 10 of those), the
collector walks that growing tree again and again, a cost that rises faster than the
file's size. Looking every 50,000 allocations, and at the older generations every 20,
keeps the walks few; what is freed meanwhile is at most that many young objects, and
each process collects in full between jobs (``workers.child``) or when idle.
"""

from __future__ import annotations

import gc
from typing import Final

#: Allocations between two collections of the youngest generation.
YOUNG_EVERY: Final = 50_000
#: Collections of a generation between two of the next older one.
OLDER_EVERY: Final = 20


def tune() -> None:
    """Set the process's collector for analysis work (idempotent)."""
    gc.set_threshold(YOUNG_EVERY, OLDER_EVERY, OLDER_EVERY)
