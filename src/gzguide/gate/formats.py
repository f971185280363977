"""A check's listing as text (one line per value), JSON, or GitHub Actions commands."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Final

import msgspec

from gzguide.gate.listing import Finding


def _boundary(number: float) -> str:
    """A table's number as written there: short when that is exact."""
    short = f"{number:g}"
    return short if float(short) == number else repr(number)


def _subject(f: Finding) -> str:
    return "module" if f.kind == "module" else f"{f.kind} {f.name}"


def _verdict(f: Finding) -> str:
    return f"{f.metric} {f.value:g} ({f.level} at {_boundary(f.boundary)})"


def message(f: Finding) -> str:
    """What a value is and where: ``radon_cc 12 (warn at 7) in function parse``."""
    return f"{_verdict(f)} in {_subject(f)}"


def summary(found: Sequence[Finding], fail_at: str) -> str:
    """The last line of a listing for people."""
    if not found:
        return f"No value at or past {fail_at}."
    files = len({f.file_path for f in found})
    values = "value" if len(found) == 1 else "values"
    return f"{len(found)} {values} at or past {fail_at} in {files} file{'s' * (files != 1)}."


def as_text(found: Sequence[Finding], fail_at: str) -> str:
    lines = [f"{f.file_path}:{f.line}:{f.column}: {message(f)}" for f in found]
    lines.append(summary(found, fail_at))
    return "\n".join(lines) + "\n"


def as_json(found: Sequence[Finding], fail_at: str) -> str:
    del fail_at  # each object names its own level
    return msgspec.json.format(msgspec.json.encode(list(found)), indent=2).decode() + "\n"


#: Workflow command escapes: of the message, and (more) of a property's value.
_DATA_ESCAPES: Final = str.maketrans({"%": "%25", "\r": "%0D", "\n": "%0A"})
_PROPERTY_ESCAPES: Final = str.maketrans(
    {"%": "%25", "\r": "%0D", "\n": "%0A", ":": "%3A", ",": "%2C"}
)


def _github_line(f: Finding) -> str:
    properties = {
        "file": f.file_path,
        "line": str(f.line),
        "col": str(f.column),
        "endLine": str(f.end_line),
        "title": f"{f.metric} at or past {f.level}",
    }
    listed = ",".join(f"{k}={v.translate(_PROPERTY_ESCAPES)}" for k, v in properties.items())
    return f"::error {listed}::{message(f).translate(_DATA_ESCAPES)}"


def as_github(found: Sequence[Finding], fail_at: str) -> str:
    """One ``::error`` workflow command per value (an annotation on its line), then the summary."""
    lines = [_github_line(f) for f in found]
    lines.append(summary(found, fail_at))
    return "\n".join(lines) + "\n"


FORMATS: Final[dict[str, Callable[[Sequence[Finding], str], str]]] = {
    "text": as_text,
    "json": as_json,
    "github": as_github,
}
