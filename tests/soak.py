"""A soak test: a long, replayed editing session against the real server.

The session is generated from a seed, so a run can be replayed exactly. It works
in a temporary workspace of real Python files, copied at run time from the
installed standard library (nothing is stored in the repository), and edits them
while the server is serving: functions appended, removed and rewritten, same-size
rewrites with the modification time put back, deletions and re-creations, atomic
saves, truncation to empty, syntax errors, renames. Between the edits it sends
analyze requests for files and folders (absolute and relative paths, with and
without a cursor), unknown methods, invalid params and about 5% garbage (framing
errors, invalid JSON and UTF-8, non-objects, bad ids). Some requests go one at a
time, some pipelined, several frames in one write.

What is checked:

* every unit sent (request or garbage) gets exactly one response, in order, with
  its id echoed exactly (``null`` for garbage), the expected error code, and for
  analyze a ``{"hints": [...]}`` result whose hints all carry the path as sent;
  a sample of the answers is compared with a fresh in-process analysis of the
  bytes on disk, and so is every answer of a *racy probe* (ask about a file,
  rewrite it in place at the same size with its old mtime put back, ask again:
  a server that trusted the mtime would answer the old version);
* the server's whole process tree (its process group): resident memory, open
  file descriptors and process count are sampled after warm-up and at the end;
  memory must grow by less than 10%, descriptors must not grow at all, the
  processes must be the same ones, and no child may ever be left a zombie;
* after ``shutdown`` the server exits 0 and nothing is left in its group (nor
  any of its former processes elsewhere);
* its log (stderr) is whole JSON lines: one ``request`` line per request, one
  ``framing_error`` line per framing error, and no failed job, replaced worker,
  failed analysis or error-level line.

Run the full soak (20,000 requests by default) with::

    .venv/bin/python tests/soak.py --requests 20000 [--seed S] [--workers W] [--files F] [--json]

It prints a short report and exits non-zero on failure. ``tests/test_soak.py``
runs a bounded version of the same session in CI.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import posixpath
import random
import sys
import sysconfig
import tempfile
import time
from collections import Counter, OrderedDict
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

if __name__ == "__main__":  # run as a script: protocol_client lives next to this file
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import msgspec

from gzguide import procfs
from gzguide.analysis.engine import analyze_bytes
from gzguide.analysis.model import FileReport
from gzguide.analysis.thresholds import default_thresholds
from gzguide.messages import to_hint
from protocol_client import Response, ServerProcess, frame

DEFAULT_REQUESTS = 20_000
DEFAULT_SEED = 20_240_531
DEFAULT_FILES = 100
#: Resident memory may grow by less than this fraction between warm-up and the end.
RSS_GROWTH_LIMIT = 0.10
#: The share of requests sent before the warm-up sample (at least one full sweep).
WARMUP_FRACTION = 0.25
#: How many trend samples are taken over a run (besides warm-up and the end).
TREND_SAMPLES = 10
#: Share of single-file analyze answers compared with an in-process analysis.
VERIFY_FRACTION = 0.15
#: How long the server is left idle before a measured sample (idle-time GC, log flush).
SETTLE_SECONDS = 0.3
#: Only a hang should ever hit this.
READ_TIMEOUT = 30.0
#: Log events that mean a request lost its answer or a worker died.
BAD_LOG_EVENTS = ("job_failed", "worker_replaced", "analyze_failed", "pool_unavailable")
#: Requests sent besides the session's units: initialize, two pings (samples), shutdown.
EXTRA_REQUESTS = 4

OVER_LIMIT_BODY = 10 * 1024 * 1024 + 1

# Two lines of the same byte length: the first adds a branch, the second does not,
# so flipping one changes a function's complexity without changing the file's size.
BRANCH_LINE = b"    if a: a = 1\n"
QUIET_LINE = b"    # xxxxxxxxx\n"
assert len(BRANCH_LINE) == len(QUIET_LINE)
TOGGLES_PER_FUNCTION = 6
#: Functions appended to one file at most, so the workspace does not grow without end.
MAX_FUNCTIONS = 4


# -- the workspace ---------------------------------------------------------------


def stdlib_sources(min_size: int = 1_500, max_size: int = 24_000) -> list[Path]:
    """Modest-sized source files of the installed standard library, sorted."""
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    packages = (
        "",
        "email",
        "json",
        "http",
        "logging",
        "concurrent/futures",
        "importlib",
        "xml/dom",
    )
    found: list[Path] = []
    for package in packages:
        folder = stdlib / package if package else stdlib
        for path in sorted(folder.glob("*.py")):
            with contextlib.suppress(OSError):
                if min_size <= path.stat().st_size <= max_size:
                    found.append(path)
    return found


#: Folders of the workspace (relative), and the share of files placed in each.
FOLDERS = ("", "", "", "pkg_a", "pkg_a/sub", "pkg_b", "pkg_b/deep/er")


@dataclass
class SourceFile:
    """One workspace file: its two names, its base text and the edits made to it."""

    names: tuple[str, str]
    base: bytes
    functions: list[list[bool]] = field(default_factory=list)
    state: str = "ok"  # ok, empty, broken or deleted
    current: int = 0  # which of the two names it lives under

    @property
    def rel(self) -> str:
        return self.names[self.current]

    @property
    def other(self) -> str:
        return self.names[1 - self.current]

    def render(self) -> bytes:
        """The bytes the file holds in its current state."""
        if self.state == "empty":
            return b""
        parts = [self.base]
        for index, toggles in enumerate(self.functions):
            parts.append(b"\n\ndef soak_edit_%d(a, b):\n    total = a\n" % index)
            parts.extend(BRANCH_LINE if on else QUIET_LINE for on in toggles)
            parts.append(b"    return total + b\n")
        if self.state == "broken":
            parts.append(b"\n\ndef soak_broken(:\n    pass\n")
        return b"".join(parts)


class Workspace:
    """The temporary workspace: files on disk and the model of what they hold."""

    def __init__(self, root: Path, files: list[SourceFile], folders: list[str]) -> None:
        self.root = root
        self.files = files
        self.folders = folders

    @classmethod
    def build(cls, root: Path, rng: random.Random, count: int) -> Workspace:
        sources = stdlib_sources()
        if len(sources) < count:
            raise RuntimeError(f"only {len(sources)} stdlib files fit, {count} wanted")
        chosen = rng.sample(sources, count)
        files = []
        for index, source in enumerate(chosen):
            folder = FOLDERS[index % len(FOLDERS)]
            stem = f"m{index:03d}_{source.stem}"
            names = (posixpath.join(folder, f"{stem}.py"), posixpath.join(folder, f"{stem}_r.py"))
            if index % 25 == 7:  # a few stubs: directory analyze covers .pyi too
                names = (names[0] + "i", names[1] + "i")
            files.append(SourceFile(names=names, base=source.read_bytes()))
        workspace = cls(root, files, sorted({f for f in FOLDERS if f}))
        workspace._write_all()
        return workspace

    def _write_all(self) -> None:
        for folder in (*self.folders, ".hidden"):
            (self.root / folder).mkdir(parents=True, exist_ok=True)
        for source in self.files:
            self.write(source)
        # Never covered by a directory analyze: hidden, or not a Python source.
        (self.root / ".hidden" / "skipped.py").write_bytes(self.files[0].base)
        (self.root / "pkg_a" / "notes.txt").write_text("not python\n")

    def path(self, rel: str) -> Path:
        return self.root / rel

    def write(self, source: SourceFile) -> None:
        self.path(source.rel).write_bytes(source.render())

    def total_bytes(self) -> int:
        return sum(len(s.render()) for s in self.files)


# -- edits --------------------------------------------------------------------------


def new_toggles(rng: random.Random) -> list[bool]:
    return [rng.random() < 0.6 for _ in range(TOGGLES_PER_FUNCTION)]


class Editor:
    """Edits workspace files the ways an editor and a developer do."""

    KINDS = (
        ("append_function", 5),
        ("remove_function", 3),
        ("change_body", 5),
        ("same_size_rewrite", 4),
        ("atomic_save", 2),
        ("delete", 1),
        ("delete_recreate", 1),
        ("truncate", 1),
        ("syntax_error", 1),
        ("rename", 1),
    )

    def __init__(self, workspace: Workspace, rng: random.Random) -> None:
        self.ws = workspace
        self.rng = rng
        self.counts: Counter[str] = Counter()

    def pick_kind(self, source: SourceFile) -> str:
        """What to do to ``source``; a broken, empty or missing file is usually restored."""
        if source.state != "ok" and self.rng.random() < 0.7:
            return "restore"
        kinds = [kind for kind, _ in self.KINDS]
        weights = [weight for _, weight in self.KINDS]
        return self.rng.choices(kinds, weights)[0]

    def edit(self, source: SourceFile, kind: str) -> str:
        """Apply one edit of ``kind`` to ``source`` on disk; returns the kind applied."""
        if source.state == "deleted" and kind not in ("restore", "delete_recreate"):
            kind = "restore"
        getattr(self, f"_{kind}")(source)
        self.counts[kind] += 1
        return kind

    def _rewrite(self, source: SourceFile) -> None:
        source.state = "ok"
        self.ws.write(source)

    def _restore(self, source: SourceFile) -> None:
        self._rewrite(source)

    def add_function(self, source: SourceFile) -> None:
        """Append a function to the model; at the cap, one is removed first (sizes stay steady)."""
        if len(source.functions) >= MAX_FUNCTIONS:
            source.functions.pop(self.rng.randrange(len(source.functions)))
        source.functions.append(new_toggles(self.rng))

    def _append_function(self, source: SourceFile) -> None:
        self.add_function(source)
        self._rewrite(source)

    def _remove_function(self, source: SourceFile) -> None:
        if source.functions:
            source.functions.pop(self.rng.randrange(len(source.functions)))
        self._rewrite(source)

    def _change_body(self, source: SourceFile) -> None:
        if not source.functions:
            source.functions.append([])
        index = self.rng.randrange(len(source.functions))
        size = self.rng.choice([n for n in range(2, 9) if n != len(source.functions[index])])
        source.functions[index] = [self.rng.random() < 0.6 for _ in range(size)]
        self._rewrite(source)

    def _same_size_rewrite(self, source: SourceFile) -> None:
        """Flip one branch line in place and put the old modification time back."""
        candidates = [t for t in source.functions if t]
        if source.state != "ok" or not candidates:
            self._append_function(source)
            return
        path = self.ws.path(source.rel)
        before = path.stat()
        toggles = self.rng.choice(candidates)
        slot = self.rng.randrange(len(toggles))
        toggles[slot] = not toggles[slot]
        data = source.render()
        assert len(data) == before.st_size
        with open(path, "r+b") as handle:
            handle.write(data)
        os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))

    def _atomic_save(self, source: SourceFile) -> None:
        """Write a hidden temporary file next to it and rename it over (a new inode)."""
        source.state = "ok"
        self.add_function(source)
        path = self.ws.path(source.rel)
        temporary = path.with_name(f".{path.name}.tmp")
        temporary.write_bytes(source.render())
        os.replace(temporary, path)

    def _delete(self, source: SourceFile) -> None:
        self.ws.path(source.rel).unlink()
        source.state = "deleted"

    def _delete_recreate(self, source: SourceFile) -> None:
        with contextlib.suppress(FileNotFoundError):
            self.ws.path(source.rel).unlink()
        self._rewrite(source)

    def _truncate(self, source: SourceFile) -> None:
        os.truncate(self.ws.path(source.rel), 0)
        source.state = "empty"

    def _syntax_error(self, source: SourceFile) -> None:
        source.state = "broken"
        self.ws.write(source)

    def _rename(self, source: SourceFile) -> None:
        old = self.ws.path(source.rel)
        source.current = 1 - source.current
        os.rename(old, self.ws.path(source.rel))


# -- what is sent and what must come back -------------------------------------------


@dataclass(frozen=True)
class Expect:
    """What the answer to one unit must be."""

    kind: str  # "analyze" or "error"
    id: Any
    code: int | None = None
    path: str | None = None  # analyze: the file_path string as sent
    target: str | None = None  # analyze: the absolute path on disk
    cursor: int | None = None
    directory: bool = False
    verify: bool = False


@dataclass(frozen=True)
class Unit:
    """Bytes that must draw exactly one response, and what that response must be."""

    label: str
    data: bytes
    expect: Expect


@dataclass
class Batch:
    """Units written in one go, then answered; ``in_flight`` runs between the two."""

    units: list[Unit]
    in_flight: Callable[[], str] | None = None


class Ids:
    """Unique request ids of mixed types: integers (some negative, some huge) and strings."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.count = 0

    def next(self) -> int | str:
        self.count += 1
        n = self.count
        form = self.rng.random()
        if form < 0.35:
            return n
        if form < 0.42:
            return -n
        if form < 0.47:
            return n + 2**62
        if form < 0.85:
            return f"req-{n}"
        if form < 0.93:
            return f"é✓-{n}"
        return f'q"\\{n}\u2028'


