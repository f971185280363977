"""The fuzz run's driver: real servers fed the drawn streams, every answer compared with the model.

:class:`FuzzDriver` keeps one long-lived server: a stream is written whole or
split into writes with tiny pauses, then a sync request (an unknown method with a
fresh id), and every response read up to its answer; the list must equal the
model's, nothing missing and nothing extra. Analyze results are compared with the
reference server's (:mod:`support.fuzz_workspace`). :func:`check_ending` plays a fresh
session to its end (EOF at any byte, ``shutdown``, a version mismatch, a closed
stdout).
"""

from __future__ import annotations

import contextlib
import itertools
import os
from pathlib import Path

from support.fuzz_model import (
    METHOD_NOT_FOUND,
    PARSE_ERROR,
    Expected,
    ModelRun,
    Session,
    describe_stream,
    mismatches,
    run_model,
)
from support.fuzz_strategies import EndingPlan, Finale, FuzzStream, prepare, write_in_pieces
from support.fuzz_workspace import ReferenceServer
from support.protocol_client import Response, ServerFailure, ServerProcess, frame

# == The driver ============================================================================

_sync_ids = itertools.count(1)
SYNC_METHOD = "gzguide-fuzz/sync"


def sync_frame(sync_id: str) -> bytes:
    return frame({"id": sync_id, "method": SYNC_METHOD})


class ExampleFailed(AssertionError):
    """The server's answers to one stream differ from the model's."""


class FuzzDriver:
    """One long-lived server, fed stream after stream; restarted after any failure."""

    def __init__(self, cwd: Path, reference: ReferenceServer, version: str = "1.0") -> None:
        self.cwd = cwd
        self.reference = reference
        #: The protocol version this driver's sessions are initialized at.
        self.version = version
        self.server: ServerProcess | None = None
        #: The state the model says the session is in.
        self.session: Session = None
        self.examples = 0
        self.restarts = 0
        #: Tracebacks and error-level log lines seen on the stderr of servers retired so far.
        self.log_problems: list[str] = []

    def _ensure(self) -> ServerProcess:
        if self.server is None or self.server.proc.poll() is not None:
            if self.server is not None:
                self.server.kill()
            self.server = ServerProcess(cwd=self.cwd)
            self.session = None
            self.restarts += 1
        return self.server

    def restart(self) -> None:
        """A fresh, uninitialized session (drawn now and then, and after failures)."""
        self.close()
        self._ensure()

    def _retire(self, server: ServerProcess) -> None:
        """Note what the server's stderr holds that no fuzzed input should cause."""
        for line in server.stderr().splitlines():
            if "Traceback" in line or '"level":"error"' in line:
                self.log_problems.append(f"pid {server.pid}: {line[:300]}")

    def begin(self, fresh: bool) -> Session:
        """Start an example in the drawn state: a new session, or one at this driver's version.

        The state is drawn, never read from the server, so that hypothesis sees the
        same generation when it replays an example. Returns the session's state.
        """
        if fresh:
            self.restart()
            return None
        if self.session not in (None, self.version):
            self.restart()  # a new session's stream left it at the other version
        server = self._ensure()
        if self.session is None:
            server.initialize(self.version, id="driver-initialize")
            self.session = self.version
        return self.session

    def close(self) -> None:
        if self.server is not None:
            self._retire(self.server)
            self.server.kill()
            self.server = None

    def check(self, fuzz: FuzzStream, run: ModelRun) -> None:
        """Send the stream (realigned) and a sync request; compare every answer.

        With ``fuzz.await_answers`` every owed answer must arrive before the sync
        request is sent: each response is flushed at once, never held back until
        more input comes.
        """
        server = self._ensure()
        assert fuzz.session_before == self.session
        sync_id = f"sync-{os.getpid()}-{next(_sync_ids)}"
        expected = [*run.expected, Expected(sync_id, METHOD_NOT_FOUND, "the sync request")]
        got: list[Response] = []
        failure = None
        self.examples += 1
        try:
            write_in_pieces(server, fuzz.stream, fuzz.cuts, fuzz.pause)
            if fuzz.await_answers:
                while len(got) < len(run.expected):
                    got.append(server.read_response(timeout=10))
            server.write(sync_frame(sync_id))
            while len(got) <= len(expected) + 8:
                response = server.read_response(timeout=15)
                got.append(response)
                if response.message.get("id") == sync_id:
                    break
        except (ServerFailure, AssertionError, OSError) as exc:
            failure = f"the server failed: {exc}"
        problems = mismatches(expected, got, self.reference.hints)
        if failure is not None:
            problems.insert(0, failure)
        if problems:
            stderr = server.stderr()[-1500:]
            self.close()
            raise ExampleFailed(
                failure_report(fuzz.session_before, fuzz.stream, problems, expected, stderr)
            )
        self.session = run.session


