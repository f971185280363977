"""The analysis engine's output: findings about one file, free of protocol details.

Both structs hold only strings, numbers and a list of findings, so they cannot
form reference cycles: they are not tracked by the cyclic garbage collector
(``gc=False``), which keeps collections short in a process that holds thousands.

A finding is what the protocol calls a hint, minus the ``file_path`` (which echoes
the request and is the transport's business) plus the byte span of its line range,
which lets a caller scope findings to a cursor offset without the source at hand.
"""

from __future__ import annotations

import msgspec


class Finding(msgspec.Struct, array_like=True, frozen=True, gc=False):
    """One metric value inside its advise band, located in the file."""

    metric: str
    precedence_band: str
    crossing_value: float
    archetype: str
    headline: str
    move: str
    start_line: int
    end_line: int
    #: Byte offset of the first byte of ``start_line``.
    start_byte: int
    #: Byte offset just past ``end_line``'s terminator; for the file's last line,
    #: one past the file's length, so that an offset equal to the length is inside.
    end_byte: int
    #: Whether the move proposes a change. A ``radon_cc`` hint that only lists where
    #: the decision points are does not: an editor may show it more quietly.
    proposes: bool = True
    #: The kind of move the hint carries (``any``, ``extract``, ... as
    #: ``docs/hints.md`` lists them), or ``census``.
    kind: str = "census"
    #: Whether the finding is about a def or class (whose header starts on
    #: ``start_line``), not the module.
    definition: bool = False
    #: The places the hint points at besides its own lines: first line, last line, and
    #: what is there (the lines a move changes, the copy it names, each decision point).
    related: tuple[tuple[int, int, str], ...] = ()

    def covers(self, offset: int) -> bool:
        """Whether byte ``offset`` of the file lies on one of this finding's lines."""
        return self.start_byte <= offset < self.end_byte


class FileReport(msgspec.Struct, array_like=True, frozen=True, gc=False):
    """All findings for one version of one file, sorted by (start_line, end_line, metric)."""

    findings: list[Finding]

    def at_cursor(self, offset: int | None) -> list[Finding]:
        if offset is None:
            return self.findings
        return [f for f in self.findings if f.covers(offset)]


EMPTY_REPORT = FileReport(findings=[])
