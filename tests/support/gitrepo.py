"""Git work trees a test makes in its temporary folder, with ``git`` itself (no user
or system configuration read)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path


def git(repo: Path, *args: str) -> None:
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    identity = ["-c", "user.name=t", "-c", "user.email=t@example.org"]
    subprocess.run(["git", *identity, *args], cwd=repo, env=env, check=True, capture_output=True)


def committed(top: Path, name: str, text: str) -> Path:
    """A new work tree at ``top`` whose one commit holds the file ``name`` with ``text``."""
    top.mkdir()
    git(top, "init", "-q")
    path = top / name
    path.write_text(text, "utf-8")
    git(top, "add", name)
    git(top, "commit", "-q", "-m", name)
    return path
