"""Summaries of the server's JSON-lines logs: ``gz complexity logs FILE... [--json]``.

:func:`summarize` reads one or more log files (the frontend and its workers append
to the same file; several files are merged as if they were one) and returns a
:class:`Summary`; :func:`format_text` renders it as a report with aligned tables
and :func:`encode_json` as one JSON object. Nothing here writes anywhere.

Reading
    Files are read line by line (``readline``), so memory per line is bounded by
    the line; what grows with the log are the latency lists (8 bytes a request)
    and the lists of worker replacements, job failures and server sessions. A
    line is *parsed* when it is a JSON object (decoded with msgspec) whose
    ``event`` is a string and whose ``ts`` is an ISO-8601 timestamp (one without
    an offset is taken as UTC). Anything else is *malformed* and only counted:
    text that is not JSON (invalid UTF-8 and blank lines included), JSON that is
    not an object, an object without ``event``/``ts``, and any line longer than
    :data:`MAX_LINE_BYTES`. The final line of a file without a newline (the
    server may be writing it) is used when it decodes as JSON, and counted as
    *truncated* (not malformed) when it does not. In a parsed line, a field of
    an unexpected type is not trusted: a grouping key (``outcome``, ``reason``,
    ``kind``, ``level``) that is not a string counts as ``unknown``, a number
    that is not one (``duration_ms``, ``bytes_discarded``) is left out.

Requests
    Every ``request`` line is one request, counted by ``method`` and ``outcome``;
    ``method`` is null for a request without a valid method (an unknown method,
    a body that is not JSON, ...). A ``framing_error`` line is a client message
    the server answered with -32700 without logging a ``request`` line, so it is
    counted as a request too, with method null and outcome ``-32700`` (its own
    ``outcome`` field). ``requests.framing_errors`` says how many of the total
    those are.

Latency
    ``duration_ms`` of request lines, grouped by method and by cache state.
    Framing errors have no duration and are left out. Percentiles use the
    project's *nearest-rank* definition (:mod:`gzguide.percentile`): for ``n``
    durations sorted ascending ``x[1] <= ... <= x[n]``, ``pP = x[ceil(P * n / 100)]``,
    always an observed value (for 1..100, p50 = 50, p95 = 95, p99 = 99); ``max = x[n]``. By cache
    state: a single-file analyze request is grouped under its ``cache`` string;
    every directory request (whose ``cache`` is an object mapping state to file
    count) is grouped under the pseudo-state ``directory``; requests without a
    ``cache`` field (errors, or an analysis that failed) are not grouped.

Cache hit ratio
    ``hits / lookups``, where ``lookups`` is the number of single-file analyze
    requests whose log line has a ``cache`` string (whatever the state:
    ``unanalyzable``, ``timeout``, ``crashed`` and ``quarantined`` included) and ``hits`` those
    whose state is ``memo``, ``hit`` or ``racy`` (answered without parsing the
    file again). Null when there are no lookups. Directory requests are not in
    it; their per-file states are summed in ``cache.directory_files``.

Time span
    The earliest and the latest ``ts`` of all parsed lines (not the first and
    last lines: merged files need not be in order), and the seconds between.

JSON keys (``--json``), all always present:

* ``summary_version`` (1), ``files`` (the paths, as given);
* ``lines``: ``total``, ``parsed``, ``malformed``, ``truncated``, ``dropped`` (the
  lines the server said it lost to a full stderr pipe: the sum of its
  ``log_lines_dropped`` counts);
* ``span``: ``first_ts``, ``last_ts``, ``duration_s`` (null without parsed lines);
* ``levels``, ``events``: line counts by ``level`` and by ``event``;
* ``requests``: ``total``, ``framing_errors``, ``by_outcome`` ({outcome: n}),
  ``by_method`` ([{``method``, ``total``, ``outcomes``: {outcome: n}}]);
* ``latency``: ``percentile_method`` ("nearest-rank"), ``by_method``
  ([{``method``, ``count``, ``p50``, ``p95``, ``p99``, ``max``}]) and ``by_cache``
  ([{``cache``, ``count``, ``p50``, ``p95``, ``p99``, ``max``}]), in milliseconds;
* ``cache``: ``states`` ({state: single-file requests}), ``hits``, ``lookups``,
  ``hit_ratio``, ``directory_requests``, ``directory_files`` ({state: files});
* ``workers``: ``started``, ``ready``, ``exits`` ({reason: n}), ``replaced``,
  ``replacements_by_reason``, ``replacements`` ([{``ts``, ``index``, ``pid``,
  ``old_pid``, ``reason``}]), ``job_failures``, ``job_failures_by_reason``,
  ``failed_jobs`` ([{``ts``, ``index``, ``pid``, ``reason``, ``file_path``}]);
* ``framing``: ``errors``, ``by_kind`` ({kind: n}), ``realigned``, ``bytes_discarded``;
* ``slowest``: the :data:`SLOWEST` longest requests, longest first ([{``ts``,
  ``duration_ms``, ``method``, ``request_id``, ``outcome``, ``file_path``,
  ``cache``, ``pid``}]);
* ``servers``: ``starts``, ``stops``, ``stop_reasons`` ({reason: n}), ``sessions``
  ([{``pid``, ``start_ts``, ``stop_ts``, ``reason``, ``exit_code``, ``requests``,
  ``uptime_s``}]: each ``server_start`` paired with the next ``server_stop`` of
  the same pid; a side without its partner has nulls there).

Rows are sorted by name (null last); mappings by key, outcomes ``ok`` first.
"""

