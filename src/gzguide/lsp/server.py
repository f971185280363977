"""The LSP front end on the daemon's loop.

Bytes from stdin go through the one framing decoder (:mod:`gzguide.framing`, with its
limits and realignment), each body through :mod:`~gzguide.lsp.jsonrpc` and the
session's :class:`~gzguide.lsp.lifecycle.Lifecycle`, then to a handler. Unlike the
authoring-guide front end, input is read all the time: an editor sends changes
while a document is being analyzed, and answers may go out in any order.

Each open Python document is analyzed as its buffer's text, through the same
service, memo and worker pool as an ``analyze`` request with ``text``: after a
change, once the debounce has passed without another one (a deadline of
:class:`~gzguide.lsp.timers.Timers` on the loop), and at most one analysis per
document at a time. A result is used only if the document has not changed since
the analysis started; otherwise the document is analyzed again. Results are
pushed (``textDocument/publishDiagnostics`` with the document's version), or,
for a client that can pull diagnostics, answered to its ``textDocument/diagnostic``
requests instead. A pull or a hover on a document whose latest version is not
analyzed yet waits for it (and cuts its debounce short); if the document changes
before that, the request is answered ``-32801`` (ContentModified), as LSP has it
for a result the client would no longer want.
"""

from __future__ import annotations

import signal
import time
from collections.abc import Callable, Sequence
from typing import Any, Final, Protocol

import msgspec

from gzguide import __version__
from gzguide.analysis.model import Finding
from gzguide.answer import Answer
from gzguide.daemon import Companion, Loop, OutputClosed, _raise_exit, run_front_end, write_all
from gzguide.framing import NEED_DATA, EndOfStream, Frame, FrameDecoder, FramingError, Realigned
from gzguide.lsp import jsonrpc
from gzguide.lsp.diagnostics import Presenter, lines_range
from gzguide.lsp.documents import Document
from gzguide.lsp.hover import covering, hover_text
from gzguide.lsp.lifecycle import Exit, Handle, Lifecycle, Phase
from gzguide.lsp.newcode import Baseline, Baselines
from gzguide.lsp.pages import installed_url
from gzguide.lsp.timers import Timers
from gzguide.lsp.types import (
    CONTENT_MODIFIED,
    INVALID_PARAMS,
    PARSE_ERROR,
    REQUEST_CANCELLED,
    SERVER_CANCELLED,
    SYNC_INCREMENTAL,
    UTF8,
    UTF16,
    UTF32,
    CancelParams,
    Diagnostic,
    DiagnosticOptions,
    DidChangeParams,
    DidCloseParams,
    DidOpenParams,
    DidSaveParams,
    DocumentDiagnosticParams,
    ErrorMessage,
    FullDocumentDiagnosticReport,
    GeneralClientCapabilities,
    Hover,
    HoverParams,
    InitializationOptions,
    InitializeParams,
    InitializeResult,
    MarkupContent,
    Outgoing,
    ParamsError,
    PublishDiagnosticsParams,
    RequestId,
    ResultMessage,
    SaveOptions,
    ServerCapabilities,
    ServerInfo,
    SetTraceParams,
    TextDocumentClientCapabilities,
    TextDocumentSyncOptions,
    UnchangedDocumentDiagnosticReport,
    decode_params,
    encode,
    error_message,
    notification,
    result_message,
)
from gzguide.messages import Hint, answer_findings, to_hint

#: How long after a document's last change it is analyzed, unless the client's
#: ``initializationOptions.debounceMs`` says otherwise.
DEFAULT_DEBOUNCE_S: Final = 0.150
INTERNAL_ERROR: Final = -32603
PROTOCOL: Final = "lsp-3.17"

REQUESTS: Final = frozenset({"textDocument/hover", "textDocument/diagnostic"})
NOTIFICATIONS: Final = frozenset(
    {
        "initialized",
        "textDocument/didOpen",
        "textDocument/didChange",
        "textDocument/didSave",
        "textDocument/didClose",
        "$/cancelRequest",
        "$/setTrace",
    }
)


