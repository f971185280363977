"""The worker pool: persistence, affinity, caches, deadlines, deaths, and process hygiene.

Server-level tests run the real server with real workers and read what happened
from its JSON log file; pool-level tests drive :class:`Pool` directly with real
processes, including a fake worker that dies in the ways a real one could.
"""

from __future__ import annotations

import os
import select
import signal
import sys
import time
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from gzguide import procfs
from gzguide.analysis.policy.thresholds import default_thresholds
from gzguide.freshness import content_digest
from gzguide.source import Buffer, Source
from gzguide.workers import Job, Outcome
from gzguide.workers.analyst import Analyst
from gzguide.workers.fallback import Fallback
from gzguide.workers.inprocess import InProcessBackend
from gzguide.workers.pool import Pool
from support.paths import SUPPORT
from support.pool_log import (
    events,
    live_worker_pids,
    ready_workers,
    request_lines,
    start,
    wait_for,
)
from support.pool_sources import BRANCHY, CALM, cc, slow_source

FAKE_WORKER = [sys.executable, str(SUPPORT / "fake_worker.py")]
TABLE = default_thresholds()


def cpu_busy(pids: set[int]) -> bool:
    """Whether one of ``pids`` is running (not sleeping) right now."""
    return any((info := procfs.stat(pid)) is not None and info.state == "R" for pid in pids)


# -- persistence, affinity, caches ---------------------------------------------------


def test_workers_persist_and_a_file_sticks_to_one_worker(tmp_path: Path, log_path: Path) -> None:
    for name in ("a.py", "b.py", "c.py", "d.py"):
        (tmp_path / name).write_text(BRANCHY)
    with start(tmp_path, log_path) as server:
        ready_workers(log_path, 2)
        before = live_worker_pids(log_path)
        assert len(before) == 2
        for _ in range(3):
            for name in ("a.py", "b.py", "c.py", "d.py"):
                # a new version each round, so the memo cannot answer: a worker must
                time.sleep(0.002)
                (tmp_path / name).write_text(BRANCHY + f"# {time.time_ns()}\n")
                assert len(cc(server.hints(name))) == 1
        assert live_worker_pids(log_path) == before  # nobody was restarted
        workers_by_file: dict[str, set[tuple[int, int]]] = {}
        for line in wait_for(
            lambda: len(request_lines(log_path)) == 12 and request_lines(log_path)
        ):
            worker = line["worker"]
            workers_by_file.setdefault(line["file_path"], set()).add(
                (worker["index"], worker["pid"])
            )
        assert set(workers_by_file) == {"a.py", "b.py", "c.py", "d.py"}
        assert all(len(w) == 1 for w in workers_by_file.values()), workers_by_file
        server.close_stdin()
        server.finish()


def test_unchanged_file_is_neither_reread_nor_reparsed(tmp_path: Path, log_path: Path) -> None:
    target = tmp_path / "mod.py"
    target.write_text(BRANCHY)
    old = time.time_ns() - 10 * 1_000_000_000
    os.utime(target, ns=(old, old))  # safely older than any read: not racy
    with start(tmp_path, log_path) as server:
        first = server.hints("mod.py")
        assert [h["crossing_value"] for h in cc(first)] == [4.0]
        for _ in range(5):
            assert server.hints("mod.py") == first
        # each request is logged just after its answer is sent
        lines = wait_for(lambda: len(request_lines(log_path)) == 6 and request_lines(log_path))
        assert [line["cache"] for line in lines] == ["miss"] + ["memo"] * 5
        server.close_stdin()
        server.finish()


def test_a_changed_file_is_analyzed_again(tmp_path: Path, log_path: Path) -> None:
    target = tmp_path / "mod.py"
    target.write_text(BRANCHY)
    with start(tmp_path, log_path) as server:
        assert len(cc(server.hints("mod.py"))) == 1
        target.write_text(CALM)
        assert cc(server.hints("mod.py")) == []
        target.write_text(BRANCHY)
        assert len(cc(server.hints("mod.py"))) == 1
        server.close_stdin()
        server.finish()


