"""The caches: bounded LRU of parsed versions, git-style racy check, and the frontend memo."""

from __future__ import annotations

import gc
import os
import time
import weakref
from pathlib import Path

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

from gzguide import service as service_module
from gzguide import workspace as workspace_module
from gzguide.analysis.discovery import Walk
from gzguide.analysis.model import EMPTY_REPORT, FileReport, Finding
from gzguide.analysis.policy.thresholds import default_thresholds, parse_thresholds
from gzguide.analysis.source import MAX_SOURCE_BYTES
from gzguide.freshness import RACY_WINDOW_NS, CacheState, Identity, content_digest, identity_of
from gzguide.guide.messages import BufferText
from gzguide.service import AnalysisService, Request
from gzguide.source import Buffer, Source
from gzguide.workers import Backend, Done, Job, Outcome, failed, ipc
from gzguide.workers import analyst as analyst_module
from gzguide.workers import memo as memo_module
from gzguide.workers.analyst import Analyst
from gzguide.workers.cache import Entry, FileCache, text_key
from gzguide.workers.child import Collector, Tables
from gzguide.workers.inprocess import InProcessBackend
from gzguide.workers.memo import Memo
from gzguide.workspace import WORKSPACE_TABLE, ThresholdSource
from support.tables import table

BRANCHY = (
    "def f(a, b, c):\n    if a:\n        return 1\n    elif b:\n        return 2\n"
    "    elif c:\n        return 3\n    return 4\n"
)
CALM_SAME_SIZE = "def f(a, b, c):\n    return 0\n".ljust(len(BRANCHY) - 1) + "\n"
TABLE = default_thresholds()


def radon_cc(report: FileReport) -> list[Finding]:
    return [f for f in report.findings if f.metric == "radon_cc"]


def entry(weight: int) -> Entry[int]:
    return Entry(identity=(0, 0, 0, 0, 0), digest=b"", read_at_ns=0, weight=weight, value=0)


def test_lru_is_bounded_by_entries() -> None:
    cache: FileCache[int] = FileCache(max_entries=3, max_weight=10**9)
    for name in "abcd":
        cache.put(name, entry(1))
    assert len(cache) == 3 and cache.get("a") is None
    cache.get("b")  # b is now the most recently used
    cache.put("e", entry(1))
    assert cache.get("c") is None and cache.get("b") is not None


def test_lru_is_bounded_by_weight_and_tracks_it() -> None:
    cache: FileCache[int] = FileCache(max_entries=100, max_weight=10)
    cache.put("a", entry(4))
    cache.put("b", entry(4))
    cache.put("c", entry(4))  # 12 > 10: a goes
    assert cache.get("a") is None and cache.weight == 8
    cache.put("b", entry(1))  # replacing an entry replaces its weight
    assert cache.weight == 5
    cache.put("huge", entry(11))  # never fits: not stored, nothing evicted for it
    assert cache.get("huge") is None and cache.weight == 5
    cache.discard("c")
    assert cache.weight == 1


def test_analyst_cache_stays_within_its_bounds(tmp_path: Path) -> None:
    analyst = Analyst(lambda *a, **k: None, max_entries=5, max_weight=10**9)
    for i in range(20):
        path = tmp_path / f"m{i}.py"
        path.write_text(BRANCHY)
        analyst.analyze(Source(str(path)), TABLE)
    assert len(analyst.cache) == 5