class TextAnalyzer(Protocol):
    """What the front end needs of the service: a buffer's text analyzed, answered later."""

    def analyze_text(
        self, file_path: str, text: bytes, cursor: int | None, done: Callable[[Answer], None]
    ) -> None: ...


class Result(msgspec.Struct):
    """One analyzed version of a document."""

    generation: int
    version: int
    hints: list[Hint]
    diagnostics: list[Diagnostic]
    result_id: str


class Waiter(msgspec.Struct):
    """A request whose answer needs the document's latest version analyzed."""

    request_id: RequestId
    method: str
    params: HoverParams | DocumentDiagnosticParams
    started: float
    bytes_in: int


class DocState:
    """An open document and its analysis."""

    __slots__ = (
        "baseline",
        "changed_at",
        "document",
        "generation",
        "in_flight",
        "result",
        "waiters",
    )

    def __init__(self, document: Document) -> None:
        self.document = document
        #: Counts the document's states (each change, each save): a result is only
        #: used for the state it was computed from.
        self.generation = 0
        #: The generation being analyzed, if one is.
        self.in_flight: int | None = None
        self.result: Result | None = None
        self.waiters: list[Waiter] = []
        #: ``time.perf_counter()`` at the last change (for the log's latency).
        self.changed_at = time.perf_counter()
        #: What is old code in it (the census is shown on the rest); None until read.
        self.baseline: Baseline | None = None


