"""Where the repository's files are, for a test in any folder of ``tests/``."""

from __future__ import annotations

from pathlib import Path

SUPPORT = Path(__file__).resolve().parent
TESTS = SUPPORT.parent
REPO = TESTS.parent
EXAMPLES = REPO / "examples"
DOCS = REPO / "docs"
