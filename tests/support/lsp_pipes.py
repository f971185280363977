"""The LSP mode over raw pipes: :class:`LspProcess`, with every message checked strictly.

pytest-lsp's client only sends what it can type; the fuzz run, the soak, the
benchmark and the transport tests write bytes of their own. :class:`LspProcess` is
:class:`~support.protocol_client.ServerProcess` (the project's public client underneath,
strict frames, timeouts, process-group checks) started with ``--lsp``, whose
every body must pass :func:`check_lsp_body`:

* strict UTF-8, strict and compact JSON, no duplicate keys;
* ``"jsonrpc": "2.0"`` first; then a response (``id`` and exactly one of
  ``result`` or ``error``, an error an integer code and a string message, a null
  id only for ``-32700`` and ``-32600``) or a notification (``method`` and
  ``params``, no ``id``).

Responses and the server's notifications share stdout: :meth:`LspProcess.response`
reads up to the answer with a given id and keeps the notifications it passes in
:attr:`LspProcess.notifications`.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from gzguide.client import SERVER_COMMAND
from support.paths import DOCS
from support.protocol_client import (
    DEFAULT_TIMEOUT,
    Response,
    ServerProcess,
    assert_compact,
    frame,
)

#: The server in LSP mode (the client's default command with ``--lsp`` for ``--server``).
LSP_COMMAND = tuple("--lsp" if part == "--server" else part for part in SERVER_COMMAND)


#: Every hint that proposes a change is Information, whatever its band.
SEVERITY = {"approaching": 3, "approaching_warn": 3}
#: The severity of a hint whose move proposes no change.
QUIET = 4
#: How docs/hints.md words the moves that propose no change: the census of a
#: function's decision points, and a short chain named as it is.
_NO_CHANGE = re.compile(
    r"^(Its \d+ decision points: |\d+ more decision points? stays? under "
    r"|One more decision point reaches )|short arms: clear as it is"
)


def severity(hint: dict[str, Any]) -> int:
    """A hint's diagnostic severity: by its band, or Hint where it proposes no change."""
    if _NO_CHANGE.search(hint["recommended_move"]):
        return QUIET
    return SEVERITY[hint["precedence_band"]]


_BREAK = re.compile(r"\r\n|\r|\n")


def lines_of(text: str) -> list[str]:
    """The lines of ``text`` as LSP counts them (``\\r\\n``, ``\\n``, lone ``\\r``)."""
    return _BREAK.split(text)


def units(text: str, encoding: str) -> int:
    """How many code units of ``encoding`` ``text`` takes, by Python's own codecs."""
    if encoding == "utf-8":
        return len(text.encode("utf-8"))
    if encoding == "utf-16":
        return len(text.encode("utf-16-le")) // 2
    return len(text)


def position_of(text: str, index: int, encoding: str) -> tuple[int, int]:
    """The (line, character) of string index ``index`` of ``text``."""
    before = text[:index]
    breaks = list(_BREAK.finditer(before))
    line_start = breaks[-1].end() if breaks else 0
    if before.endswith("\r") and text[index : index + 1] == "\n":
        raise ValueError("an index between \\r and \\n is no position")
    return len(breaks), units(text[line_start:index], encoding)


#: The metrics whose values are the module's (their hints sit on line 1).
MODULE_METRICS = frozenset(
    {
        "radon_raw_nloc",
        "radon_raw_lloc",
        "radon_hal_volume",
        "radon_hal_difficulty",
        "radon_hal_effort",
        "radon_mi",
    }
)
_HEADER = re.compile(r"[ \t]*(?:async[ \t]+)?(?:def|class)[ \t]+(\w+)")