def test_a_hit_neither_rereads_nor_reparses(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_text(BRANCHY)
    old = time.time_ns() - 10 * 10**9
    os.utime(path, ns=(old, old))
    analyst = Analyst(lambda *a, **k: None)
    assert analyst.analyze(Source(str(path)), TABLE).cache == "miss"
    assert [analyst.analyze(Source(str(path)), TABLE).cache for _ in range(3)] == ["hit"] * 3
    assert analyst.parses == 1


def test_a_racy_entry_is_verified_by_content(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A same-size rewrite that keeps the very same identity (as a coarse timestamp
    granularity allows) is caught because the entry was cached too close to its mtime."""
    path = tmp_path / "m.py"
    path.write_text(BRANCHY)
    analyst = Analyst(lambda *a, **k: None)
    first = analyst.analyze(Source(str(path)), TABLE)
    assert first.cache == "miss" and len(radon_cc(first.report)) == 1
    frozen: Identity = first.identity  # type: ignore[assignment]
    monkeypatch.setattr(analyst_module, "identity_of", lambda st: frozen)
    # unchanged content: verified by hash, served from the cache, not parsed again
    assert analyst.analyze(Source(str(path)), TABLE).cache == "racy"
    assert analyst.parses == 1
    path.write_text(CALM_SAME_SIZE)  # same size, same (forced) identity, other content
    fresh = analyst.analyze(Source(str(path)), TABLE)
    assert fresh.cache == "miss" and radon_cc(fresh.report) == []
    assert analyst.parses == 2


def test_an_entry_safely_older_than_its_read_is_trusted_on_identity(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "m.py"
    path.write_text(BRANCHY)
    old = time.time_ns() - 10 * 10**9
    os.utime(path, ns=(old, old))
    analyst = Analyst(lambda *a, **k: None)
    frozen = analyst.analyze(Source(str(path)), TABLE).identity
    monkeypatch.setattr(analyst_module, "identity_of", lambda st: frozen)
    path.write_text(CALM_SAME_SIZE)
    # Git's rule, by design: an identical, non-racy identity is trusted without reading.
    assert analyst.analyze(Source(str(path)), TABLE).cache == "hit"


class CountingBackend:
    """Answers every job at once as a worker would for a file it read at ``read_at_ns``."""

    def __init__(self, read_at_ns: int) -> None:
        self.calls: list[str] = []
        self.jobs: list[Job] = []
        self.read_at_ns = read_at_ns

    def submit(self, job: Job, done: Done) -> None:
        self.calls.append(job.source.path)
        self.jobs.append(job)
        identity = identity_of(os.stat(job.source.path))
        done(Outcome(EMPTY_REPORT, CacheState.MISS, identity, self.read_at_ns))

    def close(self) -> None:
        pass


class FailingBackend:
    """A backend whose every job fails the way a worker past its deadline does."""

    def __init__(self, reason: CacheState = CacheState.TIMEOUT) -> None:
        self.reason = reason
        self.calls: list[str] = []

    def submit(self, job: Job, done: Done) -> None:
        self.calls.append(job.source.path)
        done(failed(self.reason))

    def close(self) -> None:
        pass


def memoized(root: Path, backend: Backend, max_entries: int = 4096) -> AnalysisService:
    """A service with a memo in front of ``backend``, as the server composes them."""
    return AnalysisService(str(root), backend, memo=Memo(max_entries))


def ask(service: AnalysisService, path: Path) -> CacheState:
    """One single-file request; how its answer was obtained."""
    (part,) = service.analyze_now(Request(Source(str(path)))).files
    return part.cache


def old_file(tmp_path: Path, name: str = "m.py") -> Path:
    path = tmp_path / name
    path.write_text(BRANCHY)
    old = time.time_ns() - 10 * 10**9
    os.utime(path, ns=(old, old))
    return path


def test_memo_answers_unchanged_files_and_forwards_changed_ones(tmp_path: Path) -> None:
    path = old_file(tmp_path)
    inner = CountingBackend(read_at_ns=time.time_ns())
    service = memoized(tmp_path, inner)
    assert ask(service, path) == "miss"
    assert [ask(service, path) for _ in range(3)] == ["memo"] * 3
    assert len(inner.calls) == 1
    old = path.stat().st_mtime_ns
    os.utime(path, ns=(old + 1, old + 1))  # any change of identity goes to the backend
    assert ask(service, path) == "miss"
    assert len(inner.calls) == 2


def test_memo_never_answers_for_a_racy_version(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_text(BRANCHY)
    mtime = path.stat().st_mtime_ns
    inner = CountingBackend(read_at_ns=mtime + RACY_WINDOW_NS - 1)
    service = memoized(tmp_path, inner)
    assert [ask(service, path) for _ in range(3)] == ["miss"] * 3
    assert len(inner.calls) == 3


def test_memo_is_keyed_by_the_threshold_table_too(tmp_path: Path) -> None:
    path = old_file(tmp_path)
    inner = CountingBackend(read_at_ns=time.time_ns())
    service = memoized(tmp_path, inner)
    workspace_table = tmp_path / WORKSPACE_TABLE
    workspace_table.parent.mkdir(parents=True)
    assert ask(service, path) == "miss"
    workspace_table.write_bytes(table(("radon_cc", 2, "advise")))
    assert [ask(service, path) for _ in range(2)] == ["miss", "memo"]
    workspace_table.unlink()
    assert ask(service, path) == "miss"
    tables = [job.thresholds.fingerprint for job in inner.jobs]
    assert tables[0] == tables[2] == TABLE.fingerprint != tables[1]


def test_memo_is_bounded(tmp_path: Path) -> None:
    memo = Memo(max_entries=3)
    for i in range(5):
        path = old_file(tmp_path, f"m{i}.py")
        st = path.stat()
        outcome = Outcome(EMPTY_REPORT, CacheState.MISS, identity_of(st), time.time_ns())
        memo.store(Source(str(path)), st, TABLE.fingerprint, outcome)
    assert len(memo) == 3


@pytest.mark.parametrize("reason", [CacheState.TIMEOUT, CacheState.CRASHED])
def test_memo_quarantines_a_failed_version_until_it_changes(
    tmp_path: Path, reason: CacheState
) -> None:
    path = old_file(tmp_path)
    inner = FailingBackend(reason)
    service = memoized(tmp_path, inner)
    assert ask(service, path) == reason
    # The unchanged version is not sent to a worker again: answered empty at once.
    assert [ask(service, path) for _ in range(3)] == [CacheState.QUARANTINED] * 3
    assert len(inner.calls) == 1
    # Any change of the file is a new version: it is tried.
    path.write_text(CALM_SAME_SIZE)
    assert ask(service, path) == reason
    assert len(inner.calls) == 2


def test_memo_quarantine_ends_with_time(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = old_file(tmp_path)
    monkeypatch.setattr(memo_module, "QUARANTINE_S", 0.0)
    inner = FailingBackend()
    service = memoized(tmp_path, inner)
    assert [ask(service, path) for _ in range(2)] == ["timeout"] * 2
    assert len(inner.calls) == 2


def test_memo_never_quarantines_a_racy_version(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_text(BRANCHY)  # just written: a same-size rewrite could hide behind it
    inner = FailingBackend()
    service = memoized(tmp_path, inner)
    assert [ask(service, path) for _ in range(2)] == ["timeout"] * 2
    assert len(inner.calls) == 2


def test_memo_answers_and_quarantines_files_of_a_directory_request_too(tmp_path: Path) -> None:
    folder = tmp_path / "pkg"
    folder.mkdir()
    for i in range(3):
        old_file(folder, f"m{i}.py")
    failing = FailingBackend(CacheState.CRASHED)
    service = memoized(tmp_path, failing)

    def states() -> list[CacheState]:
        answer = service.analyze_now(Request(Source("pkg")))
        assert answer.directory and [p.hint_path for p in answer.files] == [
            f"pkg/m{i}.py" for i in range(3)
        ]
        return [part.cache for part in answer.files]

    assert states() == [CacheState.CRASHED] * 3
    assert states() == [CacheState.QUARANTINED] * 3
    assert len(failing.calls) == 3
    counting = CountingBackend(read_at_ns=time.time_ns())
    service = memoized(tmp_path, counting)
    assert states() == [CacheState.MISS] * 3
    assert states() == [CacheState.MEMO] * 3
    assert len(counting.calls) == 3


def test_in_process_backend_skips_files_after_their_start_by(tmp_path: Path) -> None:
    path = old_file(tmp_path)
    backend = InProcessBackend()
    outcomes: list[Outcome] = []
    backend.submit(Job(Source(str(path)), TABLE, time.monotonic() - 1), outcomes.append)
    backend.submit(Job(Source(str(path)), TABLE, time.monotonic() + 60), outcomes.append)
    assert [o.cache for o in outcomes] == ["skipped", "miss"]


def test_the_threshold_source_follows_the_file_through_every_change(tmp_path: Path) -> None:
    path = tmp_path / WORKSPACE_TABLE
    path.parent.mkdir(parents=True)
    source = ThresholdSource(str(tmp_path))
    seen = [source.current().fingerprint]  # no table yet: the default
    for rows in ((2, 3), (1, 30)):
        path.write_bytes(table(("radon_cc", rows[0], "advise"), ("radon_cc", rows[1], "warn")))
        seen.append(source.current().fingerprint)  # created, then changed
    path.unlink()  # gone again: the cheaper probe takes over
    seen.append(source.current().fingerprint)
    path.write_bytes(table(("radon_cc", 5, "advise")))  # back: seen at once
    seen.append(source.current().fingerprint)
    assert seen[0] == seen[3] == TABLE.fingerprint
    assert len(set(seen)) == 4


def test_a_same_size_rewrite_of_the_threshold_file_is_seen_inside_the_racy_window(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A rewrite that keeps the file's whole identity (as a coarse timestamp granularity
    allows) is caught, because the table was read too close to its mtime."""
    path = tmp_path / WORKSPACE_TABLE
    path.parent.mkdir(parents=True)
    first, second = table(("radon_cc", 2, "advise")), table(("radon_cc", 3, "advise"))
    assert len(first) == len(second)
    path.write_bytes(first)
    frozen = identity_of(path.stat())
    monkeypatch.setattr(workspace_module, "identity_of", lambda st: frozen)
    source = ThresholdSource(str(tmp_path))
    before = source.current()
    assert source.current() is before  # unchanged content: the same table
    path.write_bytes(second)
    after = source.current()
    assert after.fingerprint != before.fingerprint
    assert after.bands["radon_cc"].advise == 3


@given(st.text(alphabet="/ab.\x00é", max_size=12))
def test_service_resolves_paths_as_os_path_join_does(file_path: str) -> None:
    service = AnalysisService("/work/root", CountingBackend(read_at_ns=0))
    assert service.resolve(file_path) == os.path.join("/work/root", file_path)


def test_a_directory_listing_gets_half_the_budget_and_the_analysis_all_of_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "m.py").write_text(BRANCHY)
    deadlines: dict[str, float | None] = {}

    class RecordingWalk(Walk):
        def __init__(self, root: str, deadline: float | None = None) -> None:
            deadlines["walk"] = deadline
            super().__init__(root, deadline)

    monkeypatch.setattr(service_module, "Walk", RecordingWalk)
    backend = CountingBackend(0)
    service = AnalysisService(str(tmp_path), backend, directory_budget_s=4.0)
    before = time.monotonic()
    service.analyze_now(Request(Source("pkg")))
    (job,) = backend.jobs
    walk, analysis = deadlines["walk"], job.start_by
    assert walk is not None and analysis is not None
    assert before + 2.0 <= walk <= time.monotonic() + 2.0
    assert analysis - walk == pytest.approx(2.0)


def test_a_worker_parses_a_table_once_and_refuses_one_it_was_never_sent() -> None:
    other = parse_thresholds(table(("radon_cc", 2, "advise")), "other.json")
    tables = Tables()
    sent = ipc.Table("embedded", TABLE.document)
    first = tables.for_job(ipc.Job(1, "/a.py", TABLE.fingerprint, sent))
    assert first.fingerprint == TABLE.fingerprint
    assert tables.for_job(ipc.Job(2, "/a.py", TABLE.fingerprint)) is first  # not parsed again
    with pytest.raises(ipc.ProtocolError):
        tables.for_job(ipc.Job(3, "/a.py", other.fingerprint))
    changed = tables.for_job(ipc.Job(4, "/a.py", other.fingerprint, ipc.Table("o", other.document)))
    assert changed.bands == other.bands


# -- texts: versions known by their content digest ---------------------------------------


def text_of(data: bytes) -> Buffer:
    return Buffer(data, content_digest(data))


def test_the_cache_finds_entries_by_digest_until_they_leave() -> None:
    cache: FileCache[int] = FileCache(max_entries=2, max_weight=10**9)
    first = Entry(identity=None, digest=b"d1", read_at_ns=0, weight=1, value=1)
    cache.put(text_key("/a.py"), first)
    assert cache.by_digest(b"d1") is first
    # The buffer's next version replaces its previous one, and the digest with it.
    second = Entry(identity=None, digest=b"d2", read_at_ns=0, weight=1, value=2)
    cache.put(text_key("/a.py"), second)
    assert cache.by_digest(b"d1") is None and cache.by_digest(b"d2") is second
    assert len(cache) == 1
    # A file entry and a text entry of the same path are distinct.
    cache.put(
        "/a.py", Entry(identity=(1, 1, 1, 1, 1), digest=b"d3", read_at_ns=0, weight=1, value=3)
    )
    assert len(cache) == 2
    cache.put(
        "/b.py", Entry(identity=(1, 1, 1, 1, 1), digest=b"d4", read_at_ns=0, weight=1, value=4)
    )
    assert cache.by_digest(b"d2") is None  # evicted: least recently used
    assert cache.by_digest(b"d3") is not None and cache.by_digest(b"d4") is not None


@given(st.lists(st.tuples(st.sampled_from("abcde"), st.sampled_from("wxyz")), max_size=40))
def test_the_digest_index_never_names_an_entry_that_is_gone(
    puts: list[tuple[str, str]],
) -> None:
    cache: FileCache[str] = FileCache(max_entries=3, max_weight=10**9)
    for key, digest in puts:
        cache.put(
            key, Entry(identity=None, digest=digest.encode(), read_at_ns=0, weight=1, value=key)
        )
        for d in "wxyz":
            found = cache.by_digest(d.encode())
            assert found is None or found.digest == d.encode()
    assert len(cache) <= 3


def test_a_text_is_analyzed_as_a_file_of_its_bytes_and_kept_by_digest(tmp_path: Path) -> None:
    analyst = Analyst(lambda *a, **k: None)
    data = BRANCHY.encode()
    first = analyst.analyze(Source(str(tmp_path / "m.py"), text_of(data)), TABLE)
    assert first.cache == "miss" and first.digest == content_digest(data)
    assert first.identity is None and len(radon_cc(first.report)) == 1
    path = tmp_path / "bytes.py"
    path.write_bytes(data)
    assert analyst.analyze(Source(str(path)), TABLE).report == first.report
    again = analyst.analyze(Source(str(tmp_path / "m.py"), text_of(data)), TABLE)
    assert again.cache == "hit" and again.report is first.report
    assert analyst.parses == 1  # the file's bytes were the text's: parsed once for both


def test_a_text_equal_to_a_cached_file_is_not_parsed_again(tmp_path: Path) -> None:
    path = old_file(tmp_path)
    analyst = Analyst(lambda *a, **k: None)
    from_file = analyst.analyze(Source(str(path)), TABLE)
    for name in ("m.py", "other.py"):
        shared = analyst.analyze(Source(str(tmp_path / name), text_of(path.read_bytes())), TABLE)
        assert shared.cache == "hit" and shared.report is from_file.report
    other = parse_thresholds(table(("radon_cc", 2, "advise")), "other.json")
    assert analyst.analyze(Source(str(path), text_of(path.read_bytes())), other).cache == "hit"
    assert analyst.parses == 1


def test_a_buffer_keeps_one_version_and_oversize_texts_are_unanalyzable(tmp_path: Path) -> None:
    analyst = Analyst(lambda *a, **k: None)
    path = str(tmp_path / "m.py")
    for i in range(5):
        analyst.analyze(Source(path, text_of(BRANCHY.encode() + b"# %d\n" % i)), TABLE)
    assert len(analyst.cache) == 1
    over = b"#" * (MAX_SOURCE_BYTES + 1)
    outcome = analyst.analyze(Source(path, text_of(over)), TABLE)
    assert outcome.cache == "unanalyzable" and outcome.report.findings == []
    broken = analyst.analyze(Source(path, text_of(b"def broken(:\n")), TABLE)
    assert broken.cache == "miss" and broken.report.findings == []
    assert analyst.analyze(Source(path, text_of(b"def broken(:\n")), TABLE).cache == "hit"


def text_service(root: Path, backend: Backend) -> AnalysisService:
    return AnalysisService(str(root), backend, memo=Memo())


def ask_text(service: AnalysisService, file_path: str, data: bytes) -> CacheState:
    answer = service.analyze_now(Request(Source(file_path, Buffer(data))))
    assert answer.text_bytes == len(data) and answer.path == file_path
    (part,) = answer.files
    assert part.hint_path == file_path
    return part.cache


class TextBackend:
    """Records text jobs and answers them as a worker would, or fails them."""

    def __init__(self, fail: CacheState | None = None) -> None:
        self.fail = fail
        self.jobs: list[Job] = []

    def submit(self, job: Job, done: Done) -> None:
        self.jobs.append(job)
        buffer = job.source.buffer
        assert buffer is not None
        if self.fail is not None:
            done(failed(self.fail))
        else:
            done(Outcome(EMPTY_REPORT, CacheState.MISS, digest=buffer.digest()))

    def close(self) -> None:
        pass


def test_the_service_answers_a_text_sent_again_from_the_memo(tmp_path: Path) -> None:
    backend = TextBackend()
    service = text_service(tmp_path, backend)
    data = BRANCHY.encode()
    assert [ask_text(service, "m.py", data) for _ in range(3)] == ["miss", "memo", "memo"]
    assert ask_text(service, "elsewhere.py", data) == "memo"  # the same bytes, any name
    assert ask_text(service, "m.py", data + b"\n") == "miss"
    (job, _changed) = backend.jobs
    # The job goes where the file's would, with the bytes and their digest.
    assert job.source.path == str(tmp_path / "m.py")
    buffer = job.source.buffer
    assert buffer is not None
    assert (buffer.data(), buffer.digest()) == (data, content_digest(data))


def test_a_job_keeps_the_requests_bytes_when_the_request_lets_go_of_them(
    tmp_path: Path,
) -> None:
    backend = TextBackend()
    service = text_service(tmp_path, backend)
    data = "x = 'é'\n".encode()
    text = BufferText(data, msgspec.Raw(msgspec.json.encode(data.decode())))
    service.analyze_now(Request(Source("m.py", text)))
    text.release()  # what TextRequests does once a newer text comes
    (job,) = backend.jobs
    assert job.source.buffer is not None
    assert job.source.buffer.data() is data  # the request's one copy, not decoded again


def test_the_service_answers_a_text_equal_to_a_file_version_it_analyzed(tmp_path: Path) -> None:
    path = old_file(tmp_path)
    service = AnalysisService(str(tmp_path), InProcessBackend(), memo=Memo())
    from_file = service.analyze_now(Request(Source("m.py")))
    as_text = service.analyze_now(Request(Source("m.py", Buffer(path.read_bytes()))))
    assert as_text.files[0].cache == "memo"
    assert as_text.files[0].report is from_file.files[0].report


def test_the_service_refuses_oversize_texts_without_a_job(tmp_path: Path) -> None:
    backend = TextBackend()
    service = text_service(tmp_path, backend)
    assert ask_text(service, "m.py", b"#" * (MAX_SOURCE_BYTES + 1)) == "unanalyzable"
    assert ask_text(service, "m.py", b"#" * MAX_SOURCE_BYTES) == "miss"
    assert len(backend.jobs) == 1


@pytest.mark.parametrize("reason", [CacheState.TIMEOUT, CacheState.CRASHED])
def test_a_text_whose_analysis_failed_is_quarantined_by_its_digest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, reason: CacheState
) -> None:
    backend = TextBackend(fail=reason)
    service = text_service(tmp_path, backend)
    data = BRANCHY.encode()
    assert ask_text(service, "m.py", data) == reason
    assert ask_text(service, "m.py", data) == "quarantined"
    assert ask_text(service, "other.py", data) == "quarantined"
    assert ask_text(service, "m.py", data + b"\n") == reason
    assert len(backend.jobs) == 2
    monkeypatch.setattr(memo_module, "QUARANTINE_S", 0.0)
    assert ask_text(service, "m.py", b"x = 1\n") == reason
    assert ask_text(service, "m.py", b"x = 1\n") == reason  # the quarantine ended at once


