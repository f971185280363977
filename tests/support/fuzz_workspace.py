"""The workspace the fuzzed servers analyze, and the reference server that judges analyze answers.

The sample modules live in ``tests/data`` (``fuzz_branchy.py``, ``fuzz_small.py``);
the workspace adds variants of them (CRLF line ends, a syntax error, an empty and
a hidden file, a non-ASCII name, a folder tree), and :data:`TEXTS` are buffers a
1.1 session may send instead (edits of those modules, and texts that are not
Python). :class:`ReferenceServer` answers each (file, cursor, text) from a separate
server that is only ever sent clean requests.
"""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

from support.paths import TESTS
from support.protocol_client import ServerProcess, analyze_message

# == The workspace the fuzzed servers analyze ============================================

# Two small modules of our own. radon's cyclomatic complexity of ``route`` is 5 and
# of ``Dispatcher.pick`` 6: both inside the default advise band, so cursors matter.
_DATA = TESTS / "data"
BRANCHY = (_DATA / "fuzz_branchy.py").read_text("utf-8")
SMALL = (_DATA / "fuzz_small.py").read_text("utf-8")

FIXTURE_FILES: dict[str, bytes] = {
    "branchy.py": BRANCHY.encode(),
    "crlf.py": BRANCHY.replace("\n", "\r\n").encode(),
    "flat.py": b"VALUE = 1\n",
    "empty.py": b"",
    "broken.py": b"def broken(:\n    pass\n",
    "na\u00efve \u00e9t\u00e9.py": SMALL.encode(),
    "notes.txt": b"not python at all\n",
    "pkg/__init__.py": b"",
    "pkg/mod.py": SMALL.encode(),
    "pkg/deeper/more.py": BRANCHY.encode(),
    "pkg/.hidden.py": SMALL.encode(),
}


def make_workspace(root: Path) -> list[str]:
    """Write the fixture files under ``root``; the paths analyze requests will name."""
    for name, content in FIXTURE_FILES.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content)
    relative = ["branchy.py", "./branchy.py", "crlf.py", "flat.py", "empty.py", "broken.py"]
    relative += ["na\u00efve \u00e9t\u00e9.py", "notes.txt", "pkg", "pkg/", "pkg/deeper/more.py"]
    relative += ["missing.py", "pkg/../branchy.py"]
    absolute = [str(root / "branchy.py"), str(root / "pkg"), str(root / "nowhere" / "x.py")]
    return relative + absolute + ["/dev/null"]


#: Buffers sent as ``text``: the modules, edited (a branch gone, one more, a rename),
#: with multi-byte characters before the functions (byte and character offsets then
#: differ), with CRLF line ends, and texts that get no hints.
TEXTS = [
    BRANCHY,
    BRANCHY.replace("\n", "\r\n"),
    BRANCHY.replace("def ", "def renamed_", 1),
    "# \u00e9t\u00e9 \u20ac\u20ac \U0001f600\n" + SMALL,
    SMALL + "\n\ndef extra(a):\n    if a:\n        return 1\n    return 2\n",
    SMALL.replace("    if c:\n        return 3\n", ""),
    "",
    "VALUE = 1\n",
    "def broken(:\n    pass\n",
    "# coding: ascii\nname = '\u00e9'\n",
]

#: Cursor offsets tried on every file: inside, at the end of and just past each fixture,
#: and far past any file (also past 64-bit integers).
_SIZES = sorted(
    {len(content) for content in FIXTURE_FILES.values()} | {len(t.encode()) for t in TEXTS}
)
CURSORS = (0, 1, 30, 60, 95, 140, 200, 260, 330, *_SIZES, *(size + 1 for size in _SIZES))
CURSORS += (10**6, 2**63, 10**30)


class ReferenceServer:
    """Hints for (file, cursor, text) from a server only ever sent clean requests.

    It analyzes in-process (``--workers 0``), which also checks that the pool and
    the in-process engine agree. Its session runs at 1.1, so that it can answer
    texts; a request without one is the same request in either version.
    """

    def __init__(self, cwd: Path) -> None:
        self.cwd = cwd
        self._server: ServerProcess | None = None
        self._cache: dict[tuple[str, int | None, str | None], list[dict[str, Any]]] = {}
        self._ids = itertools.count()

    def hints(self, path: str, cursor: int | None, text: str | None = None) -> list[dict[str, Any]]:
        key = (path, cursor, text)
        if key not in self._cache:
            if self._server is None:
                self._server = ServerProcess(args=("--workers", "0"), cwd=self.cwd)
                self._server.initialize("1.1")
            request_id = f"reference-{next(self._ids)}"
            extra: dict[str, Any] = {} if cursor is None else {"cursor": cursor}
            if text is not None:
                extra["text"] = text
            response = self._server.request(analyze_message(request_id, path, **extra))
            self._cache[key] = response.hints
        return self._cache[key]

    def close(self) -> None:
        if self._server is not None:
            self._server.kill()
            self._server = None
