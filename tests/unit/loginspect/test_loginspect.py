"""``gz complexity logs``: the summarizer on hand-written lines, and on a real session's log."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import msgspec
import pytest

from gzguide import cli, loginspect
from gzguide.loginspect import Summary, encode_json, format_text, summarize
from gzguide.percentile import percentile

BASE = datetime(2026, 11, 30, 12, 0, 0, tzinfo=UTC)


@pytest.fixture(autouse=True)
def sigpipe_kept() -> Iterator[None]:
    """Put back the SIGPIPE disposition of pytest's own process after each test.

    cli.main, called in-process here, sets SIGPIPE to its default so that a report
    piped into ``head`` ends quietly; left so, a later test that writes to a closed
    pipe on purpose (expecting EPIPE, as the servers get it) would kill the whole run.
    """
    saved = signal.getsignal(signal.SIGPIPE)
    yield
    signal.signal(signal.SIGPIPE, saved)


def ts(seconds: float) -> str:
    moment = BASE + timedelta(seconds=seconds)
    return moment.isoformat(timespec="microseconds").replace("+00:00", "Z")


def line(event: str, at: float = 0.0, **fields: Any) -> bytes:
    record: dict[str, Any] = {"ts": ts(at), "level": "info", "event": event}
    record.setdefault("process", "frontend")
    record.setdefault("pid", 100)
    record.update(fields)
    return json.dumps(record, separators=(",", ":")).encode()


def request(
    at: float = 0.0,
    method: str | None = "analyze",
    outcome: str = "ok",
    duration_ms: float = 1.0,
    request_id: Any = 1,
    **fields: Any,
) -> bytes:
    fields.setdefault("hints", None)
    return line(
        "request",
        at,
        request_id=request_id,
        method=method,
        outcome=outcome,
        duration_ms=duration_ms,
        bytes_in=60,
        **fields,
    )


def summary_of(*lines: bytes, final_newline: bool = True) -> Summary:
    return loginspect.summarize_lines(lines, final_newline=final_newline)


def write_log(path: Path, lines: list[bytes], tail: bytes = b"") -> Path:
    path.write_bytes(b"".join(x + b"\n" for x in lines) + tail)
    return path


def outcomes(summary: Summary) -> dict[str | None, dict[str, int]]:
    return {row.method: row.outcomes for row in summary.requests.by_method}


# -- percentiles and latency ----------------------------------------------------------


def test_nearest_rank_percentiles_on_known_data() -> None:
    assert percentile([1.0, 2.0, 3.0, 4.0], 25) == 1.0
    assert percentile([1.0, 2.0, 3.0, 4.0], 50) == 2.0
    assert percentile([1.0, 2.0, 3.0, 4.0], 75) == 3.0
    assert percentile([1.0, 2.0, 3.0, 4.0], 76) == 4.0
    assert percentile([1.0, 2.0, 3.0, 4.0], 100) == 4.0
    assert percentile([7.5], 1) == 7.5
    assert percentile([7.5], 99) == 7.5
    with pytest.raises(ValueError):
        percentile([], 50)
    with pytest.raises(ValueError):
        percentile([1.0], 0)


def test_latency_percentiles_per_method_exact() -> None:
    durations = [float(v) for v in range(1, 101)]
    random.Random(7).shuffle(durations)
    lines = [request(i, duration_ms=d, request_id=i) for i, d in enumerate(durations)]
    lines += [request(200 + i, method="initialize", duration_ms=d) for i, d in enumerate([3, 1, 2])]
    (analyze, initialize) = summary_of(*lines).latency.by_method
    assert (analyze.method, analyze.count) == ("analyze", 100)
    assert (analyze.p50, analyze.p95, analyze.p99, analyze.max) == (50.0, 95.0, 99.0, 100.0)
    assert (initialize.method, initialize.count) == ("initialize", 3)
    assert (initialize.p50, initialize.p95, initialize.p99, initialize.max) == (2.0, 3.0, 3.0, 3.0)


def test_latency_by_cache_state_and_directory_pseudo_state() -> None:
    summary = summary_of(
        request(1, duration_ms=10.0, file_path="a.py", cache="miss"),
        request(2, duration_ms=30.0, file_path="a.py", cache="miss"),
        request(3, duration_ms=0.2, file_path="a.py", cache="memo"),
        request(4, duration_ms=5.0, file_path="pkg", files=2, cache={"memo": 1, "miss": 1}),
        request(5, duration_ms=0.1, outcome="-32602"),  # no cache field: not grouped
    )
    by_cache = {row.cache: (row.count, row.p50, row.max) for row in summary.latency.by_cache}
    assert by_cache == {"memo": (1, 0.2, 0.2), "miss": (2, 10.0, 30.0), "directory": (1, 5.0, 5.0)}
    assert [row.cache for row in summary.latency.by_cache] == ["memo", "miss", "directory"]


# -- requests, cache, framing, workers ------------------------------------------------


def test_requests_by_method_and_outcome_with_framing_errors_as_method_null() -> None:
    summary = summary_of(
        request(1, method="initialize"),
        request(2, method="analyze", cache="miss", file_path="a.py"),
        request(3, method="analyze", outcome="-32602"),
        request(4, method=None, outcome="-32601"),
        request(5, method=None, outcome="-32700"),  # a body that is not JSON
        line(
            "framing_error", 6, kind="header_without_colon", declared_length=None, outcome="-32700"
        ),
        line("framing_realigned", 6.1, kind="header_without_colon", bytes_discarded=0),
        line(
            "framing_error", 7, kind="body_too_large", declared_length=11_000_000, outcome="-32700"
        ),
        line("framing_realigned", 8, kind="body_too_large", bytes_discarded=11_000_000),
        request(9, method="shutdown"),
    )
    requests = summary.requests
    assert requests.total == 8  # 6 request lines + 2 framing errors
    assert requests.framing_errors == 2
    assert outcomes(summary) == {
        "analyze": {"ok": 1, "-32602": 1},
        "initialize": {"ok": 1},
        "shutdown": {"ok": 1},
        None: {"-32601": 1, "-32700": 3},
    }
    assert [row.method for row in requests.by_method] == ["analyze", "initialize", "shutdown", None]
    assert list(requests.by_outcome.items()) == [
        ("ok", 3),
        ("-32601", 1),
        ("-32602", 1),
        ("-32700", 3),
    ]
    framing = summary.framing
    assert framing.errors == 2
    assert framing.by_kind == {"body_too_large": 1, "header_without_colon": 1}
    assert (framing.realigned, framing.bytes_discarded) == (2, 11_000_000)
    # Framing errors have no duration: latency counts only the 6 request lines.
    assert sum(row.count for row in summary.latency.by_method) == 6


def test_cache_hit_ratio_definition_and_directory_requests() -> None:
    states = [
        *("miss", "memo", "memo", "hit", "racy"),
        *("unanalyzable", "timeout", "crashed", "quarantined", "skipped"),
    ]
    lines = [request(i, cache=s, file_path="a.py") for i, s in enumerate(states)]
    lines.append(request(20, file_path="pkg", files=3, cache={"memo": 2, "miss": 1}))
    lines.append(request(21, file_path="pkg", files=1, cache={"memo": 1}))
    lines.append(request(22, file_path="gone", hints=0))  # analysis failed: no cache field
    cache = summary_of(*lines).cache
    assert (cache.hits, cache.lookups) == (4, 10)
    assert cache.hit_ratio == 0.4
    assert cache.states == {
        "memo": 2,
        "hit": 1,
        "racy": 1,
        "miss": 1,
        "unanalyzable": 1,
        "timeout": 1,
        "crashed": 1,
        "quarantined": 1,
        "skipped": 1,
    }
    assert list(cache.states) == list(loginspect.CACHE_ORDER)
    assert cache.directory_requests == 2
    assert cache.directory_files == {"memo": 3, "miss": 1}


def test_hit_ratio_is_null_without_single_file_lookups() -> None:
    cache = summary_of(request(1, file_path="pkg", files=1, cache={"miss": 1})).cache
    assert (cache.hits, cache.lookups, cache.hit_ratio) == (0, 0, None)


def test_worker_replacements_and_failed_jobs() -> None:
    summary = summary_of(
        line("worker_start", 1, worker={"index": 0, "pid": 11}),
        line("worker_start", 1, worker={"index": 1, "pid": 12}),
        line("worker_ready", 2, worker={"index": 0, "pid": 11}),
        line("worker_ready", 2, worker={"index": 1, "pid": 12}),
        line(
            "job_failed",
            3,
            worker={"index": 0, "pid": 11},
            reason="timeout",
            file_path="/w/slow.py",
            seq=4,
        ),
        line("worker_exit", 3, worker={"index": 0, "pid": 11}, reason="timeout", returncode=-9),
        line("worker_start", 3, worker={"index": 0, "pid": 13}),
        line("worker_replaced", 3.5, worker={"index": 0, "pid": 13}, old_pid=11, reason="timeout"),
        line("worker_exit", 4, worker={"index": 1, "pid": 12}, reason="died", returncode=-9),
        line("worker_start", 4, worker={"index": 1, "pid": 14}),
        line("worker_replaced", 4.5, worker={"index": 1, "pid": 14}, old_pid=12, reason="died"),
        line("worker_exit", 5, worker={"index": 0, "pid": 13}, reason="closed", returncode=0),
        line("worker_exit", 5, worker={"index": 1, "pid": 14}, reason="closed", returncode=0),
    )
    workers = summary.workers
    assert (workers.started, workers.ready, workers.replaced) == (4, 2, 2)
    assert workers.exits == {"closed": 2, "died": 1, "timeout": 1}
    assert workers.replacements_by_reason == {"died": 1, "timeout": 1}
    assert [(r.index, r.old_pid, r.pid, r.reason, r.ts) for r in workers.replacements] == [
        (0, 11, 13, "timeout", ts(3.5)),
        (1, 12, 14, "died", ts(4.5)),
    ]
    assert workers.job_failures == 1
    assert workers.job_failures_by_reason == {"timeout": 1}
    (job,) = workers.failed_jobs
    assert (job.index, job.pid, job.reason, job.file_path) == (0, 11, "timeout", "/w/slow.py")
    text = format_text(summary)
    assert "2 replaced" in text and "replacements: died 1, timeout 1" in text


def test_ten_slowest_requests_longest_first_with_paths() -> None:
    lines = [
        request(i, duration_ms=float(i % 15), request_id=i, file_path=f"f{i}.py", cache="miss")
        for i in range(30)
    ]
    slowest = summary_of(*lines).slowest
    assert len(slowest) == loginspect.SLOWEST == 10
    # Durations 14..10 occur twice (i and i+15); ties keep the earlier line first.
    assert [s.duration_ms for s in slowest] == [14, 14, 13, 13, 12, 12, 11, 11, 10, 10]
    assert [s.request_id for s in slowest] == [14, 29, 13, 28, 12, 27, 11, 26, 10, 25]
    assert slowest[0].file_path == "f14.py" and slowest[0].ts == ts(14)
    assert slowest[0].cache == "miss"


def test_span_sessions_and_merge_of_files_out_of_order(tmp_path: Path) -> None:
    first = write_log(
        tmp_path / "old.log",
        [
            line("server_start", 0, pid=1, version="0.1.0", workers=2),
            request(1, method="initialize", pid=1),
            line("server_stop", 2, pid=1, reason="shutdown", exit_code=0, requests=1, uptime_s=2.0),
            line("server_start", 3, pid=2),  # never stopped (killed, or still running)
        ],
    )
    second = write_log(
        tmp_path / "new.log",
        [
            line("server_start", 60, pid=3),
            request(61, method="initialize", pid=3),
            line("server_stop", 90.5, pid=3, reason="end_of_input", exit_code=0, requests=1),
        ],
    )
    summary = summarize([str(second), str(first)])
    assert summary.files == [str(second), str(first)]
    assert (summary.span.first_ts, summary.span.last_ts) == (ts(0), ts(90.5))
    assert summary.span.duration_s == 90.5
    servers = summary.servers
    assert (servers.starts, servers.stops) == (3, 2)
    assert servers.stop_reasons == {"end_of_input": 1, "shutdown": 1}
    sessions = [(s.pid, s.start_ts, s.stop_ts, s.reason, s.exit_code) for s in servers.sessions]
    assert sessions == [
        (1, ts(0), ts(2), "shutdown", 0),
        (2, ts(3), None, None, None),
        (3, ts(60), ts(90.5), "end_of_input", 0),
    ]
    assert summary.requests.total == 2


def test_empty_log(tmp_path: Path) -> None:
    summary = summarize([str(write_log(tmp_path / "empty.log", []))])
    assert summary.lines == loginspect.LineCounts(0, 0, 0, 0)
    assert summary.span == loginspect.Span(None, None, None)
    assert summary.requests.total == 0 and summary.slowest == []
    assert format_text(summary).startswith("1 log file: 0 lines")


# -- malformed and truncated lines ----------------------------------------------------


def test_malformed_lines_are_counted_never_fatal() -> None:
    bad = [
        b"not json at all",
        b"",
        b"[1, 2, 3]",
        b'"a string"',
        b"null",
        b'{"ts": "2026-11-30T12:00:00Z", "level": "info"}',  # no event
        b'{"event": "request", "level": "info"}',  # no ts
        b'{"ts": "yesterday", "event": "request"}',  # ts not ISO-8601
        b'{"ts": 12, "event": "request"}',
        b'{"ts": "2026-11-30T12:00:00Z", "event": 5}',
        b'{"ts": "2026-11-30T12:00:00Z", "event": "request", "x": "\xff\xfe"}',  # not UTF-8
        b'{"ts": "2026-11-30T12:00:00Z", "event": "request"',  # cut, but had its newline
    ]
    odd = [  # parsed: odd field types are tolerated, not trusted
        request(1, method=7, outcome=None, duration_ms="slow", cache=["x"], request_id=[1]),  # type: ignore[arg-type]
        line("worker_replaced", 2, worker="w", old_pid="p", reason=None),
        line("framing_realigned", 3, bytes_discarded="many"),
        line("server_stop", 4, pid=None, reason=3),
    ]
    summary = summary_of(*bad[:6], *odd, *bad[6:], request(9, duration_ms=4.0))
    assert summary.lines == loginspect.LineCounts(
        total=len(bad) + len(odd) + 1, parsed=len(odd) + 1, malformed=len(bad), truncated=0
    )
    assert outcomes(summary) == {"analyze": {"ok": 1}, None: {"unknown": 1}}
    assert summary.latency.by_method[0].count == 1
    assert summary.workers.replacements[0].reason == "unknown"
    assert summary.servers.stop_reasons == {"unknown": 1}
    format_text(summary)
    encode_json(summary)


def test_partial_final_line_is_truncated_not_malformed(tmp_path: Path) -> None:
    whole = request(1, method="initialize")
    partial = request(2, method="shutdown")[:40]
    log = write_log(tmp_path / "live.log", [whole, partial[:-5]], tail=partial)
    summary = summarize([str(log)])
    # The cut line in the middle had a newline: malformed. The cut final one: truncated.
    assert summary.lines == loginspect.LineCounts(total=3, parsed=1, malformed=1, truncated=1)
    assert summary.requests.total == 1


def test_complete_final_line_without_newline_is_read(tmp_path: Path) -> None:
    log = write_log(
        tmp_path / "live.log", [request(1, method="initialize")], tail=request(2, method="shutdown")
    )
    summary = summarize([str(log)])
    assert summary.lines == loginspect.LineCounts(total=2, parsed=2, malformed=0, truncated=0)
    assert outcomes(summary) == {"initialize": {"ok": 1}, "shutdown": {"ok": 1}}


def test_each_file_may_end_in_a_partial_line(tmp_path: Path) -> None:
    a = write_log(tmp_path / "a.log", [request(1)], tail=b'{"ts":"2026-')
    b = write_log(tmp_path / "b.log", [request(2)], tail=b'{"ts":"2026-11-30T12:0')
    summary = summarize([str(a), str(b)])
    assert (summary.lines.parsed, summary.lines.malformed, summary.lines.truncated) == (2, 0, 2)


def test_over_long_line_is_skipped_as_malformed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(loginspect.reading, "MAX_LINE_BYTES", 200)
    long = request(1, file_path="x" * 1000)
    log = write_log(tmp_path / "long.log", [request(0), long, request(2)], tail=long)
    summary = summarize([str(log)])
    assert summary.lines == loginspect.LineCounts(total=4, parsed=2, malformed=2, truncated=0)


# -- output -----------------------------------------------------------------------------


def test_json_output_has_the_documented_keys() -> None:
    summary = summary_of(request(1, cache="memo", file_path="a.py"))
    data = json.loads(encode_json(summary))
    assert list(data) == [
        "summary_version",
        "files",
        "lines",
        "span",
        "levels",
        "events",
        "requests",
        "latency",
        "cache",
        "workers",
        "framing",
        "slowest",
        "servers",
    ]
    assert data["summary_version"] == 1
    assert list(data["requests"]) == ["total", "framing_errors", "by_outcome", "by_method"]
    assert data["latency"]["percentile_method"] == "nearest-rank"
    assert list(data["latency"]["by_method"][0]) == ["method", "count", "p50", "p95", "p99", "max"]
    assert list(data["cache"]) == [
        "states",
        "hits",
        "lookups",
        "hit_ratio",
        "directory_requests",
        "directory_files",
    ]
    assert list(data["slowest"][0]) == [
        "ts",
        "duration_ms",
        "method",
        "request_id",
        "outcome",
        "file_path",
        "cache",
        "pid",
    ]
    assert msgspec.json.decode(encode_json(summary), type=Summary) == summary


def test_text_tables_are_aligned() -> None:
    summary = summary_of(
        request(1, method="initialize", duration_ms=0.05),
        request(2, duration_ms=1234.5, cache="miss", file_path="some/long/path.py"),
        request(3, method=None, outcome="-32601", duration_ms=0.01),
    )
    text = format_text(summary)
    lines = text.splitlines()
    start = lines.index("Latency in ms (nearest-rank percentiles)") + 1
    table = lines[start : start + 4]
    assert table[0].split() == ["method", "count", "p50", "p95", "p99", "max"]
    assert len({len(row) for row in table}) == 1  # right-aligned numbers: equal widths
    assert table[1].split()[0] == "analyze" and table[1].endswith("1234.500")
    assert "(none)" in table[3]
    assert "Cache hit ratio: 0.0% (0 of 1 single-file analyze requests" in text


# -- the command -------------------------------------------------------------------------


def test_cli_reports_an_unreadable_file_with_status_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = write_log(tmp_path / "good.log", [request(1)])
    assert cli.main(["complexity", "logs", str(good), str(tmp_path / "missing.log")]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "missing.log" in captured.err and captured.err.startswith("gz: ")
    assert cli.main(["complexity", "logs", str(tmp_path)]) == 2  # a directory


def test_cli_text_and_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = write_log(tmp_path / "s.log", [request(1, method="initialize"), request(2, cache="hit")])
    assert cli.main(["complexity", "logs", str(log)]) == 0
    assert "Requests: 2, of which 0 framing errors" in capsys.readouterr().out
    assert cli.main(["complexity", "logs", str(log), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["requests"]["total"] == 2 and data["cache"]["hit_ratio"] == 1.0


def test_server_start_up_does_not_import_the_log_inspector() -> None:
    code = "import sys, gzguide.cli; sys.exit('gzguide.loginspect' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], timeout=30).returncode == 0


# -- a real session ------------------------------------------------------------------------


def frame(body: bytes | dict[str, Any]) -> bytes:
    data = json.dumps(body).encode() if isinstance(body, dict) else body
    return b"Content-Length: %d\r\n\r\n%b" % (len(data), data)


def responses(stream: bytes) -> Iterator[dict[str, Any]]:
    """Each ``Content-Length: N\\r\\n\\r\\n`` + N bytes response in ``stream``."""
    while stream:
        header, sep, rest = stream.partition(b"\r\n\r\n")
        assert sep and header.startswith(b"Content-Length: "), stream[:80]
        length = int(header.removeprefix(b"Content-Length: "))
        body, stream = rest[:length], rest[length:]
        assert len(body) == length
        yield json.loads(body)


def run_gz(*args: str, cwd: Path, stdin: bytes = b"", timeout: float = 20) -> tuple[int, bytes]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "gzguide", "complexity", *args],
        cwd=cwd,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,  # its own process group: the workers go with it on failure
    )
    try:
        out, err = proc.communicate(stdin, timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        raise
    assert proc.returncode == 0, err.decode(errors="replace")
    return proc.returncode, out


@pytest.fixture(scope="module")
def session_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The log of a real session with two workers, and its responses checked."""
    root = tmp_path_factory.mktemp("workspace")
    (root / "pkg").mkdir()
    source = root / "pkg" / "mod.py"
    source.write_text(
        "def f(x):\n    if x:\n        for i in range(x):\n            if i % 2:\n"
        "                print(i)\n    return x\n"
    )
    old = time.time() - 3600  # settled: the memo may answer for it without a re-read
    os.utime(source, (old, old))
    log = root.parent / "session.log"
    script = [
        frame({"id": 1, "method": "initialize", "params": {"clientVersion": "1.0"}}),
        frame({"id": 2, "method": "analyze", "params": {"file_path": "pkg/mod.py"}}),
        frame({"id": 3, "method": "analyze", "params": {"file_path": "pkg/mod.py"}}),
        frame({"id": 4, "method": "analyze", "params": {"file_path": "pkg/mod.py"}}),
        frame({"id": 5, "method": "analyze", "params": {"file_path": "pkg"}}),
        frame({"id": 6, "method": "analyze", "params": {}}),
        frame({"id": 7, "method": "frobnicate"}),
        b"this header has no colon\r\n\r\n",  # a framing error: -32700, no request line
        frame(b"{not json"),  # a request line with method null and outcome -32700
        frame({"id": 8, "method": "shutdown"}),
    ]
    args = ["guide", "--server", "--workers", "2", "--log-file", str(log), "--root", str(root)]
    _, out = run_gz(*args, cwd=root, stdin=b"".join(script))
    answers = list(responses(out))
    assert [a.get("id") for a in answers] == [1, 2, 3, 4, 5, 6, 7, None, None, 8]
    assert [a["error"]["code"] for a in answers if "error" in a] == [-32602, -32601, -32700, -32700]
    return log


