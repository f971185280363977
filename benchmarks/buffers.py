"""The buffer scenarios (protocol 1.1): hints for an editor's unsaved text, and what they cost.

* ``text_edit``: a 3,500-line buffer edited in one function (the cursor in it) and
  sent as ``text``: edit to hints. Against the in-process analysis of the same
  bytes (the engine, cold: what any path to those hints must pay at least), and
  against what a 1.0 client does instead: write the file, then ask by path.
* ``text_unchanged``: the same buffer sent again unchanged, against asking by path
  about an unchanged file holding those bytes (the warm file path: the memo
  answers both) and the bare round trip. The frame is encoded before the clock
  starts, as for every sample; the server pays for reading the bigger request,
  decoding its JSON and hashing the text, and ``extra`` says what those cost
  in-process on the same body.
* ``text_memory``: a 4 MiB buffer sent 1,000 times (one version in 50 changed, so
  texts also cross to a worker), the process tree's RSS sampled as it goes and
  each process's peak (``VmHWM``) read at the end.

Round trips compared here run with the client (this process, which also runs the
in-process analysis) on CPU 0 and the server's whole tree on CPU 1, when there
are two CPUs to pin to (``taskset``): the two sides never compete for a core,
and a comparison's arms always run on the same one.
"""

from __future__ import annotations

import contextlib
import gc
import os
import random
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

from benchmarks import corpus
from benchmarks.harness import (
    Arm,
    Bench,
    BenchmarkError,
    Measured,
    Row,
    check_response,
    hints_of,
    server_argv,
    tree_memory,
)
from benchmarks.stats import Series
from gzguide import procfs

#: The size of the edited buffer, and the seed of its generated module.
BUFFER_LINES: Final = 3500
BUFFER_SEED: Final = 31
#: The source limit: the largest text the server analyzes.
TEXT_LIMIT: Final = 4 * 1024 * 1024
#: The CPUs the client and the server are pinned to, when there are two.
CLIENT_CPU: Final = 0
SERVER_CPU: Final = 1


@contextlib.contextmanager
def pinned() -> Iterator[list[str]]:
    """This process on :data:`CLIENT_CPU` while inside; the command prefix for a server.

    Yields ``taskset -c 1`` for the server's command, or nothing when the machine
    has fewer than two CPUs (or no ``taskset``, or affinity cannot be set).
    """
    taskset = shutil.which("taskset")
    if (os.cpu_count() or 1) < 2 or taskset is None or not hasattr(os, "sched_setaffinity"):
        yield []
        return
    before = os.sched_getaffinity(0)
    try:
        os.sched_setaffinity(0, {CLIENT_CPU})
    except OSError:
        yield []
        return
    try:
        yield [taskset, "-c", str(SERVER_CPU)]
    finally:
        os.sched_setaffinity(0, before)


def buffer_module(path: Path) -> corpus.EditableModule:
    """A generated module of at least :data:`BUFFER_LINES` lines, saved at ``path``."""
    functions = 200
    while True:
        module = corpus.EditableModule.create(path, BUFFER_SEED, functions)
        if module.render().count(b"\n") >= BUFFER_LINES:
            return module
        functions += 10


def edit_in_memory(module: corpus.EditableModule, rng: random.Random) -> tuple[bytes, int]:
    """Change one function's body (not saved): the buffer's bytes, and a cursor in it."""
    index = rng.randrange(len(module.functions))
    fn = module.functions[index]
    fn.constructs = max(0, min(12, fn.constructs + rng.choice((-1, 1, 1))))
    fn.version += 1
    data = module.render()
    return data, module.cursor_in(index)


def _start(bench: Bench, prefix: list[str], name: str) -> Measured:
    """A default server (pinned by ``prefix``), initialized at 1.1 and warmed up."""
    argv = [*prefix, *server_argv("--root", str(bench.workspace))]
    server = bench.spawn(argv, name)
    server.call("initialize", {"clientVersion": "1.1"})
    server.call("analyze", {"file_path": str(bench.warmup_dir)})
    return server


