"""Fault injection against the LSP mode: the other mode's faults, met by an editor's session.

Workers die under a buffer's analysis (SIGKILL, SIGSEGV, SIGSTOP past the deadline,
idle or busy, with documents queued behind them or changed meanwhile), an analysis
runs out of its heap, buffers defeat the parser, and the client misbehaves: it
leaves mid-message, stops reading its stdout (blocking or non-blocking), never
reads its stderr, or kills the server. Each test ends by checking that every open
document's latest version was published with the right diagnostics (or that the
process tree is gone, for the endings), and that every request got one answer.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest

from gzguide import procfs
from gzguide.client import GuideClient
from support.lsp_pipes import LspProcess, expected_diagnostics, lsp_message
from support.pool_log import events, live_worker_pids, ready_workers, wait_for, worker_pid_for
from support.pool_sources import BRANCHY, PATHOLOGICAL, slow_source
from support.protocol_client import frame
from support.stderr_pipe import assert_dropped_lines_told, drain

pytestmark = pytest.mark.timeout(180)

#: How each way of losing a worker mid-job shows in the log (``job_failed.reason``).
LOSSES = {"kill": "crashed", "segv": "crashed", "stop": "timeout"}
SIGNALS = {"kill": signal.SIGKILL, "segv": signal.SIGSEGV, "stop": signal.SIGSTOP}


def start(tmp_path: Path, log_path: Path, *extra: str, **process: Any) -> LspProcess:
    args = ("--workers", "2", "--log-file", str(log_path), "--root", str(tmp_path), *extra)
    lsp = LspProcess(args=args, cwd=tmp_path, **process)
    lsp.initialize()
    return lsp


def uri_of(tmp_path: Path, name: str) -> str:
    return (tmp_path / name).as_uri()


Expected = Callable[[str, str], list[dict[str, Any]]]


class Reference:
    """The other mode's answers for buffers, from one long-lived ``--server --workers 0``
    session at protocol 1.1 (no threshold file anywhere: the root does not matter)."""

    def __init__(self, root: Path) -> None:
        self.guide = GuideClient.start(
            root=str(root), options=["--workers", "0"], stderr=subprocess.DEVNULL
        )
        self.guide.initialize("1.1")

    def hints(self, path: Path, text: str) -> list[dict[str, Any]]:
        return [msgspec.to_builtins(hint) for hint in self.guide.analyze(str(path), text=text)]

    def close(self) -> None:
        self.guide.shutdown()
        self.guide.close()


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Reference]:
    guide = Reference(tmp_path_factory.mktemp("reference"))
    yield guide
    guide.close()


@pytest.fixture
def expected(reference: Reference, tmp_path: Path) -> Expected:
    """The diagnostics of a text as the document ``tmp_path/name``, from the other
    mode's answer for the same text (UTF-16 positions, the default)."""

    def diagnostics(name: str, text: str) -> list[dict[str, Any]]:
        return expected_diagnostics(reference.hints(tmp_path / name, text), text, "utf-16")

    return diagnostics


def variant(number: int, copies: int = 1) -> str:
    """A small module with a hint, different for every ``number``."""
    return BRANCHY.replace("def ", f"def n{number}_", 1) * copies


def busy(pid: int) -> bool:
    info = procfs.stat(pid)
    return info is not None and info.state == "R"


def versions_published(lsp: LspProcess, uri: str) -> list[int | None]:
    return [
        note["params"].get("version")
        for note in lsp.notifications
        if note["method"] == "textDocument/publishDiagnostics" and note["params"]["uri"] == uri
    ]


def end_by_eof(lsp: LspProcess) -> None:
    """Close stdin: exit 0, nothing left behind, every frame written whole."""
    lsp.server.close_stdin()
    lsp.server.finish()


# -- workers that die or stop under a buffer's analysis --------------------------------


@pytest.mark.parametrize("how", list(LOSSES))
def test_a_worker_lost_mid_analysis_costs_that_version_only(
    tmp_path: Path, log_path: Path, how: str, expected: Expected
) -> None:
    timeout = ("--analysis-timeout", "1") if how == "stop" else ()
    with start(tmp_path, log_path, *timeout) as lsp:
        ready_workers(log_path, 2)
        victim = worker_pid_for(tmp_path, log_path, "slow.py")
        uri = uri_of(tmp_path, "slow.py")
        lsp.open(uri, slow_source())
        wait_for(lambda: busy(victim))
        os.kill(victim, SIGNALS[how])
        assert lsp.publication(uri, 1, timeout=30) == []
        failed = wait_for(lambda: events(log_path, "job_failed"))
        assert failed[0]["worker"]["pid"] == victim
        assert failed[0]["reason"] == LOSSES[how]
        assert failed[0]["source"] == "text"
        wait_for(lambda: victim not in live_worker_pids(log_path))
        wait_for(lambda: len(live_worker_pids(log_path)) == 2)
        # The same buffer again is not sent to a worker for a while (quarantined by its
        # digest); an edited one is analyzed by the replacement.
        lsp.replace(uri, 2, slow_source())
        assert lsp.publication(uri, 2) == []
        assert len(events(log_path, "job_failed")) == 1
        lsp.replace(uri, 3, BRANCHY)
        assert lsp.publication(uri, 3) == expected("slow.py", BRANCHY)
        end_by_eof(lsp)


