"""Summaries of the server's JSON-lines logs: ``gz complexity logs FILE... [--json]``.

Three rooms: :mod:`~gzguide.loginspect.reading` turns lines into records,
:mod:`~gzguide.loginspect.summary` turns records into a :class:`Summary`
(:func:`summarize` reads one or more log files, merged as if they were one),
:mod:`~gzguide.loginspect.render` turns a summary into a report with aligned
tables (:func:`format_text`) or one JSON object (:func:`encode_json`). Nothing
here writes anywhere. What the summary says:

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

from gzguide.loginspect.reading import MAX_LINE_BYTES, LogFileError, iter_lines
from gzguide.loginspect.render import MAX_SESSIONS_SHOWN, encode_json, format_text
from gzguide.loginspect.summary import (
    CACHE_ORDER,
    DIRECTORY,
    HIT_STATES,
    SLOWEST,
    SUMMARY_VERSION,
    LineCounts,
    Span,
    Summarizer,
    Summary,
    summarize,
    summarize_lines,
)

__all__ = [
    "CACHE_ORDER",
    "DIRECTORY",
    "HIT_STATES",
    "MAX_LINE_BYTES",
    "MAX_SESSIONS_SHOWN",
    "SLOWEST",
    "SUMMARY_VERSION",
    "LineCounts",
    "LogFileError",
    "Span",
    "Summarizer",
    "Summary",
    "encode_json",
    "format_text",
    "iter_lines",
    "summarize",
    "summarize_lines",
]
