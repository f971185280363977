"""gzguide's benchmark suite: the real server over real pipes, with baselines side by side.

Run from the repository root::

    python -m benchmarks [--quick] [--out DIR]

It writes ``results.json``, ``results.md`` and ``latency.png`` to ``DIR`` (default
``bench-out/``), prints progress to stderr and the Markdown table to stdout.
"""
