"""A small, strict client for the authoring-guide protocol, for Python plugin authors.

It starts ``gz complexity guide --server`` (or attaches to the pipes of a server
started some other way), frames requests, and reads the server's answers
strictly: each must be exactly ``Content-Length: N\\r\\n\\r\\n`` and N bytes,
which is all this server ever writes. Every wait has a timeout, and a write the
server is not taking keeps reading its answers meanwhile, so the two pipes can
never deadlock each other. ::

    from gzguide.client import GuideClient

    with GuideClient.start(root="/path/to/workspace") as guide:
        guide.initialize()
        for hint in guide.analyze("pkg/module.py", cursor_position=1200):
            print(hint.start_line, hint.metric, hint.recommended_move)

Three layers, each usable on its own:

* :class:`FrameReader`: bytes in, response bodies out (no I/O);
* :class:`Connection`: a pair of descriptors, with timeouts (raw bytes out, bodies in);
* :class:`GuideClient`: the server process (when it started it) and typed calls.

Errors: :class:`ServerError` for an error response, :class:`Timeout`,
:class:`Closed` when the server's output ended, :class:`ProtocolViolation` for
bytes that are not a frame; all are :class:`ClientError`.
"""

from __future__ import annotations

import contextlib
import errno
import itertools
import os
import select
import signal
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from typing import IO, Any, Final

import msgspec

from gzguide.guide.messages import AnalyzeResult, Hint, InitializeResult, RequestId

#: The server's command, without options.
SERVER_COMMAND: Final = (sys.executable, "-m", "gzguide", "complexity", "guide", "--server")
#: Generous: a healthy server answers in milliseconds to seconds; this only stops a hang.
DEFAULT_TIMEOUT: Final = 30.0
#: What one read takes: a full pipe's worth (Linux pipes hold 64 KiB).
READ_CHUNK: Final = 1 << 16

_PREFIX: Final = b"Content-Length: "
_END: Final = b"\r\n\r\n"
#: The longest header the server writes: the prefix, 20 digits, the blank line.
_MAX_HEADER: Final = len(_PREFIX) + 20 + len(_END)


class ClientError(Exception):
    """Something went wrong between the client and the server."""


class Timeout(ClientError):
    """The server did not answer (or take our bytes) in time."""


class Closed(ClientError):
    """The server's output ended (it exited, or closed its stdout)."""


class ProtocolViolation(ClientError):
    """The server wrote something that is not a frame as the protocol defines it."""


class ServerError(ClientError):
    """The server answered with an error."""

    def __init__(self, code: int, message: str, request_id: RequestId | None) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.request_id = request_id


# -- framing ---------------------------------------------------------------------------


def encode_request(
    request_id: RequestId, method: str, params: Mapping[str, Any] | None = None
) -> bytes:
    """A request, framed: ``Content-Length`` header, blank line, compact JSON body."""
    message: dict[str, Any] = {"id": request_id, "method": method}
    if params is not None:
        message["params"] = params
    body = msgspec.json.encode(message)
    return b"Content-Length: %d\r\n\r\n%b" % (len(body), body)


def _body_length(header: bytes | memoryview) -> int:
    """N, from a header that must be exactly ``Content-Length: N`` (N canonical)."""
    digits = bytes(header[len(_PREFIX) :])
    if not header[: len(_PREFIX)] == _PREFIX or not digits.isdigit():
        raise ProtocolViolation(f"not a Content-Length header: {bytes(header[:64])!r}")
    if len(digits) > 1 and digits.startswith(b"0"):
        raise ProtocolViolation(f"a Content-Length with leading zeros: {bytes(header)!r}")
    return int(digits)


