"""CI's self-gate: the tool's own radon_cc counts at or past warn and block may only fall.

Runs ``gz complexity check src/gzguide --select radon_cc --format json`` and
counts the values listed (every one is at or past warn) and those at or past
block, against the record in ``.ci/gate-record.json``:

* a count above its record fails the build: a change added a function at or
  past a boundary, or made one worse (``--since`` lists those on changed code);
* a count below its record passes, and says so: lower the record by hand, in the
  commit that lowered the count, so that the ratchet holds the gain.

The goal the record tracks: no function at or past block, at most 5% at or past warn.

Usage: ``python .ci/gate.py [--source DIR] [--record FILE]`` (defaults: the above).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RECORD = ROOT / ".ci" / "gate-record.json"
SOURCE = "src/gzguide"
METRIC = "radon_cc"
#: The goal: the largest share of functions at or past warn.
GOAL_WARN_SHARE = 0.05
COUNTS = (("at_or_past_warn", "warn"), ("at_or_past_block", "block"))


def gz(*args: str) -> subprocess.CompletedProcess[str]:
    """The ``gz`` installed beside this interpreter (``python -m gzguide`` if there is none)."""
    script = Path(sys.executable).with_name("gz")
    command = [str(script)] if script.exists() else [sys.executable, "-m", "gzguide"]
    return subprocess.run(
        [*command, *args], capture_output=True, text=True, cwd=ROOT, timeout=600, check=False
    )


def listed(source: str) -> list[dict[str, object]]:
    """What the check lists for ``source``; SystemExit when it could not check every file."""
    done = gz("complexity", "check", source, "--select", METRIC, "--format", "json")
    if done.returncode not in (0, 1) or done.stderr:
        sys.exit(f"gate: gz complexity check failed ({done.returncode}):\n{done.stderr}")
    found: list[dict[str, object]] = json.loads(done.stdout)
    return found


def function_count(source: str) -> int:
    done = gz("complexity", "measure", source, "--json")
    if done.returncode != 0:
        sys.exit(f"gate: gz complexity measure failed ({done.returncode}):\n{done.stderr}")
    return sum(row["metric"] == METRIC for row in json.loads(done.stdout))


def compare(counts: dict[str, int], record: dict[str, int], record_path: Path) -> list[str]:
    """One complaint per count above its record; notes on counts below it are printed."""
    complaints = []
    for key, level in COUNTS:
        now, recorded = counts[key], record[key]
        if now > recorded:
            complaints.append(f"{now} at or past {level}, above the record {recorded}")
        elif now < recorded:
            print(
                f"gate: at or past {level} fell from {recorded} to {now}: lower "
                f'"{key}" to {now} in {record_path} in this commit'
            )
    return complaints


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--source", default=SOURCE, help=f"folder checked (default: {SOURCE})")
    parser.add_argument("--record", type=Path, default=RECORD, help="the recorded counts")
    args = parser.parse_args(argv)
    record = json.loads(args.record.read_text())
    found = listed(args.source)
    counts = {
        "at_or_past_warn": len(found),
        "at_or_past_block": sum(f["level"] == "block" for f in found),
    }
    total = function_count(args.source)
    share = counts["at_or_past_warn"] / total if total else 0.0
    print(
        f"gate: {METRIC} in {args.source}: {counts['at_or_past_warn']} of {total} functions "
        f"at or past warn ({share:.1%}; record {record['at_or_past_warn']}), "
        f"{counts['at_or_past_block']} at or past block (record {record['at_or_past_block']})"
    )
    print(
        f"gate: goal: 0 at or past block, at most {GOAL_WARN_SHARE:.0%} at or past warn "
        f"({int(total * GOAL_WARN_SHARE)} of {total})"
    )
    complaints = compare(counts, record, args.record)
    for complaint in complaints:
        print(
            f"gate: FAIL: {complaint}; `gz complexity check {args.source} --select {METRIC} "
            "--since <base revision>` lists the values on code changed since then",
            file=sys.stderr,
        )
    return 1 if complaints else 0


if __name__ == "__main__":
    sys.exit(main())
