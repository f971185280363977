"""A server's stderr as a pipe nobody reads: emptying it, and the notice of dropped lines.

The front end never blocks on its log: while stderr is full it drops lines, and
once someone reads again it says, as a warning, how many it dropped.
"""

from __future__ import annotations

import contextlib
import os
from typing import Any

import msgspec

from support.pool_log import wait_for


def drain(fd: int) -> None:
    """Read and drop whatever a stderr pipe holds, leaving it non-blocking."""
    os.set_blocking(fd, False)
    with contextlib.suppress(BlockingIOError):
        while os.read(fd, 1 << 16):
            pass


def assert_dropped_lines_told(err_fd: int, count: int) -> None:
    """Once the request with id ``last`` is logged, the front end has said, as a
    warning, that it dropped more than half of ``count`` request lines."""
    lines: list[dict[str, Any]] = []

    def last_logged() -> bool:
        lines.extend(stderr_lines(err_fd))
        return any(line.get("request_id") == "last" for line in lines)

    wait_for(last_logged)
    notice = next(line for line in lines if line["event"] == "log_lines_dropped")
    assert notice["level"] == "warning" and notice["count"] > count // 2
    assert notice["process"] == "frontend"


def stderr_lines(fd: int) -> list[dict[str, Any]]:
    data = b""
    with contextlib.suppress(BlockingIOError):
        while chunk := os.read(fd, 1 << 16):
            data += chunk
    return [msgspec.json.decode(line) for line in data.splitlines() if line.strip()]