def buffer_of(data: bytes) -> Source:
    """A buffer of ``m.py`` holding ``data``."""
    return Source("m.py", Buffer(data))


def test_the_memo_keeps_a_bounded_number_of_contents() -> None:
    memo = Memo(max_contents=3)
    outcome = Outcome(EMPTY_REPORT, CacheState.MISS)
    for i in range(5):
        memo.store(buffer_of(b"%d" % i), None, TABLE.fingerprint, outcome)
    assert [
        memo.lookup(buffer_of(b"%d" % i), None, TABLE.fingerprint) is not None for i in range(5)
    ] == [
        False,
        False,
        True,
        True,
        True,
    ]
    assert memo.lookup(buffer_of(b"4"), None, "another table") is None


def test_a_failing_service_costs_a_text_its_answer_only(tmp_path: Path) -> None:
    class Broken:
        def submit(self, job: Job, done: Done) -> None:
            raise RuntimeError("a bug")

        def close(self) -> None:
            pass

    errors: list[dict[str, object]] = []
    service = AnalysisService(
        str(tmp_path), Broken(), memo=Memo(), on_error=lambda event, **f: errors.append(f)
    )
    answer = service.analyze_now(Request(Source("m.py", Buffer(b"x = 1\n")), 3))
    assert answer.files == () and answer.text_bytes == 6 and answer.cursor == 3
    assert errors and errors[0]["source"] == "text"