class FrameReader:
    """Response frames from a byte stream, checked strictly; no I/O.

    :meth:`feed` the bytes read, then take bodies with :meth:`next_body` until it
    returns None. :meth:`take_whole` serves the common case without copying: a read
    that holds exactly one frame, with nothing buffered before it.
    """

    def __init__(self) -> None:
        self._buf = bytearray()

    @property
    def pending(self) -> bytes:
        """Bytes received that are not a whole frame yet."""
        return bytes(self._buf)

    def feed(self, data: bytes) -> None:
        self._buf += data

    def next_body(self) -> bytes | None:
        buf = self._buf
        if not buf:
            return None
        end = buf.find(_END, 0, _MAX_HEADER)
        if end < 0:
            if len(buf) >= _MAX_HEADER or not _PREFIX.startswith(bytes(buf[: len(_PREFIX)])):
                raise ProtocolViolation(f"not a frame: {bytes(buf[:64])!r}")
            return None
        start = end + len(_END)
        stop = start + _body_length(memoryview(buf)[:end])
        if len(buf) < stop:
            return None
        body = bytes(buf[start:stop])
        del buf[:stop]
        return body

    def take_whole(self, chunk: bytes) -> memoryview | None:
        """The body, when ``chunk`` holds a whole frame and nothing is buffered before it.

        The rest of ``chunk``, if any, is buffered. None (nothing taken) otherwise.
        """
        if self._buf:
            return None
        end = chunk.find(_END, 0, _MAX_HEADER)
        if end < 0:
            return None
        start = end + len(_END)
        stop = start + _body_length(memoryview(chunk)[:end])
        if len(chunk) < stop:
            return None
        if len(chunk) > stop:
            self._buf += memoryview(chunk)[stop:]
        return memoryview(chunk)[start:stop]


# -- the pipes ----------------------------------------------------------------------------


