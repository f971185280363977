"""What tests in every folder share.

The protocol and LSP clients over real pipes, reference analyses, the fuzz and
soak machinery, and the sources and paths the tests are built around. A test
module imports from here, never from another test module.
"""