def _text_frame(server: Measured, path: Path, data: bytes, cursor: int | None) -> tuple[int, bytes]:
    params: dict[str, Any] = {"file_path": str(path), "text": data.decode("utf-8")}
    if cursor is not None:
        params["cursor_position"] = cursor
    return server.frame("analyze", params)


def _sample(server: Measured, frame: tuple[int, bytes]) -> tuple[int, int]:
    """One timed request (encoded already): (elapsed ns, number of hints)."""
    request_id, data = frame
    elapsed, body = server.timed(data)
    return elapsed, len(hints_of(check_response(body, request_id)))


def analyze_in_process(data: bytes) -> int:
    """The engine on ``data``, cold, in this process: parse, measure, evaluate."""
    from gzguide.analysis.engine import evaluate, measure
    from gzguide.analysis.facts.parsed import parse_module
    from gzguide.analysis.policy.thresholds import default_thresholds

    table = default_thresholds()
    started = time.perf_counter_ns()
    module = parse_module(data)
    if module is None:
        raise BenchmarkError("the edited buffer does not parse")
    evaluate(measure(module), table)
    return time.perf_counter_ns() - started


def buffers(bench: Bench) -> list[Row]:
    """The edit-to-hints and unchanged-buffer rows, on a server of their own (pinned).

    This process's heap is frozen meanwhile (``gc.freeze``), as a worker's is between
    jobs: the in-process analysis is not charged for collections walking the
    benchmark's own objects, which the worker's analysis never pays either.
    """
    with pinned() as prefix:
        server = _start(bench, prefix, "gz-buffers")
        gc.freeze()
        try:
            return [*_edits(bench, server, prefix), _unchanged(bench, server, prefix)]
        finally:
            gc.unfreeze()
            bench.stop(server)


def _edits(bench: Bench, server: Measured, prefix: list[str]) -> list[Row]:
    plan = bench.plan
    folder = bench.workspace / "buffers"
    folder.mkdir()
    module = buffer_module(folder / "buffer.py")
    corpus.backdate([module.path], 3600)
    rng = random.Random(BUFFER_SEED)
    lines = module.render().count(b"\n")
    text_s = Series("text_edit", "edit, send the buffer", "one function edited, sent as text")
    floor_s = Series(
        "engine_same_text",
        "in-process analysis of the same text",
        "parse + every metric + detectors and advice of the same bytes, cold, in this process",
    )
    save_s = Series(
        "save_and_analyze",
        "write the file, analyze by path",
        "the same edit (and one comment line more, so no cache has its bytes) written to "
        "the file, then asked about by path: the write is timed too",
    )
    counts: list[int] = []
    current: dict[str, Any] = {}

    def next_edit(i: int) -> None:
        if current.get("i") != i:
            data, cursor = edit_in_memory(module, rng)
            current.update(i=i, data=data, cursor=cursor)

    def text_arm(i: int) -> int:
        next_edit(i)
        frame = _text_frame(server, module.path, current["data"], current["cursor"])
        elapsed, hints = _sample(server, frame)
        counts.append(hints)
        return elapsed

    def floor_arm(i: int) -> int:
        next_edit(i)
        return analyze_in_process(current["data"])

    def save_arm(i: int) -> int:
        next_edit(i)
        data = current["data"] + b"# saved\n"
        params = {"file_path": str(module.path), "cursor_position": current["cursor"]}
        request_id, frame = server.frame("analyze", params)
        started = time.perf_counter_ns()
        module.path.write_bytes(data)
        written = time.perf_counter_ns() - started
        elapsed, body = server.timed(frame)
        hints_of(check_response(body, request_id))
        return written + elapsed

    for arm in (text_arm, floor_arm, save_arm):  # unmeasured: one edit through each
        arm(-1)
    arms = [Arm(text_s, text_arm), Arm(floor_s, floor_arm), Arm(save_s, save_arm)]
    bench.interleave("buffer edits", arms, plan.text_edit_iterations, plan.text_edit_budget_s)
    notes = ["each iteration makes one edit; all three arms handle that edit's bytes"]
    if prefix:
        notes.append(f"client and in-process analysis on CPU {CLIENT_CPU}, server on {SERVER_CPU}")
    return [
        Row(
            "text_edit",
            f"buffer edited in one function, sent as text ({lines:,} lines): edit to hints",
            text_s,
            [floor_s, save_s],
            notes=notes,
            extra={"lines": lines, "bytes": len(module.render()), "hints": _mode(counts)},
        )
    ]


