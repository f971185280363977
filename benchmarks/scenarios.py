"""The scenarios: each drives real servers over real pipes and returns result rows.

A row is one thing measured (say, warm analyze) with the baselines measured side
by side with it: the loops interleave the server's samples with its baselines'
(A B C A B C ...), so drift on a noisy machine lands on both sides of a ratio.
The slow baselines (the naive server, a ``radon`` process per request) are sampled
every k-th iteration.

Baselines:

* ``bare_round_trip``: an unknown method on the same server, answered at once
  with -32601: the framing, the pipes and the dispatch, no analysis;
* ``naive_server``: ``benchmarks/naive_server.py``, same framing, re-reads and
  re-parses the file with radon's ``cc_visit`` per request (no cache, no pool);
* ``radon_process``: one ``python -m radon cc -j PATH`` process per request, what
  a plugin without a daemon does (timed from spawn to its output read and exit);
* ``workers_0``: the same server with ``--workers 0`` (in-process analysis);
* ``interpreter_imports``: ``python -c "import msgspec, structlog"``, spawn to exit.
"""

from __future__ import annotations

import itertools
import json
import os
import random
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from benchmarks import corpus
from benchmarks.client import (
    BenchmarkError,
    FramedProcess,
    check_response,
    child_environment,
    encode_frame,
    hints_of,
    memory_supported,
    server_argv,
    tree_memory,
)
from benchmarks.plan import Plan
from benchmarks.stats import Series

NAIVE_SERVER = Path(__file__).with_name("naive_server.py")
#: Files in the warm-up folder each gz server analyzes first, so every worker is
#: up (and has imported everything) before anything is measured.
WARMUP_FILES = 16
#: What the start-up baseline runs: the interpreter and the server's two heavy imports.
IMPORTS_BASELINE = (sys.executable, "-c", "import msgspec, structlog")
#: The same, timed to its first output byte instead of its exit: the server's
#: sample ends at its answer, before any interpreter teardown.
IMPORTS_READY = (sys.executable, "-c", "import os, msgspec, structlog; os.write(1, b'.')")


@dataclass
class Row:
    """One measured scenario and the baselines measured with it."""

    key: str
    title: str
    series: Series
    baselines: list[Series] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class Arm:
    """One participant of an interleaved loop: sampled on iterations ``i % every == 0``."""

    series: Series
    sample: Callable[[int], int]
    every: int = 1


class Progress:
    def __init__(self) -> None:
        self.started = time.monotonic()

    def elapsed(self) -> float:
        return time.monotonic() - self.started

    def say(self, message: str) -> None:
        print(f"[{self.elapsed():6.1f} s] {message}", file=sys.stderr, flush=True)


