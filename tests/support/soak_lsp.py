"""A soak of the LSP mode: a replayed editing session sent as ``didChange`` events.

The session is generated from a seed, so a run can be replayed exactly. Real
standard-library modules are opened as buffers and edited the way people edit:
characters typed one event at a time (ASCII, two-byte letters, emoji whose UTF-16
form is a surrogate pair), lines deleted, blocks pasted, line ends turned into
CRLF, whole buffers restored, documents saved, closed and opened again; hovers,
pulls and about 5% garbage frames are mixed in. The soak keeps its own copy of
every buffer at every version, applying each edit with plain string operations.

What is checked:

* every publication names a version the soak sent for that document, never
  older than one published before it, and its diagnostics equal what a fresh
  in-process analysis of that version's text gives, converted by the contract's
  rules alone (:func:`support.lsp_pipes.expected_diagnostics`); a clearing publication
  comes only after a ``didClose``;
* nothing is lost: at every settle point (a sync request, then a wait), each open
  document's latest version has been published;
* every request is answered exactly once: a hover with the hints on its line at
  the version it was sent at, a pull with that version's diagnostics, garbage
  with its error;
* the process tree's resident memory, descriptors and processes are flat from
  warm-up to the end, no zombie is seen, ``shutdown`` and ``exit`` end the server
  with status 0 and nothing left behind; its log holds no failure.

Run the full soak with::

    .venv/bin/python tests/support/soak_lsp.py --events 20000 [--seed S] [--workers W] [--json]

``tests/soak/test_soak_lsp.py`` runs a bounded version of the same session in CI.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import sys
import time
from collections import Counter, OrderedDict
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

if __name__ == "__main__":  # run as a script: the support package is one folder up
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import msgspec

from gzguide.analysis.engine import analyze_bytes
from gzguide.analysis.policy.thresholds import default_thresholds
from gzguide.guide.messages import to_hint
from support.lsp_pipes import (
    LspProcess,
    expected_diagnostics,
    lines_of,
    lsp_message,
    position_of,
    without_links,
)
from support.protocol_client import Response, frame
from support.soak import BAD_LOG_EVENTS as SOAK_BAD_LOG_EVENTS
from support.soak import (
    READ_TIMEOUT,
    RSS_GROWTH_LIMIT,
    SETTLE_SECONDS,
    WARMUP_FRACTION,
    Sample,
    log_events,
    sample_tree,
    survivors,
)
from support.soak_workspace import stdlib_sources

DEFAULT_EVENTS = 20_000
DEFAULT_SEED = 20_261_201
DEFAULT_FILES = 12
#: Events between two settle points.
SETTLE_EVERY = 150
#: The server's debounce in the soak: short, so that typing still coalesces.
DEBOUNCE_MS = 10
#: The other mode's, and what only the LSP mode logs when a message loses its answer.
BAD_LOG_EVENTS = (*SOAK_BAD_LOG_EVENTS, "request_failed", "notification_failed")
#: What gets typed, one character per event.
TYPED = "abcxyz_ =()é€😀\t#"
EMPTY_REPORT = {"resultId": "0", "items": [], "kind": "full"}
GARBAGE = [
    (b"Content-Length: nope\r\n\r\n", -32700),
    (b"no colon\r\n\r\n", -32700),
    (frame(b'{"jsonrpc":"2.0","id":1,'), -32700),
    (frame(b"[1,2]"), -32600),
    (frame(b'{"jsonrpc":"2.0","id":null,"method":"x"}'), -32600),
]


@dataclass
class LspSoakConfig:
    events: int = DEFAULT_EVENTS
    seed: int = DEFAULT_SEED
    files: int = DEFAULT_FILES
    workers: int | None = 2
    encoding: str = "utf-16"


@dataclass
class LspSoakReport:
    config: LspSoakConfig
    events: Counter[str] = field(default_factory=Counter)
    versions_sent: int = 0
    publications: int = 0
    publications_checked: int = 0
    #: Publications the settle points proved: each open document changed since the
    #: settle point before it must have had its latest version published (and checked)
    #: in between. Unlike the number of publications, which depends on how the
    #: debounce coalesced the changes, this follows from the seed alone.
    publications_owed: int = 0
    requests: int = 0
    answers: int = 0
    #: Hovers and pulls whose result was checked, and those answered ContentModified.
    results_checked: int = 0
    content_modified: int = 0
    settles: int = 0
    warmup: Sample | None = None
    end: Sample | None = None
    zombies_seen: list[int] = field(default_factory=list)
    exit_status: int | None = None
    left_after_exit: list[int] = field(default_factory=list)
    log_events: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0
    failures: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return not self.failures

    @property
    def rss_growth(self) -> float | None:
        if self.warmup is None or self.end is None or not self.warmup.rss_kib:
            return None
        return self.end.rss_kib / self.warmup.rss_kib - 1


class SoakFailure(AssertionError):
    pass


class Reference:
    """Hints of a text, computed in this process as a worker computes them."""

    def __init__(self) -> None:
        self.thresholds = default_thresholds()
        self._known: OrderedDict[bytes, list[dict[str, Any]]] = OrderedDict()

    def hints(self, text: str, path: str) -> list[dict[str, Any]]:
        data = text.encode("utf-8")
        key = hashlib.blake2b(data + path.encode(), digest_size=16).digest()
        found = self._known.get(key)
        if found is None:
            findings = analyze_bytes(data, self.thresholds).findings
            found = [msgspec.to_builtins(to_hint(f, path)) for f in findings]
            self._known[key] = found
            if len(self._known) > 2048:
                self._known.popitem(last=False)
        return found


@dataclass
class Buffer:
    uri: str
    path: str
    original: str
    text: str
    version: int = 1
    open: bool = True
    #: The text of every version sent, and the last version published.
    versions: dict[int, str] = field(default_factory=dict)
    published: int = 0
    #: Its version at the last settle point (0: none yet).
    settled: int = 0
    cleared_allowed: bool = False
    #: How many times it was closed (a request still waiting when it closes is answered
    #: as for a document not open: no hover, an empty report).
    closes: int = 0


class Soak:
    def __init__(self, lsp: LspProcess, config: LspSoakConfig, report: LspSoakReport) -> None:
        self.lsp = lsp
        self.config = config
        self.report = report
        self.rng = random.Random(config.seed)
        self.reference = Reference()
        self.buffers: list[Buffer] = []
        self.pending: dict[str, tuple[str, Buffer, int, Any]] = {}
        self.ids = 0

    # -- what is sent -----------------------------------------------------------------

    def open_all(self, root: Path) -> None:
        sources = stdlib_sources()
        for source in self.rng.sample(sources, min(self.config.files, len(sources))):
            text = source.read_text("utf-8")
            path = str(root / source.name)
            buffer = Buffer(Path(path).as_uri(), path, text, text)
            buffer.versions[1] = text
            self.buffers.append(buffer)
            self.lsp.open(buffer.uri, text)
            self.report.versions_sent += 1

    def change(self, buffer: Buffer, start: int, end: int, new: str) -> None:
        encoding = self.config.encoding
        text = buffer.text
        (first_line, first), (last_line, last) = (
            position_of(text, start, encoding),
            position_of(text, end, encoding),
        )
        span = {
            "start": {"line": first_line, "character": first},
            "end": {"line": last_line, "character": last},
        }
        buffer.text = text[:start] + new + text[end:]
        self.send_version(buffer, [{"range": span, "text": new}])

    def send_version(self, buffer: Buffer, changes: list[dict[str, Any]]) -> None:
        buffer.version += 1
        buffer.versions[buffer.version] = buffer.text
        self.report.versions_sent += 1
        self.lsp.notify(
            "textDocument/didChange",
            {
                "textDocument": {"uri": buffer.uri, "version": buffer.version},
                "contentChanges": changes,
            },
        )

    def safe_index(self, text: str, index: int) -> int:
        """``index``, moved off the middle of a CRLF."""
        if 0 < index < len(text) and text[index - 1] == "\r" and text[index] == "\n":
            return index + 1
        return index

    def event(self) -> None:
        rng = self.rng
        buffer = rng.choice(self.buffers)
        if not buffer.open:
            buffer.open = True
            buffer.version += 1
            buffer.versions[buffer.version] = buffer.text
            self.lsp.open(buffer.uri, buffer.text, buffer.version)
            self.report.events["reopen"] += 1
            return
        kind = rng.choices(
            [
                "type",
                "delete",
                "paste",
                "crlf",
                "restore",
                "hover",
                "pull",
                "save",
                "close",
                "garbage",
            ],
            weights=[40, 12, 8, 4, 3, 10, 6, 4, 3, 5],
        )[0]
        self.report.events[kind] += 1
        text = buffer.text
        if kind == "type":
            at = self.safe_index(text, rng.randrange(len(text) + 1))
            for char in rng.choices(TYPED, k=rng.randint(1, 6)):
                self.change(buffer, at, at, char)
                at += len(char)
        elif kind == "delete":
            start = self.safe_index(text, rng.randrange(len(text) + 1))
            end = self.safe_index(text, min(len(text), start + rng.randint(1, 200)))
            self.change(buffer, start, end, "")
        elif kind == "paste":
            lines = lines_of(buffer.original)
            first = rng.randrange(len(lines))
            block = "\n".join(lines[first : first + rng.randint(1, 30)]) + "\n"
            at = text.rfind("\n", 0, rng.randrange(len(text) + 1)) + 1
            self.change(buffer, at, at, block)
        elif kind == "crlf":
            at = text.find("\n", rng.randrange(len(text) + 1))
            if at > 0 and text[at - 1] != "\r":
                self.change(buffer, at, at + 1, "\r\n")
        elif kind == "restore":
            buffer.text = buffer.original
            self.send_version(buffer, [{"text": buffer.text}])
        elif kind in ("hover", "pull"):
            self.ids += 1
            request_id = f"{kind}-{self.ids}"
            line = rng.randrange(len(lines_of(text)))
            if kind == "hover":
                params = {
                    "textDocument": {"uri": buffer.uri},
                    "position": {"line": line, "character": 0},
                }
                method = "textDocument/hover"
            else:
                params = {"textDocument": {"uri": buffer.uri}}
                method = "textDocument/diagnostic"
            self.pending[request_id] = (kind, buffer, buffer.version, (line, buffer.closes))
            self.report.requests += 1
            self.lsp.send(lsp_message(method, params, id=request_id))
        elif kind == "save":
            self.lsp.notify("textDocument/didSave", {"textDocument": {"uri": buffer.uri}})
        elif kind == "close":
            buffer.open = False
            buffer.cleared_allowed = True
            buffer.closes += 1
            self.lsp.notify("textDocument/didClose", {"textDocument": {"uri": buffer.uri}})
        else:
            garbage, code = rng.choice(GARBAGE)
            self.ids += 1
            self.pending[f"garbage-{self.ids}"] = ("garbage", buffer, code, None)
            self.report.requests += 1
            self.lsp.send(garbage)

    # -- what comes back -------------------------------------------------------------------

    def take(self, message: Response) -> str | None:
        """Check one message; the id of a response (None for a notification)."""
        body = message.message
        if "method" in body:
            self.publication(body)
            return None
        self.report.answers += 1
        request_id = message.id
        if request_id is None:  # garbage is answered in order, with a null id
            key = next((k for k, v in self.pending.items() if v[0] == "garbage"), None)
            if key is None:
                raise SoakFailure(f"an error nobody owed: {body}")
            _, _, code, _ = self.pending.pop(key)
            if message.code != code:
                raise SoakFailure(f"garbage answered {body}, wanted {code}")
            return None
        owed = self.pending.pop(request_id, None)
        if owed is None:
            raise SoakFailure(f"an answer nobody asked for (or a second one): {body}")
        kind, buffer, version, where = owed
        if kind == "sync":
            return str(request_id)
        if "error" in body:
            # Waiting for the analysis, it saw the document change: a result nobody
            # wants any more. Only a change sent after the request explains it.
            if message.code != -32801 or buffer.version == version:
                raise SoakFailure(f"{kind} at version {version} answered {body}")
            self.report.content_modified += 1
            return None
        line, closes = where
        if closes != buffer.closes and message.result in (None, EMPTY_REPORT):
            return None  # closed while it waited: answered as for a document not open
        text = buffer.versions[version]
        encoding = self.config.encoding
        expected = expected_diagnostics(self.reference.hints(text, buffer.path), text, encoding)
        self.report.results_checked += 1
        if kind == "pull":
            if without_links(message.result["items"]) != expected:
                raise SoakFailure(f"pull at version {version} of {buffer.uri} differs")
        else:
            # A hover covers a hint's lines (the diagnostic sits on the name alone).
            covering = [
                d
                for d in expected
                if d["data"]["start_line"] - 1 <= line <= d["data"]["end_line"] - 1
            ]
            hover = message.result
            if not covering:
                if hover is not None:
                    raise SoakFailure(f"a hover off every hint: {body}")
            elif hover is None or not all(
                d["data"]["recommended_move"] in hover["contents"]["value"] for d in covering
            ):
                raise SoakFailure(
                    f"hover at line {line} of version {version} lacks its hints: {body}"
                )
        return None

    def publication(self, body: dict[str, Any]) -> None:
        if body.get("method") != "textDocument/publishDiagnostics":
            raise SoakFailure(f"an unexpected notification: {body}")
        params = body["params"]
        buffer = next((b for b in self.buffers if b.uri == params["uri"]), None)
        if buffer is None:
            raise SoakFailure(f"diagnostics for a document never opened: {params['uri']}")
        self.report.publications += 1
        version = params.get("version")
        if version is None:
            if not buffer.cleared_allowed or params["diagnostics"]:
                raise SoakFailure(f"a clearing publication without a close: {params}")
            return
        text = buffer.versions.get(version)
        if text is None:
            raise SoakFailure(f"diagnostics for version {version}, never sent, of {buffer.uri}")
        if version < buffer.published:
            raise SoakFailure(f"version {version} published after {buffer.published}")
        buffer.published = version
        expected = expected_diagnostics(
            self.reference.hints(text, buffer.path), text, self.config.encoding
        )
        if without_links(params["diagnostics"]) != expected:
            raise SoakFailure(f"diagnostics of version {version} of {buffer.uri} differ")
        self.report.publications_checked += 1

    def settle(self) -> None:
        """A sync request answered, then every open document's latest version published."""
        self.ids += 1
        sync_id = f"sync-{self.ids}"
        self.pending[sync_id] = ("sync", self.buffers[0], 0, None)
        self.lsp.send(lsp_message("gzguide/soak-sync", id=sync_id))
        while self.take(self.lsp.read(READ_TIMEOUT)) != sync_id:
            pass
        deadline = time.monotonic() + READ_TIMEOUT
        while self.pending or any(b.open and b.published != b.version for b in self.buffers):
            if time.monotonic() > deadline:
                late = [
                    (b.uri, b.published, b.version)
                    for b in self.buffers
                    if b.open and b.published != b.version
                ]
                raise SoakFailure(
                    f"latest versions never published: {late}; unanswered: {sorted(self.pending)}"
                )
            self.take(self.lsp.read(READ_TIMEOUT))
        for buffer in self.buffers:  # older texts can no longer be published
            buffer.versions = {v: t for v, t in buffer.versions.items() if v >= buffer.published}
            if buffer.open and buffer.version != buffer.settled:
                self.report.publications_owed += 1
                buffer.settled = buffer.version
        self.report.settles += 1

    def measure(self) -> Sample:
        time.sleep(SETTLE_SECONDS)
        sample = sample_tree(self.lsp.server.pid, self.report.versions_sent)
        self.report.zombies_seen.extend(sample.zombies)
        return sample


