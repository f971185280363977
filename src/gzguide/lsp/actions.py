"""What the LSP session asks of its shell: the only way it acts on the world.

The session (:mod:`gzguide.lsp.session`) decides; the shell (:mod:`gzguide.lsp.server`)
does: it writes the messages, starts the analyses and the work on fixes, reads the
baselines, logs, and feeds what comes back into the session as events of its own.
"""

from __future__ import annotations

from typing import Any

import msgspec

from gzguide.lsp.types import Outgoing


class Send(msgspec.Struct, frozen=True):
    """Write ``message`` to the client."""

    message: Outgoing


class Analyze(msgspec.Struct, frozen=True):
    """Analyze a buffer's bytes as the file ``path``; answer with
    :meth:`LspSession.analyzed` for ``uri`` and ``ticket``."""

    uri: str
    ticket: int
    path: str
    data: bytes


class ReadBaseline(msgspec.Struct, frozen=True):
    """Read what of ``uri``'s text is old code (git ``HEAD``, or ``opened``); answer with
    :meth:`LspSession.baseline_read` before the next event."""

    uri: str
    path: str
    opened: str


class ComputeFixes(msgspec.Struct, frozen=True):
    """Work out the fixes of ``text``, the buffer of ``uri`` (the file ``path``); answer
    with :meth:`LspSession.fixes_ready` for ``uri`` and ``ticket``. Fixes that may change
    what the code does are wanted too when ``unsafe``."""

    uri: str
    ticket: int
    path: str
    text: str
    unsafe: bool


class Log(msgspec.Struct, frozen=True):
    """One log record: ``level`` is the logger's method (``info``, ``warning``, ...)."""

    level: str
    event: str
    fields: dict[str, Any]


class StartCompanions(msgspec.Struct, frozen=True):
    """The first answer is out: start the worker pool and the other companions."""


Action = Send | Analyze | ComputeFixes | ReadBaseline | Log | StartCompanions