class Bench:
    """The workspace, the servers started in it, and the ways to sample them."""

    def __init__(self, plan: Plan, workspace: Path, progress: Progress) -> None:
        self.plan = plan
        self.workspace = workspace
        self.progress = progress
        self.logs = workspace / "logs"
        self.logs.mkdir(parents=True, exist_ok=True)
        self.env, self.env_note = child_environment(workspace / "pycache")
        self.processes: list[FramedProcess] = []
        #: The shared servers, started by :meth:`prime`.
        self.main: FramedProcess
        self.quiet: FramedProcess
        self.inproc: FramedProcess
        self.naive: FramedProcess
        self.warmup_dir = workspace / "warmup"
        corpus.write_tree(self.warmup_dir, WARMUP_FILES, seed=7, lines=(20, 40), per_dir=100)
        self.stdlib_source = corpus.stdlib_module()
        self.module = workspace / "module" / self.stdlib_source.name
        self.module.parent.mkdir()
        shutil.copy2(self.stdlib_source, self.module)  # keeps its old mtime: an unchanged file
        self.module_lines = self.module.read_bytes().count(b"\n")

    # -- processes ----------------------------------------------------------------

    def log_fd(self, name: str) -> int:
        return os.open(self.logs / f"{name}.log", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)

    def spawn(self, argv: Sequence[str], name: str) -> FramedProcess:
        name = f"{name}-{len(self.processes) + 1}"
        fd = self.log_fd(name)
        try:
            process = FramedProcess(argv, self.workspace, fd, self.env, self.logs / f"{name}.log")
        finally:
            os.close(fd)
        self.processes.append(process)
        return process

    def start(self, *configs: tuple[str, ...], naive: bool = False) -> list[FramedProcess]:
        """gz servers, one per option tuple (then the naive server if asked), all ready.

        They start concurrently; each is initialized, and each gz server analyzes
        the warm-up folder, so that every worker is up and has imported everything.
        """
        servers = [
            self.spawn(server_argv("--root", str(self.workspace), *options), "gz")
            for options in configs
        ]
        if naive:
            servers.append(self.spawn([sys.executable, str(NAIVE_SERVER)], "naive"))
        self._all(servers, "initialize", {"clientVersion": "1.0"})
        self._all(servers[: len(configs)], "analyze", {"file_path": str(self.warmup_dir)})
        return servers

    @staticmethod
    def _all(servers: Sequence[FramedProcess], method: str, params: dict[str, Any]) -> None:
        sent = []
        for server in servers:
            request_id, frame = server.frame(method, params)
            server.send(frame)
            sent.append(request_id)
        for server, request_id in zip(servers, sent, strict=True):
            if "result" not in check_response(server.receive(), request_id):
                raise BenchmarkError(f"{method} failed on {server.argv[1:]}")

    def stop(self, *servers: FramedProcess) -> None:
        for server in servers:
            server.shutdown()
            if server in self.processes:
                self.processes.remove(server)

    def close(self) -> None:
        for process in self.processes:
            process.kill()
        self.processes.clear()

    def prime(self) -> None:
        """Start the shared servers; run every measured program once, unmeasured.

        An editor keeps one server for a session, so the scenarios share these
        (each on its own files): the default server (``main``), one with logging
        off, one with ``--workers 0``, and the naive server. Running each program
        once first fills the bytecode and page caches nothing should be charged for.
        """
        shared = self.start((), ("--log-level", "error"), ("--workers", "0"), naive=True)
        self.main, self.quiet, self.inproc, self.naive = shared
        for server in shared:
            self.analyze_sample(server, self.module, 1000)
        self.ping_sample(self.main)
        self.radon_sample(self.warmup_dir)
        for program in (IMPORTS_BASELINE, IMPORTS_READY):
            subprocess.run(program, env=self.env, stdout=subprocess.DEVNULL, check=True)

    def stop_shared(self) -> None:
        self.stop(self.main, self.quiet, self.inproc, self.naive)

    # -- samples ------------------------------------------------------------------

    def analyze_sample(
        self, server: FramedProcess, path: Path, cursor: int | None = None
    ) -> tuple[int, int]:
        """One timed analyze request: (elapsed ns, number of hints)."""
        params: dict[str, Any] = {"file_path": str(path)}
        if cursor is not None:
            params["cursor_position"] = cursor
        request_id, frame = server.frame("analyze", params)
        elapsed, body = server.timed(frame)
        return elapsed, len(hints_of(check_response(body, request_id)))

    def ping_sample(self, server: FramedProcess) -> int:
        """One bare framed round trip: an unknown method, answered with -32601."""
        request_id, frame = server.frame("ping")
        elapsed, body = server.timed(frame)
        error = check_response(body, request_id).get("error")
        if not isinstance(error, dict) or error.get("code") != -32601:
            raise BenchmarkError(f"ping: expected a -32601 error, got {body[:200]!r}")
        return elapsed

    def radon_sample(self, path: Path) -> int:
        """One ``radon cc -j PATH`` process: spawn, output read, exit."""
        argv = [sys.executable, "-m", "radon", "cc", "-j", str(path)]
        started = time.perf_counter_ns()
        done = subprocess.run(
            argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=self.env, check=False
        )
        elapsed = time.perf_counter_ns() - started
        if done.returncode != 0 or not isinstance(json.loads(done.stdout), dict):
            raise BenchmarkError(f"radon cc -j {path}: exit {done.returncode}")
        return elapsed

    def interleave(
        self,
        label: str,
        arms: Sequence[Arm],
        iterations: int,
        budget_s: float,
        min_iterations: int = 3,
    ) -> int:
        """Run ``arms`` for ``iterations`` or until ``budget_s``; iterations run.

        Each iteration runs the arms in a fresh order, shuffled with a fixed seed (so a
        rerun repeats it). What ran just before a sample matters on a small machine:
        a request to the same server a moment earlier leaves its caches warm, a
        baseline's process start-up leaves them cold. A rotating order would not
        help, since it keeps each arm right after the same one; shuffled, every arm
        follows every other one equally often, and that effect lands on all of them.

        Sub-millisecond arms are never interleaved with the slow baselines (a naive
        server re-parsing a module, a radon process: 50-200 ms of CPU each): those
        would take most of the loop's time and leave the caches of the next samples
        cold, so that a fast arm's median would depend on how often they run. A
        scenario runs its fast arms in one loop and its slow baselines in another.
        """
        deadline = time.monotonic() + budget_s
        report_every = max(1, iterations // 4)
        orders = shuffled(arms)
        done = 0
        for i in range(iterations):
            for arm in next(orders):
                if i % arm.every == 0:
                    arm.series.add(arm.sample(i))
            done = i + 1
            if done % report_every == 0:
                self.progress.say(f"{label}: {done}/{iterations}")
            if done >= min_iterations and time.monotonic() > deadline:
                self.progress.say(f"{label}: time budget reached after {done} iterations")
                break
        return done


#: The seed of the order the arms of an interleaved loop run in.
ORDER_SEED = 1

T = TypeVar("T")


def shuffled(items: Sequence[T], seed: int = ORDER_SEED) -> Iterator[list[T]]:
    """Endless fresh orders of ``items``, the same sequence for the same seed."""
    rng = random.Random(seed)
    while True:
        yield rng.sample(items, len(items))


def _baseline(key: str, label: str, description: str) -> Series:
    return Series(key, label, description)


def _naive_series() -> Series:
    return _baseline(
        "naive_server",
        "naive server",
        "benchmarks/naive_server.py: re-reads and re-parses per request (radon cc_visit)",
    )


def _radon_series() -> Series:
    return _baseline(
        "radon_process",
        "radon process",
        "one `python -m radon cc -j PATH` process per request",
    )


def _bare_series(note: str = "") -> Series:
    return _baseline(
        "bare_round_trip",
        "bare round trip",
        "unknown method on the same server (-32601): framing and pipes, no analysis" + note,
    )


def _counting(sample: Callable[[], tuple[int, int]], counts: list[int]) -> Callable[[int], int]:
    def run(_i: int) -> int:
        elapsed, hints = sample()
        counts.append(hints)
        return elapsed

    return run


def _mode(values: list[int]) -> int | None:
    return max(set(values), key=values.count) if values else None


# -- 1. start-up -------------------------------------------------------------------


def startup(bench: Bench) -> list[Row]:
    plan = bench.plan
    series = Series("startup", "startup", "spawn -> initialize answer, fresh process each sample")
    base = _baseline(
        "interpreter_imports",
        "interpreter + imports",
        'spawn of `python -c "import msgspec, structlog"` to exit',
    )
    ready = _baseline(
        "interpreter_imports_ready",
        "interpreter + imports, to first output",
        "the same, timed to its first output byte: without the interpreter's exit",
    )
    init = encode_frame({"id": 1, "method": "initialize", "params": {"clientVersion": "1.0"}})
    fd = bench.log_fd("startup")
    argv = server_argv("--root", str(bench.workspace))

    def server_sample(_i: int) -> int:
        started = time.perf_counter_ns()
        server = FramedProcess(argv, bench.workspace, fd, bench.env, bench.logs / "startup.log")
        server.send(init)
        body = server.receive()
        elapsed = time.perf_counter_ns() - started
        try:
            if "result" not in check_response(body, 1):
                raise BenchmarkError(f"initialize failed: {body[:200]!r}")
        finally:
            server.shutdown()
        return elapsed

    def imports_sample(_i: int) -> int:
        started = time.perf_counter_ns()
        code = subprocess.call(
            IMPORTS_BASELINE, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, env=bench.env
        )
        elapsed = time.perf_counter_ns() - started
        if code != 0:
            raise BenchmarkError(f"{IMPORTS_BASELINE} exited with {code}")
        return elapsed

    def ready_sample(_i: int) -> int:
        started = time.perf_counter_ns()
        child = subprocess.Popen(
            IMPORTS_READY, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, env=bench.env
        )
        assert child.stdout is not None
        first = os.read(child.stdout.fileno(), 1)
        elapsed = time.perf_counter_ns() - started
        child.stdout.close()
        if child.wait() != 0 or first != b".":
            raise BenchmarkError(f"{IMPORTS_READY} failed")
        return elapsed

    try:  # all of them ran once in Bench.prime, unmeasured
        arms = [Arm(series, server_sample), Arm(base, imports_sample), Arm(ready, ready_sample)]
        bench.interleave("startup", arms, plan.startup_pairs, plan.startup_budget_s)
    finally:
        os.close(fd)
    return [
        Row(
            "startup",
            "startup: spawn → `initialize` answer",
            series,
            [base, ready],
            notes=[
                "default options; workers start after the first answer, so they are not in it",
                "the done-when baseline runs to the interpreter's exit (teardown included); "
                "the second one stops at its first output byte, as the server's sample does",
            ],
        )
    ]


# -- 2. warm analyze, and logging on/off ---------------------------------------------


def warm(bench: Bench) -> list[Row]:
    plan = bench.plan
    info, quiet, naive = bench.main, bench.quiet, bench.naive
    path = bench.module
    for server in (info, quiet, naive):
        for _ in range(2):  # unmeasured: parse once, then memo
            bench.analyze_sample(server, path)

    warm_info = Series("warm_analyze", "warm analyze", "unchanged module, default logging (info)")
    warm_quiet = Series("warm_analyze_log_off", "warm analyze, logging off", "--log-level error")
    bare_info = _bare_series()
    bare_quiet = _bare_series(" (the --log-level error server)")
    naive_s, radon_s = _naive_series(), _radon_series()
    counts: list[int] = []
    naive_counts: list[int] = []
    arms = [
        Arm(warm_info, _counting(lambda: bench.analyze_sample(info, path), counts)),
        Arm(bare_info, lambda _i: bench.ping_sample(info)),
        Arm(warm_quiet, lambda _i: bench.analyze_sample(quiet, path)[0]),
        Arm(bare_quiet, lambda _i: bench.ping_sample(quiet)),
    ]
    heavy = [
        Arm(
            naive_s,
            _counting(lambda: bench.analyze_sample(naive, path), naive_counts),
            plan.naive_every,
        ),
        Arm(radon_s, lambda _i: bench.radon_sample(path), plan.radon_every),
    ]
    iterations, budget = plan.warm_iterations, plan.warm_budget_s
    bench.interleave("warm analyze", arms, iterations, budget)
    bench.interleave("warm analyze: slow baselines", heavy, iterations, budget)
    size = f"{bench.module_lines:,}-line stdlib `{path.name}`"
    extra = {"hints_per_request": _mode(counts), "naive_hints_per_request": _mode(naive_counts)}
    return [
        Row(
            "warm_analyze",
            f"warm analyze: unchanged {size}",
            warm_info,
            [bare_info, naive_s, radon_s],
            extra=extra,
        ),
        Row(
            "warm_analyze_log_off",
            "warm analyze, logging off (`--log-level error`)",
            warm_quiet,
            [bare_quiet, naive_s, radon_s],
        ),
    ]


# -- 3. cold analyze -------------------------------------------------------------------


def cold(bench: Bench) -> list[Row]:
    plan = bench.plan
    pool, inproc, naive = bench.main, bench.inproc, bench.naive
    original = bench.module.read_bytes()
    path = bench.workspace / "cold" / bench.module.name
    path.parent.mkdir()
    counter = itertools.count()

    def rewrite() -> None:
        path.write_bytes(original + b"\n# edit %d\n" % next(counter))

    def fresh(sample: Callable[[], int]) -> Callable[[int], int]:
        def run(_i: int) -> int:
            rewrite()  # a new identity: no memo, no cache can answer
            return sample()

        return run

    rewrite()
    for server in (pool, inproc, naive):
        bench.analyze_sample(server, path)  # unmeasured
    series = Series("cold_analyze", "cold analyze", "module rewritten before each request")
    inproc_s = _baseline(
        "workers_0", "--workers 0", "the same server analyzing in-process (--workers 0)"
    )
    naive_s, radon_s = _naive_series(), _radon_series()
    arms = [
        Arm(series, fresh(lambda: bench.analyze_sample(pool, path)[0])),
        Arm(inproc_s, fresh(lambda: bench.analyze_sample(inproc, path)[0])),
        Arm(naive_s, fresh(lambda: bench.analyze_sample(naive, path)[0]), 2),
        Arm(radon_s, fresh(lambda: bench.radon_sample(path)), 5),
    ]
    bench.interleave("cold analyze", arms, plan.cold_iterations, plan.cold_budget_s)
    return [
        Row(
            "cold_analyze",
            f"cold analyze: the {bench.module_lines:,}-line module changed before each request",
            series,
            [inproc_s, naive_s, radon_s],
            notes=["a trailing comment with a counter is rewritten before every request"],
        )
    ]


# -- 4. cursor-scoped ------------------------------------------------------------------


def cursor(bench: Bench) -> list[Row]:
    plan = bench.plan
    server, naive = bench.main, bench.naive
    path = bench.module
    size = len(path.read_bytes())
    offsets = [size * k // 63 for k in range(64)]  # start to end (the last is the length)
    for target in (server, naive):
        bench.analyze_sample(target, path)
    series = Series("cursor_analyze", "cursor-scoped analyze", "warm, cursor at 64 offsets")
    bare, naive_s, radon_s = _bare_series(), _naive_series(), _radon_series()
    counts: list[int] = []
    arms = [
        Arm(
            series,
            lambda i: _record(bench.analyze_sample(server, path, offsets[i % 64]), counts),
        ),
        Arm(bare, lambda _i: bench.ping_sample(server)),
    ]
    heavy = [
        Arm(
            naive_s,
            lambda i: bench.analyze_sample(naive, path, offsets[i % 64])[0],
            plan.naive_every,
        ),
        Arm(radon_s, lambda _i: bench.radon_sample(path), plan.radon_every),
    ]
    iterations, budget = plan.cursor_iterations, plan.cursor_budget_s
    bench.interleave("cursor analyze", arms, iterations, budget)
    bench.interleave("cursor analyze: slow baselines", heavy, iterations, budget)
    return [
        Row(
            "cursor_analyze",
            "cursor-scoped analyze: warm, cursor at 64 offsets",
            series,
            [bare, naive_s, radon_s],
            extra={"mean_hints_per_request": round(sum(counts) / max(len(counts), 1), 2)},
        )
    ]


def _record(sample: tuple[int, int], counts: list[int]) -> int:
    counts.append(sample[1])
    return sample[0]


# -- 5. directory ----------------------------------------------------------------------


def directory(bench: Bench) -> list[Row]:
    plan = bench.plan
    root = bench.workspace / "tree"
    files = corpus.write_tree(root, plan.directory_files, seed=11, lines=(40, 260), per_dir=40)
    texts = [p.read_bytes() for p in files]
    lines = sum(t.count(b"\n") for t in texts)
    server, naive = bench.main, bench.naive
    counter = itertools.count()

    def rewrite_all() -> None:
        mark = b"\n# revision %d\n" % next(counter)
        for path, text in zip(files, texts, strict=True):
            path.write_bytes(text + mark)

    cold_s = Series("directory_cold", "directory, cold", "every file rewritten before the request")
    warm_s = Series("directory_warm", "directory, warm", "unchanged files, repeated")
    naive_s, radon_s = _naive_series(), _radon_series()
    hint_counts: list[int] = []

    def gz_cold(_i: int) -> int:
        rewrite_all()
        return _record(bench.analyze_sample(server, root), hint_counts)

    def naive_sample(_i: int) -> int:
        return bench.analyze_sample(naive, root)[0]

    def radon_sample(_i: int) -> int:
        return bench.radon_sample(root)

    budget = plan.directory_budget_s
    cold_arms = [Arm(cold_s, gz_cold), Arm(naive_s, naive_sample, 2), Arm(radon_s, radon_sample, 3)]
    bench.interleave("directory cold", cold_arms, plan.directory_cold, budget * 0.6, 2)

    # The memo trusts a file's identity only once its mtime is 2 s older than the
    # read; files last written by the cold phase become "unchanged" after that.
    settle = time.monotonic() + 2.2
    while time.monotonic() < settle:
        naive_s.add(bench.analyze_sample(naive, root)[0])
    bench.analyze_sample(server, root)  # unmeasured: the racy re-verification
    warm_arms = [
        Arm(warm_s, lambda _i: bench.analyze_sample(server, root)[0]),
        Arm(naive_s, naive_sample, 15),
        Arm(radon_s, radon_sample, 30),
    ]
    bench.interleave("directory warm", warm_arms, plan.directory_warm, budget * 0.4)
    what = f"{len(files)} files, {lines:,} lines"
    extra = {"files": len(files), "lines": lines, "hints_per_request": _mode(hint_counts)}
    shared = "naive server and radon process samples are shared by the cold and warm rows"
    return [
        Row(
            "directory_cold",
            f"directory, cold: {what}, all changed",
            cold_s,
            [naive_s, radon_s],
            notes=[shared],
            extra=extra,
        ),
        Row(
            "directory_warm",
            f"directory, warm: {what}, unchanged",
            warm_s,
            [naive_s, radon_s],
            notes=[shared],
            extra=extra,
        ),
    ]


# -- 6. editing session ----------------------------------------------------------------


def editing(bench: Bench) -> list[Row]:
    plan = bench.plan
    folder = bench.workspace / "session"
    folder.mkdir()
    modules = [
        corpus.EditableModule.create(folder / f"editing_{k}.py", seed=100 + k, functions=12)
        for k in range(plan.edit_files)
    ]
    corpus.backdate([m.path for m in modules], 3600)  # checked out an hour ago
    server, naive = bench.main, bench.naive
    for module in modules:
        for target in (server, naive):
            bench.analyze_sample(target, module.path)
    rng = random.Random(2024)
    edited = Series("edit_session_edited", "edit, save, analyze", "cursor in the edited function")
    other = Series("edit_session_unchanged", "switch to another file", "an unchanged file")
    naive_edited, naive_other, radon_s = _naive_series(), _naive_series(), _radon_series()
    deadline = time.monotonic() + plan.edit_budget_s
    steps = 0
    for step in range(plan.edit_steps):
        module = rng.choice(modules)
        index = module.edit(rng, max_functions=40)
        at = module.cursor_in(index)
        edited.add(bench.analyze_sample(server, module.path, at)[0])
        naive_edited.add(bench.analyze_sample(naive, module.path, at)[0])
        if step % 25 == 0:
            radon_s.add(bench.radon_sample(module.path))
        if step % 3 == 1:
            another = rng.choice([m for m in modules if m is not module])
            at = another.cursor_in(rng.randrange(len(another.functions)))
            other.add(bench.analyze_sample(server, another.path, at)[0])
            naive_other.add(bench.analyze_sample(naive, another.path, at)[0])
        steps = step + 1
        if steps % max(1, plan.edit_steps // 4) == 0:
            bench.progress.say(f"editing session: {steps}/{plan.edit_steps} steps")
        if steps >= 5 and time.monotonic() > deadline:
            bench.progress.say(f"editing session: time budget reached after {steps} steps")
            break
    sizes = [m.path.stat().st_size for m in modules]
    extra = {"steps": steps, "files": len(modules), "final_bytes": sizes}
    return [
        Row(
            "edit_session_edited",
            f"editing session: edit a function, save, analyze ({len(modules)} files)",
            edited,
            [naive_edited, radon_s],
            extra=extra,
        ),
        Row(
            "edit_session_unchanged",
            "editing session: analyze another, unchanged file",
            other,
            [naive_other, radon_s],
            notes=["the file may have been saved less than 2 s earlier (then its hash is checked)"],
        ),
    ]


# -- 7. memory -------------------------------------------------------------------------


def memory(bench: Bench) -> tuple[list[Row], dict[str, Any]]:
    plan = bench.plan
    count = plan.memory_files
    bench.progress.say(f"memory: writing {count} files")
    root = bench.workspace / "many"
    files = corpus.write_tree(root, count, seed=23, lines=(50, 300), per_dir=250)
    (server,) = bench.start(())
    series = Series("memory_run", "memory run", "distinct files, one cold request each")
    marks = sorted({count * k // plan.memory_samples for k in range(1, plan.memory_samples + 1)})
    marks = sorted({*marks, count // 2, count})
    supported = memory_supported()
    checkpoints: list[dict[str, Any]] = []
    if supported:
        checkpoints.append({"files": 0, **tree_memory(server.pid)})
    for done, path in enumerate(_progress(files, bench, "memory"), start=1):
        series.add(bench.analyze_sample(server, path)[0])
        if supported and done in marks:
            checkpoints.append({"files": done, **tree_memory(server.pid)})
    bench.stop(server)
    half = next((c for c in checkpoints if c["files"] == count // 2), None)
    last = checkpoints[-1] if checkpoints and checkpoints[-1]["files"] == count else None
    growth = None
    if half is not None and last is not None and half["rss_mib"] > 0:
        growth = round((last["rss_mib"] - half["rss_mib"]) / half["rss_mib"] * 100, 2)
    lines = sum(p.read_bytes().count(b"\n") for p in files)
    report = {
        "supported": supported,
        "files": count,
        "lines": lines,
        "workers": os.cpu_count() or 1,
        "checkpoints": checkpoints,
        "rss_mib_half": half["rss_mib"] if half else None,
        "rss_mib_final": last["rss_mib"] if last else None,
        "growth_pct_second_half": growth,
        "method": "sum of VmRSS over the server and its descendants (/proc/<pid>/status; "
        "children found through each process's ppid); PSS from smaps_rollup for reference",
    }
    row = Row(
        "memory_run",
        f"memory run: {count:,} distinct files, one cold request each",
        series,
        notes=["no baseline: this row is about memory; its latencies are for reference"],
        extra={"files": count, "lines": lines},
    )
    return [row], report


def _progress(items: list[Path], bench: Bench, label: str) -> Iterator[Path]:
    step = max(1, len(items) // 6)
    for index, item in enumerate(items, start=1):
        yield item
        if index % step == 0:
            bench.progress.say(f"{label}: {index}/{len(items)}")


# -- 8. the engine against its floor, in-process ---------------------------------------


def engine_floor(bench: Bench) -> list[Row]:
    """Cold analysis in one process: the engine against parse + radon's own visitors.

    The floor is what any tool computing these metrics with radon must pay on the
    same source: ``ast.parse``, ``cc_visit_ast``, ``h_visit_ast`` and
    ``radon.raw.analyze``. The engine does all of that work's equivalent and more
    (lizard metrics, cohesion, classification, advice) from one parse and one
    tokenize pass. Both run in this process, interleaved.
    """
    import ast

    from radon.complexity import cc_visit_ast
    from radon.metrics import h_visit_ast
    from radon.raw import analyze

    from gzguide.analysis.engine import evaluate, measure
    from gzguide.analysis.parsed import parse_module
    from gzguide.analysis.thresholds import default_thresholds

    data = bench.module.read_bytes()
    text = data.decode("utf-8")
    table = default_thresholds()

    def engine(_i: int) -> int:
        started = time.perf_counter_ns()
        module = parse_module(data)
        assert module is not None
        evaluate(measure(module), table)
        return time.perf_counter_ns() - started

    def floor(_i: int) -> int:
        started = time.perf_counter_ns()
        tree = ast.parse(text)
        cc_visit_ast(tree)
        h_visit_ast(tree)
        analyze(text)
        return time.perf_counter_ns() - started

    series = Series(
        "engine_cold", "engine, cold", "parse, every metric, archetypes and advice, in-process"
    )
    floor_s = _baseline(
        "parse_visitors_floor",
        "parse + visitors",
        "ast.parse + cc_visit_ast + h_visit_ast + radon.raw.analyze on the same source",
    )
    engine(0), floor(0)  # unmeasured: imports and first-call costs
    bench.interleave(
        "engine floor", [Arm(series, engine), Arm(floor_s, floor)], bench.plan.cold_iterations, 60.0
    )
    size = f"{bench.module_lines:,}-line stdlib `{bench.module.name}`"
    return [Row("engine_floor", f"cold analysis in-process: {size}", series, [floor_s])]
