"""A worker process: reads jobs from one pipe, writes results to another, until EOF.

Started by the pool as ``python -m gzguide.workers.child``. It never writes to
fd 1 (pointed at stderr before anything else runs), and it never outlives the
frontend: the kernel sends it SIGKILL when its parent dies (``PR_SET_PDEATHSIG``
on Linux), a watchdog thread notices a changed parent on any platform, and EOF on
the job pipe ends it when the frontend closes it.
"""

from __future__ import annotations

import argparse
import gc
import os
import select
import signal
import sys
import threading
import time
from typing import TYPE_CHECKING, Any

from gzguide import collector

if TYPE_CHECKING:
    from gzguide.analysis.policy.thresholds import Thresholds
    from gzguide.workers.analyst import Analyst
    from gzguide.workers.cache import FileCache
    from gzguide.workers.ipc import Job, JobReader

#: How often the watchdog checks that the parent is still alive.
WATCHDOG_PERIOD_S = 0.25
#: Jobs between full garbage collections at most (run only while no job is waiting).
COLLECT_EVERY = 500


class Collector:
    """Keeps the cyclic garbage collector off the request path.

    A worker holds hundreds of thousands of cached syntax-tree objects, and a full
    collection walks every one of them: on the request path it would cost more
    than the request. After
    each job everything alive is frozen (moved out of the collector's view, an
    O(1) step), so routine collections only look at what the next job allocates.
    The heap is unfrozen and collected in full, when no job is waiting, every
    ``COLLECT_EVERY`` jobs, and sooner once the parsed versions the cache has let
    go since the last full collection weigh as much as the cache may hold: a
    tree holds reference cycles, so a version replaced after it was frozen stays
    in memory until a full collection, and a buffer typed into (a new version with
    every edit) or a file saved again and again would otherwise pile them up.
    Between full collections, a job's own garbage is collected before the freeze
    when no job waits: only what the job allocated is unfrozen by then.
    """

    def __init__(self, jobs_fd: int, cache: FileCache[Any]) -> None:
        self.jobs_fd = jobs_fd
        self.cache = cache
        self.since = 0
        self.collections = 0

    def after_job(self) -> None:
        self.since += 1
        due = self.since >= COLLECT_EVERY or self.cache.released >= self.cache.max_weight
        idle = not select.select([self.jobs_fd], [], [], 0)[0]
        if due and idle:
            gc.unfreeze()
            gc.collect()
            self.since = 0
            self.cache.released = 0
            self.collections += 1
        elif idle:
            # Only what this job allocated is unfrozen: collecting it costs what the
            # job spent making it, and frees the job's own cyclic garbage (the
            # analysis's statement trees point at their parents) before freezing
            # would keep it until the next full collection.
            gc.collect()
        gc.freeze()