class LspServer:
    """Serves one LSP client over a pair of descriptors until ``exit`` or the end of input."""

    def __init__(
        self,
        service: TextAnalyzer,
        in_fd: int,
        out_fd: int,
        log: Any,
        companions: Sequence[Companion] = (),
    ) -> None:
        self.service = service
        self.out_fd = out_fd
        self.log = log
        self.decoder = FrameDecoder()
        self.lifecycle = Lifecycle(REQUESTS, NOTIFICATIONS)
        self.timers = Timers(self._debounced)
        self.companions = tuple(companions)
        self.loop = Loop(in_fd, out_fd, [*self.companions, self.timers], self._input)
        self.docs: dict[str, DocState] = {}
        self.encoding = UTF16
        self.markdown = False
        #: Whether the client pulls diagnostics (then none are pushed).
        self.pull = False
        self.debounce_s = DEFAULT_DEBOUNCE_S
        #: Where the census is shown: on new code, everywhere, nowhere.
        self.census = "new"
        self.presenter = Presenter(UTF16, installed_url(), related=False)
        self.baselines = Baselines()
        self.trace = "off"
        self.requests = 0
        self.started = time.monotonic()
        self._results = 0
        self._exit: int | None = None
        self._waiting: dict[RequestId, DocState] = {}
        #: Each notification's params type and handler.
        self._handlers: dict[str, tuple[type[Any], Callable[[Any], None]]] = {
            "textDocument/didOpen": (DidOpenParams, self._did_open),
            "textDocument/didChange": (DidChangeParams, self._did_change),
            "textDocument/didSave": (DidSaveParams, self._did_save),
            "textDocument/didClose": (DidCloseParams, self._did_close),
            "$/cancelRequest": (CancelParams, self._cancel),
            "$/setTrace": (SetTraceParams, self._set_trace),
        }

    # -- transport ------------------------------------------------------------------

    def send(self, message: Outgoing) -> None:
        body = encode(message)
        write_all(self.out_fd, [b"Content-Length: %d\r\n\r\n" % len(body), body])

    def _input(self, chunk: bytes) -> None:
        if chunk:
            self.decoder.receive_data(chunk)
        else:
            self.decoder.receive_eof()

    def run(self) -> tuple[str, int]:
        """Serve until ``exit`` or the end of input; the reason and the exit status."""
        decoder = self.decoder
        while self._exit is None:
            event = decoder.next_event()
            if event is NEED_DATA:
                self.loop.turn(reading=True)
            elif isinstance(event, EndOfStream):
                self.log.info("end_of_input", truncated=event.truncated)
                return "end_of_input", 0
            else:
                self._event(event)
        return "exit", self._exit

    def _event(self, event: object) -> None:
        """A frame, or what the decoder says about the bytes it could not frame."""
        match event:
            case Frame(body=body):
                self._frame(body)
            case FramingError():
                self.send(error_message(None, PARSE_ERROR, f"Parse error: {event.message}"))
                self.log.warning(
                    "framing_error",
                    kind=str(event.kind),
                    declared_length=event.declared_length,
                    outcome=str(PARSE_ERROR),
                )
            case Realigned():
                self.log.info(
                    "framing_realigned", kind=str(event.kind), bytes_discarded=event.discarded_bytes
                )

    # -- dispatch ---------------------------------------------------------------------

    def _frame(self, body: bytes) -> None:
        started = time.perf_counter()
        message = jsonrpc.decode(body)
        match message:
            case ErrorMessage():
                self._answer(message, None, started, len(body))
            case jsonrpc.Request():
                self._gated_request(message, started, len(body))
            case jsonrpc.Notification():
                self._gated_notification(message)
            case _:
                self.log.debug("client_response_ignored", request_id=message.id)

    def _gated_request(self, request: jsonrpc.Request, started: float, size: int) -> None:
        """A request, as the session's phase admits it."""
        gate = self.lifecycle.request(request.id, request.method)
        if isinstance(gate, Exit):
            self._exit = gate.status
        elif isinstance(gate, ErrorMessage):
            self._answer(gate, request.method, started, size)
        elif isinstance(gate, Handle):
            self._request(request, started, size)

    def _gated_notification(self, note: jsonrpc.Notification) -> None:
        """A notification, as the session's phase admits it."""
        gate = self.lifecycle.notification(note.method)
        if isinstance(gate, Exit):
            self._exit = gate.status
        elif isinstance(gate, Handle):
            self._notification(note)
        else:
            self.log.debug("notification_ignored", method=note.method)

    def _answer(
        self,
        message: ResultMessage | ErrorMessage,
        method: str | None,
        started: float,
        bytes_in: int,
        hints: int | None = None,
    ) -> None:
        """Send a request's answer, then log it."""
        self.send(message)
        self.requests += 1
        outcome = str(message.error.code) if isinstance(message, ErrorMessage) else "ok"
        self.log.info(
            "request",
            request_id=message.id,
            method=method,
            outcome=outcome,
            duration_ms=round((time.perf_counter() - started) * 1000, 3),
            bytes_in=bytes_in,
            hints=hints,
        )

    def _request(self, request: jsonrpc.Request, started: float, size: int) -> None:
        method = request.method
        answer = self._guarded_answer(request, started, size)
        if answer is not None:
            self._answer(answer, method, started, size)
        if method == "initialize" and self.lifecycle.phase is Phase.RUNNING:
            self._start_companions()

    def _guarded_answer(
        self, request: jsonrpc.Request, started: float, size: int
    ) -> ResultMessage | ErrorMessage | None:
        """The answer, or the error a failure to answer is told as (never the failure)."""
        try:
            return self._answer_to(request, started, size)
        except ParamsError as exc:
            return error_message(request.id, INVALID_PARAMS, str(exc))
        except OutputClosed:
            raise
        except Exception as exc:
            self.log.error("request_failed", method=request.method, error=repr(exc))
            return error_message(request.id, INTERNAL_ERROR, f"Internal error: {exc!r}")

    def _answer_to(
        self, request: jsonrpc.Request, started: float, size: int
    ) -> ResultMessage | None:
        """The answer to a request the phase admits (None: it waits for an analysis)."""
        if request.method == "initialize":
            return self._initialize(request)
        if request.method == "shutdown":
            return self._shutdown(request)
        return self._document_request(request, started, size)

    def _start_companions(self) -> None:
        for companion in self.companions:
            companion.start()  # after the first answer: start-up never waits on workers

    def _notification(self, note: jsonrpc.Notification) -> None:
        method = note.method
        handling = self._handlers.get(method)
        if handling is None:
            return  # admitted but needing nothing (``initialized``)
        params_type, handler = handling
        try:
            handler(decode_params(note.params, params_type))
        except ParamsError as exc:
            self.log.warning("notification_rejected", method=method, error=str(exc))
        except OutputClosed:
            raise
        except Exception as exc:
            self.log.error("notification_failed", method=method, error=repr(exc))

    # -- lifecycle -----------------------------------------------------------------

    def _initialize(self, request: jsonrpc.Request) -> ResultMessage:
        params = decode_params(request.params, InitializeParams)
        self._take_capabilities(params)
        self._take_options(params.initializationOptions or InitializationOptions())
        capabilities = ServerCapabilities(
            positionEncoding=self.encoding,
            textDocumentSync=TextDocumentSyncOptions(
                openClose=True, change=SYNC_INCREMENTAL, save=SaveOptions(includeText=False)
            ),
            hoverProvider=True,
        )
        if self.pull:
            capabilities.diagnosticProvider = DiagnosticOptions(
                identifier="gzguide", interFileDependencies=False, workspaceDiagnostics=False
            )
        self.lifecycle.initialized()
        self.log.info(
            "lsp_initialized",
            position_encoding=self.encoding,
            diagnostics="pull" if self.pull else "push",
            debounce_ms=round(self.debounce_s * 1000, 3),
            census=self.census,
        )
        result = InitializeResult(capabilities, ServerInfo("gzguide", __version__))
        return result_message(request.id, result)

    def _take_capabilities(self, params: InitializeParams) -> None:
        """What the client can do: positions, hover markup, pulled diagnostics."""
        caps = params.capabilities
        self.encoding = _encoding_of(caps.general)
        text_caps = caps.textDocument or TextDocumentClientCapabilities()
        self.markdown = _takes_markdown(text_caps)
        self.pull = text_caps.diagnostic is not None
        related = _takes_related(text_caps, self.pull)
        self.presenter = Presenter(self.encoding, self.presenter.hints_url, related)

    def _take_options(self, options: InitializationOptions) -> None:
        """What the user configured: the debounce, where the census shows, the page's URL."""
        self.census = options.census or "new"
        if options.debounceMs is not None:
            self.debounce_s = options.debounceMs / 1000
        if options.hintsUrl:
            self.presenter.hints_url = options.hintsUrl

    def _shutdown(self, request: jsonrpc.Request) -> ResultMessage:
        """``null``; requests still waiting for an analysis are cancelled first."""
        for state in self.docs.values():
            waiters, state.waiters = state.waiters, []
            for waiter in waiters:
                self._waiting.pop(waiter.request_id, None)
                message = error_message(
                    waiter.request_id, SERVER_CANCELLED, "Server cancelled: shutdown"
                )
                self._answer(message, waiter.method, waiter.started, waiter.bytes_in)
        self.timers.clear()
        self.lifecycle.shut_down()
        return result_message(request.id, None)

    def _set_trace(self, params: SetTraceParams) -> None:
        self.trace = params.value

    def _cancel(self, params: CancelParams) -> None:
        state = self._waiting.pop(params.id, None)
        if state is None:
            return  # answered already, or never ours to wait on
        for waiter in state.waiters:
            if waiter.request_id == params.id:
                state.waiters.remove(waiter)
                message = error_message(waiter.request_id, REQUEST_CANCELLED, "Request cancelled")
                self._answer(message, waiter.method, waiter.started, waiter.bytes_in)
                return

    # -- documents -------------------------------------------------------------------

    def _did_open(self, params: DidOpenParams) -> None:
        item = params.textDocument
        old = self.docs.pop(item.uri, None)
        if old is not None:
            self._closed(old)
        state = DocState(Document(item.uri, item.languageId, item.version, item.text))
        self.docs[item.uri] = state
        self._read_baseline(state)
        self._changed(state)

    def _did_change(self, params: DidChangeParams) -> None:
        state = self.docs.get(params.textDocument.uri)
        if state is None:
            return  # a change to a document never opened: nothing to apply it to
        state.document.apply(params.textDocument.version, params.contentChanges, self.encoding)
        self._changed(state, modified=True)

    def _did_save(self, params: DidSaveParams) -> None:
        state = self.docs.get(params.textDocument.uri)
        if state is None:
            return
        modified = params.text is not None and params.text != state.document.text
        if params.text is not None:
            state.document.replace(state.document.version, params.text)
        if state.baseline is not None and state.baseline.source == "HEAD":
            self._read_baseline(state)  # a commit may have been made since
        # Analyzed again (from the memo when the text is unchanged): a save is when a
        # changed workspace threshold table is picked up.
        self._changed(state, modified)

    def _did_close(self, params: DidCloseParams) -> None:
        state = self.docs.pop(params.textDocument.uri, None)
        if state is None:
            return
        self._closed(state)
        if not self.pull:
            self._publish(PublishDiagnosticsParams(state.document.uri, []))

    def _read_baseline(self, state: DocState) -> None:
        """What of the document is old code, when the census is shown on new code only."""
        document = state.document
        if self.census == "new" and document.analyzed:
            state.baseline = self.baselines.of(document.path, document.text)

    def _closed(self, state: DocState) -> None:
        """A document leaves: its debounce is dropped and its waiting requests answered."""
        self.timers.cancel(state.document.uri)
        waiters, state.waiters = state.waiters, []
        for waiter in waiters:
            self._waiting.pop(waiter.request_id, None)
            self._reply_to(waiter, None)

    def _changed(self, state: DocState, modified: bool = False) -> None:
        """A new state of the document; requests waiting on a text now gone are answered."""
        if modified:
            waiters, state.waiters = state.waiters, []
            for waiter in waiters:
                self._waiting.pop(waiter.request_id, None)
                message = error_message(
                    waiter.request_id, CONTENT_MODIFIED, "Content modified: the document changed"
                )
                self._answer(message, waiter.method, waiter.started, waiter.bytes_in)
        state.generation += 1
        state.changed_at = time.perf_counter()
        if state.document.analyzed:
            self.timers.schedule(state.document.uri, time.monotonic() + self.debounce_s)

    # -- analysis -----------------------------------------------------------------------

    def _debounced(self, uri: str) -> None:
        state = self.docs.get(uri)
        if state is not None:
            self._start(state)

    def _start(self, state: DocState) -> None:
        if state.in_flight is not None:
            return  # its completion starts the next one
        generation = state.in_flight = state.generation
        document = state.document

        def done(answer: Answer) -> None:
            self._analyzed(state, generation, answer)

        self.service.analyze_text(document.path, document.data, None, done)

    def _analyzed(self, state: DocState, generation: int, answer: Answer) -> None:
        state.in_flight = None
        uri = state.document.uri
        if self.docs.get(uri) is not state or self.lifecycle.phase is not Phase.RUNNING:
            return
        if generation != state.generation:
            self._outdated(state)
            return
        result = state.result = self._result(state, generation, answer_findings(answer))
        if not self.pull:
            self._publish(PublishDiagnosticsParams(uri, result.diagnostics, result.version))
        self.log.info(
            "diagnostics",
            uri=uri,
            version=result.version,
            hints=len(result.hints),
            shown=len(result.diagnostics),
            cache=answer.files[0].cache.value if answer.files else None,
            pushed=not self.pull,
            since_change_ms=round((time.perf_counter() - state.changed_at) * 1000, 3),
        )
        self._answer_waiters(state, result)

    def _outdated(self, state: DocState) -> None:
        """An analysis of a text that changed meanwhile: analyzed again once its debounce
        passes, or at once when that has passed already or a request is waiting."""
        uri = state.document.uri
        if state.waiters:
            self.timers.cancel(uri)
        if not self.timers.pending(uri):
            self._start(state)

    def _answer_waiters(self, state: DocState, result: Result) -> None:
        waiters, state.waiters = state.waiters, []
        for waiter in waiters:
            self._waiting.pop(waiter.request_id, None)
            self._reply_to(waiter, result)

    def _result(self, state: DocState, generation: int, found: list[tuple[Finding, str]]) -> Result:
        """The analyzed version: every hint (hover shows them all), and the diagnostics
        of those shown."""
        document = state.document
        hints = [to_hint(f, path) for f, path in found]
        shown = [
            self.presenter.diagnostic(f, hint, document.uri, document.index)
            for (f, _), hint in zip(found, hints, strict=True)
            if self._shows(state, f)
        ]
        self._results += 1
        return Result(generation, document.version, hints, shown, str(self._results))

    def _shows(self, state: DocState, finding: Finding) -> bool:
        """Whether ``finding`` is a diagnostic: a move always; a hint that proposes no
        change (the census, a short chain named as it is) as configured."""
        if finding.proposes or self.census == "all":
            return True
        baseline = state.baseline
        if self.census == "off" or baseline is None:
            return False
        return baseline.is_new(finding, state.document.index)

    def _publish(self, params: PublishDiagnosticsParams) -> None:
        self.send(notification("textDocument/publishDiagnostics", params))

    # -- requests on documents ---------------------------------------------------------

    def _document_request(
        self, request: jsonrpc.Request, started: float, size: int
    ) -> ResultMessage | None:
        """The answer now, or None when it waits for the document's analysis."""
        params: HoverParams | DocumentDiagnosticParams
        if request.method == "textDocument/hover":
            params = decode_params(request.params, HoverParams)
        else:
            params = decode_params(request.params, DocumentDiagnosticParams)
        waiter = Waiter(request.id, request.method, params, started, size)
        state = self.docs.get(params.textDocument.uri)
        if state is None or not state.document.analyzed:
            return self._answer_for(waiter, None)
        result = state.result
        if result is not None and result.generation == state.generation:
            return self._answer_for(waiter, result)
        state.waiters.append(waiter)
        self._waiting[request.id] = state
        self.timers.cancel(state.document.uri)  # someone is waiting: no more debounce
        self._start(state)
        return None

    def _reply_to(self, waiter: Waiter, result: Result | None) -> None:
        answer = self._answer_for(waiter, result)
        hints = len(result.hints) if result is not None else None
        self._answer(answer, waiter.method, waiter.started, waiter.bytes_in, hints)

    def _answer_for(self, waiter: Waiter, result: Result | None) -> ResultMessage:
        params = waiter.params
        if isinstance(params, HoverParams):
            return result_message(waiter.request_id, self._hover(params, result))
        if result is None:
            report: Any = FullDocumentDiagnosticReport("0", [])
        elif params.previousResultId == result.result_id:
            report = UnchangedDocumentDiagnosticReport(result.result_id)
        else:
            report = FullDocumentDiagnosticReport(result.result_id, result.diagnostics)
        return result_message(waiter.request_id, report)

    def _hover(self, params: HoverParams, result: Result | None) -> Hover | None:
        if result is None:
            return None
        found = covering(result.hints, params.position.line + 1)
        if not found:
            return None
        state = self.docs[params.textDocument.uri]
        narrowest = found[0]
        span = lines_range(
            narrowest.start_line, narrowest.end_line, state.document.index, self.encoding
        )
        text = hover_text(found, self.markdown)
        contents = (
            MarkupContent("markdown", text) if self.markdown else MarkupContent("plaintext", text)
        )
        return Hover(contents, span)