def test_real_session_log_lines_are_complete_json_objects(session_log: Path) -> None:
    raw = session_log.read_bytes()
    assert raw.endswith(b"\n")
    records = [json.loads(x) for x in raw.splitlines()]
    for record in records:
        assert isinstance(record, dict)
        for key in ("ts", "level", "event", "process", "pid"):
            assert key in record, record
        assert record["ts"].endswith("Z")
        datetime.fromisoformat(record["ts"])
    requests = [r for r in records if r["event"] == "request"]
    assert len(requests) == 9
    for record in requests:
        for key in ("request_id", "method", "outcome", "duration_ms"):
            assert key in record, record
        assert isinstance(record["duration_ms"], float)


def test_real_session_is_fully_accounted_for(session_log: Path) -> None:
    _, out = run_gz("logs", str(session_log), "--json", cwd=session_log.parent)
    data = json.loads(out)
    total_lines = len(session_log.read_bytes().splitlines())
    assert data["lines"] == {
        "total": total_lines,
        "parsed": total_lines,
        "malformed": 0,
        "truncated": 0,
        "dropped": 0,
    }
    requests = data["requests"]
    assert requests["total"] == 10  # 9 request lines + 1 framing error
    assert requests["framing_errors"] == 1
    assert {row["method"]: row["outcomes"] for row in requests["by_method"]} == {
        "analyze": {"ok": 4, "-32602": 1},
        "initialize": {"ok": 1},
        "shutdown": {"ok": 1},
        None: {"-32601": 1, "-32700": 2},
    }
    assert requests["by_outcome"] == {"ok": 6, "-32601": 1, "-32602": 1, "-32700": 2}
    latency = {row["method"]: row["count"] for row in data["latency"]["by_method"]}
    assert latency == {"analyze": 5, "initialize": 1, "shutdown": 1, None: 2}
    cache = data["cache"]
    # The first analysis is a worker's miss; the unchanged file then comes from the memo.
    assert cache["states"] == {"memo": 2, "miss": 1}
    assert (cache["hits"], cache["lookups"], cache["hit_ratio"]) == (2, 3, 2 / 3)
    assert cache["directory_requests"] == 1 and cache["directory_files"] == {"memo": 1}
    assert {row["cache"]: row["count"] for row in data["latency"]["by_cache"]} == {
        "memo": 2,
        "miss": 1,
        "directory": 1,
    }
    assert data["framing"] == {
        "errors": 1,
        "by_kind": {"header_without_colon": 1},
        "realigned": 1,
        "bytes_discarded": len(b"this header has no colon\r\n"),
    }
    assert len(data["slowest"]) == 9
    assert data["slowest"][0]["method"] == "analyze"
    workers = data["workers"]
    assert workers["started"] == 2 and workers["replaced"] == 0 and workers["job_failures"] == 0
    servers = data["servers"]
    assert (servers["starts"], servers["stops"], servers["stop_reasons"]) == (1, 1, {"shutdown": 1})
    (session,) = servers["sessions"]
    assert (session["reason"], session["exit_code"], session["requests"]) == ("shutdown", 0, 9)
    assert data["span"]["first_ts"] == session["start_ts"]


