"""What an editor offers for one version of a document: each hint's verified fix, and
the text with every safe fix made (a "fix all" action).

Both are worked out together, once per version, because an editor asks for code
actions many times between two edits (VS Code on every move of the cursor).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gzguide.analysis.facts.versions import Version
    from gzguide.analysis.fixes.planner import Offered
    from gzguide.analysis.policy.thresholds import Thresholds


@dataclass(frozen=True, slots=True)
class DocumentFixes:
    """The fixes of one version of a document's text."""

    #: Each hint's fix, verified on this text (safe ones, and unsafe ones when asked for).
    offers: tuple[Offered, ...]
    #: The text with every safe fix made, one after the other (a fix can enable
    #: another); None when no safe fix is offered.
    fixed: str | None
    #: How many fixes ``fixed`` makes.
    fixed_count: int = 0


NO_FIXES = DocumentFixes((), None)


def document_fixes(
    text: str, thresholds: Thresholds, unsafe: bool = False, oldest: Version | None = None
) -> DocumentFixes:
    """The fixes of ``text`` under ``thresholds``; unsafe ones offered only when ``unsafe``;
    none writing syntax newer than ``oldest`` (its project's oldest Python), if known."""
    # Imported here: the LSP front end imports this module at start-up, and the
    # analysis it needs is only loaded once fixes are first asked for.
    from gzguide.analysis.fixes.planner import file_fixes

    found = file_fixes(text, thresholds, oldest=oldest)
    safe = [o for o in found if o.fix.safe]
    offers = tuple(found if unsafe else safe)
    if not safe:
        return DocumentFixes(offers, None)
    return _with_fix_all(text, offers, safe[0], thresholds, oldest)


def _with_fix_all(
    text: str,
    offers: tuple[Offered, ...],
    first: Offered,
    thresholds: Thresholds,
    oldest: Version | None,
) -> DocumentFixes:
    """``offers`` with the text every safe fix makes: ``first`` is ``fix_text``'s first
    round (the first safe offer), made here rather than worked out again."""
    from gzguide.analysis.fixes.edits import apply_edits
    from gzguide.analysis.fixes.planner import fix_text

    fixed, made = fix_text(apply_edits(text, first.fix.edits), thresholds, oldest=oldest)
    return DocumentFixes(offers, fixed, 1 + len(made))