from __future__ import annotations

import heapq
import math
from array import array
from collections.abc import Iterable, Iterator, Mapping, Sequence
from datetime import UTC, datetime
from typing import IO, Any, Final

import msgspec

from gzguide import freshness
from gzguide.percentile import METHOD as PERCENTILE_METHOD
from gzguide.percentile import percentile

#: A line longer than this is malformed; it is skipped without being held.
MAX_LINE_BYTES: Final = 64 * 1024 * 1024
#: How many of the slowest requests the summary lists.
SLOWEST: Final = 10
#: How many server sessions (the most recent) the text report lists.
MAX_SESSIONS_SHOWN: Final = 10
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

_decoder: Final = msgspec.json.Decoder()


class LogFileError(Exception):
    """A log file could not be opened or read."""


# -- the summary ---------------------------------------------------------------


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


# -- small helpers -------------------------------------------------------------------


def _parse_ts(value: object) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _number(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    number = float(value)
    return number if math.isfinite(number) else None


def _str(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _label(value: object, default: str = "unknown") -> str:
    """A field used as a grouping key: itself when a string, else ``default``."""
    return value if isinstance(value, str) else default


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


def _worker_ref(value: object) -> tuple[int | None, int | None]:
    if isinstance(value, dict):
        return _int(value.get("index")), _int(value.get("pid"))
    return None, None


def _stats(values: array[float]) -> tuple[int, float, float, float, float]:
    ordered = sorted(values)
    p50, p95, p99 = (percentile(ordered, p) for p in PERCENTILES)
    return len(ordered), p50, p95, p99, ordered[-1]


def iter_lines(handle: IO[bytes]) -> Iterator[tuple[bytes | None, bool]]:
    """Each line of ``handle`` without its newline, and whether it had one.

    A line longer than :data:`MAX_LINE_BYTES` is skipped as it is read and
    yielded as ``None``.
    """
    while True:
        line = handle.readline(MAX_LINE_BYTES + 1)
        if not line:
            return
        if line.endswith(b"\n"):
            yield line[:-1], True
        elif len(line) <= MAX_LINE_BYTES:
            yield line, False  # the end of the file came first
        else:
            while line and not line.endswith(b"\n"):
                line = handle.readline(MAX_LINE_BYTES)
            yield None, bool(line)


# -- the summarizer -------------------------------------------------------------------


class Summarizer:
    """Accumulates log lines; :meth:`summary` turns what it saw into a :class:`Summary`."""

    def __init__(self) -> None:
        self.files: list[str] = []
        self.total = self.parsed = self.malformed = self.truncated = 0
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
        try:
            with open(path, "rb") as handle:
                self.add_stream(handle)
        except OSError as exc:
            raise LogFileError(f"cannot read {path}: {exc.strerror or exc}") from exc
        self.files.append(path)

    def add_stream(self, handle: IO[bytes]) -> None:
        for line, terminated in iter_lines(handle):
            self.add_line(line, terminated)

    def add_line(self, line: bytes | None, terminated: bool = True) -> None:
        """One line without its newline (None: an over-long line that was skipped)."""
        self.total += 1
        try:
            record = _decoder.decode(line) if line is not None else None
        except msgspec.DecodeError:
            if terminated:
                self.malformed += 1
            else:
                self.truncated += 1
            return
        moment = _parse_ts(record.get("ts")) if isinstance(record, dict) else None
        if (
            moment is None
            or not isinstance(record, dict)
            or not isinstance(record.get("event"), str)
        ):
            self.malformed += 1
            return
        self.parsed += 1
        self._record(record, moment)

    # -- one parsed line ------------------------------------------------------

    def _record(self, rec: dict[str, Any], moment: datetime) -> None:
        ts: str = rec["ts"]
        event: str = rec["event"]
        if self.first is None or moment < self.first[0]:
            self.first = (moment, ts)
        if self.last is None or moment > self.last[0]:
            self.last = (moment, ts)
        _bump(self.levels, _label(rec.get("level")))
        _bump(self.events, event)
        handler = _HANDLERS.get(event)
        if handler is not None:
            handler(self, rec, moment)

    def _count_request(self, method: str | None, outcome: str) -> None:
        outcomes = self.by_method.setdefault(method, {})
        _bump(outcomes, outcome)

    def _request(self, rec: dict[str, Any], _moment: datetime) -> None:
        method = _str(rec.get("method"))
        outcome = _label(rec.get("outcome"))
        self._count_request(method, outcome)
        cache = rec.get("cache")
        state: str | None = None
        directory: dict[str, int] | None = None
        if isinstance(cache, str):
            state = cache
            _bump(self.states, cache)
        elif isinstance(cache, dict):
            state = DIRECTORY
            directory = {k: n for k, v in cache.items() if (n := _int(v)) is not None}
            self.directory_requests += 1
            for key, count in directory.items():
                _bump(self.directory_files, key, count)
        duration = _number(rec.get("duration_ms"))
        if duration is None:
            return
        self.method_ms.setdefault(method, array("d")).append(duration)
        if state is not None:
            self.cache_ms.setdefault(state, array("d")).append(duration)
        self._keep_if_slow(rec, duration, method, outcome, directory if directory else state)

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
            file_path=_str(rec.get("file_path")),
            cache=cache,
            pid=_int(rec.get("pid")),
        )
        # Among equal durations the earlier line is kept (higher -seq ranks above).
        entry = (duration, -self._seq, slow)
        if len(self._slowest) < SLOWEST:
            heapq.heappush(self._slowest, entry)
        else:
            heapq.heapreplace(self._slowest, entry)

    def _framing_error(self, rec: dict[str, Any], _moment: datetime) -> None:
        self.framing_errors += 1
        self._count_request(None, _label(rec.get("outcome"), FRAMING_OUTCOME))
        _bump(self.framing_kinds, _label(rec.get("kind")))

    def _framing_realigned(self, rec: dict[str, Any], _moment: datetime) -> None:
        self.realigned += 1
        self.bytes_discarded += _int(rec.get("bytes_discarded")) or 0

    def _log_lines_dropped(self, rec: dict[str, Any], _moment: datetime) -> None:
        self.dropped += max(_int(rec.get("count")) or 0, 0)

    def _worker_start(self, _rec: dict[str, Any], _moment: datetime) -> None:
        self.worker_starts += 1

    def _worker_ready(self, _rec: dict[str, Any], _moment: datetime) -> None:
        self.worker_ready += 1

    def _worker_exit(self, rec: dict[str, Any], _moment: datetime) -> None:
        _bump(self.worker_exits, _label(rec.get("reason")))

    def _worker_replaced(self, rec: dict[str, Any], _moment: datetime) -> None:
        index, pid = _worker_ref(rec.get("worker"))
        self.replacements.append(
            Replacement(
                ts=rec["ts"],
                index=index,
                pid=pid,
                old_pid=_int(rec.get("old_pid")),
                reason=_label(rec.get("reason")),
            )
        )

    def _job_failed(self, rec: dict[str, Any], _moment: datetime) -> None:
        index, pid = _worker_ref(rec.get("worker"))
        self.failed_jobs.append(
            FailedJob(
                ts=rec["ts"],
                index=index,
                pid=pid,
                reason=_label(rec.get("reason")),
                file_path=_str(rec.get("file_path")),
            )
        )

    def _server_start(self, rec: dict[str, Any], moment: datetime) -> None:
        self.starts.append((moment, rec["ts"], _int(rec.get("pid"))))

    def _server_stop(self, rec: dict[str, Any], moment: datetime) -> None:
        stop = ServerSession(
            pid=_int(rec.get("pid")),
            start_ts=None,
            stop_ts=rec["ts"],
            reason=_str(rec.get("reason")),
            exit_code=_int(rec.get("exit_code")),
            requests=_int(rec.get("requests")),
            uptime_s=_number(rec.get("uptime_s")),
        )
        self.stops.append((moment, stop))

    # -- output ---------------------------------------------------------------

    def summary(self) -> Summary:
        return Summary(
            summary_version=SUMMARY_VERSION,
            files=list(self.files),
            lines=LineCounts(self.total, self.parsed, self.malformed, self.truncated, self.dropped),
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
            _bump(reasons, _label(stop.reason))
        return Servers(
            starts=len(self.starts),
            stops=len(self.stops),
            stop_reasons=_sorted(reasons),
            sessions=_pair_sessions(self.starts, self.stops),
        )


def _pair_sessions(
    starts: Iterable[tuple[datetime, str, int | None]],
    stops: Iterable[tuple[datetime, ServerSession]],
) -> list[ServerSession]:
    """Each start with the first stop of its pid at or after it and before its next start."""
    timeline: list[tuple[datetime, int, ServerSession]] = []
    timeline.extend((moment, 0, ServerSession(pid, ts, *(None,) * 5)) for moment, ts, pid in starts)
    timeline.extend((moment, 1, stop) for moment, stop in stops)
    timeline.sort(key=lambda item: (item[0], item[1]))
    open_by_pid: dict[int | None, tuple[datetime, ServerSession]] = {}
    sessions: list[tuple[datetime, ServerSession]] = []
    for moment, is_stop, entry in timeline:
        if not is_stop:
            if entry.pid in open_by_pid:  # started again without a stop in between
                sessions.append(open_by_pid[entry.pid])
            open_by_pid[entry.pid] = (moment, entry)
            continue
        started = open_by_pid.pop(entry.pid, None)
        if started is None:
            sessions.append((moment, entry))
        else:
            joined = msgspec.structs.replace(entry, start_ts=started[1].start_ts)
            sessions.append((started[0], joined))
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
        [
            str(s.pid) if s.pid is not None else "-",
            s.start_ts or "-",
            s.stop_ts or "-",
            s.reason or "-",
            str(s.exit_code) if s.exit_code is not None else "-",
            str(s.requests) if s.requests is not None else "-",
        ]
        for s in shown
    ]
    headers = ["pid", "started", "stopped", "reason", "exit", "requests"]
    return out + _table(headers, rows, "rlllrr")


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
        out.append(f"  replacements: {_counts(workers.replacements_by_reason)}")
        rows = [
            [r.ts, str(r.index), str(r.old_pid), str(r.pid), r.reason] for r in workers.replacements
        ]
        out.extend(_table(["ts", "worker", "old pid", "new pid", "reason"], rows, "lrrrl"))
    if workers.job_failures:
        out.append(f"  failed jobs: {_counts(workers.job_failures_by_reason)}")
        rows = [
            [j.ts, str(j.index), str(j.pid), j.reason, j.file_path or "-"]
            for j in workers.failed_jobs
        ]
        out.extend(_table(["ts", "worker", "pid", "reason", "file"], rows, "lrrll"))
    return out


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
