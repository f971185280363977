"""The pool's rules, without processes: the scheduler fed events by hand, its actions read.

Each test plays a host: it submits jobs, says which worker started, feeds the
bytes a worker would send (built with the real IPC encoding), ends workers and
moves a clock, then checks what the scheduler asked for. The same rules with
real processes (and a worker that dies every way a worker can) are in
``tests/e2e/test_pool.py``.
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

from gzguide.analysis.model import EMPTY_REPORT
from gzguide.analysis.policy.thresholds import default_thresholds, parse_thresholds
from gzguide.answer import WorkerRef
from gzguide.freshness import CacheState, content_digest
from gzguide.source import Buffer, Source
from gzguide.workers import Job, ipc
from gzguide.workers.scheduler import (
    MAX_FAILED_STARTS,
    PIPELINE_DEPTH,
    STARTUP_TIMEOUT_S,
    Action,
    Complete,
    GiveUp,
    Notice,
    Retire,
    Scheduler,
    Send,
    Spawn,
    WorkerEnd,
)
from support.tables import table

TABLE = default_thresholds()
OTHER = parse_thresholds(table(("radon_cc", 2, "advise")), "other.json")
TIMEOUT = 5.0
_jobs = msgspec.msgpack.Decoder(ipc.Job)


def of(kind: type, actions: Sequence[Action]) -> list:  # type: ignore[type-arg]
    return [a for a in actions if isinstance(a, kind)]


def sent_jobs(actions: Sequence[Action]) -> list[ipc.Job]:
    """The IPC jobs of the ``Send`` actions, decoded as a worker decodes them."""
    return [_jobs.decode(a.data[ipc.HEADER_BYTES :]) for a in of(Send, actions)]


def events(actions: Sequence[Action]) -> list[str]:
    return [a.event for a in of(Notice, actions)]


def ready() -> bytes:
    return ipc.pack(ipc.Ready(pid=1))


def result(seq: int, cache: CacheState = CacheState.MISS) -> bytes:
    return ipc.pack(ipc.Result(seq, EMPTY_REPORT, cache, (1, 2, 3, 4, 5), 99))


class Host:
    """Stands in for the pool's host: starts 'workers' when asked, keeps the clock."""

    def __init__(self, size: int = 1) -> None:
        self.scheduler = Scheduler(size, TIMEOUT)
        self.now = 100.0
        self.pids = iter(range(1000, 2000))
        self.live: dict[int, WorkerRef] = {}

    def run(self, actions: list[Action]) -> list[Action]:
        """``actions`` and those its spawns lead to (every spawn succeeds)."""
        done: list[Action] = []
        queue = list(actions)
        while queue:
            action = queue.pop(0)
            done.append(action)
            if isinstance(action, Spawn):
                ref = WorkerRef(action.slot, next(self.pids))
                self.live[action.slot] = ref
                queue += self.scheduler.spawned(action.slot, ref, self.now)
            elif isinstance(action, Retire):
                self.live.pop(action.slot, None)
        return done

    def submit(
        self,
        token: int,
        path: str = "/a.py",
        text: Buffer | None = None,
        start_by: float | None = None,
    ) -> list[Action]:
        job = Job(Source(path, text), TABLE, start_by)
        return self.run(self.scheduler.submit(token, job, self.now))

    def receive(self, slot: int, data: bytes) -> list[Action]:
        return self.run(self.scheduler.received(slot, data, self.now))

    def end(self, slot: int) -> list[Action]:
        return self.run(self.scheduler.ended(slot, self.now))

    def tick(self, at: float) -> list[Action]:
        self.now = at
        return self.run(self.scheduler.tick(at))


def test_a_worker_is_started_on_demand_and_gets_the_job_with_its_table() -> None:
    host = Host()
    actions = host.submit(1)
    assert [type(a) for a in actions] == [Spawn, Notice, Send]
    assert events(actions) == ["worker_start"]
    (job,) = sent_jobs(actions)
    assert (job.seq, job.path, job.table) == (1, "/a.py", TABLE.fingerprint)
    assert job.new_table == ipc.Table("embedded", TABLE.document)
    # The next job under the same table names it only.
    (again,) = sent_jobs(host.submit(2))
    assert again.table == TABLE.fingerprint and again.new_table is None


def test_a_table_change_is_sent_once_and_a_successor_gets_the_table_anew() -> None:
    host = Host()
    host.submit(1)
    host.receive(0, ready() + result(1))
    (changed,) = sent_jobs(
        host.run(host.scheduler.submit(2, Job(Source("/a.py"), OTHER), host.now))
    )
    assert changed.new_table is not None and changed.table == OTHER.fingerprint
    (behind,) = sent_jobs(host.run(host.scheduler.submit(3, Job(Source("/a.py"), OTHER), host.now)))
    assert behind.new_table is None
    # It dies with job 2 in its hands: job 3 goes to its successor, with the table.
    (resent,) = sent_jobs(host.end(0))
    assert host.live[0].pid == 1001
    assert resent.seq == 3 and resent.new_table == ipc.Table("other.json", OTHER.document)