def run_soak(config: LspSoakConfig, root: Path) -> LspSoakReport:
    report = LspSoakReport(config)
    started = time.monotonic()
    options = () if config.workers is None else ("--workers", str(config.workers))
    with LspProcess(args=(*options, "--root", str(root)), cwd=root) as lsp:
        encodings = None if config.encoding == "utf-16" else [config.encoding]
        result = lsp.initialize(debounce_ms=DEBOUNCE_MS, encodings=encodings)
        if result["capabilities"]["positionEncoding"] != config.encoding:
            raise SoakFailure(f"negotiated {result['capabilities']['positionEncoding']}")
        soak = Soak(lsp, config, report)
        soak.open_all(root)
        warmup_at = int(config.events * WARMUP_FRACTION)
        try:
            for index in range(1, config.events + 1):
                soak.event()
                if index % SETTLE_EVERY == 0 or index == config.events:
                    soak.settle()
                    if report.warmup is None and index >= warmup_at:
                        report.warmup = soak.measure()
            report.end = soak.measure()
            soak.pending["soak-shutdown"] = ("sync", soak.buffers[0], 0, None)
            lsp.send(lsp_message("shutdown", id="soak-shutdown"))
            while soak.take(lsp.read(READ_TIMEOUT)) != "soak-shutdown":
                pass
            lsp.send(lsp_message("exit"))
            report.exit_status = lsp.server.wait_exit(READ_TIMEOUT)
            for message in lsp.server.remaining_responses():
                raise SoakFailure(f"a message after shutdown: {message.message}")
        except (SoakFailure, AssertionError, OSError) as exc:
            report.failures.append(f"{type(exc).__name__}: {str(exc)[:2000]}")
        known = report.end.pids if report.end is not None else ()
        deadline = time.monotonic() + 5
        while (left := survivors(lsp.server.pid, known)) and time.monotonic() < deadline:
            time.sleep(0.05)
        report.left_after_exit = left
        report.log_events = log_events(lsp.server.stderr())
    report.seconds = round(time.monotonic() - started, 1)
    judge(report)
    return report


