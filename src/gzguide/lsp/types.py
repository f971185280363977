"""The LSP 3.17 messages this server reads and writes, as msgspec Structs.

Only the part of the specification the server uses is declared, with the
specification's own field names (hence the camelCase). Incoming params are
validated when they are decoded (:func:`decode_params`): a field of the wrong type
is ``-32602`` for a request and ignored for a notification; fields the server does
not know are ignored. Outgoing Structs leave out their unset optional fields.
``tests/test_lsp_types.py`` checks every Struct against the types generated from
the specification's meta-model (lsprotocol).
"""

from __future__ import annotations

from typing import Annotated, Any, Final, Literal, TypeVar

import msgspec

from gzguide.guide.messages import Hint

# -- codes -------------------------------------------------------------------

SERVER_NOT_INITIALIZED: Final = -32002
REQUEST_CANCELLED: Final = -32800
CONTENT_MODIFIED: Final = -32801
SERVER_CANCELLED: Final = -32802

#: DiagnosticSeverity
ERROR: Final = 1
WARNING: Final = 2
INFORMATION: Final = 3
HINT: Final = 4

#: TextDocumentSyncKind
SYNC_INCREMENTAL: Final = 2

UTF8: Final = "utf-8"
UTF16: Final = "utf-16"
UTF32: Final = "utf-32"
PositionEncoding = Literal["utf-8", "utf-16", "utf-32"]

_Count = Annotated[int, msgspec.Meta(ge=0)]


# -- basic structures ------------------------------------------------------------


class Position(msgspec.Struct, frozen=True):
    line: _Count
    character: _Count


class Range(msgspec.Struct, frozen=True):
    start: Position
    end: Position


class TextDocumentIdentifier(msgspec.Struct):
    uri: str


class VersionedTextDocumentIdentifier(msgspec.Struct):
    uri: str
    version: int


class TextDocumentItem(msgspec.Struct):
    uri: str
    languageId: str
    version: int
    text: str


class ContentChange(msgspec.Struct):
    """A ``TextDocumentContentChangeEvent``: the whole text, or a range replaced."""

    text: str
    range: Range | msgspec.UnsetType = msgspec.UNSET


# -- initialize ----------------------------------------------------------------------


class GeneralClientCapabilities(msgspec.Struct):
    positionEncodings: list[str] | None = None


class HoverClientCapabilities(msgspec.Struct):
    contentFormat: list[str] | None = None


class PublishDiagnosticsClientCapabilities(msgspec.Struct):
    relatedInformation: bool | None = None


class CodeActionClientCapabilities(msgspec.Struct):
    #: Present (an object) when the client takes ``CodeAction`` literals, not only commands.
    codeActionLiteralSupport: dict[str, Any] | None = None


class TextDocumentClientCapabilities(msgspec.Struct):
    hover: HoverClientCapabilities | None = None
    publishDiagnostics: PublishDiagnosticsClientCapabilities | None = None
    #: Present (an object) when the client can pull diagnostics.
    diagnostic: dict[str, Any] | None = None
    codeAction: CodeActionClientCapabilities | None = None


class WorkspaceEditClientCapabilities(msgspec.Struct):
    documentChanges: bool | None = None


class WorkspaceClientCapabilities(msgspec.Struct):
    workspaceEdit: WorkspaceEditClientCapabilities | None = None


class ClientCapabilities(msgspec.Struct):
    general: GeneralClientCapabilities | None = None
    textDocument: TextDocumentClientCapabilities | None = None
    workspace: WorkspaceClientCapabilities | None = None


class InitializationOptions(msgspec.Struct, forbid_unknown_fields=False):
    """What a client may configure through ``initializationOptions``."""

    #: How long after the last change a document is analyzed, in milliseconds.
    debounceMs: Annotated[int, msgspec.Meta(ge=0, le=60_000)] | None = None
    #: Where the census (a hint that proposes no change) is shown: on new code only
    #: (definitions that differ from git ``HEAD``, or from the text at ``didOpen``
    #: outside a work tree; the default), everywhere, or nowhere.
    census: Literal["new", "all", "off"] | None = None
    #: Where the hints page is published (a URL without the ``#section``), for the
    #: diagnostics' links; by default the copy installed with the package.
    hintsUrl: str | None = None
    #: Whether code actions also offer the fixes that may change what the code does.
    unsafeFixes: bool | None = None


class InitializeParams(msgspec.Struct):
    processId: int | None = None
    rootUri: str | None = None
    capabilities: ClientCapabilities = msgspec.field(default_factory=ClientCapabilities)
    initializationOptions: InitializationOptions | None = None


class SaveOptions(msgspec.Struct):
    includeText: bool


class TextDocumentSyncOptions(msgspec.Struct):
    openClose: bool
    change: int
    save: SaveOptions


class DiagnosticOptions(msgspec.Struct):
    identifier: str
    interFileDependencies: bool
    workspaceDiagnostics: bool


class CodeActionOptions(msgspec.Struct):
    codeActionKinds: list[str]


class ServerCapabilities(msgspec.Struct, omit_defaults=True):
    positionEncoding: str
    textDocumentSync: TextDocumentSyncOptions
    hoverProvider: bool
    diagnosticProvider: DiagnosticOptions | msgspec.UnsetType = msgspec.UNSET
    codeActionProvider: CodeActionOptions | msgspec.UnsetType = msgspec.UNSET


class ServerInfo(msgspec.Struct):
    name: str
    version: str


class InitializeResult(msgspec.Struct):
    capabilities: ServerCapabilities
    serverInfo: ServerInfo


# -- documents ---------------------------------------------------------------------


class DidOpenParams(msgspec.Struct):
    textDocument: TextDocumentItem


