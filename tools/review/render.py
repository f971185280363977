"""listing.md: the round's diagnostics as a reviewer reads them."""

from __future__ import annotations

import re
from typing import Any

INTRO = """\
Each file below was opened, unedited, in the LSP mode of the tool under review
(`gz complexity guide --lsp`) the way an editor opens a file of a git work tree.
The work tree is `tree/` beside this file: every file is committed at `HEAD`, and
`tree/<package>/` is the package's source as published on PyPI (its sdist, project
metadata included; `tree/stdlib/` holds modules of Python {python}'s standard library).
The server ran with its default options; the client took related information,
links and code action literals. Paths below are relative to `tree/`.

For each diagnostic: the definition it sits on and its line, what the server
published (severity, code, message, link, related places), each code action the
server offered for the diagnostic's range (its edit as a diff against the file,
which `git apply` takes from `tree/`), and the source of that definition.
"""


def fence(text: str, language: str = "") -> str:
    """``text`` in a code fence longer than any run of backticks inside it."""
    runs = [len(run) for run in re.findall(r"`+", text)]
    ticks = "`" * max([3, *(n + 1 for n in runs)])
    return f"{ticks}{language}\n{text.rstrip(chr(10))}\n{ticks}\n"


def _action(n: int, action: dict[str, Any]) -> str:
    preferred = ", preferred" if action["isPreferred"] else ""
    head = f"{n}. **{action['title']}** (`{action['kind']}`{preferred})\n\n"
    return head + fence(action["diff"] or "(no edit)", "diff") + "\n"


def _related(diagnostic: dict[str, Any]) -> str:
    if not diagnostic["related"]:
        return "- related: none\n"
    lines = ["- related:\n"]
    for info in diagnostic["related"]:
        where = f"{info['line']}" if info["line"] == info["end_line"] else None
        span = where or f"{info['line']}-{info['end_line']}"
        lines.append(f"  - line {span}: {info['message']}\n")
    return "".join(lines)


def _lines(definition: dict[str, Any]) -> str:
    return f"lines {definition['start']}-{definition['end']}"


def _shown(name: str) -> str:
    return "the module" if name == "(module)" else f"`{name}`"


def diagnostic_md(diagnostic: dict[str, Any]) -> str:
    """One diagnostic: what was published, what was offered, the source it sits on."""
    definition = diagnostic["definition"]
    parts = [
        f"### {diagnostic['id']}: `{diagnostic['name']}`, line {diagnostic['line']}\n\n",
        f"- severity: {diagnostic['severity']}; code: `{diagnostic['code']}`\n",
        f"- message: {diagnostic['message']}\n",
        f"- link: <{diagnostic['href']}>\n",
        _related(diagnostic),
        f"- code actions offered: {len(diagnostic['actions']) or 'none'}\n\n",
        *(_action(n, a) for n, a in enumerate(diagnostic["actions"], 1)),
        f"Source of {_shown(definition['name'])}, {_lines(definition)}:\n\n",
        fence(definition["source"], "python"),
    ]
    return "".join(parts) + "\n"


def _file_row(file: dict[str, Any]) -> str:
    ids = ", ".join(d["id"] for d in file["diagnostics"]) or "none"
    return f"| `{file['path']}` | {file['package']} {file['version']} | {ids} |\n"


def _file_md(file: dict[str, Any]) -> str:
    head = f"## `{file['path']}` ({file['package']} {file['version']})\n\n"
    return head + "".join(diagnostic_md(d) for d in file["diagnostics"])


def render(listing: dict[str, Any]) -> str:
    """The whole listing: how it was made, the files opened, then each diagnostic."""
    files = listing["files"]
    shown = [file for file in files if file["diagnostics"]]
    packages = {file["package"] for file in files}
    counts = (
        f"{len(files)} files of {len(packages)} packages opened; "
        f"{listing['diagnostics']} diagnostics on {len(shown)} of them.\n\n"
    )
    table = "| file | package | diagnostics |\n|---|---|---|\n" + "".join(map(_file_row, files))
    return "".join(
        [
            f"# Review round {listing['round']}: what the LSP mode publishes\n\n",
            INTRO.format(python=listing.get("python", "3")),
            "\n",
            counts,
            "## Files opened\n\n",
            table,
            "\n",
            *(_file_md(file) for file in shown),
        ]
    )
