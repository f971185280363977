"""gzguide.lsp's parts on their own, and its types against lsprotocol's."""
