"""``listing``: the round's files opened in the real server, and what it published.

The client is what an editor is: it opens each chosen file of the committed tree
unedited, waits for the file's diagnostics, and asks for the code actions of each
diagnostic's range with that diagnostic in the context. The listing holds only what
the server sent, the edits applied to the file as diffs, and the file's own source.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from tools.review.client import LspClient
from tools.review.edits import BREAK, apply, text_edits, unified_diff
from tools.review.prepare import MANIFEST, TREE
from tools.review.render import render
from tools.review.source import Enclosing, enclosing, numbered

SEVERITY = {1: "Error", 2: "Warning", 3: "Information", 4: "Hint"}
#: What this client says it takes: related places and links on diagnostics, code action
#: literals of both kinds the server offers, edits that name the document's version.
CAPABILITIES: dict[str, Any] = {
    "textDocument": {
        "synchronization": {"didSave": True},
        "publishDiagnostics": {
            "relatedInformation": True,
            "codeDescriptionSupport": True,
            "versionSupport": True,
        },
        "codeAction": {
            "codeActionLiteralSupport": {
                "codeActionKind": {"valueSet": ["quickfix", "source.fixAll"]}
            },
            "isPreferredSupport": True,
        },
    },
    "workspace": {"workspaceEdit": {"documentChanges": True}},
}


def server_command(python: str) -> list[str]:
    return [python, "-m", "gzguide", "complexity", "guide", "--lsp"]


def child_env() -> dict[str, str]:
    """This process's environment, its PYTHONPATH made absolute: the server starts in the
    tree, as an editor starts it in the workspace."""
    env = dict(os.environ)
    paths = env.get("PYTHONPATH", "").split(os.pathsep)
    env["PYTHONPATH"] = os.pathsep.join(str(Path(p).resolve()) for p in paths if p)
    return env


def start(tree: Path, command: list[str]) -> tuple[LspClient, str]:
    """The server, initialized with the tree as its root and default options; and the
    position encoding it chose."""
    client = LspClient(command, tree, child_env())
    params = {"processId": os.getpid(), "rootUri": tree.as_uri(), "capabilities": CAPABILITIES}
    result = client.request("initialize", params)
    client.notify("initialized", {})
    return client, str(result["capabilities"].get("positionEncoding", "utf-16"))


def _action(action: dict[str, Any], uri: str, text: str, path: str, encoding: str) -> Any:
    """An offered action as the listing shows it: its edit as a diff of the file."""
    edit = action.get("edit", {})
    after = apply(text, text_edits(edit, uri), encoding)
    return {
        "title": action["title"],
        "kind": action.get("kind"),
        "isPreferred": action.get("isPreferred", False),
        "diff": unified_diff(text, after, path),
        "command": action.get("command"),
    }


def actions(client: LspClient, uri: str, diagnostic: dict[str, Any]) -> list[dict[str, Any]]:
    """The code actions the server offers for the diagnostic's range, asked as an editor
    asks when the cursor is on it."""
    context = {"diagnostics": [diagnostic], "triggerKind": 1}
    params = {"textDocument": {"uri": uri}, "range": diagnostic["range"], "context": context}
    offered: list[dict[str, Any]] = client.request("textDocument/codeAction", params) or []
    return offered


def _definition(text: str, line: int) -> dict[str, Any]:
    """The definition a diagnostic sits on with its numbered source (a module's: the file)."""
    found = enclosing(text, line) or Enclosing("(module)", 1, len(BREAK.split(text)))
    name, start, end = found.name, found.start, found.end
    return {"name": name, "start": start, "end": end, "source": numbered(text, start, end)}


def describe(diagnostic: dict[str, Any], text: str) -> dict[str, Any]:
    """A published diagnostic, field by field, with the source it sits on."""
    line = diagnostic["range"]["start"]["line"] + 1
    related = [
        {
            "line": info["location"]["range"]["start"]["line"] + 1,
            "end_line": info["location"]["range"]["end"]["line"] + 1,
            "message": info["message"],
        }
        for info in diagnostic.get("relatedInformation", [])
    ]
    return {
        "line": line,
        "severity": SEVERITY.get(diagnostic.get("severity", 0), str(diagnostic.get("severity"))),
        "code": diagnostic.get("code"),
        "message": diagnostic["message"],
        "href": diagnostic.get("codeDescription", {}).get("href"),
        "related": related,
        "definition": _definition(text, line),
        "published": diagnostic,
    }


def open_file(client: LspClient, tree: Path, path: str, encoding: str) -> list[dict[str, Any]]:
    """One file opened unedited: each of its diagnostics described, with its actions."""
    file = tree / path
    text = file.read_bytes().decode("utf-8")
    uri = file.as_uri()
    item = {"uri": uri, "languageId": "python", "version": 1, "text": text}
    client.notify("textDocument/didOpen", {"textDocument": item})
    found = []
    for diagnostic in client.publication(uri, 1):
        shown = describe(diagnostic, text)
        offered = actions(client, uri, diagnostic)
        shown["actions"] = [_action(a, uri, text, path, encoding) for a in offered]
        found.append(shown)
    client.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
    return found


def number(files: list[dict[str, Any]]) -> int:
    """D1, D2, ... across the round, in the order the files were opened."""
    count = 0
    for file in files:
        for diagnostic in file["diagnostics"]:
            count += 1
            diagnostic["id"] = f"D{count}"
            diagnostic["name"] = diagnostic["definition"]["name"]
    return count


def collect(out: Path, command: list[str]) -> dict[str, Any]:
    """Every chosen file of the manifest opened in one server, in the manifest's order."""
    manifest = json.loads((out / MANIFEST).read_text("utf-8"))
    tree = out / TREE
    client, encoding = start(tree, command)
    files = []
    try:
        for package in manifest["packages"]:
            for path in package["files"]:
                found = open_file(client, tree, path, encoding)
                entry = {"package": package["name"], "version": package["version"]}
                files.append({"path": path, **entry, "diagnostics": found})
    finally:
        status = client.close()
    count = number(files)
    pythons = [p["version"] for p in manifest["packages"] if p["kind"] == "stdlib"]
    return {
        "round": manifest["round"],
        "diagnostics": count,
        "encoding": encoding,
        "python": pythons[0] if pythons else "3",
        "server_status": status,
        "files": files,
    }


def broken_diffs(out: Path, listing: dict[str, Any]) -> list[str]:
    """The actions whose diff ``git apply --check`` refuses in the tree: none, or a bug."""
    broken = []
    for diagnostic, action in offered(listing):
        done = subprocess.run(
            ["git", "apply", "--check", "-"],
            input=action["diff"].encode("utf-8"),
            cwd=out / TREE,
            capture_output=True,
            check=False,
        )
        if done.returncode != 0 or not action["diff"]:
            broken.append(f"{diagnostic['id']} {action['title']}: {done.stderr!r}")
    return broken


def offered(listing: dict[str, Any]) -> Iterator[tuple[dict[str, Any], dict[str, Any]]]:
    """Every (diagnostic, action) pair of the listing."""
    for file in listing["files"]:
        for diagnostic in file["diagnostics"]:
            yield from ((diagnostic, action) for action in diagnostic["actions"])


def write_listing(out: Path, python: str = sys.executable) -> dict[str, Any]:
    """``listing.json`` and ``listing.md`` written beside the manifest."""
    listing = collect(out, server_command(python))
    text = json.dumps(listing, indent=2, ensure_ascii=False)
    (out / "listing.json").write_text(text + "\n", "utf-8")
    (out / "listing.md").write_text(render(listing), "utf-8")
    return listing
