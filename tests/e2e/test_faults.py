"""Fault injection against the real server: everything that goes wrong in an editor's life.

Each test breaks something on purpose (a worker stopped or starved of memory, a
file changing under the analysis, a pathological file, a client that misbehaves)
and ends by checking that the server still answers correctly afterwards.

The worker deaths the pool recovers from (SIGKILL and SIGSEGV mid-job or idle, a
hang past the deadline, ``os._exit``, an escaping MemoryError or RecursionError)
are in ``test_pool.py``; this file adds the rest.
"""

from __future__ import annotations

import contextlib
import os
import signal
import stat
import threading
import time
from pathlib import Path
from typing import Any

import msgspec
import pytest

from gzguide import procfs
from gzguide.analysis.policy.thresholds import default_thresholds
from gzguide.analysis.source import read_source_bytes
from gzguide.guide.messages import answer_hints
from gzguide.service import AnalysisService, Request
from gzguide.source import Source
from gzguide.workers import analyst as analyst_module
from gzguide.workers.analyst import Analyst
from gzguide.workers.inprocess import InProcessBackend
from support.pool_log import (
    events,
    live_worker_pids,
    ready_workers,
    request_lines,
    start,
    wait_for,
    worker_pid_for,
)
from support.pool_sources import BRANCHY, CALM, PATHOLOGICAL, cc, slow_source
from support.protocol_client import ServerProcess, frame, message
from support.stderr_pipe import assert_dropped_lines_told, drain

pytestmark = pytest.mark.timeout(180)

TABLE = default_thresholds()


def expected_hints(root: Path, name: str) -> list[dict[str, Any]]:
    """What a fresh in-process analysis says about the file right now, as JSON."""
    service = AnalysisService(str(root), InProcessBackend())
    answer = service.analyze_now(Request(Source(name)))
    hints: list[dict[str, Any]] = msgspec.to_builtins(answer_hints(answer))
    return hints


def make_old(path: Path) -> None:
    """Date the file back, out of the racy window, so it may be memoized or quarantined."""
    old = time.time_ns() - 30 * 10**9
    os.utime(path, ns=(old, old))


# -- workers that stop, and memory that runs out ---------------------------------------


def test_a_worker_sigstopped_mid_job_is_killed_at_its_deadline_and_replaced(
    tmp_path: Path, log_path: Path
) -> None:
    (tmp_path / "slow.py").write_text(slow_source())
    (tmp_path / "ok.py").write_text(BRANCHY)
    with start(tmp_path, log_path, "--analysis-timeout", "1") as server:
        ready_workers(log_path, 2)
        victim = worker_pid_for(tmp_path, log_path, "slow.py")
        server.send(message("analyze", {"file_path": "slow.py"}, id=7))
        time.sleep(0.2)  # it is parsing by now
        os.kill(victim, signal.SIGSTOP)
        response = server.read_response()
        assert response.id == 7 and response.hints == []
        failed = wait_for(lambda: events(log_path, "job_failed"))
        assert failed[0]["reason"] == "timeout" and failed[0]["worker"]["pid"] == victim
        wait_for(lambda: not procfs.is_alive(victim))  # a stopped process is still killable
        assert len(cc(server.hints("ok.py"))) == 1
        wait_for(lambda: len(live_worker_pids(log_path)) == 2)
        server.close_stdin()
        server.finish()


def test_a_sigstopped_idle_worker_costs_one_request_then_the_file_is_quarantined(
    tmp_path: Path, log_path: Path
) -> None:
    target = tmp_path / "ok.py"
    target.write_text(BRANCHY)
    make_old(target)
    with start(tmp_path, log_path, "--analysis-timeout", "0.5") as server:
        ready_workers(log_path, 2)
        victim = worker_pid_for(tmp_path, log_path, "ok.py")
        os.kill(victim, signal.SIGSTOP)
        assert server.hints("ok.py") == []  # it never answers: its deadline passes
        wait_for(lambda: events(log_path, "worker_replaced"))
        # The same unchanged version is not sent to a worker again for a while.
        assert server.hints("ok.py") == []
        lines = wait_for(lambda: len(request_lines(log_path)) == 2 and request_lines(log_path))
        assert [line["cache"] for line in lines] == ["timeout", "quarantined"]
        assert len(events(log_path, "job_failed")) == 1
        # Any change to the file ends its quarantine; the replacement analyzes it.
        target.write_text(BRANCHY + "\n")
        assert len(cc(server.hints("ok.py"))) == 1
        server.close_stdin()
        server.finish()


