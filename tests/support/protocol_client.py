"""The real gzguide server over real pipes, with every answer checked against the contract.

:class:`ServerProcess` starts ``python -m gzguide complexity guide --server`` in its
own process group (so that stray worker processes can be found afterwards) and
talks to it through the project's public client (:mod:`gzguide.client`): its
strict frame reader, its writes that keep draining the server's stdout (so the
two pipes can never deadlock each other) and its timeouts. Nothing here can hang
a test.

On top of the client's framing checks (each frame exactly
``Content-Length: N\\r\\n\\r\\n`` and N bytes, N canonical), every response body is
checked against what the contract promises of all output:

* strict UTF-8 and strict JSON (no NaN), compact (no whitespace outside strings,
  no trailing newline);
* it validates against the project's *shipped* schemas, loaded with
  ``importlib.resources`` from ``gzguide/schemas`` (``result`` xor ``error``,
  ``"id": null`` only on -32700/-32600, hint shape);
* hint fields come in the order the hint schema lists them, and
  ``end_line >= start_line``.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import re
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Any

from jsonschema import Draft202012Validator
from referencing import Registry, Resource

from gzguide import procfs
from gzguide.client import (
    SERVER_COMMAND,
    ClientError,
    Closed,
    Connection,
    GuideClient,
    ProtocolViolation,
    Timeout,
)

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


RESULT_1_0 = {"version": "1.0", "capabilities": ["analyze"]}
RESULT_1_1 = {"version": "1.1", "capabilities": ["analyze", "analyze.text"]}


def initialize_result(version: str) -> dict[str, Any]:
    """What the contract says ``initialize`` answers a client of ``version`` (major 1)."""
    match = re.match(r"[0-9]+\.([0-9]+)", version)
    assert match is not None, f"not a valid clientVersion: {version!r}"
    return RESULT_1_1 if match.group(1).strip("0") else RESULT_1_0


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


def frame_of(body: bytes) -> bytes:
    """The frame a body arrived in (the client checked it was exactly this)."""
    return b"Content-Length: %d\r\n\r\n%b" % (len(body), body)


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
    #: What every frame body must satisfy, and its decoded message (the LSP mode's
    #: messages are checked by ``lsp_pipes.check_lsp_body`` instead).
    check: Callable[[bytes], dict[str, Any]] = check_body
    #: The server's command line before ``args`` (``--server`` mode by default).
    command: tuple[str, ...] = tuple(SERVER_COMMAND)
    client: GuideClient = field(init=False)

    def __post_init__(self) -> None:
        # A file, not a pipe: a chatty server can never block on a full stderr pipe.
        self._stderr = tempfile.TemporaryFile()  # noqa: SIM115 (closed by kill())
        env = dict(os.environ if self.env is None else self.env)
        env.setdefault("PYTHONDONTWRITEBYTECODE", "1")
        stderr: Any = subprocess.PIPE if self.stderr_pipe else self._stderr
        if not self.nonblocking_stdout:
            self.client = GuideClient.start(
                options=self.args,
                command=self.command,
                cwd=self.cwd,
                env=env,
                stderr=stderr,
                new_session=True,
            )
            return
        to_server_r, to_server = os.pipe()
        from_server, from_server_w = os.pipe()
        os.set_blocking(from_server_w, False)
        try:
            proc = subprocess.Popen(
                [*self.command, *self.args],
                stdin=to_server_r,
                stdout=from_server_w,
                stderr=stderr,
                cwd=self.cwd,
                env=env,
                start_new_session=True,
            )
        finally:
            os.close(to_server_r)
            os.close(from_server_w)
        self.client = GuideClient(Connection(to_server, from_server), proc)

    @property
    def proc(self) -> subprocess.Popen[bytes]:
        assert self.client.process is not None
        return self.client.process

    @property
    def connection(self) -> Connection:
        return self.client.connection

    @property
    def pid(self) -> int:
        return self.proc.pid

    @property
    def in_fd(self) -> int:
        """The server's stdin, our end (non-blocking)."""
        fd = self.connection.to_server
        assert fd is not None, "stdin is closed"
        return fd

    # -- lifetime --

    def __enter__(self) -> ServerProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        self.kill()

    def kill(self) -> None:
        """Stop the server and anything it started (its whole process group)."""
        self.client.kill()
        for pid in self.stray_processes():
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        if self.proc.stderr is not None:
            with contextlib.suppress(OSError):
                self.proc.stderr.close()
        self._stderr.close()

    # -- writing --

    def write(self, data: bytes, timeout: float = DEFAULT_TIMEOUT) -> None:
        """Write all of ``data``; meanwhile keep reading stdout so nothing deadlocks."""
        try:
            self.connection.send(data, timeout)
        except ClientError as exc:
            raise ServerFailure(f"cannot write to the server: {exc}") from None

    def send(self, *messages: bytes | dict[str, Any]) -> None:
        """Frame (dicts) or pass through (bytes) each message, in one write."""
        self.write(b"".join(m if isinstance(m, bytes) else frame(m) for m in messages))

    def trickle(self, data: bytes, delay: float = 0.001, step: int = 1) -> None:
        """Write ``data`` ``step`` bytes at a time with a small sleep in between."""
        for start in range(0, len(data), step):
            self.write(data[start : start + step])
            time.sleep(delay)

    def close_stdin(self) -> None:
        self.connection.close_sending()

    def close_stdout(self) -> None:
        """Stop listening: the server's next write hits a broken pipe."""
        self.connection.close_receiving()

    # -- reading --

    def _failure(self, what: str) -> ServerFailure:
        return ServerFailure(
            f"{what} (have {self.connection.reader.pending[:200]!r}); "
            f"exit status {self.proc.poll()}; stderr tail: {self.stderr()[-2000:]}"
        )

    def read_response(self, timeout: float = DEFAULT_TIMEOUT) -> Response:
        """The next framed response, within ``timeout`` seconds."""
        try:
            body = self.connection.receive(timeout)
        except ProtocolViolation as exc:
            raise AssertionError(f"stdout holds something other than a frame: {exc}") from None
        except Closed:
            raise self._failure("stdout closed before a whole response") from None
        except Timeout:
            raise self._failure(f"no response within {timeout} s") from None
        return Response(raw=frame_of(body), body=body, message=self.check(body))

    def read_responses(self, count: int, timeout: float = DEFAULT_TIMEOUT) -> list[Response]:
        deadline = time.monotonic() + timeout
        return [self.read_response(max(deadline - time.monotonic(), 0.01)) for _ in range(count)]

    def assert_silent(self, duration: float = 0.2) -> None:
        """Nothing more arrives on stdout for ``duration`` seconds."""
        deadline = time.monotonic() + duration
        while self.connection.wait_readable(max(deadline - time.monotonic(), 0)):
            pass
        pending = self.connection.reader.pending
        assert not pending, f"unexpected output: {pending[:200]!r}"

    def request(self, msg: dict[str, Any], timeout: float = DEFAULT_TIMEOUT) -> Response:
        """Send one request and read one response, which must echo its id."""
        self.send(msg)
        response = self.read_response(timeout)
        if "id" in msg and isinstance(msg["id"], str | int) and not isinstance(msg["id"], bool):
            assert response.id == msg["id"], f"answer to {msg} has id {response.id}"
        return response

    def initialize(self, version: str = "1.0", id: Any = 1) -> Response:
        """Initialize as a client of ``version``: a 1.0 session, or (minor 1 and up) a 1.1 one."""
        response = self.request(initialize_message(id, version))
        assert response.result == initialize_result(version)
        return response

    def analyze(
        self, file_path: Any, cursor: Any = _MISSING, id: Any = None, **more: Any
    ) -> Response:
        request_id = next(_ids) if id is None else id
        return self.request(analyze_message(request_id, file_path, cursor, **more))

    def hints(self, file_path: Any, cursor: Any = _MISSING, **more: Any) -> list[dict[str, Any]]:
        return self.analyze(file_path, cursor, **more).hints

    def ping(self, timeout: float = DEFAULT_TIMEOUT) -> None:
        """Prove the server is alive and aligned: an unknown method echoing a fresh id."""
        ping_id = f"ping-{next(_ids)}"
        self.send(message("gzguide/ping", {}, id=ping_id))
        self.read_response(timeout).expect_error(-32601, ping_id)

    # -- the end --

    def wait_exit(self, timeout: float = DEFAULT_TIMEOUT) -> int:
        """Wait for the server to exit; every frame it wrote is checked and must be read."""
        try:
            return self.client.wait(timeout)
        except Timeout:
            raise ServerFailure(f"server still running after {timeout} s") from None

    def remaining_responses(self) -> list[Response]:
        """After exit: all frames not read yet; anything else on stdout fails the test."""
        responses = []
        try:
            while (body := self.connection.next_buffered()) is not None:
                responses.append(Response(raw=frame_of(body), body=body, message=self.check(body)))
        except ProtocolViolation as exc:
            raise AssertionError(f"stdout holds something other than a frame: {exc}") from None
        pending = self.connection.reader.pending
        assert not pending, f"stdout ends in a partial frame: {pending[:200]!r}"
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
        if self._stderr.closed:
            return ""
        self._stderr.seek(0)
        return self._stderr.read().decode("utf-8", "replace")

    def stray_processes(self) -> list[int]:
        """Live processes left in the server's process group (its workers)."""
        return procfs.group(self.proc.pid)

    def assert_no_stray_processes(self, timeout: float = 5.0) -> None:
        deadline = time.monotonic() + timeout
        while (left := self.stray_processes()) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert not left, f"processes left running after the server exited: {left}"


#: What the ``spawn`` fixture is: start a server with these CLI args (and cwd, env).
Spawn = Callable[..., ServerProcess]
