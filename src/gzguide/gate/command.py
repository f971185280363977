"""Running a check: paths in, a listing on stdout and an exit status out.

The exit status is 1 when a value is listed or a file is not analyzable Python
(named on stderr), 0 otherwise; 2 when ``--since`` cannot be read (the caller's
usage error: no git work tree, no such revision, a file outside the work tree).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from dataclasses import replace

from gzguide.analysis.discovery import covered_files
from gzguide.analysis.inventory import Inventory, inventory_of
from gzguide.analysis.policy.thresholds import Thresholds
from gzguide.analysis.source import read_source_bytes
from gzguide.gate.formats import FORMATS
from gzguide.gate.listing import Finding, Gate, findings
from gzguide.history import HistoryError, Revision, changes, resolve
from gzguide.workspace import ThresholdSource


def _say_rejected(event: str, **fields: object) -> None:
    """A workspace table that does not validate is named: the default applies instead."""
    if event == "thresholds_rejected":
        where, reason = fields.get("path"), fields.get("reason")
        print(f"gz: {where}: {reason}; the embedded default table applies", file=sys.stderr)


def active_table(root: str) -> Thresholds:
    """The table the server would use for workspace ``root``."""
    return ThresholdSource(root, _say_rejected).current()


def _inventory(shown: str, real: str) -> Inventory | None:
    data = read_source_bytes(real)
    found = inventory_of(data) if data is not None else None
    if found is None:
        print(f"gz: {shown}: not analyzable Python", file=sys.stderr)
    return found


def _changed_only(inventory: Inventory, old: bytes | None) -> Inventory:
    """The values of ``inventory`` on code that differs from ``old`` (None: no old file)."""
    changed = changes(inventory.module.text, inventory.scopes, old)
    return replace(inventory, entries=[e for e in inventory.entries if changed.covers(e[1])])


def _files(paths: Sequence[str]) -> list[tuple[str, str]]:
    return [file for path in paths for file in covered_files(path)]


def check(
    files: Sequence[tuple[str, str]], gate: Gate, since: Revision | None
) -> tuple[int, list[Finding]]:
    """What ``gate`` lists in ``files`` (shown, read), and 1 if one was not analyzable, else 0.

    With ``since``, only values on code changed since that revision are listed.
    """
    olds = since.texts([real for _, real in files]) if since is not None else None
    status = 0
    found: list[Finding] = []
    for index, (shown, real) in enumerate(files):
        inventory = _inventory(shown, real)
        if inventory is None:
            status = 1
            continue
        if olds is not None:
            inventory = _changed_only(inventory, olds[index])
        found.extend(findings(shown, inventory, gate))
    found.sort(key=lambda f: (f.file_path, f.line, f.column, f.metric))
    return status, found


def run_check(args: argparse.Namespace) -> int:
    """``gz complexity check``: list, then exit 1 if anything was listed or unreadable."""
    root = os.path.abspath(args.root or os.getcwd())
    gate = Gate.of(active_table(root), args.fail_at, args.select)
    files = _files(args.paths)
    try:
        since = resolve(root, args.since) if args.since is not None else None
        status, found = check(files, gate, since)
    except HistoryError as exc:
        print(f"gz: --since: {exc}", file=sys.stderr)
        return 2
    sys.stdout.write(FORMATS[args.format](found, gate.fail_at))
    return max(status, 1 if found else 0)