def test_an_analysis_past_the_heap_limit_is_unanalyzable_and_the_worker_stays(
    tmp_path: Path, log_path: Path
) -> None:
    # One literal list of 600,000 items: about 1 GiB of syntax tree, from 1.2 MB.
    (tmp_path / "bomb.py").write_text("x = [" + "1," * 600_000 + "]\n")
    (tmp_path / "ok.py").write_text(BRANCHY)
    args = ("--worker-memory", "200", "--analysis-timeout", "60")
    with start(tmp_path, log_path, *args) as server:
        ready_workers(log_path, 2)
        before = live_worker_pids(log_path)
        assert server.hints("bomb.py") == []
        oom = wait_for(lambda: events(log_path, "analysis_out_of_memory"))
        assert oom[0]["path"] == str(tmp_path / "bomb.py") and oom[0]["level"] == "warning"
        assert server.hints("bomb.py") == []  # the verdict is cached: no second attempt
        assert len(events(log_path, "analysis_out_of_memory")) == 1
        assert len(cc(server.hints("ok.py"))) == 1
        assert live_worker_pids(log_path) == before
        assert not events(log_path, "worker_replaced")
        server.close_stdin()
        server.finish()


# -- files that defeat the analysis ---------------------------------------------------


def test_pathological_files_are_answered_and_the_server_goes_on(
    tmp_path: Path, log_path: Path
) -> None:
    for name, content in PATHOLOGICAL.items():
        path = tmp_path / name
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)
    (tmp_path / "ok.py").write_text(BRANCHY)
    with start(tmp_path, log_path, "--analysis-timeout", "60") as server:
        for name in PATHOLOGICAL:
            response = server.analyze(name)
            assert response.hints == [], name
            server.ping()
        assert len(cc(server.hints("ok.py"))) == 1
        assert not events(log_path, "job_failed")  # every one was a verdict, none a failure
        server.close_stdin()
        server.finish()


# -- files that change between the stat and the read ------------------------------------

VERSION_A = BRANCHY
VERSION_B = CALM + "\n\n" + BRANCHY.replace("decide", "choose")


def _mutations(path: Path) -> dict[str, Any]:
    def delete() -> None:
        path.unlink()

    def truncate() -> None:
        os.truncate(path, 0)

    def replace() -> None:
        other = path.with_suffix(".new")
        other.write_text(VERSION_B)
        os.replace(other, path)

    def rewrite_same_size() -> None:
        path.write_text(VERSION_A.replace("return 3", "return 9"))

    def unreadable() -> None:
        path.chmod(0)

    def fifo() -> None:
        path.unlink()
        os.mkfifo(path)

    return {f.__name__: f for f in (delete, truncate, replace, rewrite_same_size, unreadable, fifo)}


@pytest.mark.parametrize("mutation", list(_mutations(Path("x"))))
def test_a_file_changed_between_stat_and_read_is_never_served_stale(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mutation: str
) -> None:
    """Deterministic: the change happens exactly between the analyst's stat and its read."""
    path = tmp_path / "mod.py"
    path.write_text(VERSION_A)
    make_old(path)
    real_read = read_source_bytes
    mutate = _mutations(path)[mutation]
    seen: list[bytes | None] = []

    def read_after_the_change(target: str, *args: Any) -> bytes | None:
        mutate()
        data = real_read(target, *args)
        seen.append(data)
        return data

    analyst = Analyst(lambda *a, **k: None)
    monkeypatch.setattr(analyst_module, "read_source_bytes", read_after_the_change)
    outcome = analyst.analyze(Source(str(path)), TABLE)
    monkeypatch.setattr(analyst_module, "read_source_bytes", real_read)
    # What it answered is the analysis of the bytes it read (or nothing).
    reference = Analyst(lambda *a, **k: None)
    if seen[0] is None:
        assert outcome.report.findings == []
    else:
        probe = tmp_path / "probe.py"
        probe.write_bytes(seen[0])
        assert (
            outcome.report.findings == reference.analyze(Source(str(probe)), TABLE).report.findings
        )
    # And from now on it answers for the file as it is, never for what was read before.
    with contextlib.suppress(OSError):
        path.chmod(0o644)
    current = analyst.analyze(Source(str(path)), TABLE).report.findings
    if path.exists() and stat.S_ISREG(path.stat().st_mode):
        assert current == reference.analyze(Source(str(path)), TABLE).report.findings
    else:
        assert current == []


