"""The stdio and JSON-RPC core both front ends run on.

Each front end (the authoring-guide protocol in :mod:`gzguide.guide`, the LSP
mode in :mod:`gzguide.lsp`) is its own session and messages; what moves their
bytes, and how a server process starts and stops, is here once:

* :mod:`~gzguide.rpc.stdio`: fd 1 claimed for frames, and frames written whole;
* :mod:`~gzguide.rpc.loop`: the one wait (stdin, stdout's hang-up, the
  companions' descriptors and deadlines) and the frame pump on it;
* :mod:`~gzguide.rpc.bodies`: what every JSON-RPC body is checked for (UTF-8,
  JSON syntax) and the standard error codes;
* :mod:`~gzguide.rpc.frontend`: running a front end: SIGTERM, why it stopped and
  the exit status, the stop's log line.
"""