def name_range(hint: dict[str, Any], lines: list[str], encoding: str) -> dict[str, Any]:
    """Where a hint's diagnostic sits: the name in its definition's header, or line 1's
    text for a module's value."""
    if hint["metric"] in MODULE_METRICS:
        line = 0
        start = len(lines[0]) - len(lines[0].lstrip())
        end = len(lines[0])
    else:
        line = hint["start_line"] - 1
        header = _HEADER.match(lines[line])
        assert header is not None, f"no def or class header on line {line + 1}: {lines[line]!r}"
        start, end = header.span(1)
    text = lines[line]
    return {
        "start": {"line": line, "character": units(text[:start], encoding)},
        "end": {"line": line, "character": units(text[:end], encoding)},
    }


def proposes_nothing(hint: dict[str, Any]) -> bool:
    """Whether the hint's move proposes no change: the census (a budget and where the
    points are), or a short chain named as it is."""
    return _NO_CHANGE.search(hint["recommended_move"]) is not None


def expected_diagnostics(
    hints: list[dict[str, Any]], text: str, encoding: str, census: bool = True
) -> list[dict[str, Any]]:
    """What each hint must become (plain JSON values), derived from the contract alone:
    on its definition's name, positions in ``encoding``; without ``census``, the hints
    whose move proposes no change are not shown."""
    lines = lines_of(text)
    out = []
    for hint in hints:
        if not census and proposes_nothing(hint):
            continue
        out.append(
            {
                "range": name_range(hint, lines, encoding),
                "severity": severity(hint),
                "code": hint["metric"],
                "source": "gzguide",
                "message": f"{hint['recommended_move']} {hint['doctrinal_frame_headline']}.",
                "data": hint,
            }
        )
    return out


#: The anchors of the hints page's headings, where a diagnostic's link may point.
_ANCHORS = frozenset(
    re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-")
    for h in re.findall(r"^#{2,6} (.+?)\s*$", (DOCS / "hints.md").read_text("utf-8"), re.M)
)