def test_the_in_process_backend_analyzes_a_texts_bytes_not_the_file(tmp_path: Path) -> None:
    path = old_file(tmp_path)  # BRANCHY on disk
    outcomes: list[Outcome] = []
    InProcessBackend().submit(Job(Source(str(path), text_of(b"x = 1\n")), TABLE), outcomes.append)
    assert [o.report.findings for o in outcomes] == [[]]


def test_only_the_buffers_sent_last_keep_their_text_parsed(tmp_path: Path) -> None:
    analyst = Analyst(lambda *a, **k: None)
    paths = [str(tmp_path / f"m{i}.py") for i in range(analyst_module.MAX_TEXT_ENTRIES + 3)]
    for i, path in enumerate(paths):
        analyst.analyze(Source(path, text_of(BRANCHY.encode() + b"# %d\n" % i)), TABLE)
    assert len(analyst.cache) == analyst_module.MAX_TEXT_ENTRIES
    last = paths[-1]
    assert (
        analyst.analyze(
            Source(last, text_of(BRANCHY.encode() + b"# %d\n" % (len(paths) - 1))), TABLE
        ).cache
        == "hit"
    )
    assert (
        analyst.analyze(Source(paths[0], text_of(BRANCHY.encode() + b"# 0\n")), TABLE).cache
        == "miss"
    )