def compact(obj: Any) -> bytes:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def framed(body: bytes, style: str = "plain") -> bytes:
    """A well-formed frame of ``body`` in one of the header styles the contract allows."""
    n = len(body)
    if style == "lowercase":
        return b"content-length: %d\r\n\r\n%b" % (n, body)
    if style == "extra_header":
        return b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n" + frame(body)
    if style == "bare_lf":
        return b"Content-Length: %d\n\n%b" % (n, body)
    if style == "blanks":
        return b"CONTENT-LENGTH: \t %d \t\r\n\r\n%b" % (n, body)
    if style == "zero_padded":
        return b"Content-Length: %020d\r\n\r\n%b" % (n, body)
    if style == "blank_lines_before":
        return b"\r\n\n\r\n" + frame(body)
    return frame(body)


FRAME_STYLES = (
    "lowercase",
    "extra_header",
    "bare_lf",
    "blanks",
    "zero_padded",
    "blank_lines_before",
)

# Header sections in error (no body follows: a section in error is drained up to
# its blank line, and the next message starts right after it).
FRAMING_GARBAGE: tuple[tuple[str, bytes], ...] = (
    ("non_numeric_length", b"Content-Length: abc\r\n\r\n"),
    ("negative_length", b"Content-Length: -5\r\n\r\n"),
    ("empty_length", b"Content-Length:\r\n\r\n"),
    ("two_numbers", b"Content-Length: 1 2\r\n\r\n"),
    ("too_many_digits", b"Content-Length: 000000000000000000012\r\n\r\n"),
    ("conflicting_lengths", b"Content-Length: 5\r\nContent-Length: 6\r\n\r\n"),
    ("header_without_colon", b"Content-Length 12\r\n\r\n"),
    ("missing_length", b"Content-Type: application/json\r\n\r\n"),
    ("too_many_header_lines", b"X-Pad: 1\r\n" * 33 + b"Content-Length: 2\r\n\r\n"),
    ("header_line_too_long", b"X-Long: " + b"a" * 9000 + b"\r\nContent-Length: 2\r\n\r\n"),
)

