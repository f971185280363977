"""Structured logs: one JSON object per line, to stderr or an appended file, never stdout.

Each line is written with a single ``write`` call on an unbuffered descriptor
(``O_APPEND`` for a file), so lines from the frontend and its workers never
interleave mid-line. Every line starts with ``ts`` (ISO-8601 UTC), ``level`` and
``event``; the rest are the event's own fields.
"""

from __future__ import annotations

import os
from collections.abc import Callable, MutableMapping
from datetime import UTC, datetime
from typing import Any, Final

import msgspec
import structlog

LEVELS: Final = ("debug", "info", "warning", "error")

_encoder: Final = msgspec.json.Encoder(enc_hook=repr)


def _timestamp() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")


def _render(_logger: Any, method_name: str, event_dict: MutableMapping[str, Any]) -> bytes:
    line: dict[str, Any] = {
        "ts": _timestamp(),
        "level": "warning" if method_name == "warn" else method_name,
        "event": event_dict.pop("event", ""),
    }
    line.update(event_dict)
    return _encoder.encode(line)


def open_log_fd(log_file: str | None) -> int:
    """The descriptor logs go to: an appended file, or a duplicate of stderr."""
    if log_file:
        return os.open(log_file, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o644)
    return os.dup(2)


_context: dict[str, Any] = {}


def configure(level: str = "info", log_fd: int | None = None, **context: Any) -> None:
    """Route structlog to ``log_fd`` (stderr when None) at ``level`` and above.

    ``context`` (e.g. ``process="frontend"``) and the process id are carried by
    every line of loggers from :func:`get_logger`.
    """
    fd = os.dup(2) if log_fd is None else log_fd
    sink = os.fdopen(fd, "wb", buffering=0)
    structlog.configure(
        processors=[_render],
        wrapper_class=structlog.make_filtering_bound_logger(level),
        logger_factory=structlog.BytesLoggerFactory(sink),
        cache_logger_on_first_use=True,
    )
    _context.clear()
    _context.update(context, pid=os.getpid())


def get_logger() -> Any:
    return structlog.get_logger().bind(**_context)


#: Events from the pool and the analysis that deserve attention: logged at warning.
WARNING_EVENTS: Final = frozenset(
    {"thresholds_rejected", "job_failed", "worker_replaced", "pool_unavailable"}
)


def event_sink(log: Any) -> Callable[..., None]:
    """A callback for the pool and the analyst: each event at its level."""

    def emit(event: str, **fields: Any) -> None:
        if event in WARNING_EVENTS:
            log.warning(event, **fields)
        else:
            log.info(event, **fields)

    return emit