def test_ready_and_results_complete_jobs_in_order_with_the_worker() -> None:
    host = Host()
    host.submit(1)
    host.submit(2)
    actions = host.receive(0, ready() + result(1) + result(2, CacheState.HIT))
    assert events(actions) == ["worker_ready"]
    done = of(Complete, actions)
    assert [(c.token, c.outcome.cache) for c in done] == [(1, "miss"), (2, "hit")]
    assert all(c.outcome.worker == WorkerRef(0, 1000) for c in done)
    assert done[0].outcome.identity == (1, 2, 3, 4, 5) and done[0].outcome.read_at_ns == 99


def test_bytes_may_arrive_in_any_pieces() -> None:
    host = Host()
    host.submit(1)
    data = ready() + result(1)
    completed = []
    for i in range(len(data)):
        completed += of(Complete, host.receive(0, data[i : i + 1]))
    assert [c.token for c in completed] == [1]


def test_a_result_for_a_job_not_at_the_head_is_ignored() -> None:
    host = Host()
    host.submit(1)
    host.submit(2)
    assert of(Complete, host.receive(0, ready() + result(2))) == []
    assert [c.token for c in of(Complete, host.receive(0, result(1)))] == [1]


def test_at_most_the_pipeline_depth_is_in_a_workers_hands() -> None:
    host = Host()
    sent = []
    for token in range(1, PIPELINE_DEPTH + 3):
        sent += sent_jobs(host.submit(token))
    assert [j.seq for j in sent] == list(range(1, PIPELINE_DEPTH + 1))
    more = host.receive(0, ready() + result(1))
    assert [j.seq for j in sent_jobs(more)] == [PIPELINE_DEPTH + 1]


def test_jobs_keep_to_their_paths_worker() -> None:
    host = Host(size=3)
    paths = [f"/src/m{i}.py" for i in range(30)]
    for token, path in enumerate(paths, 1):
        for send in of(Send, host.submit(token, path)):
            assert send.slot == host.scheduler.affinity(path)
    assert len(host.live) == 3


def test_a_missed_deadline_fails_the_head_job_and_replaces_the_worker() -> None:
    host = Host()
    host.submit(1)
    host.submit(2)
    host.receive(0, ready())
    assert host.scheduler.next_deadline() == host.now + TIMEOUT
    assert host.tick(host.now + TIMEOUT - 0.01) == []
    actions = host.tick(host.now + 0.01)
    assert events(actions) == ["job_failed", "worker_start", "worker_replaced"]
    (failed,) = of(Complete, actions)
    assert failed.token == 1 and failed.outcome.cache == "timeout"
    assert failed.outcome.worker == WorkerRef(0, 1000)
    assert of(Retire, actions) == [Retire(0, WorkerEnd.TIMEOUT)]
    replaced = of(Notice, actions)[-1].fields
    assert replaced == {"worker": {"index": 0, "pid": 1001}, "old_pid": 1000, "reason": "timeout"}
    # The job behind it goes to the successor, which gets the table anew.
    (resent,) = sent_jobs(actions)
    assert resent.seq == 2 and resent.new_table is not None


def test_a_worker_not_ready_yet_gets_the_start_up_allowance() -> None:
    host = Host()
    host.submit(1)
    assert host.scheduler.next_deadline() == host.now + STARTUP_TIMEOUT_S + TIMEOUT
    host.receive(0, ready())
    assert host.scheduler.next_deadline() == host.now + TIMEOUT


def test_the_deadline_runs_from_when_a_job_started() -> None:
    host = Host()
    host.submit(1)
    host.submit(2)
    host.receive(0, ready())
    host.now += 4.0
    host.receive(0, result(1))
    assert host.scheduler.next_deadline() == host.now + TIMEOUT
    host.receive(0, result(2))
    assert host.scheduler.next_deadline() is None  # nothing in its hands


@pytest.mark.parametrize("busy", [True, False])
def test_a_death_busy_or_idle_is_handled_on_one_path(busy: bool) -> None:
    host = Host()
    host.submit(1)
    host.receive(0, ready() + (b"" if busy else result(1)))
    actions = host.end(0)
    reason = WorkerEnd.CRASHED if busy else WorkerEnd.DIED
    assert of(Retire, actions) == [Retire(0, reason)]
    assert [c.outcome.cache for c in of(Complete, actions)] == (["crashed"] if busy else [])
    assert events(actions)[-2:] == ["worker_start", "worker_replaced"]
    assert host.live[0].pid == 1001


