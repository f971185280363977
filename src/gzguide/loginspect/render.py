"""Rendering a summary: a text report with aligned tables, or one JSON object."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final

import msgspec

from gzguide.loginspect.summary import (
    HIT_STATES,
    CacheSummary,
    Framing,
    Latency,
    Requests,
    ServerSession,
    SlowRequest,
    Summary,
    Workers,
)
from gzguide.percentile import METHOD as PERCENTILE_METHOD

#: How many server sessions (the most recent) the text report lists.
MAX_SESSIONS_SHOWN: Final = 10


def encode_json(summary: Summary) -> bytes:
    """The summary as one indented JSON object (no trailing newline)."""
    return msgspec.json.format(msgspec.json.encode(summary), indent=2)


# -- text ------------------------------------------------------------------------------


def _ms(value: float) -> str:
    return f"{value:.3f}"


def _table(headers: Sequence[str], rows: Sequence[Sequence[str]], align: str) -> list[str]:
    """Rows under headers, columns padded; ``align`` has an ``l`` or ``r`` per column."""
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(headers)]

    def render(cells: Sequence[str]) -> str:
        parts = [
            c.rjust(w) if a == "r" else c.ljust(w)
            for c, w, a in zip(cells, widths, align, strict=True)
        ]
        return ("  " + "  ".join(parts)).rstrip()

    return [render(headers), *(render(r) for r in rows)]


def _counts(counter: Mapping[str, int]) -> str:
    return ", ".join(f"{k} {v}" for k, v in counter.items()) or "none"


def _method_name(method: str | None) -> str:
    return method if method is not None else "(none)"


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def format_text(summary: Summary) -> str:
    """A readable report of ``summary``, one section per topic."""
    out: list[str] = []
    lines = summary.lines
    out.append(
        f"{_plural(len(summary.files), 'log file')}: "
        f"{_plural(lines.total, 'line')} ({lines.parsed} parsed, "
        f"{lines.malformed} malformed, {lines.truncated} truncated)"
    )
    if lines.dropped:
        lost = _plural(lines.dropped, "line")
        out.append(f"Lost before reaching the log: {lost} (a full stderr pipe)")
    span = summary.span
    if span.first_ts is not None:
        out.append(f"Span: {span.first_ts} .. {span.last_ts} ({span.duration_s:.3f} s)")
    servers = summary.servers
    stops = f" ({_counts(servers.stop_reasons)})" if servers.stops else ""
    out.append(f"Servers: {servers.starts} started, {servers.stops} stopped{stops}")
    out.extend(_sessions_text(servers.sessions))
    out.extend(_requests_text(summary.requests))
    out.extend(_latency_text(summary.latency))
    out.extend(_cache_text(summary.cache))
    out.extend(_workers_text(summary.workers))
    out.extend(_framing_text(summary.framing))
    out.extend(_slowest_text(summary.slowest))
    if summary.events:
        out.append("")
        out.append("Events")
        rows = [[event, str(count)] for event, count in summary.events.items()]
        out.extend(_table(["event", "lines"], rows, "lr"))
    return "\n".join(out) + "\n"


def _sessions_text(sessions: Sequence[ServerSession]) -> list[str]:
    if not sessions:
        return []
    shown = sessions[-MAX_SESSIONS_SHOWN:]
    out = []
    if len(sessions) > len(shown):
        out.append(f"  (the last {len(shown)} of {len(sessions)} sessions)")
    rows = [
        [_cell(v) for v in (s.pid, s.start_ts, s.stop_ts, s.reason, s.exit_code, s.requests)]
        for s in shown
    ]
    headers = ["pid", "started", "stopped", "reason", "exit", "requests"]
    return out + _table(headers, rows, "rlllrr")


def _cell(value: object) -> str:
    """A table cell: ``-`` for what the log did not say."""
    return "-" if value is None or value == "" else str(value)


def _requests_text(requests: Requests) -> list[str]:
    out = [
        "",
        f"Requests: {requests.total}, of which {_plural(requests.framing_errors, 'framing error')}"
        " (no request line; counted as method (none), outcome -32700)",
    ]
    if not requests.by_method:
        return out
    outcomes = list(requests.by_outcome)
    rows = [
        [_method_name(m.method), str(m.total), *(str(m.outcomes.get(o, "-")) for o in outcomes)]
        for m in requests.by_method
    ]
    rows.append(["all", str(requests.total), *(str(requests.by_outcome[o]) for o in outcomes)])
    out.extend(_table(["method", "total", *outcomes], rows, "lr" + "r" * len(outcomes)))
    return out


def _latency_text(latency: Latency) -> list[str]:
    if not latency.by_method:
        return []
    headers = ["count", "p50", "p95", "p99", "max"]
    out = ["", f"Latency in ms ({PERCENTILE_METHOD} percentiles)"]
    rows = [
        [_method_name(m.method), str(m.count), *map(_ms, (m.p50, m.p95, m.p99, m.max))]
        for m in latency.by_method
    ]
    out.extend(_table(["method", *headers], rows, "lrrrrr"))
    if latency.by_cache:
        out.append("")
        rows = [
            [c.cache, str(c.count), *map(_ms, (c.p50, c.p95, c.p99, c.max))]
            for c in latency.by_cache
        ]
        out.extend(_table(["cache", *headers], rows, "lrrrrr"))
    return out


def _cache_text(cache: CacheSummary) -> list[str]:
    if not cache.lookups and not cache.directory_requests:
        return []
    ratio = f"{cache.hit_ratio:.1%}" if cache.hit_ratio is not None else "n/a"
    out = [
        "",
        f"Cache hit ratio: {ratio} ({cache.hits} of {cache.lookups} single-file analyze "
        f"requests answered by {'/'.join(HIT_STATES)})",
        f"  states: {_counts(cache.states)}",
    ]
    if cache.directory_requests:
        out.append(
            f"  directory requests: {cache.directory_requests} "
            f"(files: {_counts(cache.directory_files)})"
        )
    return out


def _workers_text(workers: Workers) -> list[str]:
    out = [
        "",
        f"Workers: {workers.started} started, {workers.ready} ready, "
        f"{workers.replaced} replaced, {_plural(workers.job_failures, 'job')} failed",
    ]
    if workers.exits:
        out.append(f"  exits: {_counts(workers.exits)}")
    if workers.replaced:
        out.extend(_replacements_text(workers))
    if workers.job_failures:
        out.extend(_failed_jobs_text(workers))
    return out


def _replacements_text(workers: Workers) -> list[str]:
    rows = [
        [r.ts, str(r.index), str(r.old_pid), str(r.pid), r.reason] for r in workers.replacements
    ]
    return [
        f"  replacements: {_counts(workers.replacements_by_reason)}",
        *_table(["ts", "worker", "old pid", "new pid", "reason"], rows, "lrrrl"),
    ]


def _failed_jobs_text(workers: Workers) -> list[str]:
    rows = [
        [j.ts, str(j.index), str(j.pid), j.reason, j.file_path or "-"] for j in workers.failed_jobs
    ]
    return [
        f"  failed jobs: {_counts(workers.job_failures_by_reason)}",
        *_table(["ts", "worker", "pid", "reason", "file"], rows, "lrrll"),
    ]


def _framing_text(framing: Framing) -> list[str]:
    if not framing.errors and not framing.realigned:
        return []
    return [
        "",
        f"Framing errors: {framing.errors} ({_counts(framing.by_kind)}); "
        f"{_plural(framing.realigned, 'realignment')}, "
        f"{_plural(framing.bytes_discarded, 'byte')} discarded",
    ]


def _cache_cell(cache: str | dict[str, int] | None) -> str:
    if cache is None:
        return "-"
    if isinstance(cache, str):
        return cache
    return ",".join(f"{k}:{v}" for k, v in cache.items()) or "-"


def _slowest_text(slowest: Sequence[SlowRequest]) -> list[str]:
    if not slowest:
        return []
    rows = [
        [
            _ms(s.duration_ms),
            s.ts,
            _method_name(s.method),
            msgspec.json.encode(s.request_id).decode(),
            s.outcome,
            _cache_cell(s.cache),
            s.file_path or "-",
        ]
        for s in slowest
    ]
    headers = ["ms", "ts", "method", "id", "outcome", "cache", "file"]
    return ["", f"Slowest {len(slowest)} requests", *_table(headers, rows, "rllrlll")]
