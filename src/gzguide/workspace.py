"""Where things live inside a workspace (the root the server analyzes for)."""

from __future__ import annotations

import os

#: A workspace's own threshold table, relative to its root.
WORKSPACE_TABLE = ".gzkit/rules/complexity-thresholds.json"


def thresholds_path(root: str) -> str:
    return os.path.join(root, WORKSPACE_TABLE)