def _unchanged(bench: Bench, server: Measured, prefix: list[str]) -> Row:
    plan = bench.plan
    folder = bench.workspace / "buffers"
    module = buffer_module(folder / "unchanged.py")
    corpus.backdate([module.path], 3600)  # an unchanged file: the memo answers by stat
    data = module.path.read_bytes()
    text_frame = _text_frame(server, module.path, data, None)
    file_request = server.frame("analyze", {"file_path": str(module.path)})
    for _ in range(2):  # unmeasured: analyzed once, then known to the memo
        _sample(server, text_frame)
        _sample(server, file_request)
    text_s = Series("text_unchanged", "unchanged buffer sent again", "the same text each time")
    file_s = Series(
        "warm_file", "warm file path", "the same bytes in an unchanged file, asked about by path"
    )
    bare_s = Series(
        "bare_round_trip",
        "bare round trip",
        "unknown method on the same server (-32601): framing and pipes, no analysis",
    )
    counts: list[int] = []

    def text_arm(_i: int) -> int:
        elapsed, hints = _sample(server, text_frame)
        counts.append(hints)
        return elapsed

    arms = [
        Arm(text_s, text_arm),
        Arm(file_s, lambda _i: _sample(server, file_request)[0]),
        Arm(bare_s, lambda _i: bench.ping_sample(server)),
    ]
    bench.interleave("unchanged buffer", arms, plan.text_warm_iterations, plan.text_warm_budget_s)
    notes = ["the text's answer is the file's: the same hints, the same path"]
    if prefix:
        notes.append(f"client on CPU {CLIENT_CPU}, server on {SERVER_CPU}")
    lines = data.count(b"\n")
    extra = {
        "lines": lines,
        "hints": _mode(counts),
        "text_bytes": len(data),
        "request_bytes": len(text_frame[1]),
        **server_side_costs(text_frame[1], data),
    }
    return Row(
        "text_unchanged",
        f"unchanged {lines:,}-line buffer sent again ({len(text_frame[1]) // 1024:,} KiB request)",
        text_s,
        [file_s, bare_s],
        notes=notes,
        extra=extra,
    )