# Bodies that are not JSON, or not UTF-8: -32700 with a null id.
PARSE_GARBAGE: tuple[tuple[str, bytes], ...] = (
    ("truncated_json", b'{"id":1,"method":"analyze","params":{"file_path":"a.py"'),
    ("nan", b'{"id":1,"method":"analyze","params":NaN}'),
    ("infinity", b'{"id":1,"method":"x","params":{"cursor_position":Infinity}}'),
    ("bom", b'\xef\xbb\xbf{"id":1,"method":"shutdown"}'),
    ("invalid_utf8_string", b'{"id":"\xff\xfe","method":"analyze"}'),
    ("invalid_utf8_param", b'{"id":1,"method":"analyze","params":{"file_path":"\xc3("}}'),
    ("lone_surrogate", b'{"id":"\\ud800","method":"analyze"}'),
    ("trailing_garbage", b'{"id":1,"method":"shutdown"} {}'),
    ("empty_body", b""),
    ("single_quotes", b"{'id':1,'method':'shutdown'}"),
    ("deep_nesting", b'{"id":1,"method":"x","params":' + b"[" * 5000 + b"]" * 5000 + b"}"),
)

# JSON that is not a request: -32600 with a null id.
INVALID_REQUESTS: tuple[tuple[str, bytes], ...] = (
    ("array", b"[]"),
    ("batch_array", b'[{"id":1,"method":"shutdown"}]'),
    ("string", b'"shutdown"'),
    ("number", b"42"),
    ("null", b"null"),
    ("id_null", b'{"id":null,"method":"shutdown"}'),
    ("id_true", b'{"id":true,"method":"analyze","params":{"file_path":"a.py"}}'),
    ("id_float", b'{"id":1.5,"method":"shutdown"}'),
    ("id_whole_float", b'{"id":3.0,"method":"shutdown"}'),
    ("id_object", b'{"id":{},"method":"shutdown"}'),
    ("id_missing", b'{"method":"shutdown","params":{}}'),
)

