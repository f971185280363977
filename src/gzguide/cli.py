"""The ``gz`` command.

``gz complexity guide --server``   serve the authoring-guide protocol on stdin/stdout
``gz complexity guide --lsp``      serve the Language Server Protocol on stdin/stdout
``gz complexity guide PATH...``    print the hints the server would give for PATHs
``gz complexity guide --stdin-path NAME``  the same for the text on stdin, reported as NAME
``gz complexity measure PATH...``  print every metric value, in or out of any band
``gz complexity check PATH...``    the gate: list every value at or past warn (or block)
``gz complexity fix PATH...``      make the verified fixes of the hints (``--diff``: show them)
``gz complexity logs FILE...``     summarize server log files (``--json`` for JSON)

The gate, for CI and pre-commit: ``gz complexity check`` lists each value at or past
the boundary of ``--fail-at`` (``warn``, the default, or ``block``) in the workspace's
threshold table (``--root``'s ``.gzkit/rules/complexity-thresholds.json``, else the
embedded default), and exits 1 when it listed one (2 on a usage error). ``--since
REV`` keeps the functions, methods and classes whose text changed since git
revision REV (and module values of files that changed at all); ``--select`` keeps
some metrics; ``--format json`` or ``github`` (workflow commands: annotations) is for
programs. In ``.pre-commit-config.yaml``::

    - repo: <this repository>
      rev: <a tag>
      hooks:
        - id: gzguide-check
          args: [--since, HEAD]

Imports are kept lazy: the server's start-up time is part of what editors feel.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, BinaryIO

from gzguide import collector

if TYPE_CHECKING:
    from gzguide.service import AnalysisService
    from gzguide.workers import Backend
    from gzguide.workers.pool import Pool
    from gzguide.workspace import ThresholdSource


def _positive_float(text: str) -> float:
    value = float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError("must be a positive number of seconds")
    return value


def _worker_count(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError("must be 0 or more")
    return value


def _metric_names(text: str) -> frozenset[str]:
    from gzguide.analysis.engine import MEASURED_METRICS

    names = frozenset(name.strip() for name in text.split(","))
    unknown = sorted(names - MEASURED_METRICS)
    if unknown:
        known = ", ".join(sorted(MEASURED_METRICS))
        raise argparse.ArgumentTypeError(
            f"unknown metric {', '.join(map(repr, unknown))} (known: {known})"
        )
    return names


#: Each worker's heap limit by default: well above the peak of the largest file the
#: server analyzes (4 MiB of real code), well below what a pathological file of
#: that size takes (one huge literal list); ``benchmarks/README.md`` ("Where the
#: constants come from") says how both were measured.
DEFAULT_WORKER_MEMORY_MIB = 1024


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="gz", description="gzkit tools.")
    tools = parser.add_subparsers(dest="tool", required=True)
    complexity = tools.add_parser("complexity", help="complexity guidance")
    commands = complexity.add_subparsers(dest="command", required=True)

    guide = commands.add_parser(
        "guide",
        help="authoring hints: serve them to an editor, or print them for PATHs",
        description=(
            "With --server, speak the authoring-guide protocol on stdin/stdout. "
            "Otherwise print the hints the server would return for each PATH."
        ),
    )
    guide.add_argument("paths", nargs="*", metavar="PATH", help="files or folders to analyze")
    guide.add_argument("--server", action="store_true", help="serve the protocol on stdio")
    guide.add_argument(
        "--lsp", action="store_true", help="serve the Language Server Protocol (3.17) on stdio"
    )
    guide.add_argument(
        "--stdio",
        action="store_true",
        help="the transport of --lsp and --server (the only one; accepted because LSP "
        "clients pass it)",
    )
    guide.add_argument("--json", action="store_true", help="print protocol hint objects as JSON")
    guide.add_argument(
        "--stdin-path",
        default=None,
        metavar="NAME",
        help="analyze the text read from stdin (an editor's buffer) and report it as NAME",
    )
    guide.add_argument(
        "--root", default=None, help="workspace root for relative paths (default: cwd)"
    )
    guide.add_argument("--log-level", default="info", choices=("debug", "info", "warning", "error"))
    guide.add_argument("--log-file", default=None, help="append logs here instead of stderr")
    guide.add_argument(
        "--workers",
        type=_worker_count,
        default=None,
        help="analysis worker processes (default: CPU count; 0 analyzes in-process)",
    )
    guide.add_argument(
        "--analysis-timeout",
        type=_positive_float,
        default=5.0,
        metavar="SECONDS",
        help="deadline for analyzing one file (default: 5)",
    )
    guide.add_argument(
        "--worker-memory",
        type=_worker_count,
        default=DEFAULT_WORKER_MEMORY_MIB,
        metavar="MIB",
        help=(
            "heap limit of each worker process; an analysis that needs more gives no "
            f"hints (default: {DEFAULT_WORKER_MEMORY_MIB}; 0: no limit)"
        ),
    )

    measure = commands.add_parser(
        "measure",
        help="every metric value of every function, class and module",
        description=(
            "Print every metric value of every function, class and module of each PATH, "
            "in or out of any band: the numbers behind the hints."
        ),
    )
    measure.add_argument("paths", nargs="+", metavar="PATH", help="files or folders to measure")
    measure.add_argument("--json", action="store_true", help="print one JSON array of values")

    _add_check(commands)
    _add_fix(commands)

    logs = commands.add_parser(
        "logs",
        help="summarize server log files",
        description="Summarize JSON-lines logs written by `gz complexity guide --server`.",
    )
    logs.add_argument("files", nargs="+", metavar="FILE", help="log files (merged)")
    logs.add_argument("--json", action="store_true", help="print the summary as one JSON object")
    return parser


def _add_check(commands: Any) -> None:
    check = commands.add_parser(
        "check",
        help="the gate: list every value at or past warn (or block); exit 1 if any",
        description=(
            "List every value at or past the boundary of --fail-at in the workspace's\n"
            "threshold table (the one the server uses), one line each, and exit 1 when\n"
            "one is listed or a file is not analyzable Python; 2 on a usage error."
        ),
        epilog=(
            "pre-commit: in .pre-commit-config.yaml, under the repository of gzguide,\n"
            "  hooks:\n"
            "    - id: gzguide-check\n"
            "      args: [--since, HEAD]   # only code changed since the last commit\n"
            "CI: gz complexity check src --since origin/main --format github"
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    check.add_argument("paths", nargs="+", metavar="PATH", help="files or folders to check")
    check.add_argument(
        "--fail-at",
        choices=("warn", "block"),
        default="warn",
        help="the boundary values are listed at or past (default: warn)",
    )
    check.add_argument(
        "--since",
        default=None,
        metavar="REV",
        help=(
            "only definitions whose text changed since git revision REV, and module "
            "values of files that changed"
        ),
    )
    check.add_argument(
        "--format",
        choices=("text", "json", "github"),
        default="text",
        help="text lines, one JSON array, or GitHub Actions workflow commands (default: text)",
    )
    check.add_argument(
        "--select",
        type=_metric_names,
        default=None,
        metavar="METRIC,...",
        help="only these metrics (default: every metric of the table)",
    )
    check.add_argument(
        "--root",
        default=None,
        metavar="DIR",
        help=(
            "workspace root: whose threshold table applies, whose git work tree "
            "--since reads (default: cwd)"
        ),
    )


def _add_fix(commands: Any) -> None:
    fix = commands.add_parser(
        "fix",
        help="make the verified fixes of the hints in place (--diff: print them instead)",
        description=(
            "Make the fixes of the hints of each PATH that are verified (the edited code "
            "measured again gives what the move promised, and nothing else changes), "
            "until none is left. Safe fixes only, unless --unsafe-fixes."
        ),
    )
    fix.add_argument("paths", nargs="+", metavar="PATH", help="files or folders to fix")
    fix.add_argument(
        "--diff",
        action="store_true",
        help="print a unified diff and write nothing; exit 1 when there is a change",
    )
    fix.add_argument(
        "--unsafe-fixes",
        action="store_true",
        help="also make fixes that may change behaviour for some inputs",
    )
    fix.add_argument(
        "--select",
        type=_metric_names,
        default=None,
        metavar="METRIC,...",
        help="only the hints of these metrics (default: every metric)",
    )
    fix.add_argument(
        "--root", default=None, metavar="DIR", help="workspace root: whose threshold table applies"
    )


def run_fix(args: argparse.Namespace) -> int:
    from gzguide.fixing import run_fix as fix

    return fix(args)


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if not getattr(args, "server", False) and not getattr(args, "lsp", False):
        _quiet_broken_pipe()
    collector.tune()  # every command analyzes code in this process, or starts a server
    return _COMMANDS[args.tool, args.command](args)


def run_guide(args: argparse.Namespace) -> int:
    """``gz complexity guide``: one of its modes, once its arguments fit that mode."""
    run, problem = _guide_mode(args)
    message = problem(args)
    if message is not None:
        print(f"gz: {message}", file=sys.stderr)
        return 2
    return run(args)


_Command = Callable[[argparse.Namespace], int]
_Problem = Callable[[argparse.Namespace], str | None]


def _guide_mode(args: argparse.Namespace) -> tuple[_Command, _Problem]:
    """The mode the arguments ask for, and what is wrong with them for it (None: nothing)."""
    if args.server or args.lsp:
        return run_server, _server_problem
    if args.stdio:
        return run_server, _stdio_problem
    if args.stdin_path is not None:
        return run_stdin, _stdin_problem
    return run_oneshot, _paths_problem


def _stdio_problem(args: argparse.Namespace) -> str | None:
    return "--stdio is the transport of --lsp or --server: give one of them"


def _server_problem(args: argparse.Namespace) -> str | None:
    if args.server and args.lsp:
        return "--server and --lsp are two modes: choose one"
    if args.paths or args.stdin_path is not None:
        mode = "--lsp" if args.lsp else "--server"
        return f"{mode} takes no PATH arguments nor --stdin-path"
    return None


def _stdin_problem(args: argparse.Namespace) -> str | None:
    if args.paths or not args.stdin_path:
        return "--stdin-path takes a NAME, and no PATH arguments"
    return None


def _paths_problem(args: argparse.Namespace) -> str | None:
    if not args.paths:
        return "give PATHs to analyze, --stdin-path NAME, or --server"
    return None


def run_check(args: argparse.Namespace) -> int:
    from gzguide.gate.command import run_check as check

    return check(args)


def _quiet_broken_pipe() -> None:
    """A report piped into ``head`` ends quietly when the reader leaves, as Unix tools do."""
    import signal

    if hasattr(signal, "SIGPIPE"):
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)


def run_server(args: argparse.Namespace) -> int:
    from gzguide.rpc.stdio import claim_stdout

    out_fd = claim_stdout()  # first: nothing else may ever write to the real stdout

    from gzguide import logs
    from gzguide.service import AnalysisService
    from gzguide.workers.memo import Memo
    from gzguide.workspace import ThresholdSource

    logs.quiet_stray_output()
    root = os.path.abspath(args.root or os.getcwd())
    log_fd = logs.open_log_fd(args.log_file)
    logs.configure(args.log_level, log_fd, deferred=True, process="frontend")
    log = logs.get_logger()
    events = logs.event_sink(log)
    workers = _workers(args)
    backend, pool = _make_backend(args, workers, events)
    table = ThresholdSource(root, events)
    service = AnalysisService(
        root,
        backend,
        memo=Memo(),
        on_error=log.error,
        directory_budget_s=args.analysis_timeout,
        thresholds=table,
    )
    log.info("server_start", **_start_fields(args, root, workers, table))
    try:
        companions = [pool] if pool is not None else []
        return _serve(args, service, log, out_fd, companions)
    finally:
        backend.close()
        logs.flush()


def _workers(args: argparse.Namespace) -> int:
    """``--workers``, or one per CPU when it was not given."""
    return (os.cpu_count() or 1) if args.workers is None else int(args.workers)


def _start_fields(
    args: argparse.Namespace, root: str, workers: int, table: ThresholdSource
) -> dict[str, object]:
    """What the ``server_start`` log line says about this server."""
    from gzguide import PROTOCOL_VERSION, __version__

    return {
        "version": __version__,
        "protocol": "lsp-3.17" if args.lsp else PROTOCOL_VERSION,
        "transport": "stdio",
        "root": root,
        "workers": workers,
        "analysis_timeout_s": args.analysis_timeout,
        "worker_memory_mib": args.worker_memory or None,
        "thresholds": table.path if table.exists() else "embedded",
    }


def _serve(
    args: argparse.Namespace,
    service: AnalysisService,
    log: Any,
    out_fd: int,
    companions: list[Pool],
) -> int:
    """Run the front end ``--lsp`` asks for until it stops; the exit status."""
    from gzguide import logs

    if args.lsp:
        from gzguide.lsp.server import serve_lsp

        return serve_lsp(service, log, out_fd, companions=companions, idle=logs.flush)
    from gzguide.guide.server import serve

    return serve(service, log, out_fd, companions=companions, idle=logs.flush)


def _make_backend(
    args: argparse.Namespace, workers: int, events: Callable[..., None]
) -> tuple[Backend, Pool | None]:
    """The pool, falling back to in-process analysis; in-process only with ``--workers 0``.

    The pool is returned too: the server's loop watches its pipes.
    """
    from gzguide.workers.inprocess import InProcessBackend

    if workers == 0:
        return InProcessBackend(on_event=events), None
    from gzguide.workers.fallback import Fallback
    from gzguide.workers.pool import Pool

    pool = Pool(
        workers,
        args.analysis_timeout,
        on_event=events,
        log_level=args.log_level,
        log_file=args.log_file,
        memory_mib=args.worker_memory or None,
    )
    return Fallback(pool, lambda: InProcessBackend(on_event=events), events), pool


def run_oneshot(args: argparse.Namespace) -> int:
    from gzguide.guide.messages import Hint, answer_hints
    from gzguide.service import AnalysisService, Request
    from gzguide.source import Source
    from gzguide.workers.inprocess import InProcessBackend

    root = os.path.abspath(args.root or os.getcwd())
    service = AnalysisService(root, InProcessBackend())
    hints: list[Hint] = []
    for path in args.paths:
        hints.extend(answer_hints(service.analyze_now(Request(Source(path)))))
    print_hints(hints, args.json)
    return 0


def run_stdin(args: argparse.Namespace) -> int:
    """The hints for the text on stdin, as the server gives them for a buffer sent as text.

    The bytes are analyzed as they are (as a file holding them would be); NAME is
    what the hints report, and resolves against ``--root`` for the workspace's
    threshold table. Nothing is read from disk for it.
    """
    from gzguide.analysis.source import MAX_SOURCE_BYTES
    from gzguide.guide.messages import answer_hints
    from gzguide.service import AnalysisService, Request
    from gzguide.source import Buffer, Source
    from gzguide.workers.inprocess import InProcessBackend

    text = read_capped(sys.stdin.buffer, MAX_SOURCE_BYTES)
    if text is None:  # what the server answers for such a text: no hints
        print(f"gz: {args.stdin_path}: more than {MAX_SOURCE_BYTES} bytes", file=sys.stderr)
        print_hints([], args.json)
        return 0
    root = os.path.abspath(args.root or os.getcwd())
    service = AnalysisService(root, InProcessBackend())
    answer = service.analyze_now(Request(Source(args.stdin_path, Buffer(text))))
    print_hints(answer_hints(answer), args.json)
    return 0


def read_capped(stream: BinaryIO, limit: int) -> bytes | None:
    """All of ``stream``'s bytes, or None when there are more than ``limit``.

    The rest of a longer input is still read (and dropped), so a writer piping a
    buffer in never meets a closed pipe.
    """
    chunks: list[bytes] = []
    total = 0
    while chunk := stream.read(1 << 16):
        total += len(chunk)
        if total <= limit:
            chunks.append(chunk)
        else:
            chunks.clear()
    return None if total > limit else b"".join(chunks)


def print_hints(hints: Sequence[Any], as_json: bool) -> None:
    import msgspec

    if as_json:
        sys.stdout.buffer.write(msgspec.json.format(msgspec.json.encode(hints), indent=2) + b"\n")
    else:
        sys.stdout.write(format_table(hints))


def run_measure(args: argparse.Namespace) -> int:
    """Every value of every file under PATHs; unanalyzable files are named on stderr."""
    import msgspec

    status, rows = _measure_rows(args.paths)
    if args.json:
        sys.stdout.buffer.write(msgspec.json.format(msgspec.json.encode(rows), indent=2) + b"\n")
    else:
        sys.stdout.write(_measure_table(rows))
    return status


def _measure_rows(paths: Sequence[str]) -> tuple[int, list[dict[str, object]]]:
    """The rows of the files under ``paths``, and 1 if one was not analyzable, else 0."""
    import msgspec

    from gzguide.analysis.discovery import covered_files
    from gzguide.analysis.inventory import values_of
    from gzguide.analysis.source import read_source_bytes

    rows: list[dict[str, object]] = []
    status = 0
    for path in paths:
        for shown, real in covered_files(path):
            data = read_source_bytes(real)
            values = values_of(data) if data is not None else None
            if values is None:
                print(f"gz: {shown}: not analyzable Python", file=sys.stderr)
                status = 1
                continue
            rows.extend({"file_path": shown, **msgspec.structs.asdict(v)} for v in values)
    return status, rows


def _measure_table(rows: Sequence[dict[str, object]]) -> str:
    out = []
    for row in rows:
        where = f"{row['file_path']}:{row['start_line']}-{row['end_line']}"
        subject = f"{row['kind']} {row['name']}".rstrip()
        value = row["value"]
        assert isinstance(value, float)
        out.append(f"{where}  {subject}  {row['metric']}={value:g}\n")
    return "".join(out)


def run_logs(args: argparse.Namespace) -> int:
    from gzguide.loginspect import LogFileError, encode_json, format_text, summarize

    try:
        summary = summarize(args.files)
    except LogFileError as exc:
        print(f"gz: {exc}", file=sys.stderr)
        return 2
    if args.json:
        sys.stdout.buffer.write(encode_json(summary) + b"\n")
    else:
        sys.stdout.write(format_text(summary))
    return 0


def format_table(hints: Sequence[Any]) -> str:
    """A readable listing: one heading line per hint, then its advice."""
    if not hints:
        return "No hints: nothing here is inside an advise band.\n"
    out: list[str] = []
    for h in hints:
        where = f"{h.file_path}:{h.start_line}-{h.end_line}"
        value = f"{h.crossing_value:g}"
        out.append(f"{where}  {h.metric}={value}  [{h.precedence_band}, {h.archetype}]")
        out.append(f"    {h.doctrinal_frame_headline}")
        out.append(f"    -> {h.recommended_move}")
    files = len({h.file_path for h in hints})
    plural = "s" if len(hints) != 1 else ""
    files_plural = "s" if files != 1 else ""
    out.append(f"\n{len(hints)} hint{plural} in {files} file{files_plural}.")
    return "\n".join(out) + "\n"


#: Each command's runner, by (tool, command).
_COMMANDS: dict[tuple[str, str], _Command] = {
    ("complexity", "guide"): run_guide,
    ("complexity", "measure"): run_measure,
    ("complexity", "fix"): run_fix,
    ("complexity", "check"): run_check,
    ("complexity", "logs"): run_logs,
}
