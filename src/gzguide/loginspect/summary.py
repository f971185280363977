"""Summarizing server logs: records in, one :class:`Summary` out (the rules are the package's).

:class:`Summarizer` takes the records of one or more logs (the frontend and its
workers append to the same file; several files are merged as if they were one)
and keeps what the summary needs; memory grows with the log only by the latency
lists (8 bytes a request) and the lists of worker replacements, job failures and
server sessions.
"""

from __future__ import annotations

import heapq
from array import array
from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import IO, Any, Final

import msgspec

from gzguide import freshness
from gzguide.loginspect.reading import (
    LineReader,
    as_int,
    as_number,
    as_str,
    label,
    worker_ref,
)
from gzguide.percentile import METHOD as PERCENTILE_METHOD
from gzguide.percentile import percentile

#: How many of the slowest requests the summary lists.
SLOWEST: Final = 10
PERCENTILES: Final = (50, 95, 99)
#: Cache states that answered without parsing the file again.
HIT_STATES: Final = tuple(str(state) for state in freshness.HIT_STATES)
#: The pseudo cache state latency of directory requests is grouped under.
DIRECTORY: Final = "directory"
#: Display order of the cache states the server reports (their declaration order);
#: others follow by name.
CACHE_ORDER: Final = tuple(str(state) for state in freshness.CacheState)
FRAMING_OUTCOME: Final = "-32700"
SUMMARY_VERSION: Final = 1


class LineCounts(msgspec.Struct):
    total: int
    parsed: int
    malformed: int
    truncated: int
    #: Lines the writers said they lost to a full stderr pipe (``log_lines_dropped``).
    dropped: int = 0


class Span(msgspec.Struct):
    first_ts: str | None
    last_ts: str | None
    duration_s: float | None


class MethodCount(msgspec.Struct):
    method: str | None
    total: int
    outcomes: dict[str, int]


class Requests(msgspec.Struct):
    total: int
    framing_errors: int
    by_outcome: dict[str, int]
    by_method: list[MethodCount]


class MethodLatency(msgspec.Struct):
    method: str | None
    count: int
    p50: float
    p95: float
    p99: float
    max: float


class CacheLatency(msgspec.Struct):
    cache: str
    count: int
    p50: float
    p95: float
    p99: float
    max: float


class Latency(msgspec.Struct):
    percentile_method: str
    by_method: list[MethodLatency]
    by_cache: list[CacheLatency]


class CacheSummary(msgspec.Struct):
    states: dict[str, int]
    hits: int
    lookups: int
    hit_ratio: float | None
    directory_requests: int
    directory_files: dict[str, int]


class Replacement(msgspec.Struct):
    ts: str
    index: int | None
    pid: int | None
    old_pid: int | None
    reason: str


class FailedJob(msgspec.Struct):
    ts: str
    index: int | None
    pid: int | None
    reason: str
    file_path: str | None


class Workers(msgspec.Struct):
    started: int
    ready: int
    exits: dict[str, int]
    replaced: int
    replacements_by_reason: dict[str, int]
    replacements: list[Replacement]
    job_failures: int
    job_failures_by_reason: dict[str, int]
    failed_jobs: list[FailedJob]


class Framing(msgspec.Struct):
    errors: int
    by_kind: dict[str, int]
    realigned: int
    bytes_discarded: int


class SlowRequest(msgspec.Struct):
    ts: str
    duration_ms: float
    method: str | None
    request_id: Any
    outcome: str
    file_path: str | None
    cache: str | dict[str, int] | None
    pid: int | None


class ServerSession(msgspec.Struct):
    pid: int | None
    start_ts: str | None
    stop_ts: str | None
    reason: str | None
    exit_code: int | None
    requests: int | None
    uptime_s: float | None


class Servers(msgspec.Struct):
    starts: int
    stops: int
    stop_reasons: dict[str, int]
    sessions: list[ServerSession]


class Summary(msgspec.Struct):
    summary_version: int
    files: list[str]
    lines: LineCounts
    span: Span
    levels: dict[str, int]
    events: dict[str, int]
    requests: Requests
    latency: Latency
    cache: CacheSummary
    workers: Workers
    framing: Framing
    slowest: list[SlowRequest]
    servers: Servers


# -- small helpers ---------------------------------------------------------------


def _bump(counter: dict[str, int], key: str, by: int = 1) -> None:
    counter[key] = counter.get(key, 0) + by


def _sorted(counter: Mapping[str, int]) -> dict[str, int]:
    return dict(sorted(counter.items()))


def _outcome_key(outcome: str) -> tuple[int, str]:
    return (0 if outcome == "ok" else 1, outcome)


def _by_outcome(counter: Mapping[str, int]) -> dict[str, int]:
    return {k: counter[k] for k in sorted(counter, key=_outcome_key)}


