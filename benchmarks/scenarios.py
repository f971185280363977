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
import os
import random
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Final

from benchmarks import corpus
from benchmarks.harness import (
    IMPORTS_BASELINE,
    IMPORTS_READY,
    Arm,
    Bench,
    BenchmarkError,
    Measured,
    Row,
    check_response,
    server_argv,
    tree_memory,
)
from benchmarks.stats import Series
from gzguide import procfs
from gzguide.client import encode_request


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
    init = encode_request(1, "initialize", {"clientVersion": "1.0"})
    fd = bench.log_fd("startup")
    argv = server_argv("--root", str(bench.workspace))

    def server_sample(_i: int) -> int:
        started = time.perf_counter_ns()
        server = Measured(argv, bench.workspace, fd, bench.env, bench.logs / "startup.log")
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
    supported = procfs.supported()
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


#: The function-dense module of the engine-floor scenario: small functions, most of
#: them inside some advise band, so every detector runs on most of the file.
DENSE_SEED: Final = 7
DENSE_LINES: Final = 3000


def engine_floor(bench: Bench) -> list[Row]:
    """Cold analysis in one process: the engine against parse + radon's own visitors.

    The floor is what any tool computing these metrics with radon must pay on the
    same source: ``ast.parse``, ``cc_visit_ast``, ``h_visit_ast`` and
    ``radon.raw.analyze``. The engine does all of that work's equivalent and more
    (lizard metrics, cohesion, the detectors and advice) from one parse and one
    tokenize pass. Both run in this process, interleaved, on the stdlib module and
    on a function-dense synthetic module (where the detectors have the most to do).
    """
    from benchmarks.corpus import synthetic_module

    stdlib = bench.module.read_bytes()
    dense = synthetic_module(DENSE_SEED, DENSE_LINES).encode("utf-8")
    size = f"{bench.module_lines:,}-line stdlib `{bench.module.name}`"
    lines = dense.count(b"\n")
    dense_size = f"{lines:,}-line function-dense synthetic module"
    return [
        _engine_against_floor(bench, stdlib, "", f"cold analysis in-process: {size}"),
        _engine_against_floor(bench, dense, "_dense", f"cold analysis in-process: {dense_size}"),
    ]


def _engine_against_floor(bench: Bench, data: bytes, suffix: str, title: str) -> Row:
    import ast

    from radon.complexity import cc_visit_ast
    from radon.metrics import h_visit_ast
    from radon.raw import analyze

    from gzguide.analysis.engine import evaluate, measure
    from gzguide.analysis.facts.parsed import parse_module
    from gzguide.analysis.policy.thresholds import default_thresholds

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
        f"engine_cold{suffix}",
        "engine, cold",
        "parse, every metric, detectors and advice, in-process",
    )
    floor_s = _baseline(
        f"parse_visitors_floor{suffix}",
        "parse + visitors",
        "ast.parse + cc_visit_ast + h_visit_ast + radon.raw.analyze on the same source",
    )
    engine(0), floor(0)  # unmeasured: imports and first-call costs
    bench.interleave(
        f"engine floor{suffix.replace('_', ' ')}",
        [Arm(series, engine), Arm(floor_s, floor)],
        bench.plan.cold_iterations,
        60.0,
    )
    return Row(f"engine_floor{suffix}", title, series, [floor_s])