def judge(report: LspSoakReport) -> None:
    fail = report.failures.append
    if report.warmup is None or report.end is None:
        fail("no warm-up and end samples were taken")
    else:
        growth = report.rss_growth
        if growth is None or growth >= RSS_GROWTH_LIMIT:
            fail(f"resident memory grew {report.warmup.rss_kib} -> {report.end.rss_kib} KiB")
        if report.end.fds > report.warmup.fds:
            fail(f"open descriptors grew from {report.warmup.fds} to {report.end.fds}")
        if report.end.pids != report.warmup.pids:
            fail(f"processes changed from {report.warmup.pids} to {report.end.pids}")
    if report.zombies_seen:
        fail(f"zombies seen: {report.zombies_seen}")
    if report.exit_status != 0:
        fail(f"exit status {report.exit_status} after shutdown and exit")
    if report.left_after_exit:
        fail(f"processes left after exit: {report.left_after_exit}")
    events = report.log_events
    bad = {e: events[e] for e in BAD_LOG_EVENTS if events.get(e)}
    if bad or events.get("(level error)") or events.get("(not json)"):
        fail(f"the log holds failures: {bad or events}")


def format_report(report: LspSoakReport) -> str:
    growth = report.rss_growth
    lines = [
        f"LSP soak: {'PASSED' if report.passed else 'FAILED'} in {report.seconds} s "
        f"(seed {report.config.seed}, {report.config.files} buffers, {report.config.encoding})",
        f"events: {sum(report.events.values())} ({dict(sorted(report.events.items()))})",
        f"versions sent: {report.versions_sent}; publications: {report.publications}, "
        f"{report.publications_checked} checked against a fresh analysis; "
        f"settles: {report.settles}, owing {report.publications_owed} latest versions",
        f"requests: {report.requests}, answers: {report.answers} ({report.results_checked} "
        f"hover and pull results checked, {report.content_modified} ContentModified)",
    ]
    if report.warmup and report.end:
        lines.append(
            f"tree RSS {report.warmup.rss_kib} -> {report.end.rss_kib} KiB "
            f"({'n/a' if growth is None else f'{growth:+.1%}'}), fds {report.warmup.fds} -> "
            f"{report.end.fds}, processes {report.warmup.processes} -> {report.end.processes}"
        )
    lines.append(f"exit status {report.exit_status}; left after exit: {report.left_after_exit}")
    lines += [f"FAILURE: {f}" for f in report.failures]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--events", type=int, default=DEFAULT_EVENTS)
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--files", type=int, default=DEFAULT_FILES)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--encoding", default="utf-16", choices=("utf-8", "utf-16", "utf-32"))
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    config = LspSoakConfig(args.events, args.seed, args.files, args.workers, args.encoding)
    import tempfile

    with tempfile.TemporaryDirectory(prefix="gzguide-lsp-soak-") as root:
        report = run_soak(config, Path(root))
    if args.json:
        print(json.dumps(asdict(report), default=str, indent=2))
    else:
        print(format_report(report))
    return 0 if report.passed else 1


if __name__ == "__main__":
    sys.exit(main())
