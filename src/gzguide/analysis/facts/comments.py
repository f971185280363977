"""The lines that hold only a comment, and whether each names a step.

A comment on a line of its own right above a block is how an author names a step
(``# weigh the parcel``): the one evidence, besides a copy, that a block is a unit a
reader would give a name of its own. A comment names a step when it starts with a
verb a step is named by; an explanation (``# the server may close early``), a pragma
for a tool (``# noqa``), a task marker (``# TODO``) or commented-out code does not.

The lines are found by a pattern over the text, not by the tokenizer: a line inside
a multi-line string that starts with ``#`` is taken for a comment too, which can only
make a block look named when the string ends right above it, on that line.
"""

from __future__ import annotations

import ast
import re
import warnings
from typing import Final, NamedTuple

_COMMENT_LINE: Final = re.compile(r"^([ \t]*)#[ \t]*(.*?)[ \t]*$", re.M)
#: The verbs a step is named by (in the imperative: ``# read the header``).
STEP_VERBS: Final = frozenset(
    """
    add adjust allocate append apply assemble assign build bump calculate call check
    choose clean clear close collect combine compare compute configure construct
    convert copy count create decode decide delete derive detect determine drain drop
    emit encode ensure establish estimate evaluate expand extract fetch fill filter
    find finish fix flush format gather generate get group handle initialise initialize
    insert install iterate join keep load locate lock log look make map mark match
    measure merge move normalise normalize open pack pad parse patch pick pop populate
    prepare print process pull push put read rebuild record reduce refresh register
    reject release remove rename render reorder repeat replace report request reset
    resolve restore retry return reuse rewrite run save scan search select send set
    setup shuffle skip sort split start stash store strip substitute swap sync take
    tell test track transform translate trim try unpack update upgrade validate verify
    wait walk warn wrap write yield
    """.split()  # noqa: SIM905 (a list of words reads best as words)
)
#: Characters that mark a comment that parses as code as commented-out code.
_CODE_MARKS: Final = frozenset("=()[].:")


class Comment(NamedTuple):
    #: The column of its ``#``.
    column: int
    #: Whether it reads as the name of a step.
    names_a_step: bool


def comment_lines(text: str) -> dict[int, Comment]:
    """Each line holding only a comment, by its number."""
    if "\r" in text:  # lines end as the tokenizer ends them: \r\n or a lone \r too
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    found: dict[int, Comment] = {}
    line = 1
    position = 0
    for match in _COMMENT_LINE.finditer(text):
        line += text.count("\n", position, match.start())
        position = match.start()
        found[line] = Comment(len(match.group(1)), _names_a_step(match.group(2)))
    return found


def _names_a_step(said: str) -> bool:
    """Whether a comment reads as the name of a step: it starts with a verb a step is
    named by (``# parse the header``), where an explanation starts with what it
    explains (``# the server may close early``)."""
    first = said.split(maxsplit=1)[0].lower().rstrip(":,.") if said else ""
    if first not in STEP_VERBS or '"""' in said or "'''" in said:
        return False
    return not _is_code(said)


def _is_code(said: str) -> bool:
    if not _CODE_MARKS.intersection(said):
        return False
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(said)
    except (SyntaxError, ValueError):
        return False
    return True