# -- the worker's full collections: versions let go are freed -----------------------------


class Node:
    def __init__(self) -> None:
        self.me = self  # a reference cycle, as a syntax tree's: only a full collection frees it


def cyclic_entry(weight: int) -> Entry[Node]:
    return Entry(identity=None, digest=b"%d" % weight, read_at_ns=0, weight=weight, value=Node())


def test_the_versions_a_cache_let_go_are_collected_once_they_weigh_as_much_as_it_holds() -> None:
    jobs_r, jobs_w = os.pipe()
    cache: FileCache[Node] = FileCache(max_entries=10, max_weight=100)
    collector = Collector(jobs_r, cache)
    try:
        cache.put(text_key("/a.py"), cyclic_entry(60))
        collector.after_job()  # frozen, with everything else alive
        first = cache.get(text_key("/a.py"))
        assert first is not None
        gone = weakref.ref(first.value)
        del first
        cache.put(text_key("/a.py"), cyclic_entry(61))  # the next version: 60 let go
        collector.after_job()
        assert gone() is not None and collector.collections == 0
        cache.put(text_key("/a.py"), cyclic_entry(62))  # 121 let go, past the bound
        os.write(jobs_w, b"j")  # but a job is waiting: not now
        collector.after_job()
        assert gone() is not None and collector.collections == 0
        os.read(jobs_r, 1)
        collector.after_job()
        assert gone() is None and collector.collections == 1 and cache.released == 0
        # A version too heavy to keep is let go at once, and counts as such.
        cache.put("/big.py", cyclic_entry(101))
        assert len(cache) == 1 and cache.released == 101
        collector.after_job()
        assert collector.collections == 2
    finally:
        gc.unfreeze()
        os.close(jobs_r)
        os.close(jobs_w)


