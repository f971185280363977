"""The authoring-guide protocol (``gz complexity guide --server``).

Its own front end on the shared core (:mod:`gzguide.rpc`), beside the LSP mode
(:mod:`gzguide.lsp`). One module per concern:

* :mod:`~gzguide.guide.messages`: the protocol's messages as msgspec Structs, the
  one decoding boundary, the texts a session holds, hints made from findings
  (which the LSP mode draws its diagnostics from too), and the response encoder;
* :mod:`~gzguide.guide.session`: the lifecycle as a pure state machine, a body in
  and a reply (or a pending analysis) out;
* :mod:`~gzguide.guide.server`: the session's shell on the shared loop.
"""
