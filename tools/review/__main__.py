"""``python -m tools.review prepare|listing``: see docs/reviews.md, "How a round is made"."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tools.review.listing import broken_diffs, write_listing
from tools.review.prepare import Round, prepare


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="python -m tools.review", description=__doc__)
    commands = top.add_subparsers(dest="command", required=True)
    made = commands.add_parser("prepare", help="download, unpack, choose the files, commit")
    made.add_argument("--round", type=int, required=True, help="the round; also the seed")
    made.add_argument("--out", type=Path, required=True)
    made.add_argument("--per-package", type=int, default=4, help="files opened per package")
    made.add_argument("--stdlib", nargs="*", default=[], help="stdlib modules")
    made.add_argument(
        "--exclude", action="append", default=[], help="a tree-relative glob not to open"
    )
    made.add_argument("specs", nargs="*", help="PyPI requirement specs (name==version)")
    shown = commands.add_parser("listing", help="open the chosen files in the server")
    shown.add_argument("--out", type=Path, required=True)
    shown.add_argument("--python", default=sys.executable, help="the server's interpreter")
    return top


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if args.command == "prepare":
        out = args.out.resolve()
        chosen = Round(
            args.round, out, args.specs, args.stdlib, args.per_package, tuple(args.exclude)
        )
        manifest = prepare(chosen)
        count = sum(len(p["files"]) for p in manifest["packages"])
        print(f"{args.out}: {len(manifest['packages'])} packages, {count} files to open")
        return 0
    out = args.out.resolve()
    listing = write_listing(out, args.python)
    broken = broken_diffs(out, listing)
    print(f"{out / 'listing.md'}: {listing['diagnostics']} diagnostics", *broken, sep="\n")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