class DidChangeParams(msgspec.Struct):
    textDocument: VersionedTextDocumentIdentifier
    contentChanges: list[ContentChange]


class DidSaveParams(msgspec.Struct):
    textDocument: TextDocumentIdentifier
    text: str | None = None


class DidCloseParams(msgspec.Struct):
    textDocument: TextDocumentIdentifier


class CancelParams(msgspec.Struct):
    id: int | str


class SetTraceParams(msgspec.Struct):
    value: Literal["off", "messages", "verbose"]


# -- diagnostics and hover -------------------------------------------------------------


class Location(msgspec.Struct):
    uri: str
    range: Range


class DiagnosticRelatedInformation(msgspec.Struct):
    location: Location
    message: str


class CodeDescription(msgspec.Struct):
    href: str


class Diagnostic(msgspec.Struct):
    range: Range
    severity: int
    code: str
    source: str
    message: str
    #: The hint, as the authoring-guide protocol sends it.
    data: Hint
    codeDescription: CodeDescription | msgspec.UnsetType = msgspec.UNSET
    relatedInformation: list[DiagnosticRelatedInformation] | msgspec.UnsetType = msgspec.UNSET


class PublishDiagnosticsParams(msgspec.Struct, omit_defaults=True):
    uri: str
    diagnostics: list[Diagnostic]
    version: int | msgspec.UnsetType = msgspec.UNSET


class DocumentDiagnosticParams(msgspec.Struct):
    textDocument: TextDocumentIdentifier
    identifier: str | None = None
    previousResultId: str | None = None


class FullDocumentDiagnosticReport(msgspec.Struct):
    resultId: str
    items: list[Diagnostic]
    kind: str = "full"


class UnchangedDocumentDiagnosticReport(msgspec.Struct):
    resultId: str
    kind: str = "unchanged"


class HoverParams(msgspec.Struct):
    textDocument: TextDocumentIdentifier
    position: Position


class MarkupContent(msgspec.Struct):
    kind: Literal["plaintext", "markdown"]
    value: str


class Hover(msgspec.Struct):
    contents: MarkupContent
    range: Range


# -- code actions ------------------------------------------------------------------


class CodeActionContext(msgspec.Struct):
    #: The client's diagnostics at the range (echoed back; the server matches by range).
    diagnostics: list[msgspec.Raw] = msgspec.field(default_factory=list)
    #: The kinds of action wanted (a kind matches the kinds it is a prefix of).
    only: list[str] | None = None


class CodeActionParams(msgspec.Struct):
    textDocument: TextDocumentIdentifier
    range: Range
    context: CodeActionContext = msgspec.field(default_factory=CodeActionContext)


class TextEdit(msgspec.Struct):
    range: Range
    newText: str


class OptionalVersionedTextDocumentIdentifier(msgspec.Struct):
    uri: str
    version: int | None


class TextDocumentEdit(msgspec.Struct):
    textDocument: OptionalVersionedTextDocumentIdentifier
    edits: list[TextEdit]


class WorkspaceEdit(msgspec.Struct, omit_defaults=True):
    changes: dict[str, list[TextEdit]] | msgspec.UnsetType = msgspec.UNSET
    documentChanges: list[TextDocumentEdit] | msgspec.UnsetType = msgspec.UNSET


class CodeAction(msgspec.Struct, omit_defaults=True):
    title: str
    kind: str
    edit: WorkspaceEdit
    diagnostics: list[Diagnostic] | msgspec.UnsetType = msgspec.UNSET
    isPreferred: bool | msgspec.UnsetType = msgspec.UNSET


# -- envelopes ---------------------------------------------------------------------

RequestId = int | str


class ResponseError(msgspec.Struct):
    code: int
    message: str


class ResultMessage(msgspec.Struct):
    jsonrpc: Literal["2.0"]
    id: RequestId
    result: Any


class ErrorMessage(msgspec.Struct):
    jsonrpc: Literal["2.0"]
    id: RequestId | None
    error: ResponseError


class NotificationMessage(msgspec.Struct):
    jsonrpc: Literal["2.0"]
    method: str
    params: Any


Outgoing = ResultMessage | ErrorMessage | NotificationMessage

_outgoing_encoder: Final = msgspec.json.Encoder()


def encode(message: Outgoing) -> bytes:
    """A message's JSON body, compact, fields in the order declared (``jsonrpc`` first)."""
    return _outgoing_encoder.encode(message)


def result_message(request_id: RequestId, result: Any) -> ResultMessage:
    return ResultMessage("2.0", request_id, result)


def notification(method: str, params: Any) -> NotificationMessage:
    return NotificationMessage("2.0", method, params)


def error_message(request_id: RequestId | None, code: int, message: str) -> ErrorMessage:
    return ErrorMessage("2.0", request_id, ResponseError(code, message))


class ParamsError(Exception):
    """Params that do not fit their Struct; the message is meant for the client."""


P = TypeVar("P")
_decoders: dict[type[Any], msgspec.json.Decoder[Any]] = {}


def decode_params(raw: msgspec.Raw | None, kind: type[P]) -> P:
    """``raw`` (the message's ``params``) as ``kind``, or :class:`ParamsError`."""
    if raw is None:
        raise ParamsError("Invalid params: params must be an object")
    decoder = _decoders.get(kind)
    if decoder is None:
        decoder = _decoders[kind] = msgspec.json.Decoder(kind)
    try:
        value: P = decoder.decode(raw)
    except msgspec.ValidationError as exc:
        text = str(exc).replace("`$.", "`params.").replace("`$`", "`params`")
        raise ParamsError(f"Invalid params: {text}") from None
    except (msgspec.DecodeError, RecursionError):
        raise ParamsError("Invalid params: params could not be decoded") from None
    return value
