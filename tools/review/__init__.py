"""The harness of a fresh review round (docs/reviews.md, "How a round is made").

``prepare`` lays out the packages' source in a git work tree and picks the files to
open; ``listing`` opens them in the real LSP server, as an editor would, and writes
what it published: the diagnostics, their code actions as diffs, and the source
each one sits on.
"""