def names_on(tmp_path: Path, log_path: Path, pid: int, count: int, prefix: str) -> list[str]:
    """``count`` document names whose jobs go to the worker ``pid``."""
    names: list[str] = []
    number = 0
    while len(names) < count:
        name = f"{prefix}{number}.py"
        if worker_pid_for(tmp_path, log_path, name) == pid:
            names.append(name)
        number += 1
    return names


def test_documents_queued_behind_a_dying_worker_are_all_published(
    tmp_path: Path, log_path: Path, expected: Expected
) -> None:
    """Documents whose jobs wait behind the one that kills its worker lose nothing: the
    replacement analyzes them, and a hover waiting on the lost version is answered."""
    with start(tmp_path, log_path, "--analysis-timeout", "60") as lsp:
        ready_workers(log_path, 2)
        victim = worker_pid_for(tmp_path, log_path, "slow.py")
        other = (live_worker_pids(log_path) - {victim}).pop()
        slow = uri_of(tmp_path, "slow.py")
        lsp.open(slow, slow_source())
        wait_for(lambda: busy(victim))
        texts: dict[str, str] = {}
        queued = names_on(tmp_path, log_path, victim, 4, "q")
        elsewhere = names_on(tmp_path, log_path, other, 2, "e")
        for number, name in enumerate(queued + elsewhere):
            texts[name] = variant(number, 1 + number % 3)
            lsp.open(uri_of(tmp_path, name), texts[name])
        hover = {"textDocument": {"uri": slow}, "position": {"line": 1, "character": 4}}
        lsp.send(lsp_message("textDocument/hover", hover, id="hover"))
        for name in elsewhere:  # the other worker goes on meanwhile
            assert lsp.publication(uri_of(tmp_path, name), 1) == expected(name, texts[name])
        os.kill(victim, signal.SIGKILL)
        assert lsp.response("hover").result is None
        assert lsp.publication(slow, 1) == []
        for name in queued:
            assert lsp.publication(uri_of(tmp_path, name), 1) == expected(name, texts[name])
        (failed,) = events(log_path, "job_failed")
        assert failed["worker"]["pid"] == victim and failed["reason"] == "crashed"
        for name in [*queued, *elsewhere, "slow.py"]:
            assert versions_published(lsp, uri_of(tmp_path, name)) == [1]
        end_by_eof(lsp)


@pytest.mark.parametrize("how", ["kill", "stop"])
def test_a_document_changed_while_its_worker_dies_publishes_its_new_version(
    tmp_path: Path, log_path: Path, how: str, expected: Expected
) -> None:
    """The lost analysis was of a version already gone: nothing is published for it, and
    the version the client holds now is analyzed by the replacement."""
    timeout = ("--analysis-timeout", "1") if how == "stop" else ("--analysis-timeout", "60")
    with start(tmp_path, log_path, *timeout) as lsp:
        ready_workers(log_path, 2)
        victim = worker_pid_for(tmp_path, log_path, "doc.py")
        uri = uri_of(tmp_path, "doc.py")
        lsp.open(uri, slow_source())
        wait_for(lambda: busy(victim))
        lsp.replace(uri, 2, BRANCHY)
        lsp.send(lsp_message("gzguide/after-change", {}, id="after"))
        assert lsp.response("after").code == -32601  # the change is read and applied
        os.kill(victim, SIGNALS[how])
        assert lsp.publication(uri, 2, timeout=30) == expected("doc.py", BRANCHY)
        assert versions_published(lsp, uri) == [2]
        assert events(log_path, "job_failed")[0]["reason"] == LOSSES[how]
        end_by_eof(lsp)


def test_a_worker_killed_while_idle_is_replaced_before_the_next_change(
    tmp_path: Path, log_path: Path, expected: Expected
) -> None:
    with start(tmp_path, log_path) as lsp:
        ready_workers(log_path, 2)
        uris = [uri_of(tmp_path, f"m{number}.py") for number in range(6)]
        for number, uri in enumerate(uris):
            lsp.open(uri, variant(number))
        for uri in uris:
            lsp.publication(uri, 1)
        victims = live_worker_pids(log_path)
        for pid in victims:
            os.kill(pid, signal.SIGKILL)
        wait_for(lambda: len(events(log_path, "worker_replaced")) == 2)
        wait_for(lambda: len(live_worker_pids(log_path) - victims) == 2)
        for number, uri in enumerate(uris):
            lsp.replace(uri, 2, variant(number + 10))
        for number, uri in enumerate(uris):
            name = f"m{number}.py"
            assert lsp.publication(uri, 2) == expected(name, variant(number + 10))
        assert not events(log_path, "job_failed")  # no job was lost: the workers were idle
        end_by_eof(lsp)