def test_same_size_rewrite_with_mtime_put_back_is_never_stale(
    tmp_path: Path, log_path: Path
) -> None:
    target = tmp_path / "mod.py"
    target.write_text(BRANCHY)
    st = target.stat()
    # Same size, other content: the last branch's return value changes, nothing else.
    rewritten = BRANCHY.replace("return 3", "return 9")
    assert len(rewritten) == len(BRANCHY)
    calm_same_size = "def decide(a, b, c):\n    return a\n".ljust(len(BRANCHY) - 1) + "\n"
    with start(tmp_path, log_path) as server:
        assert len(cc(server.hints("mod.py"))) == 1
        target.write_text(calm_same_size)
        os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns))  # mtime forced back
        assert target.stat().st_size == st.st_size
        assert cc(server.hints("mod.py")) == []
        target.write_text(rewritten)
        os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns))
        assert len(cc(server.hints("mod.py"))) == 1
        server.close_stdin()
        server.finish()


# -- deadlines and deaths -------------------------------------------------------------


def test_a_worker_past_its_deadline_is_replaced_and_only_that_request_is_empty(
    tmp_path: Path, log_path: Path
) -> None:
    (tmp_path / "slow.py").write_text(slow_source())
    (tmp_path / "ok.py").write_text(BRANCHY)
    with start(tmp_path, log_path, "--analysis-timeout", "0.25") as server:
        ready_workers(log_path, 2)
        assert server.hints("slow.py") == []
        replaced = wait_for(lambda: events(log_path, "worker_replaced"))
        assert replaced[0]["reason"] == "timeout"
        failed = events(log_path, "job_failed")
        assert failed and failed[0]["reason"] == "timeout"
        assert len(cc(server.hints("ok.py"))) == 1
        assert (
            len(
                wait_for(
                    lambda: len(live_worker_pids(log_path)) == 2 and live_worker_pids(log_path)
                )
            )
            == 2
        )
        server.close_stdin()
        server.finish()


def test_a_worker_killed_while_idle_is_replaced_at_once(tmp_path: Path, log_path: Path) -> None:
    (tmp_path / "ok.py").write_text(BRANCHY)
    with start(tmp_path, log_path) as server:
        ready_workers(log_path, 2)
        victim = min(live_worker_pids(log_path))
        os.kill(victim, signal.SIGKILL)
        # Noticed without any request: the server watches idle workers' pipes.
        replaced = wait_for(lambda: events(log_path, "worker_replaced"))
        assert replaced[0]["old_pid"] == victim and replaced[0]["reason"] == "died"
        wait_for(lambda: len(live_worker_pids(log_path)) == 2)
        assert len(cc(server.hints("ok.py"))) == 1
        server.close_stdin()
        server.finish()


@pytest.mark.parametrize("signum", [signal.SIGKILL, signal.SIGSEGV])
def test_a_worker_dying_mid_job_costs_only_that_request(
    tmp_path: Path, log_path: Path, signum: int
) -> None:
    (tmp_path / "slow.py").write_text(slow_source())
    (tmp_path / "ok.py").write_text(BRANCHY)
    with start(tmp_path, log_path) as server:
        ready_workers(log_path, 2)
        server.send({"id": 7, "method": "analyze", "params": {"file_path": "slow.py"}})
        time.sleep(0.3)  # the worker is parsing by now
        pids = live_worker_pids(log_path)
        for pid in pids:  # whichever has the job; the idle one is replaced as well
            os.kill(pid, signum)
        response = server.read_response()
        assert response.id == 7 and response.hints == []
        assert len(cc(server.hints("ok.py"))) == 1
        wait_for(lambda: len(live_worker_pids(log_path)) == 2)
        assert live_worker_pids(log_path).isdisjoint(pids)
        server.close_stdin()
        server.finish()