def test_real_session_log_with_a_partial_last_line(session_log: Path, tmp_path: Path) -> None:
    raw = session_log.read_bytes()
    cut = tmp_path / "live.log"
    last_request = [x for x in raw.splitlines() if b'"event":"request"' in x][-1]
    cut.write_bytes(raw + last_request[: len(last_request) // 2])
    _, out = run_gz("logs", str(cut), "--json", cwd=tmp_path)
    data = json.loads(out)
    assert data["lines"]["truncated"] == 1 and data["lines"]["malformed"] == 0
    assert data["requests"]["total"] == 10
    _, text = run_gz("logs", str(cut), cwd=tmp_path)
    assert b"1 malformed" not in text and b"1 truncated" in text
    assert b"Requests: 10, of which 1 framing error" in text


def test_lines_the_server_lost_to_a_full_stderr_pipe_are_reported() -> None:
    summary = summary_of(
        request(0.0),
        line("log_lines_dropped", 1.0, level="warning", count=300),
        line("log_lines_dropped", 2.0, level="warning", count=2, process="worker-0"),
        line("log_lines_dropped", 3.0, level="warning", count="many"),  # not a count: ignored
        request(4.0),
    )
    assert summary.lines.dropped == 302
    assert summary.events["log_lines_dropped"] == 3
    assert "Lost before reaching the log: 302 lines (a full stderr pipe)" in format_text(summary)
    assert json.loads(encode_json(summary))["lines"]["dropped"] == 302
    assert "Lost before" not in format_text(summary_of(request(0.0)))