def test_an_analysis_past_the_heap_limit_publishes_nothing_and_the_worker_stays(
    tmp_path: Path, log_path: Path, expected: Expected
) -> None:
    # One literal list of 600,000 items: about 1 GiB of syntax tree, from 1.2 MB.
    bomb = "x = [" + "1," * 600_000 + "]\n"
    args = ("--worker-memory", "200", "--analysis-timeout", "60")
    with start(tmp_path, log_path, *args) as lsp:
        ready_workers(log_path, 2)
        before = live_worker_pids(log_path)
        uri = uri_of(tmp_path, "bomb.py")
        lsp.open(uri, bomb)
        assert lsp.publication(uri, 1, timeout=60) == []
        oom = wait_for(lambda: events(log_path, "analysis_out_of_memory"))
        assert oom[0]["level"] == "warning"
        seen = len(lsp.notifications)
        lsp.notify("textDocument/didSave", {"textDocument": {"uri": uri}})
        # Analyzed again on save, and the verdict is kept: no second attempt.
        assert lsp.publication(uri, 1, after=seen) == []
        assert len(events(log_path, "analysis_out_of_memory")) == 1
        ok = uri_of(tmp_path, "ok.py")
        lsp.open(ok, BRANCHY)
        assert lsp.publication(ok, 1) == expected("ok.py", BRANCHY)
        assert live_worker_pids(log_path) == before
        assert not events(log_path, "worker_replaced")
        end_by_eof(lsp)


def test_pathological_buffers_get_no_diagnostics_and_the_server_goes_on(
    tmp_path: Path, log_path: Path, expected: Expected
) -> None:
    # What a buffer can hold: text (binary files and invalid UTF-8 are files' troubles),
    # within the message limit (an over-limit buffer is a transport test).
    texts = {
        name: content
        for name, content in PATHOLOGICAL.items()
        if isinstance(content, str) and len(content) < 4 * 1024 * 1024
    }
    assert len(texts) == 8
    with start(tmp_path, log_path, "--analysis-timeout", "60") as lsp:
        for name, text in texts.items():
            uri = uri_of(tmp_path, name)
            lsp.open(uri, text)
            assert lsp.publication(uri, 1, timeout=60) == [], name
        ok = uri_of(tmp_path, "ok.py")
        lsp.open(ok, BRANCHY)
        assert lsp.publication(ok, 1) == expected("ok.py", BRANCHY)
        assert not events(log_path, "job_failed")  # every one was a verdict, none a failure
        end_by_eof(lsp)


# -- clients that misbehave ---------------------------------------------------------------