def server_side_costs(frame: bytes, data: bytes, rounds: int = 200) -> dict[str, float]:
    """What the server does with such a request before the memo answers, timed here.

    Medians in µs: the body decoded up to the session's typed params (the
    envelope, then the 1.1 params, whose text is a string), the text turned into
    its UTF-8 bytes, and their content digest: what a text new to the server
    costs. ``known_us``: what the session pays for the body once it holds its
    text (:class:`~gzguide.guide.messages.TextRequests`): neither decoded nor hashed.
    """
    from gzguide.freshness import content_digest
    from gzguide.guide.messages import (
        AnalyzeTextParams,
        Request,
        TextRequests,
        decode_params,
        decode_request,
    )

    body = frame[frame.index(b"\r\n\r\n") + 4 :]

    def decode() -> None:
        request = decode_request(body)
        assert isinstance(request, Request)
        params = decode_params(request.params, AnalyzeTextParams)
        assert isinstance(params.text, str)

    texts = TextRequests()
    texts.decode(body)

    def known() -> None:
        decoded = texts.decode(body)
        assert decoded is not None and decoded.text is not None
        decoded.text.digest()

    text = data.decode("utf-8")
    timings: dict[str, list[int]] = {
        "decode_us": [],
        "encode_us": [],
        "digest_us": [],
        "known_us": [],
    }
    for _ in range(rounds):
        for key, step in (
            ("decode_us", decode),
            ("encode_us", lambda: text.encode("utf-8")),
            ("digest_us", lambda: content_digest(data)),
            ("known_us", known),
        ):
            started = time.perf_counter_ns()
            step()
            timings[key].append(time.perf_counter_ns() - started)
    return {key: round(sorted(v)[len(v) // 2] / 1000, 1) for key, v in timings.items()}


def _mode(values: list[int]) -> int | None:
    return max(set(values), key=values.count) if values else None


# -- the 4 MiB buffer, sent again and again ---------------------------------------------


def big_buffer(bench: Bench) -> bytes:
    """A buffer of exactly the source limit: the edited module, then comment lines (some
    with characters of two to four UTF-8 bytes), so that it parses well within a deadline."""
    head = buffer_module(bench.workspace / "buffers" / "big-head.py").render()
    pad = [b"# padding line %06d " % i + "caf\u00e9 \u2713 \U0001f600\n".encode() for i in range(8)]
    out = bytearray(head)
    i = 0
    while len(out) < TEXT_LIMIT:
        out += pad[i % len(pad)]
        i += 1
    del out[TEXT_LIMIT - 1 :]
    while out[-1] >= 0x80:  # never end inside a character
        del out[-1]
    out += b"\n" * (TEXT_LIMIT - len(out))
    return bytes(out)


def big_text_memory(bench: Bench) -> tuple[list[Row], dict[str, Any]]:
    """Send a 4 MiB buffer ``plan.text_memory_sends`` times; the tree's memory as it goes."""
    plan = bench.plan
    sends, every = plan.text_memory_sends, plan.text_memory_changed_every
    server = _start(bench, [], "gz-big-buffer")
    base = big_buffer(bench)
    path = bench.workspace / "buffers" / "big.py"
    unchanged_s = Series("text_memory", "4 MiB buffer sent again", "memo answers")
    changed_s = Series("text_memory_changed", "4 MiB buffer, changed", "a worker analyzes it")
    supported = procfs.supported()
    checkpoints: list[dict[str, Any]] = []
    if supported:
        checkpoints.append({"sends": 0, **tree_memory(server.pid)})
    version = 0
    frame = b""
    request_id = 0
    step = max(1, sends // 20)
    for sent in range(1, sends + 1):
        changed = sent == 1 or sent % every == 0
        if changed:
            version += 1
            mark = b"# version %08d\n" % version
            data = base[: TEXT_LIMIT - len(mark)] + mark
            request_id, frame = _text_frame(server, path, data, None)
        elapsed, body = server.timed(frame)
        hints_of(check_response(body, request_id))
        (changed_s if changed else unchanged_s).add(elapsed)
        if supported and (sent % step == 0 or sent == sends):
            checkpoints.append({"sends": sent, **tree_memory(server.pid)})
        if sent % max(1, sends // 4) == 0:
            bench.progress.say(f"4 MiB buffer: {sent}/{sends}")
    peaks = [procfs.peak_rss_kib(pid) / 1024 for pid in procfs.tree(server.pid)]
    bench.stop(server)
    half = next((c for c in checkpoints if c["sends"] >= sends // 2), None)
    last = checkpoints[-1] if checkpoints else None
    growth = None
    if half is not None and last is not None and half["rss_mib"] > 0:
        growth = round((last["rss_mib"] - half["rss_mib"]) / half["rss_mib"] * 100, 2)
    report = {
        "supported": supported,
        "sends": sends,
        "changed_every": every,
        "text_bytes": TEXT_LIMIT,
        "request_bytes": len(frame),
        "checkpoints": checkpoints,
        "peak_rss_mib_by_process": [round(p, 1) for p in peaks],
        "rss_mib_idle": checkpoints[0]["rss_mib"] if checkpoints else None,
        "rss_mib_half": half["rss_mib"] if half else None,
        "rss_mib_final": last["rss_mib"] if last else None,
        "growth_pct_second_half": growth,
        "method": "sum of VmRSS over the server and its descendants between requests; "
        "VmHWM (each process's peak resident size) at the end, the frontend first",
    }
    rows = [
        Row(
            "text_memory",
            f"4 MiB buffer sent {sends:,} times: unchanged sends",
            unchanged_s,
            [changed_s],
            notes=[f"one send in {every} is a changed version, analyzed by a worker"],
            extra={"sends": sends, "request_bytes": len(frame)},
        )
    ]
    return rows, report