@pytest.mark.parametrize("busy", [True, False])
def test_garbage_from_a_worker_busy_or_idle_replaces_it_at_once(busy: bool) -> None:
    host = Host()
    host.submit(1)
    host.receive(0, ready() + (b"" if busy else result(1)))
    actions = host.receive(0, b"\xff\xff\xff\xff not a message")
    assert of(Retire, actions) == [Retire(0, WorkerEnd.CRASHED)]
    assert [c.outcome.cache for c in of(Complete, actions)] == (["crashed"] if busy else [])


def test_what_came_before_garbage_still_counts() -> None:
    host = Host()
    host.submit(1)
    actions = host.receive(0, ready() + result(1) + b"\x05\x00\x00\x00junk!")
    assert [c.outcome.cache for c in of(Complete, actions)] == ["miss"]
    assert of(Retire, actions) == [Retire(0, WorkerEnd.CRASHED)]


def test_a_job_not_started_by_its_start_by_is_skipped() -> None:
    host = Host()
    actions = host.submit(1, start_by=host.now - 1)
    assert [(c.token, c.outcome.cache) for c in of(Complete, actions)] == [(1, "skipped")]
    assert sent_jobs(actions) == []


def test_queued_jobs_are_skipped_when_their_start_by_passes() -> None:
    host = Host()
    start_by = host.now + 1.0
    for token in range(1, PIPELINE_DEPTH + 3):
        host.submit(token, start_by=start_by)
    host.receive(0, ready())
    assert host.scheduler.next_deadline() == start_by
    actions = host.tick(start_by)
    skipped = [c.token for c in of(Complete, actions)]
    assert skipped == [PIPELINE_DEPTH + 1, PIPELINE_DEPTH + 2]
    # Those in the worker's hands still finish.
    done = of(Complete, host.receive(0, b"".join(result(t) for t in range(1, 5))))
    assert [c.outcome.cache for c in done] == ["miss"] * PIPELINE_DEPTH


def test_after_failed_starts_in_a_row_the_scheduler_gives_up_and_hands_jobs_back() -> None:
    host = Host(size=2)
    slot = host.scheduler.affinity("/a.py")
    for token in range(1, MAX_FAILED_STARTS + 2):
        host.submit(token)
    failed: list[int] = []
    actions: list[Action] = []
    for _ in range(MAX_FAILED_STARTS):
        actions = host.end(slot)  # each dies before it is ready, with a job in its hands
        failed += [c.token for c in of(Complete, actions) if c.outcome.cache == "crashed"]
    assert failed == [1, 2, 3]
    (give_up,) = of(GiveUp, actions)
    assert "3 workers in a row" in give_up.reason
    assert give_up.tokens == (4,)
    assert of(Spawn, actions) == []
    assert host.scheduler.submit(3, Job(Source("/b.py"), TABLE), host.now) == [
        GiveUp(give_up.reason, (3,))
    ]
    assert host.scheduler.start() == []


def test_a_ready_worker_resets_the_count_of_failed_starts() -> None:
    host = Host()
    host.submit(1)
    for _ in range(MAX_FAILED_STARTS - 1):
        host.end(0)
    host.receive(0, ready())
    host.end(0)
    assert host.scheduler.gave_up is None


def test_a_worker_that_cannot_be_started_gives_up_at_once() -> None:
    scheduler = Scheduler(1, TIMEOUT)
    (spawn,) = scheduler.submit(1, Job(Source("/a.py"), TABLE), 0.0)
    assert isinstance(spawn, Spawn)
    (give_up,) = scheduler.spawn_failed(spawn.slot, "no such file")
    assert isinstance(give_up, GiveUp)
    assert give_up.tokens == (1,) and "no such file" in give_up.reason


def test_start_asks_for_every_missing_worker_once() -> None:
    scheduler = Scheduler(3, TIMEOUT)
    assert scheduler.start() == [Spawn(0), Spawn(1), Spawn(2)]
    assert scheduler.start() == []  # they are starting already
    scheduler.spawned(1, WorkerRef(1, 7), 0.0)
    assert [w.pid for w in scheduler.workers()] == [7]


def test_events_for_a_gone_worker_are_ignored() -> None:
    host = Host()
    assert host.scheduler.received(0, ready(), host.now) == []
    assert host.scheduler.ended(0, host.now) == []


# -- texts: their bytes follow their job, outside the msgpack ------------------------------


def text_of(data: bytes) -> Buffer:
    return Buffer(data, content_digest(data))


