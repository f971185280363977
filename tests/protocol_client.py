"""A small test client for the real gzguide server, over real pipes.

It spawns ``python -m gzguide complexity guide --server`` as a subprocess (in its
own process group, so that stray worker processes can be found afterwards), writes
raw bytes to its stdin and reads framed responses from its stdout. Nothing here
can hang a test: every read and write polls with a deadline, and a write that the
server is not consuming keeps draining the server's stdout meanwhile, so the two
pipes can never deadlock each other.

Every response read is checked against what the contract promises of all output:

* the frame is exactly ``Content-Length: N\\r\\n\\r\\n`` followed by N bytes, and N
  is the UTF-8 byte length of the body (the body must be exactly one JSON value:
  a wrong N would cut it short or swallow the next header);
* the body is strict UTF-8 and strict JSON (no NaN), compact (no whitespace
  outside strings, no trailing newline);
* it validates against the project's *shipped* schemas, loaded with
  ``importlib.resources`` from ``gzguide/schemas`` (``result`` xor ``error``,
  ``"id": null`` only on -32700/-32600, hint shape);
* hint fields come in the order the hint schema lists them, and
  ``end_line >= start_line``.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import itertools
import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from referencing import Registry, Resource

SERVER_ARGS = ("-m", "gzguide", "complexity", "guide", "--server")
HEADER_PREFIX = b"Content-Length: "
HEADER_END = b"\r\n\r\n"
#: Generous: a healthy server answers in milliseconds; this only stops a hang.
DEFAULT_TIMEOUT = 10.0

PROTOCOL_SCHEMA = "authoring_guide_protocol.schema.json"
HINT_SCHEMA = "authoring_hint.schema.json"
THRESHOLDS_SCHEMA = "complexity_thresholds.schema.json"
SCHEMA_FILES = (PROTOCOL_SCHEMA, HINT_SCHEMA, THRESHOLDS_SCHEMA)

_MISSING: Any = object()
_ids = itertools.count(1_000_000)


# -- schemas -------------------------------------------------------------------


def load_schema(name: str) -> dict[str, Any]:
    """One of the project's shipped schemas, read as package data."""
    text = resources.files("gzguide").joinpath("schemas", name).read_text("utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema


@cache
def schema_registry() -> Registry:
    pairs = []
    for name in SCHEMA_FILES:
        resource: Resource[Any] = Resource.from_contents(load_schema(name))
        uri = resource.id()
        assert uri is not None, f"{name} has no $id"
        pairs.append((uri, resource))
    return Registry().with_resources(pairs)


@cache
def validator_for(name: str, pointer: str = "") -> Draft202012Validator:
    """A validator for a shipped schema, or for one of its ``$defs`` (``pointer``)."""
    base = load_schema(name)["$id"]
    ref = f"{base}#{pointer}" if pointer else base
    return Draft202012Validator({"$ref": ref}, registry=schema_registry())


def response_validator() -> Draft202012Validator:
    return validator_for(PROTOCOL_SCHEMA, "/$defs/ResponseEnvelope")


def request_validator() -> Draft202012Validator:
    return validator_for(PROTOCOL_SCHEMA, "/$defs/RequestEnvelope")


@cache
def hint_field_order() -> tuple[str, ...]:
    return tuple(load_schema(HINT_SCHEMA)["properties"])


# -- encoding requests ------------------------------------------------------------


def frame(body: bytes | str | dict[str, Any]) -> bytes:
    """``body`` framed the way a well-behaved client frames it."""
    if isinstance(body, dict):
        body = json.dumps(body, separators=(",", ":"), ensure_ascii=False)
    if isinstance(body, str):
        body = body.encode("utf-8")
    return b"Content-Length: %d\r\n\r\n%b" % (len(body), body)


def message(
    method: Any = _MISSING, params: Any = _MISSING, id: Any = _MISSING, **extra: Any
) -> dict[str, Any]:
    """A request object; leave out what is not given."""
    msg: dict[str, Any] = {}
    if id is not _MISSING:
        msg["id"] = id
    if method is not _MISSING:
        msg["method"] = method
    if params is not _MISSING:
        msg["params"] = params
    msg.update(extra)
    return msg


def initialize_message(id: Any = 1, version: str = "1.0") -> dict[str, Any]:
    return message("initialize", {"clientVersion": version}, id=id)


def analyze_message(id: Any, file_path: Any, cursor: Any = _MISSING, **more: Any) -> dict[str, Any]:
    params: dict[str, Any] = {"file_path": file_path}
    if cursor is not _MISSING:
        params["cursor_position"] = cursor
    params.update(more)
    return message("analyze", params, id=id)


# -- checking responses -------------------------------------------------------------


def assert_compact(body: bytes) -> None:
    """No whitespace outside JSON strings (so none before, between or after tokens)."""
    in_string = escaped = False
    for offset, byte in enumerate(body):
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:  # backslash
                escaped = True
            elif byte == 0x22:
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte in b" \t\r\n":
            raise AssertionError(f"whitespace at byte {offset} of a response body: {body!r}")


def _reject_constant(name: str) -> Any:
    raise AssertionError(f"response body holds the non-JSON constant {name}")


def _ordered_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    keys = [k for k, _ in pairs]
    if len(keys) != len(set(keys)):
        raise AssertionError(f"duplicate keys in a response object: {keys}")
    return dict(pairs)


def check_body(body: bytes) -> dict[str, Any]:
    """Everything the contract promises of any response body; returns it decoded."""
    text = body.decode("utf-8")  # strict: raises on anything that is not UTF-8
    assert_compact(body)
    decoded = json.loads(text, parse_constant=_reject_constant, object_pairs_hook=_ordered_pairs)
    assert isinstance(decoded, dict), f"response is not an object: {body!r}"
    errors = sorted(response_validator().iter_errors(decoded), key=lambda e: list(e.path))
    if errors:
        detail = "; ".join(f"{list(e.path)}: {e.message}" for e in errors[:5])
        raise AssertionError(f"response does not match the shipped schema ({detail}): {body!r}")
    result = decoded.get("result")
    if isinstance(result, dict) and "hints" in result:
        for hint in result["hints"]:
            assert tuple(hint) == hint_field_order(), f"hint fields out of order: {list(hint)}"
            assert hint["end_line"] >= hint["start_line"], hint
    return decoded


@dataclass(frozen=True)
class Response:
    """One framed response, raw and decoded."""

    raw: bytes
    body: bytes
    message: dict[str, Any]

    @property
    def id(self) -> Any:
        return self.message["id"]

    @property
    def result(self) -> Any:
        assert "result" in self.message, f"expected a result, got {self.message}"
        return self.message["result"]

    @property
    def error(self) -> dict[str, Any]:
        assert "error" in self.message, f"expected an error, got {self.message}"
        error: dict[str, Any] = self.message["error"]
        return error

    @property
    def code(self) -> int | None:
        error = self.message.get("error")
        return None if error is None else int(error["code"])

    @property
    def hints(self) -> list[dict[str, Any]]:
        hints: list[dict[str, Any]] = self.result["hints"]
        return hints

    def expect_error(self, code: int, id: Any = _MISSING) -> Response:
        assert self.code == code, f"expected error {code}, got {self.message}"
        if id is not _MISSING:
            assert self.id == id and type(self.id) is type(id), (id, self.message)
        return self


class ServerFailure(AssertionError):
    """The server did not do what the test waited for."""


# -- the server process ------------------------------------------------------------


def _set_nonblocking(fd: int) -> None:
    flags = fcntl.fcntl(fd, fcntl.F_GETFL)
    fcntl.fcntl(fd, fcntl.F_SETFL, flags | os.O_NONBLOCK)


@dataclass
class ServerProcess:
    """The real server over real pipes. Use as a context manager, or call :meth:`kill`."""

    args: tuple[str, ...] = ()
    cwd: str | os.PathLike[str] | None = None
    env: dict[str, str] | None = None
    #: Hand the server a stdout whose pipe end is non-blocking (O_NONBLOCK is shared
    #: by everyone holding that end), as some parents do.
    nonblocking_stdout: bool = False
    #: Give the server a stderr pipe that this object never reads (``proc.stderr``),
    #: as a careless parent does; by default stderr goes to a file.
    stderr_pipe: bool = False
    proc: subprocess.Popen[bytes] = field(init=False)
    _out: bytearray = field(init=False, default_factory=bytearray)
    _out_eof: bool = field(init=False, default=False)

    def __post_init__(self) -> None:
        # A file, not a pipe: a chatty server can never block on a full stderr pipe.
        self._stderr = tempfile.TemporaryFile()  # noqa: SIM115 (closed by kill())
        env = dict(os.environ if self.env is None else self.env)
        env.setdefault("PYTHONDONTWRITEBYTECODE", "1")
        stdout: int = subprocess.PIPE
        if self.nonblocking_stdout:
            read_end, stdout = os.pipe()
            _set_nonblocking(stdout)
        self.proc = subprocess.Popen(
            [sys.executable, *SERVER_ARGS, *self.args],
            stdin=subprocess.PIPE,
            stdout=stdout,
            stderr=subprocess.PIPE if self.stderr_pipe else self._stderr,
            cwd=self.cwd,
            env=env,
            start_new_session=True,  # its own process group: workers are findable
        )
        if self.nonblocking_stdout:
            os.close(stdout)
            self.proc.stdout = os.fdopen(read_end, "rb", buffering=0)
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self._in_fd: int | None = self.proc.stdin.fileno()
        self._out_fd: int | None = self.proc.stdout.fileno()
        _set_nonblocking(self._in_fd)
        _set_nonblocking(self._out_fd)

    @property
    def pid(self) -> int:
        return self.proc.pid

    # -- lifetime --

    def __enter__(self) -> ServerProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        self.kill()

    def kill(self) -> None:
        """Stop the server and anything it started (its whole process group)."""
        if self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                self.proc.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=5)
        for pid in self.stray_processes():
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        self._close_pipes()
        self._stderr.close()

    def _close_pipes(self) -> None:
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
        self._in_fd = self._out_fd = None

    # -- writing --

    def write(self, data: bytes, timeout: float = DEFAULT_TIMEOUT) -> None:
        """Write all of ``data``; meanwhile keep reading stdout so nothing deadlocks."""
        if self._in_fd is None:
            raise ServerFailure("stdin is closed")
        deadline = time.monotonic() + timeout
        view = memoryview(data)
        while view:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise ServerFailure(f"server stopped reading ({len(view)} bytes unwritten)")
            watch = [self._out_fd] if self._out_fd is not None and not self._out_eof else []
            readable, writable, _ = select.select(watch, [self._in_fd], [], remaining)
            if readable:
                self._pull()
            if writable:
                try:
                    view = view[os.write(self._in_fd, view[: 1 << 20]) :]
                except BlockingIOError:
                    continue

    def send(self, *messages: bytes | dict[str, Any]) -> None:
        """Frame (dicts) or pass through (bytes) each message, in one write."""
        self.write(b"".join(m if isinstance(m, bytes) else frame(m) for m in messages))

    def trickle(self, data: bytes, delay: float = 0.001, step: int = 1) -> None:
        """Write ``data`` ``step`` bytes at a time with a small sleep in between."""
        for start in range(0, len(data), step):
            self.write(data[start : start + step])
            time.sleep(delay)

    def close_stdin(self) -> None:
        if self.proc.stdin is not None:
            with contextlib.suppress(OSError):
                self.proc.stdin.close()
        self._in_fd = None

    def close_stdout(self) -> None:
        """Stop listening: the server's next write hits a broken pipe."""
        if self.proc.stdout is not None:
            self.proc.stdout.close()
        self._out_fd = None

    # -- reading --

    def _pull(self) -> bool:
        """Read what is available from stdout; False at EOF."""
        if self._out_fd is None or self._out_eof:
            return False
        try:
            chunk = os.read(self._out_fd, 1 << 16)
        except BlockingIOError:
            return True
        except OSError as exc:
            if exc.errno == errno.EAGAIN:
                return True
            raise
        if not chunk:
            self._out_eof = True
            return False
        self._out += chunk
        return True

    def _wait_readable(self, deadline: float) -> bool:
        remaining = deadline - time.monotonic()
        if remaining <= 0 or self._out_fd is None:
            return False
        readable, _, _ = select.select([self._out_fd], [], [], remaining)
        return bool(readable)

    def _take_frame(self) -> Response | None:
        """A complete frame from the buffer, checked; None when it is not all here yet."""
        buf = self._out
        if not buf:
            return None
        prefix = bytes(buf[: len(HEADER_PREFIX)])
        if not HEADER_PREFIX.startswith(prefix):
            raise AssertionError(f"stdout holds something other than a frame: {bytes(buf[:200])!r}")
        end = buf.find(HEADER_END)
        if end < 0:
            if len(buf) > 64:
                raise AssertionError(f"malformed frame header: {bytes(buf[:200])!r}")
            return None
        digits = bytes(buf[len(HEADER_PREFIX) : end])
        if not digits.isdigit() or digits != str(int(digits)).encode():
            raise AssertionError(f"malformed Content-Length in a response: {bytes(buf[:64])!r}")
        start = end + len(HEADER_END)
        length = int(digits)
        if len(buf) < start + length:
            return None
        raw = bytes(buf[: start + length])
        body = raw[start:]
        del buf[: start + length]
        return Response(raw=raw, body=body, message=check_body(body))

    def read_response(self, timeout: float = DEFAULT_TIMEOUT) -> Response:
        """The next framed response, within ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        while True:
            response = self._take_frame()
            if response is not None:
                return response
            if self._out_eof:
                raise ServerFailure(
                    f"stdout closed before a whole response (have {bytes(self._out)!r}); "
                    f"exit status {self.proc.poll()}; stderr tail: {self.stderr()[-2000:]}"
                )
            if not self._wait_readable(deadline):
                raise ServerFailure(
                    f"no response within {timeout} s (have {bytes(self._out[:200])!r}); "
                    f"exit status {self.proc.poll()}; stderr tail: {self.stderr()[-2000:]}"
                )
            self._pull()

    def read_responses(self, count: int, timeout: float = DEFAULT_TIMEOUT) -> list[Response]:
        deadline = time.monotonic() + timeout
        return [self.read_response(max(deadline - time.monotonic(), 0.01)) for _ in range(count)]

    def assert_silent(self, duration: float = 0.2) -> None:
        """Nothing more arrives on stdout for ``duration`` seconds."""
        deadline = time.monotonic() + duration
        while self._wait_readable(deadline):
            if not self._pull():
                break
        assert not self._out, f"unexpected output: {bytes(self._out[:200])!r}"

    def request(self, msg: dict[str, Any], timeout: float = DEFAULT_TIMEOUT) -> Response:
        """Send one request and read one response, which must echo its id."""
        self.send(msg)
        response = self.read_response(timeout)
        if "id" in msg and isinstance(msg["id"], str | int) and not isinstance(msg["id"], bool):
            assert response.id == msg["id"], f"answer to {msg} has id {response.id}"
        return response

    def initialize(self, version: str = "1.0", id: Any = 1) -> Response:
        response = self.request(initialize_message(id, version))
        assert response.result == {"version": "1.0", "capabilities": ["analyze"]}
        return response

    def analyze(self, file_path: Any, cursor: Any = _MISSING, id: Any = None) -> Response:
        return self.request(analyze_message(next(_ids) if id is None else id, file_path, cursor))

    def hints(self, file_path: Any, cursor: Any = _MISSING) -> list[dict[str, Any]]:
        return self.analyze(file_path, cursor).hints

    def ping(self, timeout: float = DEFAULT_TIMEOUT) -> None:
        """Prove the server is alive and aligned: an unknown method echoing a fresh id."""
        ping_id = f"ping-{next(_ids)}"
        self.send(message("gzguide/ping", {}, id=ping_id))
        self.read_response(timeout).expect_error(-32601, ping_id)

    # -- the end --

    def wait_exit(self, timeout: float = DEFAULT_TIMEOUT) -> int:
        """Wait for the server to exit; every frame it wrote is checked and must be read."""
        deadline = time.monotonic() + timeout
        while self._out_fd is not None and not self._out_eof:
            if not self._wait_readable(deadline):
                break
            self._pull()
        try:
            return self.proc.wait(timeout=max(deadline - time.monotonic(), 0.01))
        except subprocess.TimeoutExpired:
            raise ServerFailure(f"server still running after {timeout} s") from None

    def remaining_responses(self) -> list[Response]:
        """After exit: all frames not read yet; anything else on stdout fails the test."""
        responses = []
        while (response := self._take_frame()) is not None:
            responses.append(response)
        assert not self._out, f"stdout ends in a partial frame: {bytes(self._out[:200])!r}"
        return responses

    def finish(self, expected_status: int = 0, timeout: float = DEFAULT_TIMEOUT) -> list[Response]:
        """Close nothing; wait for exit with ``expected_status``; return unread frames."""
        status = self.wait_exit(timeout)
        assert status == expected_status, (
            f"exit status {status}, expected {expected_status}; stderr: {self.stderr()[-3000:]}"
        )
        self.assert_no_stray_processes()
        return self.remaining_responses()

    def stderr(self) -> str:
        self._stderr.seek(0)
        return self._stderr.read().decode("utf-8", "replace")

    def stray_processes(self) -> list[int]:
        """Live processes left in the server's process group (its workers)."""
        return list(processes_in_group(self.proc.pid))

    def assert_no_stray_processes(self, timeout: float = 5.0) -> None:
        deadline = time.monotonic() + timeout
        while (left := self.stray_processes()) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert not left, f"processes left running after the server exited: {left}"


#: What the ``spawn`` fixture is: start a server with these CLI args (and cwd, env).
Spawn = Callable[..., ServerProcess]


def processes_in_group(pgid: int) -> Iterable[int]:
    """Pids of live (non-zombie) processes whose process group is ``pgid``."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        # pid (comm) state ppid pgrp ...: comm may hold spaces and parentheses.
        fields = stat[stat.rindex(")") + 2 :].split()
        if fields[0] != "Z" and int(fields[2]) == pgid:
            yield int(entry.name)


def peak_rss_kib(pid: int) -> int:
    """The process's peak resident set size (VmHWM), in KiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    raise AssertionError("no VmHWM in /proc status")
