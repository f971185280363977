"""What ``initialize`` settles: the client's capabilities and the user's options, as
one value the session reads."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

from gzguide.lsp.diagnostics import Presenter
from gzguide.lsp.pages import installed_url
from gzguide.lsp.types import (
    UTF8,
    UTF16,
    UTF32,
    GeneralClientCapabilities,
    InitializationOptions,
    InitializeParams,
    TextDocumentClientCapabilities,
    WorkspaceClientCapabilities,
)

#: How long after a document's last change it is analyzed, unless the client's
#: ``initializationOptions.debounceMs`` says otherwise.
DEFAULT_DEBOUNCE_S: Final = 0.150


@dataclass(frozen=True, slots=True)
class Settings:
    #: The position encoding every position counts in.
    encoding: str = UTF16
    #: Whether hovers are markdown.
    markdown: bool = False
    #: Whether the client pulls diagnostics (then none are pushed).
    pull: bool = False
    debounce_s: float = DEFAULT_DEBOUNCE_S
    #: Where a hint that proposes no change is shown: on new code, everywhere, nowhere.
    census: str = "new"
    #: How diagnostics are drawn.
    presenter: Presenter = field(default_factory=lambda: Presenter(UTF16, "", related=False))
    #: Whether the client takes code actions as literals (then fixes are offered).
    code_actions: bool = False
    #: Whether a workspace edit names the document's version (``documentChanges``).
    document_changes: bool = False
    #: Whether fixes that may change what the code does are offered too.
    unsafe_fixes: bool = False


def negotiate(params: InitializeParams) -> Settings:
    """The settings of a session that ``params`` initialize."""
    caps = params.capabilities
    text_caps = caps.textDocument or TextDocumentClientCapabilities()
    options = params.initializationOptions or InitializationOptions()
    encoding = _encoding_of(caps.general)
    pull = text_caps.diagnostic is not None
    presenter = Presenter(
        encoding, options.hintsUrl or installed_url(), _takes_related(text_caps, pull)
    )
    return Settings(
        encoding=encoding,
        markdown=_takes_markdown(text_caps),
        pull=pull,
        debounce_s=DEFAULT_DEBOUNCE_S if options.debounceMs is None else options.debounceMs / 1000,
        census=options.census or "new",
        presenter=presenter,
        code_actions=_takes_code_actions(text_caps),
        document_changes=_takes_document_changes(caps.workspace),
        unsafe_fixes=bool(options.unsafeFixes),
    )


def _takes_code_actions(caps: TextDocumentClientCapabilities) -> bool:
    return bool(caps.codeAction and caps.codeAction.codeActionLiteralSupport)


def _takes_document_changes(workspace: WorkspaceClientCapabilities | None) -> bool:
    edit = workspace.workspaceEdit if workspace else None
    return bool(edit and edit.documentChanges)


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