def test_a_tree_too_deep_for_the_visitors_is_unanalyzable_not_fatal(
    tmp_path: Path, log_path: Path
) -> None:
    (tmp_path / "deep.py").write_text("def f(a):\n    return " + "+".join(["a"] * 1000) + "\n")
    (tmp_path / "ok.py").write_text(BRANCHY)
    with start(tmp_path, log_path) as server:
        assert server.hints("deep.py") == []
        assert len(cc(server.hints("ok.py"))) == 1
        assert not events(log_path, "worker_replaced")
        server.close_stdin()
        server.finish()


# -- process hygiene --------------------------------------------------------------------


def test_sigkill_of_the_frontend_leaves_no_worker_behind(tmp_path: Path, log_path: Path) -> None:
    (tmp_path / "slow.py").write_text(slow_source())
    server = start(tmp_path, log_path)
    try:
        ready_workers(log_path, 2)
        server.send({"id": 2, "method": "analyze", "params": {"file_path": "slow.py"}})
        time.sleep(0.2)  # one worker busy, one idle
        workers = live_worker_pids(log_path)
        assert len(workers) == 2
        os.kill(server.pid, signal.SIGKILL)
        server.proc.wait(timeout=5)
        time.sleep(2.0)
        assert not [pid for pid in workers if procfs.is_alive(pid)]
    finally:
        server.kill()


@pytest.mark.parametrize("ending", ["shutdown", "eof", "stdout_closed"])
def test_every_ending_reaps_every_worker(tmp_path: Path, log_path: Path, ending: str) -> None:
    (tmp_path / "ok.py").write_text(BRANCHY)
    server = start(tmp_path, log_path)
    try:
        ready_workers(log_path, 2)
        assert len(cc(server.hints("ok.py"))) == 1
        workers = live_worker_pids(log_path)
        if ending == "shutdown":
            server.send({"id": 9, "method": "shutdown"})
            assert server.read_response().result == {}
        elif ending == "eof":
            server.close_stdin()
        else:
            server.close_stdout()
            server.send({"id": 10, "method": "analyze", "params": {"file_path": "ok.py"}})
        assert server.wait_exit(timeout=5) == 0
        assert not procfs.group(server.pid)
        assert not [pid for pid in workers if procfs.is_alive(pid)]
        stop = events(log_path, "server_stop")
        assert stop and stop[0]["reason"] in {"shutdown", "end_of_input", "output_closed"}
    finally:
        server.kill()


# -- the pool on its own, with a worker that dies every way a worker can --------------


def drive(pool: Pool, until: Callable[[], bool], timeout: float = 30.0) -> None:
    """Run the pool as the server's loop does (poll its pipes, tick at its deadline)."""
    end = time.monotonic() + timeout
    while not until():
        assert time.monotonic() < end, "the pool did not finish in time"
        poller = select.poll()
        for fd, mask in pool.watch():
            poller.register(fd, mask)
        due = pool.next_deadline()
        wait = 100 if due is None else max(0, int((due - time.monotonic()) * 1000) + 1)
        for fd, mask in poller.poll(min(wait, 100)):
            pool.ready(fd, mask)
        now = time.monotonic()
        if due is not None and now >= due:
            pool.tick(now)


def run(pool: Pool, paths: list[str], start_by: float | None = None) -> list[Outcome]:
    """Each path's outcome, in order."""
    outcomes: dict[int, Outcome] = {}
    for index, path in enumerate(paths):
        pool.submit(Job(Source(path), TABLE, start_by), partial(outcomes.__setitem__, index))
    drive(pool, lambda: len(outcomes) == len(paths))
    return [outcomes[i] for i in range(len(paths))]


class RecordingPool(Pool):
    """Two fake workers behind a pool that keeps every event it reports, in order."""

    def __init__(self) -> None:
        self.events: list[tuple[str, dict[str, Any]]] = []
        super().__init__(2, timeout=0.5, on_event=self._record, command=FAKE_WORKER)

    def _record(self, event: str, **fields: Any) -> None:
        self.events.append((event, fields))


