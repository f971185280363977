"""The review harness against the real server: a committed module with a fixable hint
opened unedited, and its listing's diagnostic, code action and source."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tools.review.listing import broken_diffs, write_listing
from tools.review.prepare import MANIFEST, TREE, commit_tree

from support.fixable import FIXED, SEARCH


def test_a_listing_holds_what_the_server_published_and_its_diff_applies(tmp_path: Path) -> None:
    tree = tmp_path / TREE
    module = tree / "pkg" / "pkg" / "search.py"
    module.parent.mkdir(parents=True)
    (tree / "pkg" / "pyproject.toml").write_text('[project]\nname = "pkg"\n')
    module.write_text(SEARCH)
    commit_tree(tree, 1)
    package = {"name": "pkg", "version": "1.0", "kind": "sdist", "files": ["pkg/pkg/search.py"]}
    (tmp_path / MANIFEST).write_text(json.dumps({"round": 1, "packages": [package]}))

    listing = write_listing(tmp_path)

    (file,) = listing["files"]
    (diagnostic,) = file["diagnostics"]
    assert (diagnostic["id"], diagnostic["name"], diagnostic["line"]) == ("D1", "has_negative", 1)
    assert diagnostic["message"] == diagnostic["published"]["message"]
    assert diagnostic["definition"]["source"].startswith("1 | def has_negative(xs, ys, zs):")
    (fix,) = [a for a in diagnostic["actions"] if a["kind"] == "quickfix"]
    assert broken_diffs(tmp_path, listing) == []
    subprocess.run(["git", "apply", "-"], cwd=tree, input=fix["diff"].encode(), check=True)
    assert module.read_text() == FIXED
    markdown = (tmp_path / "listing.md").read_text()
    assert "### D1: `has_negative`, line 1" in markdown and fix["title"] in markdown