class Connection:
    """A server's stdin (``to_server``) and stdout (``from_server``), both made non-blocking."""

    def __init__(self, to_server: int, from_server: int) -> None:
        self.to_server: int | None = to_server
        self.from_server: int | None = from_server
        os.set_blocking(to_server, False)
        os.set_blocking(from_server, False)
        self.reader = FrameReader()
        #: The server's output ended.
        self.at_eof = False
        self._readable = select.poll()
        self._readable.register(from_server, select.POLLIN)

    # -- writing --

    def send(self, data: bytes | memoryview, timeout: float = DEFAULT_TIMEOUT) -> None:
        """Write all of ``data``, reading the server's output meanwhile when it is full."""
        if self.to_server is None:
            raise Closed("the server's stdin is closed")
        view = memoryview(data)
        try:
            view = view[os.write(self.to_server, view) :]
        except BlockingIOError:
            pass
        except OSError as exc:
            raise Closed(f"cannot write to the server: {exc}") from exc
        if view:
            self._send_rest(view, time.monotonic() + timeout)

    def _send_rest(self, view: memoryview, deadline: float) -> None:
        while view:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise Timeout(f"the server stopped reading ({len(view)} bytes unwritten)")
            for fd, _events in self._send_poller().poll(int(remaining * 1000) + 1):
                view = self._pull_or_write(fd, view)

    def _send_poller(self) -> select.poll:
        """A wait for room in the server's stdin, and for its output (read while we write,
        so that a server blocked on a full stdout can go on reading)."""
        assert self.to_server is not None
        poller = select.poll()
        poller.register(self.to_server, select.POLLOUT)
        if self.from_server is not None and not self.at_eof:
            poller.register(self.from_server, select.POLLIN)
        return poller

    def _pull_or_write(self, fd: int, view: memoryview) -> memoryview:
        """What is left of ``view`` once the ready ``fd`` had its turn."""
        if fd == self.from_server:
            self._pull()
            return view
        assert self.to_server is not None
        try:
            return view[os.write(self.to_server, view[: READ_CHUNK * 16]) :]
        except BlockingIOError:
            return view
        except OSError as exc:
            raise Closed(f"cannot write to the server: {exc}") from exc

    def close_sending(self) -> None:
        """Close the server's stdin: EOF to the server."""
        if self.to_server is not None:
            with contextlib.suppress(OSError):
                os.close(self.to_server)
            self.to_server = None

    def close_receiving(self) -> None:
        """Stop listening: the server's next write hits a broken pipe."""
        if self.from_server is not None:
            with contextlib.suppress(OSError):
                os.close(self.from_server)
            self.from_server = None

    # -- reading --

    def receive(self, timeout: float = DEFAULT_TIMEOUT) -> bytes:
        """The body of the next response."""
        return bytes(self.receive_view(timeout))

    def receive_view(self, timeout: float = DEFAULT_TIMEOUT) -> bytes | memoryview:
        """The body of the next response, as it lies in what was read (not copied)."""
        body = self.reader.next_body()
        if body is not None:
            return body
        deadline = time.monotonic() + timeout
        while True:
            self._wait_for_output(deadline, timeout)
            taken = self._take(self._read_chunk())
            if taken is not None:
                return taken

    def _wait_for_output(self, deadline: float, timeout: float) -> None:
        """Until the server's output is readable; Closed at its end, Timeout at ``deadline``."""
        if self.at_eof or self.from_server is None:
            raise Closed(f"the server's output ended (unread: {self.reader.pending[:200]!r})")
        remaining = deadline - time.monotonic()
        if remaining <= 0 or not self._readable.poll(int(remaining * 1000) + 1):
            raise Timeout(f"no answer within {timeout:g} s")

    def _take(self, chunk: bytes) -> bytes | memoryview | None:
        """The next whole body once ``chunk`` is read, if there is one; a chunk that is
        exactly one response is returned as it is, never copied into the buffer."""
        if not chunk:
            return None
        whole = self.reader.take_whole(chunk)
        if whole is not None:
            return whole
        self.reader.feed(chunk)
        return self.reader.next_body()

    def next_buffered(self) -> bytes | None:
        """The next response already read, if a whole one is there."""
        return self.reader.next_body()

    def wait_readable(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for output; read what came. False at EOF or if none."""
        if self.at_eof or self.from_server is None:
            return False
        if not self._readable.poll(max(0, int(timeout * 1000))):
            return False
        return self._pull()

    def _pull(self) -> bool:
        """Read what is there into the reader; False at EOF."""
        chunk = self._read_chunk()
        if chunk:
            self.reader.feed(chunk)
        return not self.at_eof

    def _read_chunk(self) -> bytes:
        assert self.from_server is not None
        try:
            chunk = os.read(self.from_server, READ_CHUNK)
        except BlockingIOError:
            return b""
        except OSError as exc:
            if exc.errno == errno.EAGAIN:
                return b""
            raise
        if not chunk:
            self.at_eof = True
        return chunk


# -- the typed client -----------------------------------------------------------------------


class _Error(msgspec.Struct):
    code: int
    message: str


class _Response(msgspec.Struct):
    id: RequestId | None
    result: msgspec.Raw = msgspec.Raw()
    error: _Error | None = None


_responses: Final = msgspec.json.Decoder(_Response)
_analyze_result: Final = msgspec.json.Decoder(AnalyzeResult)
_initialize_result: Final = msgspec.json.Decoder(InitializeResult)


def server_argv(
    root: str | os.PathLike[str] | None = None,
    options: Sequence[str] = (),
    command: Sequence[str] = SERVER_COMMAND,
) -> list[str]:
    """The command that starts a server: ``command``, ``--root ROOT`` if given, ``options``."""
    argv = list(command)
    if root is not None:
        argv += ["--root", os.fspath(root)]
    return argv + list(options)


class GuideClient:
    """Typed calls to one server, and the server's process when this client started it."""

    def __init__(self, connection: Connection, process: subprocess.Popen[bytes] | None = None):
        self.connection = connection
        self.process = process
        self._ids = itertools.count(1)

    @classmethod
    def start(
        cls,
        root: str | os.PathLike[str] | None = None,
        options: Sequence[str] = (),
        *,
        command: Sequence[str] = SERVER_COMMAND,
        cwd: str | os.PathLike[str] | None = None,
        env: Mapping[str, str] | None = None,
        stderr: int | IO[Any] | None = None,
        new_session: bool = False,
    ) -> GuideClient:
        """Start a server (``options`` as on its command line) and attach to it.

        ``stderr`` is where its logs go (default: this process's stderr);
        ``new_session`` puts it in a process group of its own, which :meth:`kill`
        then ends as a whole, workers included.
        """
        # Plain pipes, not Popen's file objects: the connection owns its descriptors.
        to_server_r, to_server = os.pipe()
        from_server, from_server_w = os.pipe()
        try:
            proc = subprocess.Popen(
                server_argv(root, options, command),
                stdin=to_server_r,
                stdout=from_server_w,
                stderr=stderr,
                cwd=cwd,
                env=env,
                start_new_session=new_session,
            )
        except BaseException:
            for fd in (to_server, from_server):
                os.close(fd)
            raise
        finally:
            os.close(to_server_r)
            os.close(from_server_w)
        return cls(Connection(to_server, from_server), proc)

    @classmethod
    def attach(cls, to_server: int, from_server: int) -> GuideClient:
        """Talk to a server through descriptors someone else set up."""
        return cls(Connection(to_server, from_server))

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process is not None else None

    def __enter__(self) -> GuideClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- requests --

    def next_id(self) -> int:
        return next(self._ids)

    def call(
        self,
        method: str,
        params: Mapping[str, Any] | None = None,
        timeout: float = DEFAULT_TIMEOUT,
    ) -> msgspec.Raw:
        """One request's result, still encoded; :class:`ServerError` when it failed."""
        request_id = self.next_id()
        self.connection.send(encode_request(request_id, method, params), timeout)
        body = self.connection.receive(timeout)
        try:
            response = _responses.decode(body)
        except msgspec.MsgspecError as exc:
            raise ProtocolViolation(f"a response that is not one ({exc}): {body[:200]!r}") from None
        if response.id != request_id:
            raise ProtocolViolation(f"expected the answer to {request_id}, got {body[:200]!r}")
        if response.error is not None:
            raise ServerError(response.error.code, response.error.message, response.id)
        return response.result

    def initialize(
        self, client_version: str = "1.0", timeout: float = DEFAULT_TIMEOUT
    ) -> InitializeResult:
        """Start the session; ``client_version="1.1"`` for a session that may send texts."""
        result = self.call("initialize", {"clientVersion": client_version}, timeout)
        return _initialize_result.decode(result)

    def analyze(
        self,
        file_path: str,
        cursor_position: int | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        text: str | None = None,
    ) -> list[Hint]:
        """The hints for a file or a directory (a relative path is under the server's root).

        With ``text`` (a 1.1 session: see :meth:`initialize`), the hints are for that
        buffer's contents, reported as ``file_path``, and ``cursor_position`` is a
        byte offset into its UTF-8 encoding; the file is not read.
        """
        params: dict[str, Any] = {"file_path": file_path}
        if cursor_position is not None:
            params["cursor_position"] = cursor_position
        if text is not None:
            params["text"] = text
        return _analyze_result.decode(self.call("analyze", params, timeout)).hints

    def shutdown(self, timeout: float = DEFAULT_TIMEOUT) -> int | None:
        """Ask the server to stop; its exit status, when this client started it."""
        self.call("shutdown", timeout=timeout)
        return self.wait(timeout) if self.process is not None else None

    # -- the process --

    def wait(self, timeout: float = DEFAULT_TIMEOUT) -> int:
        """Wait for the server to exit (reading what it still writes); its exit status."""
        if self.process is None:
            raise ClientError("this client did not start the server")
        deadline = time.monotonic() + timeout
        while self.connection.wait_readable(max(deadline - time.monotonic(), 0)):
            pass
        try:
            return self.process.wait(timeout=max(deadline - time.monotonic(), 0.01))
        except subprocess.TimeoutExpired:
            raise Timeout(f"the server is still running after {timeout:g} s") from None

    def close(self, timeout: float = 10.0) -> int | None:
        """EOF to the server, then wait for it (killing it if it lingers); close the pipes."""
        self.connection.close_sending()
        code = None
        if self.process is not None:
            try:
                code = self.process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.kill()
                code = self.process.returncode
        self._close_streams()
        return code

    def kill(self) -> None:
        """SIGKILL the server (its whole process group when it has one of its own)."""
        proc = self.process
        if proc is not None and proc.poll() is None:
            with contextlib.suppress(OSError):
                if os.getpgid(proc.pid) == proc.pid:
                    os.killpg(proc.pid, signal.SIGKILL)
                else:
                    proc.kill()
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=10)
        self._close_streams()

    def _close_streams(self) -> None:
        self.connection.close_sending()
        self.connection.close_receiving()