def _encoding_of(general: GeneralClientCapabilities | None) -> str:
    """UTF-8 when the client offers it, else UTF-32 if offered, else LSP's UTF-16."""
    offered = (general.positionEncodings if general else None) or []
    return next((e for e in (UTF8, UTF32) if e in offered), UTF16)


def _takes_markdown(caps: TextDocumentClientCapabilities) -> bool:
    formats = caps.hover.contentFormat if caps.hover else None
    return "markdown" in (formats or ())


def _takes_related(caps: TextDocumentClientCapabilities, pull: bool) -> bool:
    """Whether the client takes a diagnostic's related places (pushed or pulled)."""
    if pull:
        return bool((caps.diagnostic or {}).get("relatedInformation"))
    return bool(caps.publishDiagnostics and caps.publishDiagnostics.relatedInformation)


def serve_lsp(
    service: TextAnalyzer,
    log: Any,
    out_fd: int,
    in_fd: int = 0,
    companions: Sequence[Companion] = (),
    idle: Callable[[], None] | None = None,
) -> int:
    """Run the LSP server on ``in_fd``/``out_fd``; returns the process exit status."""
    signal.signal(signal.SIGTERM, _raise_exit)
    server = LspServer(service, in_fd, out_fd, log, companions)
    return run_front_end(server, server.run, log, PROTOCOL, idle)
