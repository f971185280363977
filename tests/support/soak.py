"""A soak test: a long, replayed editing session against the real server.

The session is generated from a seed, so a run can be replayed exactly. It works
in a temporary workspace of real Python files and edits them while the server is
serving (``soak_workspace.py``); between the edits it sends requests and about 5%
garbage, each with what must come back (``soak_traffic.py``). This module drives
the run, samples the server's process tree and judges the whole.

What is checked:

* every unit sent (request or garbage) gets exactly one response, in order, with
  its id echoed exactly (``null`` for garbage), the expected error code, and for
  analyze a ``{"hints": [...]}`` result whose hints all carry the path as sent;
  a sample of the answers is compared with a fresh in-process analysis of the
  bytes on disk, every answer to a buffer sent as text with one of that text
  (the session runs at protocol 1.1, and types into buffers), and so is every
  answer of a *racy probe* (ask about a file,
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

Run the full soak (20,000 requests by default; also ``--seed S``, ``--workers W``,
``--files F`` and ``--json``) with::

    .venv/bin/python tests/support/soak.py --requests 20000

It prints a short report and exits non-zero on failure. ``tests/soak/test_soak.py``
runs a bounded version of the same session in CI.
"""

from __future__ import annotations

import argparse
import json
import os
import posixpath
import random
import sys
import tempfile
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

if __name__ == "__main__":  # run as a script: the support package is one folder up
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


from gzguide import procfs
from support.protocol_client import Response, ServerProcess
from support.soak_traffic import FRAMING_LABELS, Batch, Expect, Reference, Session, Unit
from support.soak_workspace import Workspace

DEFAULT_REQUESTS = 20_000
DEFAULT_SEED = 20_240_531
DEFAULT_FILES = 100
#: Resident memory may grow by less than this fraction between warm-up and the end.
RSS_GROWTH_LIMIT = 0.10
#: The share of requests sent before the warm-up sample (at least one full sweep).
WARMUP_FRACTION = 0.25
#: How many trend samples are taken over a run (besides warm-up and the end).
TREND_SAMPLES = 10
#: How long the server is left idle before a measured sample (idle-time GC, log flush).
SETTLE_SECONDS = 0.3
#: Only a hang should ever hit this.
READ_TIMEOUT = 30.0
#: Log events that mean a request lost its answer or a worker died.
BAD_LOG_EVENTS = ("job_failed", "worker_replaced", "analyze_failed", "pool_unavailable")
#: Requests sent besides the session's units: initialize, two pings (samples), shutdown.
EXTRA_REQUESTS = 4


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
    typing_bursts: int = 0
    texts_verified: int = 0
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
        self.server.initialize("1.1", id="soak-initialize")
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
        if expect.text is not None or (expect.verify and stable):
            self.verify(where, expect, hints)

    def verify(self, where: str, expect: Expect, hints: list[dict[str, Any]]) -> None:
        """The answer equals an in-process analysis of the text sent, or of the bytes on
        disk (unchanged since)."""
        assert expect.path is not None and expect.target is not None
        if expect.text is not None:
            wanted = self.reference.text_hints(expect.text, expect.path, expect.cursor)
            self.report.texts_verified += 1
        elif expect.directory:
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
                f"in-process analysis of {'the text sent' if expect.text else 'the file on disk'}"
                f": {len(hints)} hints, expected "
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
            report.typing_bursts = session.typing_bursts
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
        f"typing             {report.typing_bursts} bursts into buffers, "
        f"{report.unit_kinds.get('analyze_text', 0):,} texts sent, "
        f"all {report.texts_verified:,} verified in-process",
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