def test_a_jobs_own_cyclic_garbage_is_freed_before_the_heap_is_frozen() -> None:
    jobs_r, jobs_w = os.pipe()
    cache: FileCache[Node] = FileCache(max_entries=10, max_weight=100)
    collector = Collector(jobs_r, cache)
    try:
        collector.after_job()  # everything alive so far is frozen
        made = Node()  # what one job leaves behind: a cycle nothing refers to
        gone = weakref.ref(made)
        del made
        collector.after_job()
        assert gone() is None and collector.collections == 0
        # With a job waiting, the next one goes first: the garbage waits, frozen.
        made = Node()
        kept = weakref.ref(made)
        del made
        os.write(jobs_w, b"j")
        collector.after_job()
        assert kept() is not None
    finally:
        gc.unfreeze()
        gc.collect()
        os.close(jobs_r)
        os.close(jobs_w)


def _typed_versions(count: int) -> list[bytes]:
    """Versions of a buffer of 40 functions, one function's body changed in each."""
    functions = [
        f"def step_{i}(x):\n    if x > {i}:\n        return x\n    return 0\n\n\n"
        for i in range(40)
    ]
    versions = []
    for v in range(count):
        functions[(v * 7) % 40] = (
            f"def step_{v}(x):\n    while x < {v}:\n        x += 1\n    return x\n\n\n"
        )
        versions.append("".join(functions).encode())
    return versions