@pytest.fixture
def pool(tmp_path: Path) -> Iterator[RecordingPool]:
    p = RecordingPool()
    p.start()
    yield p
    p.close()


@pytest.mark.parametrize("fault", ["exit", "memory", "recursion", "segv", "hang"])
def test_pool_survives_a_fault_and_fails_only_that_job(pool: RecordingPool, fault: str) -> None:
    bad = f"/nowhere/{fault}"
    slot = pool.affinity(bad)
    # Queue good jobs for the same worker behind the bad one.
    good = [p for p in (f"/nowhere/good{i}" for i in range(200)) if pool.affinity(p) == slot][:3]
    outcomes = run(pool, [bad, *good])
    assert outcomes[0].cache in {"crashed", "timeout"}
    assert outcomes[0].report.findings == []
    assert [o.cache for o in outcomes[1:]] == ["miss"] * len(good)
    assert len(pool.pids()) == 2
    replaced = [f for e, f in pool.events if e == "worker_replaced"]
    assert len(replaced) == 1
    assert replaced[0]["reason"] == ("timeout" if fault == "hang" else "crashed")
    # and it keeps working
    assert [o.cache for o in run(pool, good)] == ["miss"] * len(good)


def test_pool_workers_cannot_write_to_the_protocol_stream(pool: RecordingPool) -> None:
    outcomes = run(pool, ["/nowhere/print"])
    assert outcomes[0].cache == "miss"


def test_pool_skips_what_a_batch_deadline_leaves_and_keeps_working(pool: RecordingPool) -> None:
    paths = [f"/nowhere/file{i}" for i in range(40)]
    late = run(pool, paths, time.monotonic() - 1)
    assert [o.cache for o in late] == ["skipped"] * 40
    on_time = run(pool, paths, time.monotonic() + 60)
    assert all(o.cache == "miss" for o in on_time)


def test_pool_fans_a_batch_out_over_all_workers_in_order(pool: RecordingPool) -> None:
    paths = [f"/nowhere/file{i}" for i in range(40)]
    outcomes = run(pool, paths)
    assert len(outcomes) == 40
    used = {o.worker for o in outcomes}
    assert len(used) == 2
    for path, outcome in zip(paths, outcomes, strict=True):
        assert outcome.worker is not None
        assert outcome.worker.index == pool.affinity(path)


def test_pool_close_reaps_everything(tmp_path: Path) -> None:
    p = Pool(2, timeout=1.0, on_event=lambda *a, **k: None, command=FAKE_WORKER)
    p.start()
    run(p, ["/nowhere/x"])
    pids = p.pids()
    p.close()
    assert not [pid for pid in pids if procfs.is_alive(pid)]
    p.close()  # idempotent


def test_an_idle_worker_that_sends_garbage_is_replaced_before_its_next_job(
    pool: RecordingPool,
) -> None:
    assert [o.cache for o in run(pool, ["/nowhere/garbage"])] == ["miss"]
    drive(pool, lambda: any(e == "worker_replaced" for e, _ in pool.events))
    (replaced,) = [f for e, f in pool.events if e == "worker_replaced"]
    assert replaced["reason"] == "crashed"
    assert not [e for e, _ in pool.events if e == "job_failed"]  # it had nothing to lose
    assert [o.cache for o in run(pool, ["/nowhere/garbage"])] == ["miss"]


