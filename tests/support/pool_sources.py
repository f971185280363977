"""Sources the pool and fault tests are built around, and files that defeat an analysis.

The fixtures turn on one function's radon complexity: ``BRANCHY`` gets a hint,
``CALM`` (the same signature) none, and :func:`cc` keeps only those hints.
``slow_source`` takes a worker long enough to be caught mid-job.
"""

from __future__ import annotations

from typing import Any

BRANCHY = """\
def decide(a, b, c):
    if a:
        return 1
    elif b:
        return 2
    elif c:
        return 3
    return 4
"""
CALM = """\
def decide(a, b, c):
    return a
"""


def cc(hints: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The radon_cc hints: the fixtures are built around one function's complexity."""
    return [h for h in hints if h["metric"] == "radon_cc"]


def slow_source(functions: int = 40_000) -> str:
    return "".join(
        f"def f{i}(a, b):\n    if a and b:\n        return a\n    return b\n\n"
        for i in range(functions)
    )


# -- files that defeat the analysis ---------------------------------------------------

PATHOLOGICAL: dict[str, str | bytes] = {
    # RecursionError in the syntax-tree builder or the metric visitors.
    "long_chain.py": "x = " + "+".join(["a"] * 50_000) + "\n",
    "nested_lambdas.py": "f = " + "lambda: " * 400 + "0\n",
    "nested_calls.py": "x = " + "f(" * 180 + ")" * 180 + "\n",
    # Limits of Python's own parser: syntax errors, not crashes.
    "deep_parens.py": "x = " + "(" * 5000 + ")" * 5000 + "\n",
    "deep_blocks.py": "".join("    " * i + "if x:\n" for i in range(120)) + "    " * 120 + "pass\n",
    # One huge line, inside and past the 4 MiB limit.
    "long_line.py": "x = '" + "a" * (3 * 1024 * 1024) + "'\n",
    "ten_mib_line.py": "x = '" + "a" * (10 * 1024 * 1024) + "'\n",
    # Bytes that are not text, and text that is not Python.
    "binary.py": bytes(range(256)) * 64,
    "nul_bytes.py": "def f():\n    return 1\x00\n",
    "lone_surrogate.py": b"x = '\xed\xa0\x80'\n",
    "bad_cookie.py": "# -*- coding: no-such-codec -*-\nx = 1\n",
}
