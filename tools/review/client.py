"""A small LSP client over a subprocess's pipes: Content-Length frames, a timeout per read.

A thread reads the server's stdout into a queue, so the server is never blocked on a
full pipe while the client writes, and every wait for a message can time out.
"""

from __future__ import annotations

import itertools
import json
import queue
import subprocess
import tempfile
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any

#: A healthy server answers in well under a second; a long file's fixes take a few.
TIMEOUT = 120.0


class ServerGone(RuntimeError):
    """The server closed its stdout, or sent what is not a frame."""


def read_frame(stream: IO[bytes]) -> dict[str, Any] | None:
    """One message, or None at the end of the stream."""
    length = None
    while True:
        line = stream.readline()
        if not line:
            return None
        if line in (b"\r\n", b"\n"):
            break
        name, _, value = line.decode("ascii").partition(":")
        if name.strip().lower() == "content-length":
            length = int(value)
    if length is None:
        raise ServerGone("a frame without Content-Length")
    message: dict[str, Any] = json.loads(stream.read(length).decode("utf-8"))
    return message


def _pump(stream: IO[bytes], into: queue.Queue[dict[str, Any] | None]) -> None:
    try:
        while (message := read_frame(stream)) is not None:
            into.put(message)
    finally:
        into.put(None)


class LspClient:
    """The server as a child process; requests answered in order, notifications kept."""

    def __init__(self, command: Sequence[str], cwd: Path, env: dict[str, str]) -> None:
        # The server's log lives as long as the server: close() closes it.
        self.stderr = tempfile.TemporaryFile()  # noqa: SIM115
        self.process = subprocess.Popen(
            list(command),
            cwd=cwd,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.stderr,
        )
        self.inbox: queue.Queue[dict[str, Any] | None] = queue.Queue()
        assert self.process.stdout is not None
        threading.Thread(target=_pump, args=(self.process.stdout, self.inbox), daemon=True).start()
        self.notifications: list[dict[str, Any]] = []
        self._ids = itertools.count(1)

    def send(self, message: dict[str, Any]) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}, ensure_ascii=False).encode("utf-8")
        assert self.process.stdin is not None
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n%b" % (len(body), body))
        self.process.stdin.flush()

    def notify(self, method: str, params: Any) -> None:
        self.send({"method": method, "params": params})

    def receive(self, timeout: float = TIMEOUT) -> dict[str, Any]:
        """The next message; a request from the server is answered with null (this client
        registers nothing and shows no progress)."""
        try:
            message = self.inbox.get(timeout=timeout)
        except queue.Empty:
            raise TimeoutError(f"no message from the server in {timeout} s") from None
        if message is None:
            raise ServerGone(f"the server closed its output:\n{self.stderr_tail()}")
        if "method" in message and "id" in message:
            self.send({"id": message["id"], "result": None})
        return message

    def request(self, method: str, params: Any) -> Any:
        """The result of ``method``; a notification that comes before it is kept."""
        request_id = next(self._ids)
        self.send({"id": request_id, "method": method, "params": params})
        while True:
            message = self.receive()
            if message.get("id") == request_id and "method" not in message:
                return _result(method, message)
            if "id" not in message:
                self.notifications.append(message)

    def publication(self, uri: str, version: int) -> list[dict[str, Any]]:
        """The diagnostics first published for ``uri`` at ``version``."""
        seen = 0
        while True:
            for note in self.notifications[seen:]:
                params = note.get("params", {})
                if params.get("uri") == uri and params.get("version") == version:
                    diagnostics: list[dict[str, Any]] = params["diagnostics"]
                    return diagnostics
            seen = len(self.notifications)
            message = self.receive()
            if "id" not in message:
                self.notifications.append(message)

    def stderr_tail(self, size: int = 4000) -> str:
        self.stderr.seek(0)
        return self.stderr.read().decode("utf-8", "replace")[-size:]

    def close(self) -> int:
        """``shutdown`` and ``exit``; the server's status (killed if it does not end)."""
        try:
            self.request("shutdown", None)
            self.notify("exit", None)
            return self.process.wait(timeout=30)
        except (OSError, TimeoutError, ServerGone, subprocess.TimeoutExpired):
            self.process.kill()
            return self.process.wait()
        finally:
            self.stderr.close()


def _result(method: str, message: dict[str, Any]) -> Any:
    if "error" in message:
        raise RuntimeError(f"{method} failed: {message['error']}")
    return message.get("result")