def _cache_key(state: str) -> tuple[int, str]:
    if state in CACHE_ORDER:
        return (CACHE_ORDER.index(state), "")
    return (len(CACHE_ORDER) + (state == DIRECTORY), state)


def _by_cache(counter: Mapping[str, int]) -> dict[str, int]:
    return {k: counter[k] for k in sorted(counter, key=_cache_key)}


def _name_key(name: str | None) -> tuple[bool, str]:
    return (name is None, name or "")


def _stats(values: array[float]) -> tuple[int, float, float, float, float]:
    ordered = sorted(values)
    p50, p95, p99 = (percentile(ordered, p) for p in PERCENTILES)
    return len(ordered), p50, p95, p99, ordered[-1]


# -- the summarizer --------------------------------------------------------------


class Summarizer:
    """Accumulates log lines; :meth:`summary` turns what it saw into a :class:`Summary`."""

    def __init__(self) -> None:
        self.files: list[str] = []
        self.reader = LineReader()
        self.dropped = 0
        self.first: tuple[datetime, str] | None = None
        self.last: tuple[datetime, str] | None = None
        self.levels: dict[str, int] = {}
        self.events: dict[str, int] = {}
        self.by_method: dict[str | None, dict[str, int]] = {}
        self.framing_errors = 0
        self.method_ms: dict[str | None, array[float]] = {}
        self.cache_ms: dict[str, array[float]] = {}
        self.states: dict[str, int] = {}
        self.directory_requests = 0
        self.directory_files: dict[str, int] = {}
        self.worker_starts = self.worker_ready = 0
        self.worker_exits: dict[str, int] = {}
        self.replacements: list[Replacement] = []
        self.failed_jobs: list[FailedJob] = []
        self.framing_kinds: dict[str, int] = {}
        self.realigned = self.bytes_discarded = 0
        self._slowest: list[tuple[float, int, SlowRequest]] = []
        self._seq = 0
        self.starts: list[tuple[datetime, str, int | None]] = []
        #: Each stop as a session whose start is not known yet.
        self.stops: list[tuple[datetime, ServerSession]] = []

    # -- input ---------------------------------------------------------------

    def add_file(self, path: str) -> None:
        for record, moment in self.reader.read_file(path):
            self._record(record, moment)
        self.files.append(path)

    def add_stream(self, handle: IO[bytes]) -> None:
        for record, moment in self.reader.read(handle):
            self._record(record, moment)

    def add_line(self, line: bytes | None, terminated: bool = True) -> None:
        """One line without its newline (None: an over-long line that was skipped)."""
        parsed = self.reader.line(line, terminated)
        if parsed is not None:
            self._record(*parsed)

    # -- one parsed line ------------------------------------------------------

    def _record(self, rec: dict[str, Any], moment: datetime) -> None:
        ts: str = rec["ts"]
        event: str = rec["event"]
        if self.first is None or moment < self.first[0]:
            self.first = (moment, ts)
        if self.last is None or moment > self.last[0]:
            self.last = (moment, ts)
        _bump(self.levels, label(rec.get("level")))
        _bump(self.events, event)
        handler = _HANDLERS.get(event)
        if handler is not None:
            handler(self, rec, moment)

    def _count_request(self, method: str | None, outcome: str) -> None:
        outcomes = self.by_method.setdefault(method, {})
        _bump(outcomes, outcome)

    def _request(self, rec: dict[str, Any], _moment: datetime) -> None:
        method = as_str(rec.get("method"))
        outcome = label(rec.get("outcome"))
        self._count_request(method, outcome)
        state, directory = self._count_cache(rec.get("cache"))
        duration = as_number(rec.get("duration_ms"))
        if duration is None:
            return
        self.method_ms.setdefault(method, array("d")).append(duration)
        if state is not None:
            self.cache_ms.setdefault(state, array("d")).append(duration)
        self._keep_if_slow(rec, duration, method, outcome, directory or state)

    def _count_cache(self, cache: object) -> tuple[str | None, dict[str, int] | None]:
        """A request's cache state (a file's, or :data:`DIRECTORY` with its files' states)."""
        if isinstance(cache, str):
            _bump(self.states, cache)
            return cache, None
        if not isinstance(cache, dict):
            return None, None
        directory = {k: n for k, v in cache.items() if (n := as_int(v)) is not None}
        self.directory_requests += 1
        for key, count in directory.items():
            _bump(self.directory_files, key, count)
        return DIRECTORY, directory

    def _keep_if_slow(
        self,
        rec: dict[str, Any],
        duration: float,
        method: str | None,
        outcome: str,
        cache: str | dict[str, int] | None,
    ) -> None:
        if len(self._slowest) == SLOWEST and duration <= self._slowest[0][0]:
            return
        self._seq += 1
        slow = SlowRequest(
            ts=rec["ts"],
            duration_ms=duration,
            method=method,
            request_id=rec.get("request_id"),
            outcome=outcome,
            file_path=as_str(rec.get("file_path")),
            cache=cache,
            pid=as_int(rec.get("pid")),
        )
        # Among equal durations the earlier line is kept (higher -seq ranks above).
        entry = (duration, -self._seq, slow)
        if len(self._slowest) < SLOWEST:
            heapq.heappush(self._slowest, entry)
        else:
            heapq.heapreplace(self._slowest, entry)

    def _framing_error(self, rec: dict[str, Any], _moment: datetime) -> None:
        self.framing_errors += 1
        self._count_request(None, label(rec.get("outcome"), FRAMING_OUTCOME))
        _bump(self.framing_kinds, label(rec.get("kind")))

    def _framing_realigned(self, rec: dict[str, Any], _moment: datetime) -> None:
        self.realigned += 1
        self.bytes_discarded += as_int(rec.get("bytes_discarded")) or 0

    def _log_lines_dropped(self, rec: dict[str, Any], _moment: datetime) -> None:
        self.dropped += max(as_int(rec.get("count")) or 0, 0)

    def _worker_start(self, _rec: dict[str, Any], _moment: datetime) -> None:
        self.worker_starts += 1

    def _worker_ready(self, _rec: dict[str, Any], _moment: datetime) -> None:
        self.worker_ready += 1

    def _worker_exit(self, rec: dict[str, Any], _moment: datetime) -> None:
        _bump(self.worker_exits, label(rec.get("reason")))

    def _worker_replaced(self, rec: dict[str, Any], _moment: datetime) -> None:
        index, pid = worker_ref(rec.get("worker"))
        self.replacements.append(
            Replacement(
                ts=rec["ts"],
                index=index,
                pid=pid,
                old_pid=as_int(rec.get("old_pid")),
                reason=label(rec.get("reason")),
            )
        )

    def _job_failed(self, rec: dict[str, Any], _moment: datetime) -> None:
        index, pid = worker_ref(rec.get("worker"))
        self.failed_jobs.append(
            FailedJob(
                ts=rec["ts"],
                index=index,
                pid=pid,
                reason=label(rec.get("reason")),
                file_path=as_str(rec.get("file_path")),
            )
        )

    def _server_start(self, rec: dict[str, Any], moment: datetime) -> None:
        self.starts.append((moment, rec["ts"], as_int(rec.get("pid"))))

    def _server_stop(self, rec: dict[str, Any], moment: datetime) -> None:
        stop = ServerSession(
            pid=as_int(rec.get("pid")),
            start_ts=None,
            stop_ts=rec["ts"],
            reason=as_str(rec.get("reason")),
            exit_code=as_int(rec.get("exit_code")),
            requests=as_int(rec.get("requests")),
            uptime_s=as_number(rec.get("uptime_s")),
        )
        self.stops.append((moment, stop))

    # -- output ---------------------------------------------------------------

    def summary(self) -> Summary:
        reader = self.reader
        return Summary(
            summary_version=SUMMARY_VERSION,
            files=list(self.files),
            lines=LineCounts(
                reader.total, reader.parsed, reader.malformed, reader.truncated, self.dropped
            ),
            span=self._span(),
            levels=_sorted(self.levels),
            events=_sorted(self.events),
            requests=self._requests(),
            latency=self._latency(),
            cache=self._cache(),
            workers=self._workers(),
            framing=Framing(
                errors=self.framing_errors,
                by_kind=_sorted(self.framing_kinds),
                realigned=self.realigned,
                bytes_discarded=self.bytes_discarded,
            ),
            slowest=[s for _, _, s in sorted(self._slowest, reverse=True)],
            servers=self._servers(),
        )

    def _span(self) -> Span:
        if self.first is None or self.last is None:
            return Span(None, None, None)
        seconds = (self.last[0] - self.first[0]).total_seconds()
        return Span(self.first[1], self.last[1], round(seconds, 6))

    def _requests(self) -> Requests:
        by_outcome: dict[str, int] = {}
        rows: list[MethodCount] = []
        for method in sorted(self.by_method, key=_name_key):
            outcomes = self.by_method[method]
            for outcome, count in outcomes.items():
                _bump(by_outcome, outcome, count)
            rows.append(MethodCount(method, sum(outcomes.values()), _by_outcome(outcomes)))
        return Requests(
            total=sum(r.total for r in rows),
            framing_errors=self.framing_errors,
            by_outcome=_by_outcome(by_outcome),
            by_method=rows,
        )

    def _latency(self) -> Latency:
        by_method = [
            MethodLatency(method, *_stats(self.method_ms[method]))
            for method in sorted(self.method_ms, key=_name_key)
        ]
        by_cache = [
            CacheLatency(state, *_stats(self.cache_ms[state]))
            for state in sorted(self.cache_ms, key=_cache_key)
        ]
        return Latency(PERCENTILE_METHOD, by_method, by_cache)

    def _cache(self) -> CacheSummary:
        lookups = sum(self.states.values())
        hits = sum(self.states.get(s, 0) for s in HIT_STATES)
        return CacheSummary(
            states=_by_cache(self.states),
            hits=hits,
            lookups=lookups,
            hit_ratio=hits / lookups if lookups else None,
            directory_requests=self.directory_requests,
            directory_files=_by_cache(self.directory_files),
        )

    def _workers(self) -> Workers:
        replaced: dict[str, int] = {}
        for r in self.replacements:
            _bump(replaced, r.reason)
        failures: dict[str, int] = {}
        for job in self.failed_jobs:
            _bump(failures, job.reason)
        return Workers(
            started=self.worker_starts,
            ready=self.worker_ready,
            exits=_sorted(self.worker_exits),
            replaced=len(self.replacements),
            replacements_by_reason=_sorted(replaced),
            replacements=sorted(self.replacements, key=lambda r: r.ts),
            job_failures=len(self.failed_jobs),
            job_failures_by_reason=_sorted(failures),
            failed_jobs=sorted(self.failed_jobs, key=lambda j: j.ts),
        )

    def _servers(self) -> Servers:
        reasons: dict[str, int] = {}
        for _, stop in self.stops:
            _bump(reasons, label(stop.reason))
        return Servers(
            starts=len(self.starts),
            stops=len(self.stops),
            stop_reasons=_sorted(reasons),
            sessions=_pair_sessions(self.starts, self.stops),
        )