def test_a_buffer_typed_into_is_measured_again_only_where_it_changed() -> None:
    events: list[tuple[str, dict[str, object]]] = []
    analyst = Analyst(lambda event, **fields: events.append((event, fields)))
    cold = Analyst(lambda *a, **k: None)
    for data in _typed_versions(6):
        source = Source("/w/typed.py", Buffer(data))
        outcome = analyst.analyze(source, TABLE)
        cold.parts.limit(0)  # a memo that holds nothing: every part computed
        encode = msgspec.json.encode
        assert encode(outcome.report) == encode(cold.analyze(source, TABLE).report)
    logged = [fields for event, fields in events if event == "parts_reused"]
    assert len(logged) == 6
    # the first version fills the memo; after that, only the changed function's three
    # parts are computed
    assert logged[0]["hits"] == 0 and logged[0]["misses"] == 3 * 40
    assert all(f["misses"] == 3 and f["hits"] == 3 * 40 - 3 for f in logged[1:])
    assert all(f["path"] == "/w/typed.py" for f in logged)
    assert all(f["bytes"] > 0 for f in logged)  # type: ignore[operator]


def test_the_memo_of_parts_holds_what_the_cached_versions_leave_of_the_budget(
    tmp_path: Path,
) -> None:
    budget = 400_000
    analyst = Analyst(lambda *a, **k: None, max_weight=budget)
    held = []
    typed = tmp_path / "typed.py"
    for i, data in enumerate(_typed_versions(8)):
        other = tmp_path / f"m{i}.py"  # a file analyzed once: it only fills the cache
        other.write_bytes(data)
        typed.write_bytes(data)  # a file saved again and again: its versions use the memo
        for path in (typed, other):
            analyst.analyze(Source(str(path)), TABLE)
            assert analyst.cache.weight + analyst.parts.bytes <= budget
        held.append(analyst.parts.bytes)
    # while the files leave room, the memo uses it; once they fill the budget, it yields
    assert max(held) > 0 and held[-1] < max(held)