#: Units the server must count as framing errors (logged without a request line).
FRAMING_LABELS = frozenset({label for label, _ in FRAMING_GARBAGE} | {"over_limit_body"})

UNKNOWN_METHODS: tuple[Any, ...] = (
    "gzguide/unknown",
    "textDocument/didOpen",
    "ANALYZE",
    "analyze ",
    "$/cancelRequest",
    "",
    7,
    None,
)


def bad_analyze_params(rng: random.Random, path: str) -> Any:
    """Params an analyze request must refuse with -32602 (or None: leave them out)."""
    choices: list[Any] = [
        {},
        {"file_path": ""},
        {"file_path": 5},
        {"file_path": None},
        {"file_path": [path]},
        {"file_path": path, "cursor_position": -1},
        {"file_path": path, "cursor_position": 1.5},
        {"file_path": path, "cursor_position": 2.0},
        {"file_path": path, "cursor_position": "3"},
        {"file_path": path, "cursor_position": True},
        [path],
        path,
        None,
    ]
    return rng.choice(choices)


# -- the session ------------------------------------------------------------------


class Session:
    """The replayed editing session: a deterministic stream of batches and edits."""

    def __init__(self, workspace: Workspace, rng: random.Random, total: int) -> None:
        self.ws = workspace
        self.rng = rng
        self.total = total
        self.ids = Ids(rng)
        self.editor = Editor(workspace, rng)
        self.units = 0
        self.kinds: Counter[str] = Counter()
        self.focus = rng.choice(workspace.files)
        self.racy_probes = 0
        self.sweep_length = 0

    # -- paths --

    def spell(self, rel: str, index: int) -> tuple[str, str]:
        """How a file's path is written in a request, and where it is on disk."""
        absolute = str(self.ws.path(rel))
        roll = self.rng.random()
        if roll < 0.5:
            return absolute, absolute
        if roll < 0.6 and index % 10 == 3:  # a few files also as ./rel (a distinct key)
            return f"./{rel}", absolute
        return rel, absolute

    def spell_folder(self, folder: str) -> tuple[str, str]:
        absolute = str(self.ws.path(folder)) if folder else str(self.ws.root)
        if not folder or self.rng.random() < 0.5:
            return absolute, absolute
        return (folder + "/" if self.rng.random() < 0.3 else folder), absolute

    # -- units --

    def analyze_unit(
        self, source: SourceFile, name: str | None = None, verify: bool = False, whole: bool = False
    ) -> Unit:
        """An analyze request for one file (``whole``: never scoped to a cursor)."""
        index = self.ws.files.index(source)
        path, target = self.spell(name or source.rel, index)
        request_id = self.ids.next()
        params: dict[str, Any] = {"file_path": path}
        cursor: int | None = None
        roll = 1.0 if whole else self.rng.random()
        if roll < 0.35:
            size = len(source.render()) if source.state != "deleted" else 0
            cursor = self.rng.choice(
                [self.rng.randint(0, max(size, 0)), size, size + self.rng.randint(1, 500)]
            )
            params["cursor_position"] = cursor
        elif roll < 0.4:
            params["cursor_position"] = None
        if self.rng.random() < 0.05:
            params["languageId"] = "python"  # unknown params are ignored
        body = compact({"id": request_id, "method": "analyze", "params": params})
        verify = verify or self.rng.random() < VERIFY_FRACTION
        expect = Expect(
            "analyze", request_id, path=path, target=target, cursor=cursor, verify=verify
        )
        return Unit("analyze_file", self.styled(body), expect)

    def folder_unit(self, folder: str) -> Unit:
        path, target = self.spell_folder(folder)
        request_id = self.ids.next()
        params: dict[str, Any] = {"file_path": path}
        if self.rng.random() < 0.3:
            params["cursor_position"] = self.rng.randint(0, 1000)  # ignored for a folder
        body = compact({"id": request_id, "method": "analyze", "params": params})
        verify = self.rng.random() < 0.5
        expect = Expect(
            "analyze", request_id, path=path, target=target, directory=True, verify=verify
        )
        return Unit("analyze_folder", self.styled(body), expect)

    def styled(self, body: bytes) -> bytes:
        if self.rng.random() < 0.12:
            return framed(body, self.rng.choice(FRAME_STYLES))
        return frame(body)

    def error_unit(self) -> Unit:
        """A request the server must refuse, or garbage it must survive."""
        roll = self.rng.random()
        if roll < 0.25:
            request_id = self.ids.next()
            method = self.rng.choice(UNKNOWN_METHODS)
            body = compact({"id": request_id, "method": method, "params": {}})
            return Unit("unknown_method", self.styled(body), Expect("error", request_id, -32601))
        if roll < 0.5:
            request_id = self.ids.next()
            params = bad_analyze_params(self.rng, self.rng.choice(self.ws.files).rel)
            message: dict[str, Any] = {"id": request_id, "method": "analyze"}
            if params is not None:
                message["params"] = params
            body = compact(message)
            return Unit("invalid_params", self.styled(body), Expect("error", request_id, -32602))
        if roll < 0.55:
            request_id = self.ids.next()
            body = compact(
                {"id": request_id, "method": "initialize", "params": {"clientVersion": "1.0"}}
            )
            return Unit("initialize_again", frame(body), Expect("error", request_id, -32600))
        if roll < 0.56:
            return Unit("over_limit_body", over_limit_frame(), Expect("error", None, -32700))
        if roll < 0.72:
            label, data = self.rng.choice(FRAMING_GARBAGE)
            return Unit(label, data, Expect("error", None, -32700))
        if roll < 0.86:
            label, data = self.rng.choice(PARSE_GARBAGE)
            return Unit(label, self.styled(data), Expect("error", None, -32700))
        label, data = self.rng.choice(INVALID_REQUESTS)
        return Unit(label, self.styled(data), Expect("error", None, -32600))

    def random_unit(self) -> Unit:
        roll = self.rng.random()
        if roll < 0.01:
            return self.folder_unit(self.rng.choice(["", *self.ws.folders]))
        if roll < 0.88:
            source = self.focus if self.rng.random() < 0.5 else self.rng.choice(self.ws.files)
            name = source.other if self.rng.random() < 0.05 else None
            return self.analyze_unit(source, name)
        return self.error_unit()

    # -- the stream --

    def take(self, units: list[Unit]) -> list[Unit]:
        """As many of ``units`` as the request budget still allows, counted."""
        units = units[: self.total - self.units]
        self.units += len(units)
        self.kinds.update(u.label for u in units)
        return units

    def batch_size(self) -> int:
        return 1 if self.rng.random() < 0.55 else self.rng.randint(2, 12)

    def batches(self) -> Iterator[Batch]:
        """The whole session; edits are made between the batches, as it goes."""
        yield from self.sweep()
        self.sweep_length = self.units
        while self.units < self.total:
            roll = self.rng.random()
            if roll < 0.02:
                self.focus = self.rng.choice(self.ws.files)
            if roll < 0.12:
                source = self.focus if self.rng.random() < 0.6 else self.rng.choice(self.ws.files)
                self.editor.edit(source, self.editor.pick_kind(source))
                continue
            if roll < 0.14:
                yield from self.racy_probe()
                continue
            units = self.take([self.random_unit() for _ in range(self.batch_size())])
            in_flight = self.in_flight_edit() if self.rng.random() < 0.05 else None
            yield Batch(units, in_flight)

    def sweep(self) -> Iterator[Batch]:
        """Warm-up: every file under both its names, and every folder, once; garbage mixed in."""
        units = [self.analyze_unit(s, name) for s in self.ws.files for name in s.names]
        units += [self.folder_unit(folder) for folder in ["", *self.ws.folders]]
        units += [self.error_unit() for _ in range(len(units) // 20)]
        self.rng.shuffle(units)
        while units:
            size = self.batch_size()
            chunk, units = units[:size], units[size:]
            yield Batch(self.take(chunk))

    def racy_probe(self) -> Iterator[Batch]:
        """Analyze a file, rewrite it in place at the same size with its old mtime, ask again."""
        source = self.focus if self.rng.random() < 0.5 else self.rng.choice(self.ws.files)
        if source.state != "ok" or not any(source.functions):
            self.editor.edit(source, "append_function")
        self.racy_probes += 1
        yield Batch(self.take([self.analyze_unit(source, verify=True, whole=True)]))
        self.editor.edit(source, "same_size_rewrite")
        yield Batch(self.take([self.analyze_unit(source, verify=True, whole=True)]))

    def in_flight_edit(self) -> Callable[[], str]:
        """An edit to run while the batch's requests are being answered."""
        source = self.focus
        kind = self.editor.pick_kind(source)
        return lambda: self.editor.edit(source, kind)


_over_limit: bytes | None = None


def over_limit_frame() -> bytes:
    """A frame whose body is one byte over the 10 MiB limit (built once)."""
    global _over_limit
    if _over_limit is None:
        _over_limit = b"Content-Length: %d\r\n\r\n" % OVER_LIMIT_BODY + b" " * OVER_LIMIT_BODY
    return _over_limit


# -- the expected hints -----------------------------------------------------------


class Reference:
    """Hints computed in this process from a file's bytes, the way a worker computes them."""

    def __init__(self, capacity: int = 1024) -> None:
        self.thresholds = default_thresholds()
        self.reports: OrderedDict[bytes, FileReport] = OrderedDict()
        self.capacity = capacity
        self.analyses = 0

    def report(self, data: bytes) -> FileReport:
        digest = hashlib.blake2b(data, digest_size=16).digest()
        known = self.reports.get(digest)
        if known is None:
            self.analyses += 1
            known = analyze_bytes(data, self.thresholds)
            self.reports[digest] = known
            if len(self.reports) > self.capacity:
                self.reports.popitem(last=False)
        self.reports.move_to_end(digest)
        return known

    def file_hints(self, target: str, path: str, cursor: int | None) -> list[dict[str, Any]]:
        try:
            data = Path(target).read_bytes()
        except OSError:
            return []
        findings = self.report(data).at_cursor(cursor)
        return [msgspec.to_builtins(to_hint(f, path)) for f in findings]

    def folder_hints(self, target: str, path: str) -> list[dict[str, Any]]:
        hints: list[dict[str, Any]] = []
        for rel in sorted(source_files_under(target)):
            hint_path = posixpath.join(path, rel)
            hints += self.file_hints(os.path.join(target, rel), hint_path, None)
        return hints


def source_files_under(folder: str) -> Iterator[str]:
    """Relative paths of the .py and .pyi files a folder analyze covers (hidden ones skipped)."""
    for dirpath, dirnames, filenames in os.walk(folder):
        dirnames[:] = [d for d in dirnames if not d.startswith(".")]
        rel_dir = os.path.relpath(dirpath, folder)
        for name in filenames:
            if not name.startswith(".") and name.endswith((".py", ".pyi")):
                yield name if rel_dir == "." else f"{rel_dir}/{name}"


# -- the process tree -----------------------------------------------------------------


@dataclass(frozen=True)
class Sample:
    """The server's process tree at one moment."""

    after_requests: int
    rss_kib: int
    fds: int
    pids: tuple[int, ...]
    zombies: tuple[int, ...]
    #: (pid, RSS KiB, open fds) for each process, the server first.
    detail: tuple[tuple[int, int, int], ...] = ()

    @property
    def processes(self) -> int:
        return len(self.pids)


def sample_tree(server_pid: int, after_requests: int) -> Sample:
    """Total resident memory and open descriptors of every live process in the group."""
    pids = tuple(sorted(procfs.group(server_pid), key=lambda p: (p != server_pid, p)))
    detail = tuple((pid, procfs.rss_kib(pid), procfs.open_fds(pid)) for pid in pids)
    rss = sum(d[1] for d in detail)
    fds = sum(d[2] for d in detail)
    zombies = tuple(procfs.zombies_of(server_pid))
    return Sample(after_requests, rss, fds, pids, zombies, detail)


# -- the driver --------------------------------------------------------------------


@dataclass
class SoakConfig:
    requests: int = DEFAULT_REQUESTS
    seed: int = DEFAULT_SEED
    workers: int | None = None
    files: int = DEFAULT_FILES


@dataclass
class SoakReport:
    """What a run did and measured; ``failures`` is empty when it passed."""

    requests: int
    seed: int
    workers: int | None
    files: int
    workspace_bytes: int = 0
    requests_sent: int = 0
    responses_checked: int = 0
    analyze_answers: int = 0
    hints_received: int = 0
    answers_verified: int = 0
    reference_analyses: int = 0
    racy_probes: int = 0
    in_flight_edits: int = 0
    duration_s: float = 0.0
    unit_kinds: dict[str, int] = field(default_factory=dict)
    edits: dict[str, int] = field(default_factory=dict)
    warmup: Sample | None = None
    end: Sample | None = None
    trend: list[Sample] = field(default_factory=list)
    zombies_seen: list[int] = field(default_factory=list)
    exit_status: int | None = None
    left_after_exit: list[int] = field(default_factory=list)
    log_events: dict[str, int] = field(default_factory=dict)
    #: What broke the session (a lost, misplaced or wrong answer; a hang; a crash).
    protocol_failure: str | None = None
    failures: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return not self.failures

    @property
    def rss_growth(self) -> float | None:
        if self.warmup is None or self.end is None or not self.warmup.rss_kib:
            return None
        return self.end.rss_kib / self.warmup.rss_kib - 1

    @property
    def fd_growth(self) -> float | None:
        if self.warmup is None or self.end is None or not self.warmup.fds:
            return None
        return self.end.fds / self.warmup.fds - 1

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data.update(passed=self.passed, rss_growth=self.rss_growth, fd_growth=self.fd_growth)
        return data


class SoakFailure(AssertionError):
    """The server broke a promise during the session."""


class Driver:
    """Sends the session to the server and checks every answer as it comes."""

    def __init__(self, server: ServerProcess, session: Session, report: SoakReport) -> None:
        self.server = server
        self.session = session
        self.report = report
        self.reference = Reference()
        self.warmup_at = max(int(session.total * WARMUP_FRACTION), 1)
        self.trend_every = max(session.total // TREND_SAMPLES, 1)
        self.next_trend = self.trend_every

    def run(self) -> None:
        self.server.initialize(id="soak-initialize")
        for batch in self.session.batches():
            self.send(batch)
            self.after_batch()
        self.report.end = self.measure()

    def send(self, batch: Batch) -> None:
        if not batch.units:
            return
        self.server.send(*(unit.data for unit in batch.units))
        self.report.requests_sent += len(batch.units)
        if batch.in_flight is not None:
            batch.in_flight()
            self.report.in_flight_edits += 1
        for unit in batch.units:
            response = self.server.read_response(READ_TIMEOUT)
            self.report.responses_checked += 1
            self.check(unit, response, stable=batch.in_flight is None)

    def after_batch(self) -> None:
        """Take the warm-up sample once it is due, and a trend sample now and then."""
        sent = self.report.requests_sent
        warm = self.session.sweep_length > 0 and sent >= self.warmup_at
        if self.report.warmup is None and warm:
            self.report.warmup = self.measure()
        elif self.next_trend <= sent < self.session.total:  # the end sample follows
            sample = sample_tree(self.server.pid, sent)
            self.report.trend.append(sample)
            self.note_zombies(sample)
        while sent >= self.next_trend:
            self.next_trend += self.trend_every

    def measure(self) -> Sample:
        """A sample taken with the server idle for a moment (and proven alive)."""
        time.sleep(SETTLE_SECONDS)
        self.server.ping(timeout=READ_TIMEOUT)
        sample = sample_tree(self.server.pid, self.report.requests_sent)
        self.report.trend.append(sample)
        self.note_zombies(sample)
        return sample

    def note_zombies(self, sample: Sample) -> None:
        for pid in sample.zombies:
            if pid not in self.report.zombies_seen:
                self.report.zombies_seen.append(pid)

    # -- checking one answer --

    def check(self, unit: Unit, response: Response, stable: bool) -> None:
        expect = unit.expect
        where = f"request #{self.report.responses_checked} ({unit.label}, id {expect.id!r})"
        got = response.message.get("id", "<missing>")
        if got != expect.id or type(got) is not type(expect.id):
            raise SoakFailure(
                f"{where}: answer has id {got!r}: a response was lost, duplicated or "
                f"reordered; sent {unit.data[:300]!r}; got {response.body[:300]!r}"
            )
        if expect.kind == "error":
            if response.code != expect.code:
                raise SoakFailure(f"{where}: expected error {expect.code}, got {response.message}")
            return
        self.check_analyze(where, expect, response, stable)

    def check_analyze(self, where: str, expect: Expect, response: Response, stable: bool) -> None:
        result = response.message.get("result")
        if not isinstance(result, dict) or set(result) != {"hints"}:
            raise SoakFailure(f"{where}: expected {{'hints': [...]}}, got {response.body[:300]!r}")
        hints = result["hints"]
        self.report.analyze_answers += 1
        self.report.hints_received += len(hints)
        assert expect.path is not None and expect.target is not None
        for hint in hints:
            hint_path = hint["file_path"]
            if expect.directory:
                ok = hint_path.startswith(posixpath.join(expect.path, ""))
            else:
                ok = hint_path == expect.path
            if not ok:
                raise SoakFailure(
                    f"{where}: hint path {hint_path!r} for a request of {expect.path!r}"
                )
        if not expect.directory:
            keys = [(h["start_line"], h["end_line"], h["metric"]) for h in hints]
            if keys != sorted(keys):
                raise SoakFailure(f"{where}: hints not sorted by (start_line, end_line, metric)")
        if expect.verify and stable:
            self.verify(where, expect, hints)

    def verify(self, where: str, expect: Expect, hints: list[dict[str, Any]]) -> None:
        """The answer equals an in-process analysis of the bytes on disk (unchanged since)."""
        assert expect.path is not None and expect.target is not None
        if expect.directory:
            wanted = self.reference.folder_hints(expect.target, expect.path)
        else:
            wanted = self.reference.file_hints(expect.target, expect.path, expect.cursor)
        self.report.answers_verified += 1
        if hints != wanted:
            first = next(
                (
                    i
                    for i, pair in enumerate(zip(hints, wanted, strict=False))
                    if pair[0] != pair[1]
                ),
                min(len(hints), len(wanted)),
            )
            got = hints[first] if first < len(hints) else None
            want = wanted[first] if first < len(wanted) else None
            raise SoakFailure(
                f"{where}: hints for {expect.path!r} (cursor {expect.cursor}) differ from an "
                f"in-process analysis of the file on disk: {len(hints)} hints, expected "
                f"{len(wanted)}; first difference at #{first}: got {got}, expected {want}"
            )


# -- a whole run -------------------------------------------------------------------


def run_soak(config: SoakConfig) -> SoakReport:
    """Run one soak session against a fresh server; every finding goes into the report."""
    report = SoakReport(config.requests, config.seed, config.workers, config.files)
    rng = random.Random(config.seed)
    with tempfile.TemporaryDirectory(prefix="gzguide-soak-") as tmp:
        root = Path(os.path.realpath(tmp)) / "workspace"
        root.mkdir()
        workspace = Workspace.build(root, rng, config.files)
        report.workspace_bytes = workspace.total_bytes()
        session = Session(workspace, rng, config.requests)
        args = () if config.workers is None else ("--workers", str(config.workers))
        server = ServerProcess(args=args, cwd=root)
        driver = Driver(server, session, report)
        started = time.monotonic()
        try:
            driver.run()
            report.duration_s = time.monotonic() - started
            shut_down(server, report)
        except (AssertionError, OSError) as exc:
            report.duration_s = time.monotonic() - started
            report.protocol_failure = f"{type(exc).__name__}: {exc}"
        finally:
            report.unit_kinds = dict(sorted(session.kinds.items()))
            report.edits = dict(sorted(session.editor.counts.items()))
            report.racy_probes = session.racy_probes
            report.reference_analyses = driver.reference.analyses
            report.log_events = log_events(server.stderr())
            server.kill()
    judge(report, config)
    return report


def shut_down(server: ServerProcess, report: SoakReport) -> None:
    """Ask the server to stop; it must answer, exit 0 and leave nothing behind."""
    server.send({"id": "soak-shutdown", "method": "shutdown", "params": {}})
    answer = server.read_response(READ_TIMEOUT)
    if answer.message != {"id": "soak-shutdown", "result": {}}:
        raise SoakFailure(f"shutdown answered {answer.message}")
    report.exit_status = server.wait_exit(READ_TIMEOUT)
    extra = server.remaining_responses()
    if extra:
        raise SoakFailure(
            f"{len(extra)} responses after the shutdown answer: {extra[0].body[:200]!r}"
        )
    known = report.end.pids if report.end is not None else ()
    deadline = time.monotonic() + 5
    while (left := survivors(server.pid, known)) and time.monotonic() < deadline:
        time.sleep(0.05)
    report.left_after_exit = left


def survivors(pgid: int, known: tuple[int, ...]) -> list[int]:
    """Processes still around after the server exited: in its group (zombies included),
    or one of its processes even if it left the group (an orphan)."""
    alive = {pid for pid in known if procfs.stat(pid) is not None}
    return sorted(alive.union(procfs.group(pgid, zombies=True)))


def log_events(stderr: str) -> dict[str, int]:
    """How many times each event appears in the server's JSON-lines log."""
    counts: Counter[str] = Counter()
    # Split at line feeds only: str.splitlines would also split at U+2028, which JSON
    # strings (our ids) may hold unescaped.
    for line in stderr.split("\n"):
        if not line:
            continue
        try:
            record = json.loads(line)
        except ValueError:
            counts["(not json)"] += 1
            continue
        counts[str(record.get("event"))] += 1
        if record.get("level") == "error":
            counts["(level error)"] += 1
    return dict(sorted(counts.items()))


def judge(report: SoakReport, config: SoakConfig) -> None:
    """Add a failure for every pass criterion the run did not meet."""
    fail = report.failures.append
    if report.protocol_failure is not None:
        fail(report.protocol_failure)
    elif report.requests_sent != config.requests:
        fail(f"sent {report.requests_sent} requests, {config.requests} planned")
    if report.responses_checked != report.requests_sent:
        fail(f"{report.requests_sent} requests sent, {report.responses_checked} answers checked")
    if report.warmup is None or report.end is None:
        fail("no warm-up and end samples were taken")
        return
    growth = report.rss_growth
    if growth is None or growth >= RSS_GROWTH_LIMIT:
        fail(
            f"resident memory grew from {report.warmup.rss_kib} KiB to {report.end.rss_kib} KiB "
            f"({_pct(growth)}), limit {RSS_GROWTH_LIMIT:.0%}"
        )
    if report.end.fds > report.warmup.fds:
        fail(f"open descriptors grew from {report.warmup.fds} to {report.end.fds}")
    if report.end.pids != report.warmup.pids:
        fail(f"processes changed from {report.warmup.pids} to {report.end.pids}")
    expected = 1 + expected_workers(config)
    if report.end.processes != expected:
        fail(f"{report.end.processes} processes in the tree, expected {expected}")
    if report.zombies_seen:
        fail(f"zombie processes seen in the tree: {report.zombies_seen}")
    if report.exit_status != 0:
        fail(f"exit status {report.exit_status} after shutdown, expected 0")
    if report.left_after_exit:
        fail(f"processes left in the group after exit: {report.left_after_exit}")
    judge_log(report)


def judge_log(report: SoakReport) -> None:
    """The log holds whole JSON lines, one per request or framing error, and no failure."""
    fail = report.failures.append
    events = report.log_events
    bad = {e: events[e] for e in BAD_LOG_EVENTS if events.get(e)}
    if bad or events.get("(level error)"):
        fail(f"the server logged failures: {bad or events}")
    if events.get("(not json)"):
        fail(f"{events['(not json)']} log lines are not JSON (torn or interleaved lines)")
    framing = sum(report.unit_kinds.get(label, 0) for label in FRAMING_LABELS)
    if events.get("framing_error", 0) != framing:
        fail(f"{framing} framing errors sent, {events.get('framing_error', 0)} logged")
    requests = report.requests_sent - framing + EXTRA_REQUESTS
    if events.get("request", 0) != requests:
        fail(f"{requests} request log lines expected, {events.get('request', 0)} written")


def expected_workers(config: SoakConfig) -> int:
    """How many worker processes the server runs (its default is the CPU count)."""
    return (os.cpu_count() or 1) if config.workers is None else config.workers


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value:+.1%}"


def format_report(report: SoakReport) -> str:
    """The short human-readable report the command line prints."""
    rate = report.requests_sent / report.duration_s if report.duration_s else 0.0
    lines = [
        f"gzguide soak: seed {report.seed}, {report.files} files "
        f"({report.workspace_bytes:,} bytes), workers {report.workers or 'default'}",
        f"requests sent      {report.requests_sent:,} of {report.requests:,}",
        f"responses checked  {report.responses_checked:,} "
        f"(analyze {report.analyze_answers:,}, hints {report.hints_received:,}, "
        f"verified in-process {report.answers_verified:,}, racy probes {report.racy_probes})",
        f"edits              {sum(report.edits.values()):,} "
        f"({', '.join(f'{k} {v}' for k, v in report.edits.items())}); "
        f"in flight {report.in_flight_edits}",
        f"duration           {report.duration_s:.1f} s ({rate:,.0f} requests/s)",
    ]
    for name, sample in (("warm-up", report.warmup), ("end", report.end)):
        if sample is not None:
            per_process = " + ".join(f"{rss / 1024:.1f}" for _, rss, _ in sample.detail)
            lines.append(
                f"{name:<8} (after {sample.after_requests:>6,})  "
                f"RSS {sample.rss_kib / 1024:6.1f} MiB ({per_process})"
                f"  fds {sample.fds} ({' + '.join(str(d[2]) for d in sample.detail)})"
                f"  processes {sample.processes}"
            )
    lines.append(f"growth             RSS {_pct(report.rss_growth)}, fds {_pct(report.fd_growth)}")
    trend = ", ".join(f"{s.rss_kib / 1024:.0f}" for s in report.trend)
    lines.append(f"RSS trend (MiB)    {trend}")
    lines.append(
        f"exit               status {report.exit_status}, left in group {report.left_after_exit}, "
        f"zombies seen {report.zombies_seen}"
    )
    lines.append(f"verdict            {'PASS' if report.passed else 'FAIL'}")
    lines.extend(f"  - {failure}" for failure in report.failures)
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Soak the gzguide server with an editing session.")
    parser.add_argument("--requests", type=int, default=DEFAULT_REQUESTS)
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--workers", type=int, default=None, help="default: the server's own")
    parser.add_argument("--files", type=int, default=DEFAULT_FILES)
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    args = parser.parse_args(argv)
    config = SoakConfig(args.requests, args.seed, args.workers, args.files)
    report = run_soak(config)
    if args.json:
        print(json.dumps(report.as_dict(), indent=2, ensure_ascii=False))
    else:
        print(format_report(report), end="")
    return 0 if report.passed else 1


if __name__ == "__main__":
    sys.exit(main())
