"""The soak's traffic: what is sent to the server, and what must come back for each unit.

:class:`Session` draws the units of a replayed editing session from a seed:
analyze requests for files and folders (absolute and relative paths, with and
without a cursor), unknown methods, invalid params and about 5% garbage (framing
errors, invalid JSON and UTF-8, non-objects, bad ids), some sent one at a time,
some pipelined, several frames in one write. The session runs at protocol 1.1,
and now and then someone types into a file's buffer (:meth:`Session.typing`):
its successive texts are sent as they are typed, undone, and sometimes saved.
Each unit says what its answer must be (:class:`Expect`); :class:`Reference`
computes the hints a fresh in-process analysis gives for the bytes on disk, or
for the text sent.
"""

from __future__ import annotations

import hashlib
import json
import os
import posixpath
import random
from collections import Counter, OrderedDict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec

from gzguide.analysis.engine import analyze_bytes
from gzguide.analysis.model import FileReport
from gzguide.analysis.policy.thresholds import default_thresholds
from gzguide.guide.messages import to_hint
from support.protocol_client import frame
from support.soak_workspace import (
    MAX_FUNCTIONS,
    Editor,
    SourceFile,
    Workspace,
    function_bytes,
    new_toggles,
)

#: Share of single-file analyze answers compared with an in-process analysis.
VERIFY_FRACTION = 0.15
#: A body one byte over the limit.
OVER_LIMIT_BODY = 10 * 1024 * 1024 + 1
#: Comment lines typed into the middle of a buffer and taken out again: characters of
#: two, three and four UTF-8 bytes, so byte offsets and character offsets part ways.
SCRATCH_LINES = (
    "# caf\u00e9 au lait\n".encode(),
    "# \u2713 checked, \u20ac 5\n".encode(),
    "x = '\U0001f600 \u00e9t\u00e9'  # smile\n".encode(),
)


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
    #: For a buffer sent as text: its bytes (the answer is checked against them).
    text: bytes | None = None


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
        self.typing_bursts = 0
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

    def text_unit(self, source: SourceFile, text: bytes, cursor: int | None) -> Unit:
        """An analyze request that sends the buffer's text (answered for ``text``, not the file)."""
        path, target = self.spell(source.rel, self.ws.files.index(source))
        request_id = self.ids.next()
        params: dict[str, Any] = {"file_path": path, "text": text.decode("utf-8")}
        if cursor is not None:
            params["cursor_position"] = cursor
        body = compact({"id": request_id, "method": "analyze", "params": params})
        expect = Expect(
            "analyze", request_id, path=path, target=target, cursor=cursor, verify=True, text=text
        )
        return Unit("analyze_text", self.styled(body), expect)

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
            if roll < 0.155:
                yield from self.typing()
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

    def typing(self) -> Iterator[Batch]:
        """Type into the buffer of a file, its text sent every few keystrokes.

        Mostly the next function the model would append is typed, a few characters
        at a time (the texts do not parse until it is nearly done), the cursor often
        at the typing point; then a few of the versions are sent again (undo, redo),
        and now and then the buffer is saved: the file then holds the last text's
        bytes and is asked about by path. Otherwise a comment holding multi-byte
        characters is typed into the middle of the buffer and taken out again, the
        last text being the file's bytes.
        """
        source = self.focus if self.rng.random() < 0.7 else self.rng.choice(self.ws.files)
        if source.state != "ok":
            self.editor.edit(source, "restore")
        disk = source.render()
        if not is_utf8(disk):
            return  # no text is these bytes (the buffer of a file in another encoding)
        self.typing_bursts += 1
        versions: list[tuple[bytes, int]] = []
        toggles: list[bool] | None = None
        if self.rng.random() < 0.3:
            starts = [0, *(i + 1 for i, byte in enumerate(disk) if byte == 0x0A)]
            at = self.rng.choice(starts)
            line = self.rng.choice(SCRATCH_LINES)
            for cut in self.keystrokes(line):
                versions.append((disk[:at] + line[:cut] + disk[at:], at + cut))
            versions.append((disk, at))
        else:
            if len(source.functions) >= MAX_FUNCTIONS:
                self.editor.edit(source, "remove_function")
                disk = source.render()
            toggles = new_toggles(self.rng)
            typed = function_bytes(len(source.functions), toggles)
            for cut in self.keystrokes(typed):
                versions.append((disk + typed[:cut], len(disk) + cut))
            for _ in range(self.rng.randint(0, 3)):  # undo and redo: versions sent before
                versions.append(self.rng.choice(versions))
        for text, at in versions:
            cursor = at if self.rng.random() < 0.5 else None
            yield Batch(self.take([self.text_unit(source, text, cursor)]))
        if toggles is not None and versions[-1][0] == disk + typed and self.rng.random() < 0.5:
            self.editor.save_typed_function(source, toggles)
            yield Batch(self.take([self.analyze_unit(source, verify=True, whole=True)]))

    def keystrokes(self, typed: bytes) -> list[int]:
        """How much of ``typed`` has been typed at each text sent: 1 to 24 bytes more each
        time, never half a character."""
        cuts: list[int] = []
        done = 0
        while done < len(typed):
            done = min(len(typed), done + self.rng.randint(1, 24))
            while done < len(typed) and 0x80 <= typed[done] < 0xC0:  # a continuation byte
                done += 1
            cuts.append(done)
        return cuts

    def in_flight_edit(self) -> Callable[[], str]:
        """An edit to run while the batch's requests are being answered."""
        source = self.focus
        kind = self.editor.pick_kind(source)
        return lambda: self.editor.edit(source, kind)


def is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


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
        return self.text_hints(data, path, cursor)

    def text_hints(self, data: bytes, path: str, cursor: int | None) -> list[dict[str, Any]]:
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