def test_a_text_job_sends_its_bytes_as_they_are_after_its_message() -> None:
    host = Host()
    data = b"def f():\n    return 1\n" * 1000
    (send,) = of(Send, host.submit(1, text=text_of(data)))
    assert send.text is data  # the job's own bytes: not copied into the message
    (job,) = sent_jobs([send])
    assert (job.text_digest, job.text_bytes) == (content_digest(data), len(data))
    assert b"return 1" not in send.data  # the message holds no text
    (plain,) = of(Send, host.submit(2))
    assert plain.text is None and sent_jobs([plain])[0].text_digest is None


def test_a_text_job_in_the_hands_of_a_worker_that_died_goes_to_its_successor_whole() -> None:
    host = Host()
    host.submit(1)
    data = b"x = 1\n"
    host.submit(2, text=text_of(data))
    actions = host.end(0)  # job 1 fails; job 2, a text, is sent again
    assert [c.token for c in of(Complete, actions)] == [1]
    (send,) = of(Send, actions)
    assert send.text is data and sent_jobs([send])[0].text_bytes == len(data)


def test_the_job_failed_line_of_a_text_says_so() -> None:
    host = Host()
    host.submit(1, text=text_of(b"x = 1\n"))
    host.receive(0, ready())
    (notice,) = [n for n in of(Notice, host.tick(host.now + TIMEOUT)) if n.event == "job_failed"]
    assert notice.fields["source"] == "text" and notice.fields["reason"] == "timeout"


def test_a_source_crosses_the_job_pipe_and_comes_back_as_it_was() -> None:
    data = b"x = 1\n"
    for source in (Source("/a.py"), Source("/a.py", Buffer(data)), Source("/e.py", Buffer(b""))):
        message, text = ipc.job_message(7, source, "fp", None)
        reader = ipc.job_reader()
        reader.feed(ipc.pack(message) + (text or b""))
        ((job, arrived),) = reader.jobs()
        back = ipc.source_of(job, arrived)
        assert back.path == source.path
        if source.buffer is None:
            assert back.buffer is None and text is None
        else:
            assert back.buffer is not None
            assert back.buffer.data() == source.buffer.data()
            assert back.buffer.digest() == source.buffer.digest()


def test_a_text_without_its_digest_is_a_protocol_error() -> None:
    with pytest.raises(ipc.ProtocolError):
        ipc.source_of(ipc.Job(1, "/a.py", "fp"), b"x = 1\n")


def job_stream(jobs: list[tuple[int, bytes | None]]) -> bytes:
    """The job pipe's bytes for ``(seq, text)`` jobs, as the pool writes them."""
    out = b""
    for seq, text in jobs:
        if text is None:
            out += ipc.pack(ipc.Job(seq, f"/m{seq}.py", "fp"))
        else:
            digest = content_digest(text)
            out += ipc.pack(ipc.Job(seq, f"/m{seq}.py", "fp", None, digest, len(text))) + text
    return out


@given(
    jobs=st.lists(
        st.tuples(st.integers(0, 10**6), st.none() | st.binary(max_size=300)), max_size=8
    ),
    cuts=st.lists(st.integers(1, 400), max_size=40),
)
def test_the_job_reader_gives_every_job_with_its_text_however_the_bytes_are_cut(
    jobs: list[tuple[int, bytes | None]], cuts: list[int]
) -> None:
    stream = job_stream(jobs)
    reader = ipc.job_reader()
    got: list[tuple[int, bytes | None]] = []
    start = 0
    for size in [*cuts, len(stream)]:
        reader.feed(stream[start : start + size])
        start += size
        got += [(job.seq, text) for job, text in reader.jobs()]
    assert reader.broken is None
    assert got == jobs


def test_a_job_reader_breaks_on_a_text_past_the_message_limit() -> None:
    reader = ipc.job_reader()
    huge = ipc.MAX_MESSAGE_BYTES + 1
    reader.feed(ipc.pack(ipc.Job(1, "/m.py", "fp", None, b"d" * 16, huge)) + b"x" * 10)
    assert reader.jobs() == [] and reader.broken is not None


def test_the_next_deadline_is_the_earliest_of_every_slot() -> None:
    host = Host(size=2)
    assert host.scheduler.affinity("/a.py") != host.scheduler.affinity("/c.py")
    host.submit(1, "/a.py")
    host.receive(host.scheduler.affinity("/a.py"), ready())  # a ready worker, a job in its hands
    start_by = host.now + 1.0
    for token in range(2, PIPELINE_DEPTH + 3):  # the last one waits in its slot's queue
        host.submit(token, "/c.py", start_by=start_by)
    assert host.scheduler.next_deadline() == start_by
    host.tick(start_by)  # the queued job is skipped: the ready worker's deadline is next
    assert host.scheduler.next_deadline() == host.now - 1.0 + TIMEOUT