def failure_report(
    session: Session, stream: bytes, problems: list[str], expected: list[Expected], stderr: str
) -> str:
    owed = "\n".join(f"  {e.describe()}" for e in expected[:60])
    return (
        f"server answers differ from the model (session before: {session}):\n"
        + "\n".join(problems[:20])
        + f"\nowed:\n{owed}\n{describe_stream(stream)}\nserver stderr tail: {stderr}"
    )


def check_on_fresh_server(
    cwd: Path,
    reference: ReferenceServer,
    stream: bytes,
    session: Session = None,
    finale: Finale | None = None,
) -> None:
    """Replay one stream on a fresh server (the body of a regression test).

    ``session``: a valid initialize at that version is sent first. ``finale`` None:
    the stream is realigned and followed by a sync request; else the stream is sent
    as given and must end the session that way (EOF: stdin is closed after it).
    """
    init = {"id": "pre", "method": "initialize", "params": {"clientVersion": session}}
    whole = (frame(init) if session else b"") + stream
    with ServerProcess(cwd=cwd) as server:
        if finale is None:
            prepared = prepare(FuzzStream(None, whole))
            assert prepared is not None, "the model cannot judge this stream"
            driver = FuzzDriver(cwd, reference)
            driver.server = server
            driver.check(*prepared)
            return
        status = run_model(whole, None).exit_status or 0
        check_ending(server, reference, EndingPlan(FuzzStream(None, whole), finale, status))


def check_ending(server: ServerProcess, reference: ReferenceServer, plan: EndingPlan) -> None:
    """Write the plan's stream; the session must end as planned, all owed answers given.

    EOF: stdin is closed after the stream. Shutdown and version mismatch: the
    server must exit by itself (bytes after the ending may meet a closed pipe).
    Either way it must exit with the planned status, leave no process behind, and
    have written exactly the owed responses.
    """
    fuzz = plan.fuzz
    if plan.finale is Finale.OUTPUT_CLOSED:
        check_output_closed(server, plan)
        return
    run = run_model(fuzz.stream, None)
    problems: list[str] = []
    try:
        try:
            write_in_pieces(server, fuzz.stream, fuzz.cuts, fuzz.pause)
        except (BrokenPipeError, ServerFailure):
            if plan.finale is Finale.EOF:
                raise
        if plan.finale is Finale.EOF:
            server.close_stdin()
        got = server.finish(plan.status)
        expected = run.expected
        if run.optional_error and len(got) == len(expected) + 1:
            expected = [*expected, Expected(None, PARSE_ERROR, "over-long partial line at EOF")]
        problems = mismatches(expected, got, reference.hints)
    except (ServerFailure, AssertionError, OSError) as exc:
        problems = [f"the server failed: {exc}"]
    if problems:
        raise ExampleFailed(
            failure_report(None, fuzz.stream, problems, run.expected, server.stderr()[-1500:])
            + f"\nfinale: {plan.finale.value}, status wanted {plan.status}"
        )


def check_output_closed(server: ServerProcess, plan: EndingPlan) -> None:
    """The client closes its end of the server's stdout: exit 0 promptly and quietly.

    Whatever was answered before is not checked (the client stopped listening);
    what is: the exit status, no traceback on stderr, no process left behind. A
    request sent afterwards makes sure the server has something to answer into
    the closed pipe, unless it has already left.
    """
    fuzz = plan.fuzz
    problems: list[str] = []
    try:
        write_in_pieces(server, fuzz.stream, fuzz.cuts, fuzz.pause)
        server.close_stdout()
        with contextlib.suppress(BrokenPipeError, ServerFailure):
            server.write(frame({"id": "into-the-void", "method": "gzguide/x"}))
        status = server.wait_exit()
        if status != 0:
            problems.append(f"exit status {status} after stdout was closed, wanted 0")
        server.assert_no_stray_processes()
        if "Traceback" in server.stderr():
            problems.append("a traceback on stderr after stdout was closed")
    except (ServerFailure, AssertionError, OSError) as exc:
        problems = [f"the server failed: {exc}"]
    if problems:
        raise ExampleFailed(
            "\n".join(problems)
            + f"\n{describe_stream(fuzz.stream)}\nserver stderr tail: {server.stderr()[-1500:]}"
        )