@pytest.mark.parametrize("ending", ["exit", "eof", "eof_mid_message", "stdout_closed", "sigterm"])
def test_every_ending_mid_analysis_reaps_every_worker(
    tmp_path: Path, log_path: Path, ending: str
) -> None:
    """However the session ends while a worker is busy with a buffer, the whole process
    tree goes, with the status the lifecycle gives."""
    with start(tmp_path, log_path, "--analysis-timeout", "60") as lsp:
        ready_workers(log_path, 2)
        victim = worker_pid_for(tmp_path, log_path, "slow.py")
        lsp.open(uri_of(tmp_path, "slow.py"), slow_source())
        wait_for(lambda: busy(victim))
        workers = live_worker_pids(log_path)
        status, reason = 0, {"exit"}
        if ending == "exit":
            lsp.send(lsp_message("shutdown", id="bye"), lsp_message("exit"))
            assert lsp.response("bye").result is None
        elif ending in ("eof", "eof_mid_message"):
            if ending == "eof_mid_message":
                whole = frame(lsp_message("textDocument/hover", {}, id="cut"))
                lsp.send(whole[: len(whole) // 2])
            lsp.server.close_stdin()
            reason = {"end_of_input"}
        elif ending == "stdout_closed":
            lsp.server.close_stdout()  # noticed by its hang-up, while nothing is written
            reason = {"output_closed"}
        else:
            os.kill(lsp.server.pid, signal.SIGTERM)
            status, reason = 128 + signal.SIGTERM, {"terminated"}
        assert lsp.server.wait_exit(timeout=10) == status
        assert not procfs.group(lsp.server.pid)
        assert not [pid for pid in workers if procfs.is_alive(pid)]
        (stop,) = wait_for(lambda: events(log_path, "server_stop"))
        assert stop["reason"] in reason and stop["exit_code"] == status
        if ending == "eof_mid_message":
            assert events(log_path, "end_of_input")[0]["truncated"] is True


def test_sigkill_of_the_server_leaves_no_worker_behind(tmp_path: Path, log_path: Path) -> None:
    with start(tmp_path, log_path) as lsp:
        ready_workers(log_path, 2)
        victim = worker_pid_for(tmp_path, log_path, "slow.py")
        lsp.open(uri_of(tmp_path, "slow.py"), slow_source())
        wait_for(lambda: busy(victim))
        workers = live_worker_pids(log_path)
        assert len(workers) == 2
        os.kill(lsp.server.pid, signal.SIGKILL)
        lsp.server.proc.wait(timeout=5)
        wait_for(lambda: not [pid for pid in workers if procfs.is_alive(pid)])


def open_while_not_reading(lsp: LspProcess, tmp_path: Path, count: int) -> dict[str, str]:
    """Open and edit ``count`` documents, reading nothing back; their texts.

    What is sent stays under what stdin's pipe holds (64 KiB), so no write of ours
    waits (and reads meanwhile); the diagnostics are five times that, so the server
    fills stdout's pipe and must wait for room.
    """
    texts = {}
    for number in range(count):
        name = f"m{number}.py"
        texts[name] = variant(number, 10)
        lsp.open(uri_of(tmp_path, name), "x = 1\n")
        lsp.replace(uri_of(tmp_path, name), 2, texts[name])
    assert lsp.server.connection.reader.pending == b""
    return texts


def catch_up(lsp: LspProcess, tmp_path: Path, texts: dict[str, str], expected: Expected) -> None:
    """Every document's latest version was published, whole and right; then one answer."""
    for name, text in texts.items():
        published = lsp.publication(uri_of(tmp_path, name), 2, timeout=60)
        assert published == expected(name, text)
    assert lsp.request("gzguide/after", {}, id="after").code == -32601
    end_by_eof(lsp)


def test_a_client_that_stops_reading_is_caught_up_with(
    tmp_path: Path, log_path: Path, expected: Expected
) -> None:
    with start(tmp_path, log_path) as lsp:
        texts = open_while_not_reading(lsp, tmp_path, 20)
        server = lsp.server.pid
        time.sleep(1.0)  # the server has written what the pipe takes, and waits
        before = procfs.cpu_seconds(server)
        time.sleep(1.0)
        # Blocked, not spinning: it used (almost) no processor time meanwhile.
        assert procfs.cpu_seconds(server) - before < 0.5
        catch_up(lsp, tmp_path, texts, expected)


def test_a_non_blocking_stdout_gets_every_publication_whole(
    tmp_path: Path, log_path: Path, expected: Expected
) -> None:
    # A parent may hand over a non-blocking pipe: a full pipe then says EAGAIN instead
    # of waiting. The server must wait for room, not drop or tear a message.
    with start(tmp_path, log_path, nonblocking_stdout=True) as lsp:
        texts = open_while_not_reading(lsp, tmp_path, 20)
        time.sleep(1.0)  # the server has filled the pipe and must wait now
        assert lsp.server.proc.poll() is None
        catch_up(lsp, tmp_path, texts, expected)


def test_a_stderr_pipe_nobody_reads_costs_log_lines_not_diagnostics(
    tmp_path: Path, expected: Expected
) -> None:
    # An editor that pipes our stderr and never reads it: once 64 KiB of logs fill the
    # pipe, a blocking write would stop the server for good.
    args = ("--root", str(tmp_path), "--workers", "0")
    with LspProcess(args=args, cwd=tmp_path, stderr_pipe=True) as lsp:
        proc = lsp.server.proc
        assert proc.stderr is not None
        err_fd = proc.stderr.fileno()
        lsp.initialize()
        uri = uri_of(tmp_path, "doc.py")
        count = 1500  # about 300 KB of request lines: the pipe holds 64 KiB
        for batch in range(count // 100):
            ids = [f"p{batch}-{n}" for n in range(100)]
            lsp.send(*(lsp_message("gzguide/ping", {}, id=i) for i in ids))
            assert [lsp.response(i).code for i in ids] == [-32601] * 100
            # Each edit's diagnostics still arrive, right, meanwhile.
            version = batch + 1
            if version == 1:
                lsp.open(uri, variant(version))
            else:
                lsp.replace(uri, version, variant(version))
            assert lsp.publication(uri, version) == expected("doc.py", variant(version))
        # Someone reads at last: the next lines say how many were lost.
        drain(err_fd)
        assert lsp.request("gzguide/last", {}, id="last").code == -32601
        assert_dropped_lines_told(err_fd, count)
