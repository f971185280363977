"""``gz complexity fix``: the verified fixes of the hints of PATHs, made in place.

Safe fixes only unless ``--unsafe-fixes``; ``--select`` keeps the hints of some
metrics. Each file is fixed until no fix is left (a fix can enable another), so a
second run changes nothing. ``--diff`` prints what would change as a unified diff
and writes nothing: exit 1 when there is a change, 0 otherwise (as ``ruff --diff``).
A file is only rewritten when its bytes are its text in UTF-8 (no other encoding
declared, no byte-order mark), so that writing it back changes nothing else.
"""

from __future__ import annotations

import argparse
import difflib
import os
import sys
from dataclasses import dataclass

from gzguide.analysis.discovery import covered_files
from gzguide.analysis.fixes.planner import Offered, fix_text
from gzguide.analysis.policy.thresholds import Thresholds
from gzguide.analysis.source import decode_source, read_source_bytes
from gzguide.gate.command import active_table
from gzguide.pyfloor import oldest_python


@dataclass(frozen=True, slots=True)
class _Fixed:
    shown: str
    real: str
    before: str
    after: str
    made: list[Offered]


def _fixed(shown: str, real: str, table: Thresholds, args: argparse.Namespace) -> _Fixed | None:
    data = read_source_bytes(real)
    text = decode_source(data) if data is not None else None
    if text is None or text.encode() != data:
        print(f"gz: {shown}: not UTF-8 Python text; left as it is", file=sys.stderr)
        return None
    after, made = fix_text(text, table, args.select, args.unsafe_fixes, oldest_python(real))
    return _Fixed(shown, real, text, after, made)


def _diff(fixed: _Fixed) -> str:
    lines = difflib.unified_diff(
        fixed.before.splitlines(keepends=True),
        fixed.after.splitlines(keepends=True),
        f"a/{fixed.shown}",
        f"b/{fixed.shown}",
    )
    return "".join(lines)


def _write(fixed: _Fixed) -> None:
    with open(fixed.real, "w", encoding="utf-8", newline="") as out:
        out.write(fixed.after)
    for offered in fixed.made:
        print(f"{fixed.shown}:{offered.finding.start_line}: {offered.summary}")


def _changed(files: list[tuple[str, str]], args: argparse.Namespace) -> list[_Fixed]:
    """The files whose text the fixes change."""
    table = active_table(os.path.abspath(args.root or os.getcwd()))
    found = [_fixed(shown, real, table, args) for shown, real in files]
    return [f for f in found if f is not None and f.after != f.before]


def _fixes(count: int) -> str:
    return "1 fix" if count == 1 else f"{count} fixes"


def run_fix(args: argparse.Namespace) -> int:
    files = [f for path in args.paths for f in covered_files(path)]
    changed = _changed(files, args)
    if args.diff:
        sys.stdout.write("".join(map(_diff, changed)))
        return 1 if changed else 0
    _write_all(changed, len(files))
    return 0


def _write_all(changed: list[_Fixed], total: int) -> None:
    for fixed in changed:
        _write(fixed)
    count = sum(len(f.made) for f in changed)
    print(f"{_fixes(count)} made in {len(changed)} of {total} files")
