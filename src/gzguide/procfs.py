"""What Linux's ``/proc`` says about processes: state, family, memory, descriptors, CPU time.

One reader for everything that watches the server from outside (the tests, the
soak and fuzz harnesses, the benchmarks). Every function answers for the moment
it is called and treats a process that is gone as having nothing: no exception
for a pid that exits while it is being looked at.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Stat:
    """The fields of ``/proc/PID/stat`` that matter here."""

    #: ``R`` running, ``S`` sleeping, ``T`` stopped, ``Z`` zombie, ...
    state: str
    ppid: int
    pgrp: int
    #: User and system CPU time, in clock ticks.
    utime: int
    stime: int


def supported() -> bool:
    return sys.platform.startswith("linux") and os.path.exists("/proc/self/stat")


def stat(pid: int) -> Stat | None:
    """``pid``'s state and family, or None when there is no such process."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            text = handle.read()
    except OSError:
        return None
    # pid (comm) state ppid pgrp ...: the command name may hold spaces and parentheses.
    fields = text[text.rfind(b")") + 2 :].split()
    try:
        return Stat(
            fields[0].decode(), int(fields[1]), int(fields[2]), int(fields[11]), int(fields[12])
        )
    except (IndexError, ValueError):
        return None


def is_alive(pid: int) -> bool:
    """Whether ``pid`` exists and is not a zombie."""
    info = stat(pid)
    return info is not None and info.state != "Z"


def pids() -> list[int]:
    return [int(name) for name in os.listdir("/proc") if name.isdigit()]


def group(pgid: int, zombies: bool = False) -> list[int]:
    """The processes of process group ``pgid``, sorted; zombies only when asked."""
    found = []
    for pid in pids():
        info = stat(pid)
        if info is not None and info.pgrp == pgid and (zombies or info.state != "Z"):
            found.append(pid)
    return sorted(found)


def zombies_of(pid: int) -> list[int]:
    """Zombies that ``pid`` left unreaped, or that are in its process group."""
    found = []
    for other in pids():
        info = stat(other)
        if info is not None and info.state == "Z" and pid in (info.ppid, info.pgrp):
            found.append(other)
    return sorted(found)


def tree(root: int) -> list[int]:
    """``root`` and all of its descendants (found through each process's parent)."""
    children: dict[int, list[int]] = {}
    for pid in pids():
        info = stat(pid)
        if info is not None:
            children.setdefault(info.ppid, []).append(pid)
    found: list[int] = []
    stack = [root]
    while stack:
        pid = stack.pop()
        found.append(pid)
        stack.extend(children.get(pid, []))
    return found


def _kib(path: str, field: bytes) -> int:
    try:
        with open(path, "rb") as handle:
            for line in handle:
                if line.startswith(field):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return 0


def rss_kib(pid: int) -> int:
    """Resident set size now (``VmRSS``); 0 for a process that is gone."""
    return _kib(f"/proc/{pid}/status", b"VmRSS:")


def peak_rss_kib(pid: int) -> int:
    """The highest resident set size so far (``VmHWM``)."""
    return _kib(f"/proc/{pid}/status", b"VmHWM:")


def pss_kib(pid: int) -> int:
    """Proportional set size (shared pages divided among their users), from smaps_rollup."""
    return _kib(f"/proc/{pid}/smaps_rollup", b"Pss:")


def open_fds(pid: int) -> int:
    try:
        return len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return 0


def cpu_seconds(pid: int) -> float:
    """User plus system CPU time so far."""
    info = stat(pid)
    if info is None:
        return 0.0
    return (info.utime + info.stime) / os.sysconf("SC_CLK_TCK")