def _die_with_parent(parent_pid: int) -> None:
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            pr_set_pdeathsig = 1
            libc.prctl(pr_set_pdeathsig, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent_pid:  # the parent died before the request took effect
        os._exit(0)

    def watch() -> None:
        while True:
            time.sleep(WATCHDOG_PERIOD_S)
            if os.getppid() != parent_pid:
                os._exit(0)

    threading.Thread(target=watch, name="parent-watchdog", daemon=True).start()


def _limit_heap(mib: int) -> str | None:
    """Cap this process's data segment (heap and anonymous mappings); why not, if it fails.

    Past the cap, allocations fail and the analysis that made them raises
    MemoryError, which the analyst turns into an unanalyzable verdict: one
    pathological file can neither exhaust the machine's memory nor cost the worker.
    """
    try:
        import resource

        _soft, hard = resource.getrlimit(resource.RLIMIT_DATA)
        limit = mib * 1024 * 1024
        if hard != resource.RLIM_INFINITY:
            limit = min(limit, hard)
        resource.setrlimit(resource.RLIMIT_DATA, (limit, hard))
    except (ImportError, AttributeError, ValueError, OSError) as exc:
        return repr(exc)
    return None


class Tables:
    """The threshold table this worker evaluates under: the last one the frontend sent.

    A job names its table by fingerprint and carries the document the first time
    this worker needs it (see ``ipc.Job``), so the table is parsed once per change
    and the workspace file is never looked at here.
    """

    def __init__(self) -> None:
        self._current: Thresholds | None = None

    def for_job(self, job: Job) -> Thresholds:
        from gzguide.analysis.policy.thresholds import parse_thresholds
        from gzguide.workers.ipc import ProtocolError

        if job.new_table is not None:
            self._current = parse_thresholds(job.new_table.document, job.new_table.source)
        current = self._current
        if current is None or current.fingerprint != job.table:
            raise ProtocolError(f"job {job.seq} names a threshold table it was never sent")
        return current


def _parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="gzguide-worker")
    parser.add_argument("--jobs-fd", type=int, required=True)
    parser.add_argument("--results-fd", type=int, required=True)
    parser.add_argument("--parent-pid", type=int, required=True)
    parser.add_argument("--index", type=int, required=True)
    parser.add_argument("--log-level", default="info")
    parser.add_argument("--log-file", default=None)
    parser.add_argument("--cache-bytes", type=int, default=None)
    parser.add_argument("--memory-mib", type=int, default=None)
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    os.dup2(2, 1)  # fd 1 is never ours to write; anything sent there lands on stderr
    sys.stdout = sys.stderr
    args = _parse_args(sys.argv[1:] if argv is None else argv)
    _die_with_parent(args.parent_pid)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the frontend decides when we stop
    collector.tune()

    from gzguide import logs
    from gzguide.workers.analyst import Analyst
    from gzguide.workers.ipc import job_reader

    logs.quiet_stray_output()
    logs.configure(args.log_level, logs.open_log_fd(args.log_file), process=f"worker-{args.index}")
    log = logs.get_logger().bind(worker={"index": args.index, "pid": os.getpid()})
    _limit_memory(args.memory_mib, log)
    sink = logs.event_sink(log)
    analyst = Analyst(sink, max_weight=args.cache_bytes) if args.cache_bytes else Analyst(sink)
    worker = Worker(args.jobs_fd, args.results_fd, analyst, job_reader())
    try:
        return worker.serve()
    except (BrokenPipeError, ConnectionResetError):
        return 0  # the frontend is gone


def _limit_memory(memory_mib: int | None, log: Any) -> None:
    """Cap the heap when ``--memory-mib`` asks for it; a warning if the cap cannot be set."""
    if not memory_mib:
        return
    problem = _limit_heap(memory_mib)
    if problem is not None:
        log.warning("memory_limit_unavailable", memory_mib=memory_mib, error=problem)


class Worker:
    """Answers the jobs that arrive on one pipe on the other, one by one, until EOF."""

    def __init__(self, jobs_fd: int, results_fd: int, analyst: Analyst, reader: JobReader) -> None:
        self.jobs_fd = jobs_fd
        self.results_fd = results_fd
        self.analyst = analyst
        self.tables = Tables()
        self.reader = reader
        self.collector = Collector(jobs_fd, analyst.cache)

    def serve(self) -> int:
        """Say the worker is ready, then answer jobs until the job pipe ends; exit status 0."""
        from gzguide.workers.ipc import Ready, pack

        self.send(pack(Ready(pid=os.getpid())))
        while chunk := os.read(self.jobs_fd, 1 << 16):
            self._received(chunk)
        return 0

    def _received(self, chunk: bytes) -> None:
        """Answer every job ``chunk`` completes."""
        from gzguide.workers.ipc import ProtocolError

        reader = self.reader
        reader.feed(chunk)
        jobs = reader.jobs()
        if reader.broken is not None:
            raise ProtocolError(f"the job pipe holds something else: {reader.broken}")
        for job, text in jobs:
            self._answer(job, text)

    def _answer(self, job: Job, text: bytes | None) -> None:
        from gzguide.workers.ipc import Result, pack, source_of

        thresholds = self.tables.for_job(job)
        outcome = self.analyst.analyze(source_of(job, text), thresholds)
        self.send(
            pack(
                Result(
                    seq=job.seq,
                    report=outcome.report,
                    cache=outcome.cache,
                    identity=outcome.identity,
                    read_at_ns=outcome.read_at_ns,
                    digest=outcome.digest,
                )
            )
        )
        self.collector.after_job()

    def send(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            view = view[os.write(self.results_fd, view) :]


if __name__ == "__main__":
    raise SystemExit(main())