_OpenSessions = dict[int | None, tuple[datetime, ServerSession]]


def _close(
    open_by_pid: _OpenSessions, moment: datetime, stop: ServerSession
) -> tuple[datetime, ServerSession]:
    """A stop, joined to the start of its pid when one is open."""
    started = open_by_pid.pop(stop.pid, None)
    if started is None:
        return (moment, stop)
    return (started[0], msgspec.structs.replace(stop, start_ts=started[1].start_ts))


def _timeline(
    starts: Iterable[tuple[datetime, str, int | None]],
    stops: Iterable[tuple[datetime, ServerSession]],
) -> list[tuple[datetime, int, ServerSession]]:
    """Starts (0) and stops (1) in time order, a start first of two at one moment."""
    timeline: list[tuple[datetime, int, ServerSession]] = []
    timeline.extend((moment, 0, ServerSession(pid, ts, *(None,) * 5)) for moment, ts, pid in starts)
    timeline.extend((moment, 1, stop) for moment, stop in stops)
    timeline.sort(key=lambda item: (item[0], item[1]))
    return timeline


def _pair_sessions(
    starts: Iterable[tuple[datetime, str, int | None]],
    stops: Iterable[tuple[datetime, ServerSession]],
) -> list[ServerSession]:
    """Each start with the first stop of its pid at or after it and before its next start."""
    open_by_pid: _OpenSessions = {}
    sessions: list[tuple[datetime, ServerSession]] = []
    for moment, is_stop, entry in _timeline(starts, stops):
        if is_stop:
            sessions.append(_close(open_by_pid, moment, entry))
            continue
        earlier = open_by_pid.get(entry.pid)
        if earlier is not None:  # started again without a stop in between
            sessions.append(earlier)
        open_by_pid[entry.pid] = (moment, entry)
    sessions.extend(open_by_pid.values())
    sessions.sort(key=lambda item: item[0])
    return [session for _, session in sessions]


_HANDLERS: Final = {
    "request": Summarizer._request,
    "framing_error": Summarizer._framing_error,
    "framing_realigned": Summarizer._framing_realigned,
    "log_lines_dropped": Summarizer._log_lines_dropped,
    "worker_start": Summarizer._worker_start,
    "worker_ready": Summarizer._worker_ready,
    "worker_exit": Summarizer._worker_exit,
    "worker_replaced": Summarizer._worker_replaced,
    "job_failed": Summarizer._job_failed,
    "server_start": Summarizer._server_start,
    "server_stop": Summarizer._server_stop,
}


def summarize(paths: Iterable[str]) -> Summary:
    """The summary of the log files at ``paths``, merged; :class:`LogFileError` if one
    cannot be read."""
    summarizer = Summarizer()
    for path in paths:
        summarizer.add_file(path)
    return summarizer.summary()


def summarize_lines(lines: Iterable[bytes], final_newline: bool = True) -> Summary:
    """The summary of ``lines`` (without newlines); the last lacks its newline unless
    ``final_newline``. For tests and callers that hold lines already."""
    summarizer = Summarizer()
    items = list(lines)
    for number, line in enumerate(items, 1):
        summarizer.add_line(line, final_newline or number < len(items))
    return summarizer.summary()
