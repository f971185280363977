"""The Language Server Protocol mode (``gz complexity guide --lsp``).

The same transport as the authoring-guide protocol (:mod:`gzguide.framing`, the
shared :class:`~gzguide.rpc.loop.Loop`, stdout claimed for frames) carries JSON-RPC
2.0 messages of LSP 3.17; the hints of each open Python document's buffer become
its diagnostics. One module per concern:

* :mod:`~gzguide.lsp.types`: the LSP messages this server reads and writes, as
  msgspec Structs (validated where they are decoded);
* :mod:`~gzguide.lsp.jsonrpc`: a frame body in, a request, a notification, a
  client's response or an error to send out;
* :mod:`~gzguide.lsp.lifecycle`: which messages each state of the session admits;
* :mod:`~gzguide.lsp.positions`: line indexes and the three position encodings;
* :mod:`~gzguide.lsp.documents`: open documents and their full or incremental sync;
* :mod:`~gzguide.lsp.diagnostics`: hints as diagnostics, and the severity mapping;
* :mod:`~gzguide.lsp.hover`: a hover's text, with the archetype's page of
  ``docs/hints.md``;
* :mod:`~gzguide.lsp.timers`: per-document debounce deadlines, a companion of the loop;
* :mod:`~gzguide.lsp.server`: the front end on the shared loop that ties them up.
"""
