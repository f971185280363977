"""A module for the new-code rule: two functions whose hints are the census (a budget,
no move) and one whose hint is a move, with edits that change one function each."""

from __future__ import annotations

BUDGET = '''"""Two functions in the advise band whose hints are the census, and one with a move."""


def retry_delay(attempt, base, ceiling, jitter):
    if attempt <= 0:
        raise ValueError("attempt counts from 1")
    delay = base * 2 ** (attempt - 1)
    while delay > ceiling:
        delay //= 2
    if jitter and delay > 1:
        delay -= attempt % 2
    return delay


def parse_size(text):
    number, _, unit = text.strip().partition(" ")
    try:
        value = float(number)
    except ValueError:
        return None
    if unit in ("k", "kB"):
        value *= 1000
    elif unit in ("M", "MB"):
        value *= 1000 * 1000
    return int(value) if value >= 0 else None


def has_negative(values):
    for value in values:
        if value < 0:
            return True
    return False
'''

#: An edit inside ``retry_delay`` (its decision points unchanged), as (old, new).
IN_RETRY_DELAY = ("delay //= 2", "delay //= 3")
#: The lines of each function's header (1-based), by name.
HEADERS = {"retry_delay": 4, "parse_size": 15, "has_negative": 28}