def test_a_file_churning_under_the_server_gets_only_consistent_answers(
    tmp_path: Path, log_path: Path
) -> None:
    """A writer thread keeps replacing, truncating and deleting the file while requests run."""
    target = tmp_path / "mod.py"
    answers: list[list[dict[str, Any]]] = []
    for content in (VERSION_A, VERSION_B):
        target.write_text(content)
        answers.append(expected_hints(tmp_path, "mod.py"))
    assert answers[0] and answers[1] and answers[0] != answers[1]
    answers.append([])
    stop = threading.Event()

    def churn() -> None:
        versions = (VERSION_A, VERSION_B)
        i = 0
        while not stop.is_set():
            i += 1
            step = i % 5
            if step == 0:
                target.unlink(missing_ok=True)
            elif step == 1:
                with contextlib.suppress(FileNotFoundError):
                    os.truncate(target, 0)
            else:
                temp = tmp_path / f"mod.{i}.tmp"
                temp.write_text(versions[i % 2])
                os.replace(temp, target)
            time.sleep(0.0005)

    with start(tmp_path, log_path) as server:
        writer = threading.Thread(target=churn, daemon=True)
        writer.start()
        try:
            for _ in range(300):
                hints = server.hints("mod.py")
                assert hints in answers, hints
        finally:
            stop.set()
            writer.join()
        # Settled: whatever happened before, the answer is for the file as it is now.
        target.write_text(VERSION_A)
        assert server.hints("mod.py") == answers[0]
        target.write_text(VERSION_B)
        assert server.hints("mod.py") == answers[1]
        server.close_stdin()
        server.finish()


# -- the file system's traps ----------------------------------------------------------


def test_symlink_loops_are_answered_empty_and_never_followed(
    tmp_path: Path, log_path: Path
) -> None:
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "real.py").write_text(BRANCHY)
    (pkg / "self.py").symlink_to(pkg / "self.py")
    (pkg / "a.py").symlink_to(pkg / "b.py")
    (pkg / "b.py").symlink_to(pkg / "a.py")
    (pkg / "up").symlink_to(pkg, target_is_directory=True)  # a folder loop
    with start(tmp_path, log_path) as server:
        for name in ("pkg/self.py", "pkg/a.py", "pkg/up/up/up/real.py/x", "pkg/up/b.py"):
            assert server.hints(name) == []
        folder = server.hints("pkg")
        assert {h["file_path"] for h in folder} == {"pkg/real.py"}
        assert len(cc(server.hints("pkg/up/up/real.py"))) == 1  # a path through it is fine
        server.close_stdin()
        server.finish()


def test_a_directory_of_twenty_thousand_files_is_bounded_by_the_deadline(
    tmp_path: Path, log_path: Path
) -> None:
    big = tmp_path / "big"
    big.mkdir()
    count = 20_000
    for i in range(count):
        (big / f"sub{i % 50}").mkdir(exist_ok=True)
        (big / f"sub{i % 50}" / f"m{i}.py").write_text(BRANCHY)
    with start(tmp_path, log_path, "--analysis-timeout", "1") as server:
        ready_workers(log_path, 2)
        response = server.analyze("big", id=11)
        assert response.id == 11
        analyzed = {h["file_path"] for h in cc(response.hints)}
        (line,) = wait_for(lambda: request_lines(log_path))
        states = line["cache"]
        listed = line["files"]
        assert sum(states.values()) == listed
        # Every file it got to has its one hint; the rest were skipped, and said so.
        assert len(analyzed) == listed - states.get("skipped", 0)
        if line.get("walk_complete", True):
            assert listed == count
        else:
            assert listed < count
        paths = [h["file_path"] for h in response.hints]
        assert paths == sorted(paths)
        server.ping()
        assert len(cc(server.hints("big/sub0/m0.py"))) == 1
        server.close_stdin()
        server.finish()


# -- clients that misbehave -------------------------------------------------------------