def without_links(diagnostics: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The diagnostics with their ``codeDescription`` taken out, once it is checked: a
    ``file:`` URL of the hints page (or a configured one) and a section the page has."""
    plain = []
    for diagnostic in diagnostics:
        shown = dict(diagnostic)
        href = shown.pop("codeDescription")["href"]
        page, _, section = href.partition("#")
        assert page.endswith("hints.md") or not page.startswith("file:"), href
        assert section in _ANCHORS, f"{href}: no such section of docs/hints.md"
        plain.append(shown)
    return plain


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    keys = [k for k, _ in pairs]
    if len(keys) != len(set(keys)):
        raise AssertionError(f"duplicate keys in a message: {keys}")
    return dict(pairs)


def _reject_constant(name: str) -> Any:
    raise AssertionError(f"a message holds the non-JSON constant {name}")


def check_lsp_body(body: bytes) -> dict[str, Any]:
    """Everything promised of any LSP-mode message body; returns it decoded."""
    text = body.decode("utf-8")
    assert_compact(body)
    message = json.loads(text, parse_constant=_reject_constant, object_pairs_hook=_no_duplicates)
    assert isinstance(message, dict), f"not an object: {body!r}"
    assert list(message)[:1] == ["jsonrpc"] and message["jsonrpc"] == "2.0", body
    if "method" in message:
        assert set(message) == {"jsonrpc", "method", "params"}, body
        return message
    assert set(message) in ({"jsonrpc", "id", "result"}, {"jsonrpc", "id", "error"}), body
    request_id = message["id"]
    if "error" in message:
        error = message["error"]
        assert set(error) == {"code", "message"}, body
        assert type(error["code"]) is int and type(error["message"]) is str, body
        if request_id is None:
            assert error["code"] in (-32700, -32600), body
    if request_id is not None:
        assert type(request_id) in (int, str), body
    return message


def lsp_message(
    method: str | None = None, params: Any = None, id: Any = None, **extra: Any
) -> dict[str, Any]:
    """A JSON-RPC 2.0 message: a request with ``id``, a notification without."""
    message: dict[str, Any] = {"jsonrpc": "2.0"}
    if id is not None:
        message["id"] = id
    if method is not None:
        message["method"] = method
    if params is not None:
        message["params"] = params
    message.update(extra)
    return message


def initialize_params(
    debounce_ms: int | None = 0,
    encodings: list[str] | None = None,
    pull: bool = False,
    census: str | None = "all",
) -> dict[str, Any]:
    """``initialize``'s parameters; the census is shown everywhere unless ``census``
    says otherwise (None: the server's default)."""
    capabilities: dict[str, Any] = {"textDocument": {"hover": {"contentFormat": ["markdown"]}}}
    if encodings is not None:
        capabilities["general"] = {"positionEncodings": encodings}
    if pull:
        capabilities["textDocument"]["diagnostic"] = {}
    params: dict[str, Any] = {"processId": None, "rootUri": None, "capabilities": capabilities}
    options: dict[str, Any] = {}
    if debounce_ms is not None:
        options["debounceMs"] = debounce_ms
    if census is not None:
        options["census"] = census
    if options:
        params["initializationOptions"] = options
    return params


@dataclass
class LspProcess:
    """``gz complexity guide --lsp`` over real pipes."""

    args: tuple[str, ...] = ()
    cwd: Any = None
    #: As :class:`~support.protocol_client.ServerProcess` has them (the fault tests' parents).
    nonblocking_stdout: bool = False
    stderr_pipe: bool = False
    server: ServerProcess = field(init=False)
    #: Notifications read while looking for responses, in order.
    notifications: list[dict[str, Any]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.server = ServerProcess(
            args=self.args,
            cwd=self.cwd,
            nonblocking_stdout=self.nonblocking_stdout,
            stderr_pipe=self.stderr_pipe,
            check=check_lsp_body,
            command=LSP_COMMAND,
        )

    def __enter__(self) -> LspProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.kill()

    def send(self, *messages: bytes | dict[str, Any]) -> None:
        self.server.write(b"".join(m if isinstance(m, bytes) else frame(m) for m in messages))

    def read(self, timeout: float = DEFAULT_TIMEOUT) -> Response:
        return self.server.read_response(timeout)

    def response(self, request_id: Any, timeout: float = DEFAULT_TIMEOUT) -> Response:
        """The answer to ``request_id``; notifications before it are kept, any other
        response before it fails the test."""
        while True:
            message = self.read(timeout)
            if "method" in message.message:
                self.notifications.append(message.message)
                continue
            assert message.id == request_id, f"wanted the answer to {request_id!r}: {message}"
            return message

    def request(
        self, method: str, params: Any = None, id: Any = "r", timeout: float = DEFAULT_TIMEOUT
    ) -> Response:
        self.send(lsp_message(method, params, id=id))
        return self.response(id, timeout)

    def notify(self, method: str, params: Any = None) -> None:
        self.send(lsp_message(method, params))

    def initialize(self, **options: Any) -> dict[str, Any]:
        answer = self.request("initialize", initialize_params(**options), id="init")
        result: dict[str, Any] = answer.result
        self.notify("initialized", {})
        return result

    def publication(
        self, uri: str, version: int | None, timeout: float = DEFAULT_TIMEOUT, after: int = 0
    ) -> Any:
        """The diagnostics first published for ``uri`` at ``version`` (None: a clearing),
        among the notifications from number ``after`` on."""
        while True:
            for note in self.notifications[after:]:
                params = note["params"]
                if params["uri"] == uri and params.get("version") == version:
                    return without_links(params["diagnostics"])
            message = self.read(timeout)
            assert "method" in message.message, f"a response nobody asked for: {message}"
            self.notifications.append(message.message)

    def open(self, uri: str, text: str, version: int = 1, language: str = "python") -> None:
        item = {"uri": uri, "languageId": language, "version": version, "text": text}
        self.notify("textDocument/didOpen", {"textDocument": item})

    def replace(self, uri: str, version: int, text: str) -> None:
        self.notify(
            "textDocument/didChange",
            {"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": text}]},
        )