@pytest.mark.parametrize(
    "command",
    [
        pytest.param(["/nonexistent/python"], id="cannot-start"),
        pytest.param([sys.executable, "-c", "raise SystemExit(3)"], id="dies-on-start-up"),
    ],
)
def test_a_pool_that_cannot_run_workers_falls_back_to_in_process_analysis(
    tmp_path: Path, command: list[str]
) -> None:
    (tmp_path / "ok.py").write_text(BRANCHY)
    old = time.time_ns() - 10 * 10**9
    os.utime(tmp_path / "ok.py", ns=(old, old))  # out of the racy window: hits are plain
    seen: list[tuple[str, dict[str, Any]]] = []

    def record(event: str, **fields: Any) -> None:
        seen.append((event, fields))

    pool = Pool(2, timeout=5.0, on_event=record, command=command)
    backend = Fallback(pool, InProcessBackend, record)
    try:
        outcomes: list[Outcome] = []
        paths = [str(tmp_path / "ok.py"), str(tmp_path / "missing.py")] * 3
        for path in paths:
            backend.submit(Job(Source(path), TABLE), outcomes.append)
        drive(pool, lambda: len(outcomes) == len(paths))
        # Jobs that died with a worker before the pool gave up are lost (crashed);
        # every other one was analyzed in-process.
        analyzed = [o.cache for o in outcomes if o.cache != "crashed"]
        assert analyzed and set(analyzed) <= {"miss", "hit", "unanalyzable"}
        unavailable = [f for e, f in seen if e == "pool_unavailable"]
        assert len(unavailable) == 1 and unavailable[0]["fallback"] == "in-process"
        more: list[Outcome] = []
        backend.submit(Job(Source(str(tmp_path / "ok.py")), TABLE), more.append)
        assert [o.cache for o in more] == ["hit"]  # at once, in this process
        assert pool.scheduler.gave_up is not None
    finally:
        backend.close()


def test_a_long_request_notices_at_once_that_stdout_closed(tmp_path: Path, log_path: Path) -> None:
    for i in range(4):
        (tmp_path / "slow" / f"s{i}.py").parent.mkdir(exist_ok=True)
        (tmp_path / "slow" / f"s{i}.py").write_text(slow_source())
    server = start(tmp_path, log_path, "--analysis-timeout", "60")
    try:
        ready_workers(log_path, 2)
        server.send({"id": 3, "method": "analyze", "params": {"file_path": "slow"}})
        wait_for(lambda: cpu_busy(live_worker_pids(log_path)))
        server.close_stdout()
        assert server.wait_exit() == 0
        (stop,) = events(log_path, "server_stop")
        assert stop["reason"] == "output_closed"
        # It stopped in the middle of the request: the request never got its line.
        assert not [e for e in events(log_path, "request") if e.get("request_id") == 3]
    finally:
        server.kill()


def test_real_workers_analyze_texts_of_any_size_whole_and_in_order(tmp_path: Path) -> None:
    """Texts from empty to the 4 MiB limit, several in one worker's hands at once: each
    crosses the job pipe in pieces (a pipe holds 64 KiB) and is analyzed as sent."""
    pool = Pool(2, timeout=30.0, on_event=lambda *a, **k: None)
    pool.start()
    try:
        padding = b"# " + b"x" * 76 + b"\n"
        big = BRANCHY.encode()
        big += padding * ((4 * 1024 * 1024 - len(big)) // len(padding))
        texts = [b"", BRANCHY.encode(), big, CALM.encode(), b"def broken(:\n", big[:-100]]
        outcomes: dict[int, Outcome] = {}
        for index, data in enumerate(texts):
            job = Job(Source("/nowhere/m.py", Buffer(data, content_digest(data))), TABLE)
            pool.submit(job, partial(outcomes.__setitem__, index))
        drive(pool, lambda: len(outcomes) == len(texts), timeout=60)
        analyst = Analyst(lambda *a, **k: None)
        for index, data in enumerate(texts):
            want = analyst.analyze(Source("/m.py", Buffer(data)), TABLE)
            assert outcomes[index].report == want.report, index
            assert outcomes[index].digest == content_digest(data)
        assert len(cc_findings(outcomes[2])) == 1
    finally:
        pool.close()


def cc_findings(outcome: Outcome) -> list[Any]:
    return [f for f in outcome.report.findings if f.metric == "radon_cc"]
