"""The LSP mode as a state machine: what comes in, what goes out, and nothing else.

Events in: a frame's body (:meth:`LspSession.frame`) or a framing error the decoder
reported, an analysis's answer (:meth:`~LspSession.analyzed`), a document's fixes
worked out (:meth:`~LspSession.fixes_ready`), a baseline read
(:meth:`~LspSession.baseline_read`) and the clock passing a debounce
(:meth:`~LspSession.tick`); each takes the time it happens (``time.monotonic()``).
Actions out (:mod:`gzguide.lsp.actions`): messages to send, buffers to analyze or
to work out the fixes of, baselines to read, log records, and the companions' start.
The session does no I/O and reads no clock, so its tests drive it with values and
need no pipe; the shell (:mod:`gzguide.lsp.server`) runs it on the shared loop
(:mod:`gzguide.rpc`).

Each open Python document is analyzed as its buffer's text: after a change, once the
debounce has passed without another one, at most one analysis per document at a time.
A result is used only if the document has not changed since the analysis started;
otherwise the document is analyzed again. Results are pushed
(``textDocument/publishDiagnostics`` with the document's version), or, for a client
that pulls, answered to its ``textDocument/diagnostic`` requests instead. A pull or a
hover on a document whose latest version is not analyzed yet waits for it (and cuts
its debounce short); if the document changes before that, the request is answered
``-32801`` (ContentModified), as LSP has it for a result the client would no longer
want.

Code actions are the verified fixes of the document's hints (:mod:`gzguide.lsp.codeactions`),
worked out once per version, when first asked for: a request on a version whose fixes
are not known yet waits for them, and is answered ``-32801`` if the document changes
meanwhile, so an edit is only ever offered against the text it was made for.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

import msgspec

from gzguide import __version__
from gzguide.analysis.fixes.document import DocumentFixes
from gzguide.analysis.model import Finding
from gzguide.answer import Answer
from gzguide.framing import FramingError
from gzguide.guide.messages import Hint, answer_findings, to_hint
from gzguide.lsp import jsonrpc
from gzguide.lsp.actions import (
    Action,
    Analyze,
    ComputeFixes,
    Log,
    ReadBaseline,
    Send,
    StartCompanions,
)
from gzguide.lsp.codeactions import KINDS, ActionMaker
from gzguide.lsp.diagnostics import lines_range
from gzguide.lsp.documents import Document
from gzguide.lsp.families import hidden_copies, second_hints
from gzguide.lsp.hover import covering, hover_text
from gzguide.lsp.lifecycle import Exit, Handle, Lifecycle, Phase
from gzguide.lsp.newcode import Baseline
from gzguide.lsp.settings import Settings, negotiate
from gzguide.lsp.timers import Timers
from gzguide.lsp.types import (
    CONTENT_MODIFIED,
    REQUEST_CANCELLED,
    SERVER_CANCELLED,
    SYNC_INCREMENTAL,
    CancelParams,
    CodeActionOptions,
    CodeActionParams,
    Diagnostic,
    DiagnosticOptions,
    DidChangeParams,
    DidCloseParams,
    DidOpenParams,
    DidSaveParams,
    DocumentDiagnosticParams,
    ErrorMessage,
    FullDocumentDiagnosticReport,
    Hover,
    HoverParams,
    InitializeParams,
    InitializeResult,
    MarkupContent,
    ParamsError,
    PublishDiagnosticsParams,
    RequestId,
    ResultMessage,
    SaveOptions,
    ServerCapabilities,
    ServerInfo,
    SetTraceParams,
    TextDocumentSyncOptions,
    UnchangedDocumentDiagnosticReport,
    decode_params,
    error_message,
    notification,
    result_message,
)
from gzguide.rpc.bodies import INVALID_PARAMS, PARSE_ERROR

INTERNAL_ERROR: Final = -32603

REQUESTS: Final = frozenset(
    {"textDocument/hover", "textDocument/diagnostic", "textDocument/codeAction"}
)
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
    params: HoverParams | DocumentDiagnosticParams | CodeActionParams
    started: float
    bytes_in: int


class DocState:
    """An open document and its analysis."""

    __slots__ = (
        "baseline",
        "changed_at",
        "document",
        "fix_waiters",
        "fixes",
        "fixing",
        "generation",
        "in_flight",
        "result",
        "waiters",
    )

    def __init__(self, document: Document, now: float) -> None:
        self.document = document
        #: Counts the document's states (each change, each save): a result is only
        #: used for the state it was computed from.
        self.generation = 0
        #: The analysis under way, if one is: its ticket and the generation it reads.
        self.in_flight: tuple[int, int] | None = None
        self.result: Result | None = None
        self.waiters: list[Waiter] = []
        #: When it last changed (for the log's latency).
        self.changed_at = now
        #: What is old code in it (the census is shown on the rest); None until read.
        self.baseline: Baseline | None = None
        #: The work on its fixes under way, if any: its ticket and the generation it reads.
        self.fixing: tuple[int, int] | None = None
        #: The fixes last worked out, with the generation they are of.
        self.fixes: tuple[int, DocumentFixes] | None = None
        #: Code action requests waiting for the fixes of the latest generation.
        self.fix_waiters: list[Waiter] = []

    def take_waiters(self) -> list[Waiter]:
        """Every request waiting on the document, no longer waiting."""
        waiters = [*self.waiters, *self.fix_waiters]
        self.waiters, self.fix_waiters = [], []
        return waiters

    def take_waiter(self, request_id: RequestId) -> Waiter | None:
        """The request ``request_id`` if it waits on the document, no longer waiting."""
        for waiters in (self.waiters, self.fix_waiters):
            found = next((w for w in waiters if w.request_id == request_id), None)
            if found is not None:
                waiters.remove(found)
                return found
        return None


class LspSession:
    """One client's session, from ``initialize`` to ``exit``."""

    def __init__(self) -> None:
        self.lifecycle = Lifecycle(REQUESTS, NOTIFICATIONS)
        self.settings = Settings()
        self.timers = Timers(self._debounced)
        self.docs: dict[str, DocState] = {}
        self.trace = "off"
        #: Requests answered so far.
        self.requests = 0
        #: The exit status once ``exit`` has come; None until then.
        self.exit_status: int | None = None
        self._now = 0.0
        self._results = 0
        self._tickets = 0
        self._out: list[Action] = []
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

    # -- events in ----------------------------------------------------------------------

    def frame(self, body: bytes, now: float) -> list[Action]:
        """A frame's body arrived."""
        self._now = now
        message = jsonrpc.decode(body)
        match message:
            case ErrorMessage():
                self._answer(message, None, now, len(body))
            case jsonrpc.Request():
                self._gated_request(message, len(body))
            case jsonrpc.Notification():
                self._gated_notification(message)
            case _:
                self._log("debug", "client_response_ignored", request_id=message.id)
        return self._flush()

    def framing_error(self, error: FramingError, now: float) -> list[Action]:
        """Bytes that were no frame: answered ``-32700`` with a null id."""
        self._now = now
        self._send(error_message(None, PARSE_ERROR, f"Parse error: {error.message}"))
        self._log(
            "warning",
            "framing_error",
            kind=str(error.kind),
            declared_length=error.declared_length,
            outcome=str(PARSE_ERROR),
        )
        return self._flush()

    def analyzed(self, uri: str, ticket: int, answer: Answer, now: float) -> list[Action]:
        """The analysis ``ticket`` of ``uri`` answered (one of a document since closed is
        dropped)."""
        self._now = now
        state = self.docs.get(uri)
        if state is not None and state.in_flight is not None and state.in_flight[0] == ticket:
            generation = state.in_flight[1]
            state.in_flight = None
            self._analyzed(state, generation, answer)
        return self._flush()

    def fixes_ready(self, uri: str, ticket: int, fixes: DocumentFixes, now: float) -> list[Action]:
        """The fixes ``ticket`` of ``uri`` were worked out (those of a document since
        closed are dropped)."""
        self._now = now
        state = self.docs.get(uri)
        if state is not None and state.fixing is not None and state.fixing[0] == ticket:
            generation = state.fixing[1]
            state.fixing = None
            self._fixed(state, generation, fixes)
        return self._flush()

    def baseline_read(self, uri: str, baseline: Baseline) -> None:
        state = self.docs.get(uri)
        if state is not None:
            state.baseline = baseline

    def tick(self, now: float) -> list[Action]:
        """The clock reached ``now``: the debounces that passed start their analyses."""
        self._now = now
        self.timers.tick(now)
        return self._flush()

    def next_deadline(self) -> float | None:
        return self.timers.next_deadline()

    # -- actions out ------------------------------------------------------------------

    def _flush(self) -> list[Action]:
        out, self._out = self._out, []
        return out

    def _send(self, message: ResultMessage | ErrorMessage | Any) -> None:
        self._out.append(Send(message))

    def _log(self, level: str, event: str, **fields: Any) -> None:
        self._out.append(Log(level, event, fields))

    # -- dispatch ---------------------------------------------------------------------

    def _gated_request(self, request: jsonrpc.Request, size: int) -> None:
        """A request, as the session's phase admits it."""
        gate = self.lifecycle.request(request.id, request.method)
        if isinstance(gate, Exit):
            self.exit_status = gate.status
        elif isinstance(gate, ErrorMessage):
            self._answer(gate, request.method, self._now, size)
        elif isinstance(gate, Handle):
            self._request(request, size)

    def _gated_notification(self, note: jsonrpc.Notification) -> None:
        """A notification, as the session's phase admits it."""
        gate = self.lifecycle.notification(note.method)
        if isinstance(gate, Exit):
            self.exit_status = gate.status
        elif isinstance(gate, Handle):
            self._notification(note)
        else:
            self._log("debug", "notification_ignored", method=note.method)

    def _answer(
        self,
        message: ResultMessage | ErrorMessage,
        method: str | None,
        started: float,
        bytes_in: int,
        hints: int | None = None,
    ) -> None:
        """Send a request's answer, then log it."""
        self._send(message)
        self.requests += 1
        outcome = str(message.error.code) if isinstance(message, ErrorMessage) else "ok"
        self._log(
            "info",
            "request",
            request_id=message.id,
            method=method,
            outcome=outcome,
            duration_ms=round((self._now - started) * 1000, 3),
            bytes_in=bytes_in,
            hints=hints,
        )

    def _request(self, request: jsonrpc.Request, size: int) -> None:
        method = request.method
        answer = self._guarded_answer(request, size)
        if answer is not None:
            self._answer(answer, method, self._now, size)
        if method == "initialize" and self.lifecycle.phase is Phase.RUNNING:
            self._out.append(StartCompanions())  # after the first answer: start-up never waits

    def _guarded_answer(
        self, request: jsonrpc.Request, size: int
    ) -> ResultMessage | ErrorMessage | None:
        """The answer, or the error a failure to answer is told as (never the failure)."""
        try:
            return self._answer_to(request, size)
        except ParamsError as exc:
            return error_message(request.id, INVALID_PARAMS, str(exc))
        except Exception as exc:
            self._log("error", "request_failed", method=request.method, error=repr(exc))
            return error_message(request.id, INTERNAL_ERROR, f"Internal error: {exc!r}")

    def _answer_to(self, request: jsonrpc.Request, size: int) -> ResultMessage | None:
        """The answer to a request the phase admits (None: it waits for an analysis)."""
        if request.method == "initialize":
            return self._initialize(request)
        if request.method == "shutdown":
            return self._shutdown(request)
        if request.method == "textDocument/codeAction":
            return self._code_action_request(request, size)
        return self._document_request(request, size)

    def _notification(self, note: jsonrpc.Notification) -> None:
        method = note.method
        handling = self._handlers.get(method)
        if handling is None:
            return  # admitted but needing nothing (``initialized``)
        params_type, handler = handling
        try:
            handler(decode_params(note.params, params_type))
        except ParamsError as exc:
            self._log("warning", "notification_rejected", method=method, error=str(exc))
        except Exception as exc:
            self._log("error", "notification_failed", method=method, error=repr(exc))

    # -- lifecycle -----------------------------------------------------------------

    def _initialize(self, request: jsonrpc.Request) -> ResultMessage:
        settings = self.settings = negotiate(decode_params(request.params, InitializeParams))
        capabilities = ServerCapabilities(
            positionEncoding=settings.encoding,
            textDocumentSync=TextDocumentSyncOptions(
                openClose=True, change=SYNC_INCREMENTAL, save=SaveOptions(includeText=False)
            ),
            hoverProvider=True,
        )
        if settings.code_actions:
            capabilities.codeActionProvider = CodeActionOptions(list(KINDS))
        if settings.pull:
            capabilities.diagnosticProvider = DiagnosticOptions(
                identifier="gzguide", interFileDependencies=False, workspaceDiagnostics=False
            )
        self.lifecycle.initialized()
        self._log(
            "info",
            "lsp_initialized",
            position_encoding=settings.encoding,
            diagnostics="pull" if settings.pull else "push",
            debounce_ms=round(settings.debounce_s * 1000, 3),
            census=settings.census,
        )
        result = InitializeResult(capabilities, ServerInfo("gzguide", __version__))
        return result_message(request.id, result)

    def _shutdown(self, request: jsonrpc.Request) -> ResultMessage:
        """``null``; requests still waiting for an analysis are cancelled first."""
        for state in self.docs.values():
            self._fail_waiters(state, SERVER_CANCELLED, "Server cancelled: shutdown")
        self.timers.clear()
        self.lifecycle.shut_down()
        return result_message(request.id, None)

    def _fail_waiters(self, state: DocState, code: int, why: str) -> None:
        """Answer every request waiting on ``state`` with the error ``code``."""
        for waiter in state.take_waiters():
            self._waiting.pop(waiter.request_id, None)
            message = error_message(waiter.request_id, code, why)
            self._answer(message, waiter.method, waiter.started, waiter.bytes_in)

    def _set_trace(self, params: SetTraceParams) -> None:
        self.trace = params.value

    def _cancel(self, params: CancelParams) -> None:
        state = self._waiting.pop(params.id, None)
        if state is None:
            return  # answered already, or never ours to wait on
        waiter = state.take_waiter(params.id)
        if waiter is None:
            return
        message = error_message(waiter.request_id, REQUEST_CANCELLED, "Request cancelled")
        self._answer(message, waiter.method, waiter.started, waiter.bytes_in)

    # -- documents -------------------------------------------------------------------

    def _did_open(self, params: DidOpenParams) -> None:
        item = params.textDocument
        old = self.docs.pop(item.uri, None)
        if old is not None:
            self._closed(old)
        document = Document(item.uri, item.languageId, item.version, item.text)
        state = self.docs[item.uri] = DocState(document, self._now)
        self._read_baseline(state)
        self._changed(state)

    def _did_change(self, params: DidChangeParams) -> None:
        state = self.docs.get(params.textDocument.uri)
        if state is None:
            return  # a change to a document never opened: nothing to apply it to
        encoding = self.settings.encoding
        state.document.apply(params.textDocument.version, params.contentChanges, encoding)
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
        if not self.settings.pull:
            self._publish(PublishDiagnosticsParams(state.document.uri, []))

    def _read_baseline(self, state: DocState) -> None:
        """What of the document is old code, when the census is shown on new code only."""
        document = state.document
        if self.settings.census == "new" and document.analyzed:
            self._out.append(ReadBaseline(document.uri, document.path, document.text))

    def _closed(self, state: DocState) -> None:
        """A document leaves: its debounce is dropped and its waiting requests answered."""
        self.timers.cancel(state.document.uri)
        for waiter in state.take_waiters():
            self._waiting.pop(waiter.request_id, None)
            self._reply_to(waiter, None)

    def _changed(self, state: DocState, modified: bool = False) -> None:
        """A new state of the document; requests waiting on a text now gone are answered."""
        if modified:
            self._fail_waiters(state, CONTENT_MODIFIED, "Content modified: the document changed")
        state.generation += 1
        state.changed_at = self._now
        if state.document.analyzed:
            self.timers.schedule(state.document.uri, self._now + self.settings.debounce_s)

    # -- analysis -----------------------------------------------------------------------

    def _debounced(self, uri: str) -> None:
        state = self.docs.get(uri)
        if state is not None:
            self._start(state)

    def _start(self, state: DocState) -> None:
        if state.in_flight is not None:
            return  # its completion starts the next one
        self._tickets += 1
        state.in_flight = (self._tickets, state.generation)
        document = state.document
        self._out.append(Analyze(document.uri, self._tickets, document.path, document.data))

    def _analyzed(self, state: DocState, generation: int, answer: Answer) -> None:
        if self.lifecycle.phase is not Phase.RUNNING:
            return
        if generation != state.generation:
            self._outdated(state)
            return
        result = state.result = self._result(state, generation, answer_findings(answer))
        uri = state.document.uri
        if not self.settings.pull:
            self._publish(PublishDiagnosticsParams(uri, result.diagnostics, result.version))
        self._log(
            "info",
            "diagnostics",
            uri=uri,
            version=result.version,
            hints=len(result.hints),
            shown=len(result.diagnostics),
            cache=answer.files[0].cache.value if answer.files else None,
            pushed=not self.settings.pull,
            since_change_ms=round((self._now - state.changed_at) * 1000, 3),
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
        presenter = self.settings.presenter
        hints = [to_hint(f, path) for f, path in found]
        findings = [f for f, _ in found]
        hidden = hidden_copies(findings) | second_hints(findings)
        shown = [
            presenter.diagnostic(f, hint, document.uri, document.index)
            for (f, _), hint in zip(found, hints, strict=True)
            if self._shows(state, f) and f not in hidden
        ]
        self._results += 1
        return Result(generation, document.version, hints, shown, str(self._results))

    def _shows(self, state: DocState, finding: Finding) -> bool:
        """Whether ``finding`` is a diagnostic: a move always; a hint that proposes no
        change (the census, a short chain named as it is) as configured."""
        census = self.settings.census
        if finding.proposes or census == "all":
            return True
        baseline = state.baseline
        if census == "off" or baseline is None:
            return False
        return baseline.is_new(finding, state.document.index)

    def _publish(self, params: PublishDiagnosticsParams) -> None:
        self._send(notification("textDocument/publishDiagnostics", params))

    # -- requests on documents ---------------------------------------------------------

    def _document_request(self, request: jsonrpc.Request, size: int) -> ResultMessage | None:
        """The answer now, or None when it waits for the document's analysis."""
        params: HoverParams | DocumentDiagnosticParams
        if request.method == "textDocument/hover":
            params = decode_params(request.params, HoverParams)
        else:
            params = decode_params(request.params, DocumentDiagnosticParams)
        waiter = Waiter(request.id, request.method, params, self._now, size)
        state = self.docs.get(params.textDocument.uri)
        if state is None or not state.document.analyzed:
            return self._answer_for(waiter, None)
        result = state.result
        if result is not None and result.generation == state.generation:
            return self._answer_for(waiter, result)
        self._wait(state, waiter)
        return None

    def _wait(self, state: DocState, waiter: Waiter) -> None:
        """``waiter`` waits for ``state``'s latest version, analyzed now."""
        state.waiters.append(waiter)
        self._waiting[waiter.request_id] = state
        self.timers.cancel(state.document.uri)  # someone is waiting: no more debounce
        self._start(state)

    def _reply_to(self, waiter: Waiter, result: Result | None) -> None:
        answer = self._answer_for(waiter, result)
        hints = len(result.hints) if result is not None else None
        self._answer(answer, waiter.method, waiter.started, waiter.bytes_in, hints)

    def _answer_for(self, waiter: Waiter, result: Result | None) -> ResultMessage:
        params = waiter.params
        if isinstance(params, CodeActionParams):
            return result_message(waiter.request_id, [])  # the document was closed
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
        found = covering(result.hints, params.position.line + 1) if result is not None else []
        if not found:
            return None
        state = self.docs[params.textDocument.uri]
        narrowest = found[0]
        index, settings = state.document.index, self.settings
        span = lines_range(narrowest.start_line, narrowest.end_line, index, settings.encoding)
        text = hover_text(found, settings.markdown)
        if settings.markdown:
            return Hover(MarkupContent("markdown", text), span)
        return Hover(MarkupContent("plaintext", text), span)

    # -- code actions ---------------------------------------------------------------------

    def _code_action_request(self, request: jsonrpc.Request, size: int) -> ResultMessage | None:
        """The fixes at the range now, or None when it waits for them to be worked out."""
        params = decode_params(request.params, CodeActionParams)
        state = self.docs.get(params.textDocument.uri)
        if state is None or not (state.document.analyzed and self.settings.code_actions):
            return result_message(request.id, [])
        known = state.fixes
        if known is not None and known[0] == state.generation:
            return result_message(request.id, self._code_actions(state, params, known[1]))
        state.fix_waiters.append(Waiter(request.id, request.method, params, self._now, size))
        self._waiting[request.id] = state
        self._start_fixes(state)
        return None

    def _start_fixes(self, state: DocState) -> None:
        if state.fixing is not None:
            return  # its end starts the next one if it is outdated by then
        self._tickets += 1
        state.fixing = (self._tickets, state.generation)
        document = state.document
        unsafe = self.settings.unsafe_fixes
        self._out.append(
            ComputeFixes(document.uri, self._tickets, document.path, document.text, unsafe)
        )

    def _fixed(self, state: DocState, generation: int, fixes: DocumentFixes) -> None:
        if self.lifecycle.phase is not Phase.RUNNING:
            return
        if generation != state.generation:
            if state.fix_waiters:
                self._start_fixes(state)
            return
        state.fixes = (generation, fixes)
        self._log(
            "info",
            "fixes",
            uri=state.document.uri,
            version=state.document.version,
            offered=len(fixes.offers),
            fix_all=fixes.fixed_count,
        )
        waiters, state.fix_waiters = state.fix_waiters, []
        for waiter in waiters:
            self._waiting.pop(waiter.request_id, None)
            assert isinstance(waiter.params, CodeActionParams)
            found = self._code_actions(state, waiter.params, fixes)
            message = result_message(waiter.request_id, found)
            self._answer(message, waiter.method, waiter.started, waiter.bytes_in)

    def _code_actions(
        self, state: DocState, params: CodeActionParams, fixes: DocumentFixes
    ) -> list[Any]:
        return list(ActionMaker(state.document, self.settings).actions(fixes, params))