def test_a_client_that_sends_half_a_message_and_exits(tmp_path: Path, log_path: Path) -> None:
    (tmp_path / "ok.py").write_text(BRANCHY)
    server = start(tmp_path, log_path)
    try:
        assert len(cc(server.hints("ok.py"))) == 1
        ready_workers(log_path, 2)
        whole = frame(message("analyze", {"file_path": "ok.py"}, id=5))
        server.write(whole[: len(whole) // 2])
        # The client is gone: both of its pipe ends close at once.
        server.close_stdout()
        server.close_stdin()
        assert server.proc.wait(timeout=5) == 0
        assert not procfs.group(server.pid)
        stop = wait_for(lambda: events(log_path, "server_stop"))
        assert stop[0]["reason"] in {"end_of_input", "output_closed"}
    finally:
        server.kill()


def big_answer_requests(tmp_path: Path, count: int) -> bytes:
    """``count`` framed requests for a module whose answer is tens of KiB (``big.py``)."""
    (tmp_path / "big.py").write_text(
        "".join(BRANCHY.replace("decide", f"decide{i}") + "\n\n" for i in range(60))
    )
    return b"".join(frame(message("analyze", {"file_path": "big.py"}, id=i)) for i in range(count))


def catch_up(server: ServerProcess, count: int) -> None:
    """Read the ``count`` answers: all there, in order, whole; then end the session."""
    responses = server.read_responses(count, timeout=60)
    assert [r.id for r in responses] == list(range(count))
    first = responses[0].hints
    assert first and all(r.hints == first for r in responses)
    server.ping()
    server.close_stdin()
    server.finish()


def test_a_non_blocking_stdout_gets_every_answer_whole(tmp_path: Path) -> None:
    # A parent may hand over a non-blocking pipe: a full pipe then says EAGAIN
    # instead of waiting. The server must wait for room, not drop or tear answers.
    server = ServerProcess(args=("--root", str(tmp_path)), nonblocking_stdout=True)
    with server:
        server.initialize()
        count = 30  # about 1 MB of answers: the pipe holds 64 KiB
        stream = big_answer_requests(tmp_path, count)
        in_fd = server.in_fd
        os.write(in_fd, stream)  # a few KiB: fits the pipe; nothing is read back yet
        time.sleep(0.5)  # the server has filled the pipe and must wait now
        assert server.proc.poll() is None
        catch_up(server, count)


def test_a_stderr_pipe_nobody_reads_costs_log_lines_not_answers(tmp_path: Path) -> None:
    # A plugin that pipes our stderr and never reads it: once 64 KiB of logs fill
    # the pipe, a blocking write would stop the server for good.
    server = ServerProcess(args=("--root", str(tmp_path), "--workers", "0"), stderr_pipe=True)
    with server:
        assert server.proc.stderr is not None
        err_fd = server.proc.stderr.fileno()
        server.initialize()
        count = 1500  # about 300 KB of request lines
        for start_id in range(0, count, 100):
            ids = list(range(start_id, start_id + 100))
            server.send(*(message("ping", id=i) for i in ids))
            assert [r.id for r in server.read_responses(len(ids), timeout=30)] == ids
        # Someone reads at last: the next lines say how many were lost.
        drain(err_fd)
        server.send(message("ping", id="last"))
        assert server.read_response(timeout=30).id == "last"
        assert_dropped_lines_told(err_fd, count)


def test_a_client_that_stops_reading_for_a_while_is_caught_up_with(
    tmp_path: Path, log_path: Path
) -> None:
    # Each answer is tens of KiB: a few fill the pipe, and the server must wait for room.
    with start(tmp_path, log_path) as server:
        count = 60  # about 2 MB of answers: the pipe holds 64 KiB
        stream = big_answer_requests(tmp_path, count)
        in_fd = server.in_fd
        view = memoryview(stream)
        with contextlib.suppress(BlockingIOError):
            while view:  # write what the pipe takes, reading nothing back
                view = view[os.write(in_fd, view[:65536]) :]
        time.sleep(0.5)  # the server is blocked writing by now
        before = procfs.cpu_seconds(server.pid)
        time.sleep(1.0)
        # Blocked, not spinning: it used (almost) no processor time meanwhile.
        assert procfs.cpu_seconds(server.pid) - before < 0.5
        assert server.proc.poll() is None
        server.write(bytes(view))
        catch_up(server, count)
