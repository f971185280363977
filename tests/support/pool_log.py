"""The real server with two workers, and what its JSON log file says of them.

:func:`start` runs the server with ``--log-file``; the readers below poll that
file, so a test can wait for a worker to be ready, find the worker a file's jobs
go to, and see which requests were answered how.
"""

from __future__ import annotations

import json
import time
import zlib
from pathlib import Path
from typing import Any

from gzguide import procfs
from support.protocol_client import ServerProcess


def read_log(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def events(path: Path, name: str) -> list[dict[str, Any]]:
    return [e for e in read_log(path) if e["event"] == name]


def wait_for(predicate: Any, timeout: float = 10.0) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.02)
    raise AssertionError("condition not reached in time")


def start(tmp_path: Path, log_path: Path, *extra: str) -> ServerProcess:
    server = ServerProcess(
        args=("--workers", "2", "--log-file", str(log_path), "--root", str(tmp_path), *extra)
    )
    server.initialize()
    return server


def ready_workers(log_path: Path, count: int) -> list[dict[str, Any]]:
    ready: list[dict[str, Any]] = wait_for(
        lambda: len(events(log_path, "worker_ready")) >= count and events(log_path, "worker_ready")
    )
    return ready


def live_worker_pids(log_path: Path) -> set[int]:
    started = {e["worker"]["pid"] for e in events(log_path, "worker_start")}
    return {pid for pid in started if procfs.is_alive(pid)}


def request_lines(log_path: Path) -> list[dict[str, Any]]:
    return [e for e in events(log_path, "request") if e.get("method") == "analyze"]


def worker_pid_for(tmp_path: Path, log_path: Path, name: str, size: int = 2) -> int:
    """The pid of the live worker a file's jobs go to (affinity: crc32 of its path)."""
    index = zlib.crc32(str(tmp_path / name).encode()) % size
    live = live_worker_pids(log_path)
    ready = [e["worker"] for e in events(log_path, "worker_ready")]
    pids: set[int] = {w["pid"] for w in ready if w["index"] == index and w["pid"] in live}
    (pid,) = pids
    return pid
