"""Per-document deadlines (the debounce of analysis), a companion of the shared loop.

The loop waits no longer than the earliest deadline and ticks the timers once it
has passed; each due key is handed to ``fire`` in the order of its deadline. A key
has at most one deadline: scheduling it again moves it.
"""

from __future__ import annotations

from collections.abc import Callable


class Timers:
    def __init__(self, fire: Callable[[str], None]) -> None:
        self._fire = fire
        self._due: dict[str, float] = {}

    def schedule(self, key: str, at: float) -> None:
        self._due[key] = at

    def cancel(self, key: str) -> bool:
        """Drop ``key``'s deadline; whether it had one."""
        return self._due.pop(key, None) is not None

    def pending(self, key: str) -> bool:
        return key in self._due

    def clear(self) -> None:
        self._due.clear()

    # -- the loop's companion protocol --------------------------------------------

    def start(self) -> None:
        pass

    def watch(self) -> list[tuple[int, int]]:
        return []

    def ready(self, fd: int, events: int) -> None:
        raise AssertionError("timers watch no descriptor")

    def next_deadline(self) -> float | None:
        return min(self._due.values(), default=None)

    def tick(self, now: float) -> None:
        due = sorted((at, key) for key, at in self._due.items() if at <= now)
        for _, key in due:
            if self._due.get(key, now + 1) <= now:
                del self._due[key]
                self._fire(key)
