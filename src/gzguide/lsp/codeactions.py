"""Code actions: a document's verified fixes as LSP edits.

For a requested range, each fix of a hint whose diagnostic (the definition's name) or
whose changed code the range touches is a ``quickfix``, titled with the change and
what it does to the value ("Use any(): radon_cc 6 -> 4"), preferred when it is safe;
and, when the document has safe fixes, one ``source.fixAll.gzguide`` makes them all
(offered when that kind is asked for, and beside a quick fix of the range when it makes
more than that one).
A kind asked for in ``only`` matches the kinds it is a prefix of (``source`` takes
``source.fixAll.gzguide``), as LSP has it.

Edits are made against the version the fixes were worked out for: the session only
answers with fixes of the document's current text, and, for a client that takes
``documentChanges``, the edit names that version, so that a client holding a newer
text refuses it rather than apply it to the wrong lines.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from gzguide.analysis.fixes.edits import Edit, spans_of
from gzguide.guide.messages import to_hint
from gzguide.lsp.diagnostics import lines_range, name_range
from gzguide.lsp.documents import Document
from gzguide.lsp.positions import LineIndex
from gzguide.lsp.settings import Settings
from gzguide.lsp.types import (
    CodeAction,
    CodeActionParams,
    OptionalVersionedTextDocumentIdentifier,
    Position,
    Range,
    TextDocumentEdit,
    TextEdit,
    WorkspaceEdit,
)

if TYPE_CHECKING:
    from gzguide.analysis.fixes.document import DocumentFixes
    from gzguide.analysis.fixes.planner import Offered

QUICKFIX: Final = "quickfix"
FIX_ALL: Final = "source.fixAll.gzguide"
KINDS: Final = (QUICKFIX, FIX_ALL)


def wanted(kind: str, only: list[str] | None) -> bool:
    """Whether an action of ``kind`` is asked for (every kind is, without ``only``)."""
    return only is None or any(kind == o or kind.startswith(f"{o}.") for o in only)


def _fix_all_wanted(only: list[str] | None, count: int, quick: int) -> bool:
    """Whether to offer "fix all": when asked for by kind, or, when no kind is named,
    beside a quick fix of the range, where it does more than that one would (alone, on
    a line none of its fixes touches, it reads as this line's fix and is not)."""
    if only is None:
        return count > 1 and quick > 0
    return wanted(FIX_ALL, only)


def distinct(offers: list[Offered]) -> list[Offered]:
    """One offer per change: two hints of a function carrying one move have one fix,
    offered once, for the ``radon_cc`` hint when it is one of them (the diagnostic the
    editor shows; see :func:`gzguide.lsp.families.second_hints`)."""
    first: dict[tuple[Edit, ...], Offered] = {}
    for offered in sorted(offers, key=lambda o: o.finding.metric != "radon_cc"):
        first.setdefault(offered.fix.edits, offered)
    return [o for o in offers if first.get(o.fix.edits) is o]


def overlaps(a: Range, b: Range) -> bool:
    """Whether two ranges share a position (an empty range touches its neighbours)."""
    return (a.start.line, a.start.character) <= (b.end.line, b.end.character) and (
        b.start.line,
        b.start.character,
    ) <= (a.end.line, a.end.character)


class ActionMaker:
    """The code actions of one version of one document, as one session draws them."""

    def __init__(self, document: Document, settings: Settings) -> None:
        self.document = document
        self.settings = settings
        self.index = document.index
        self.encoding = settings.encoding

    def actions(self, fixes: DocumentFixes, params: CodeActionParams) -> list[CodeAction]:
        only = params.context.only
        found = self._quick_fixes(fixes, params.range) if wanted(QUICKFIX, only) else []
        if fixes.fixed is not None and _fix_all_wanted(only, fixes.fixed_count, len(found)):
            found.append(self._fix_all(fixes.fixed, fixes.fixed_count))
        return found

    def _quick_fixes(self, fixes: DocumentFixes, asked: Range) -> list[CodeAction]:
        touching = distinct([o for o in fixes.offers if self._touches(o, asked)])
        summaries = [o.summary for o in touching]
        # Two fixes of the same words (two `elif`s of one function) say where each is.
        return [
            self._quick_fix(o, o.placed_summary if summaries.count(o.summary) > 1 else o.summary)
            for o in touching
        ]

    def _touches(self, offered: Offered, asked: Range) -> bool:
        """Whether ``asked`` is on the fix's diagnostic or on code the fix changes."""
        finding = offered.finding
        places = [name_range(finding, self.index, self.encoding)]
        places.extend(
            lines_range(first, last, self.index, self.encoding)
            for first, last, _ in finding.related
        )
        return any(overlaps(asked, place) for place in places)

    def _quick_fix(self, offered: Offered, summary: str) -> CodeAction:
        fix, finding = offered.fix, offered.finding
        hint = to_hint(finding, self.document.path)
        diagnostic = self.settings.presenter.diagnostic(
            finding, hint, self.document.uri, self.index
        )
        title = summary if fix.safe else f"{summary} (unsafe)"
        return CodeAction(
            title=title,
            kind=QUICKFIX,
            edit=self._edit(self._text_edits(fix.edits)),
            diagnostics=[diagnostic],
            isPreferred=fix.safe,
        )

    def _fix_all(self, fixed: str, count: int) -> CodeAction:
        title = f"Make the {count} safe gzguide fixes" if count > 1 else "Make the safe gzguide fix"
        return CodeAction(
            title=title,
            kind=FIX_ALL,
            edit=self._edit([whole_change(self.index, fixed, self.encoding)]),
        )

    def _text_edits(self, edits: tuple[Edit, ...]) -> list[TextEdit]:
        spans = spans_of(self.document.text, edits)
        return [
            TextEdit(span(self.index, start, end, self.encoding), new) for start, end, new in spans
        ]

    def _edit(self, edits: list[TextEdit]) -> WorkspaceEdit:
        uri = self.document.uri
        if self.settings.document_changes:
            named = OptionalVersionedTextDocumentIdentifier(uri, self.document.version)
            return WorkspaceEdit(documentChanges=[TextDocumentEdit(named, edits)])
        return WorkspaceEdit(changes={uri: edits})


def span(index: LineIndex, start: int, end: int, encoding: str) -> Range:
    """The range of the string indexes ``start`` to ``end`` of the indexed text."""
    return Range(
        Position(*index.position(start, encoding)), Position(*index.position(end, encoding))
    )


def whole_change(index: LineIndex, new: str, encoding: str) -> TextEdit:
    """One edit that turns the indexed text into ``new``: the part between what they
    start and end with in common, replaced."""
    old = index.text
    head = _common_head(old, new)
    head -= _inside_line_end(old, head)
    tail = _common_head(old[head:][::-1], new[head:][::-1])
    tail -= _inside_line_end(old, len(old) - tail)
    return TextEdit(span(index, head, len(old) - tail, encoding), new[head : len(new) - tail])


def _inside_line_end(text: str, at: int) -> int:
    """1 when the index ``at`` falls between the ``\r`` and ``\n`` of a line end (an edit
    may not start or end there), else 0."""
    return int(0 < at < len(text) and text[at - 1] == "\r" and text[at] == "\n")


def _common_head(a: str, b: str) -> int:
    """How many characters ``a`` and ``b`` start with in common."""
    size = min(len(a), len(b))
    return next((i for i in range(size) if a[i] != b[i]), size)
