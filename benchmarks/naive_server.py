"""A naive authoring-guide server: the baseline a plugin author would write first.

Same framing over stdio (``Content-Length`` header, compact JSON body, encoded
and decoded with the stdlib ``json`` module), but no cache, no pool, no memo:
every ``analyze`` re-reads the file, runs radon's ``cc_visit(source)`` on it, and
returns a hint for each function, method or closure whose cyclomatic complexity
is in the advise band ``4 <= cc < 7`` (the default table's radon_cc band). A directory is
walked for ``.py``/``.pyi`` files; ``cursor_position`` keeps the hints whose lines
contain the cursor's line.

Run as a script (``python benchmarks/naive_server.py``): it needs only the
standard library and radon.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from typing import Any, BinaryIO

from radon.complexity import cc_visit
from radon.visitors import Class, Function

ADVISE = 4
WARN = 7


def read_message(stream: BinaryIO) -> bytes | None:
    """The next body, or None at end of input."""
    length = None
    while True:
        line = stream.readline()
        if not line:
            return None
        line = line.strip()
        if not line:
            if length is None:
                continue
            break
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value)
    return stream.read(length)


def write_message(stream: BinaryIO, payload: dict[str, Any]) -> None:
    body = json.dumps(payload, separators=(",", ":")).encode("utf-8")
    stream.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    stream.flush()


def functions(blocks: list[Any]) -> Iterator[Function]:
    """Every function, method and closure in radon's block list, once each.

    ``cc_visit`` lists functions, classes and the classes' methods; closures hang
    off their functions and nested classes off their classes.
    """
    stack: list[Any] = []
    for block in blocks:
        if isinstance(block, Class):
            stack.extend(getattr(block, "inner_classes", []))  # their methods are not listed
        else:
            stack.append(block)
    while stack:
        block = stack.pop()
        if isinstance(block, Class):
            stack.extend(block.methods)
            stack.extend(getattr(block, "inner_classes", []))
        elif isinstance(block, Function):
            yield block
            stack.extend(block.closures)


def line_of(source: str, offset: int) -> int | None:
    data = source.encode("utf-8")
    if offset > len(data):
        return None
    return data[:offset].count(b"\n") + 1


def file_hints(path: str, shown_path: str, cursor: int | None) -> list[dict[str, Any]]:
    try:
        with open(path, encoding="utf-8") as handle:
            source = handle.read()
        blocks = cc_visit(source)
    except (OSError, UnicodeDecodeError, SyntaxError, ValueError):
        return []
    cursor_line = line_of(source, cursor) if cursor is not None else None
    hints = []
    for fn in functions(blocks):
        if not ADVISE <= fn.complexity < WARN:
            continue
        if cursor is not None and (
            cursor_line is None or not fn.lineno <= cursor_line <= fn.endline
        ):
            continue
        name = f"{fn.classname}.{fn.name}" if fn.classname else fn.name
        band = "approaching_warn" if fn.complexity >= (ADVISE + WARN) / 2 else "approaching"
        hints.append(
            {
                "metric": "radon_cc",
                "precedence_band": band,
                "crossing_value": float(fn.complexity),
                "archetype": "unclassified",
                "doctrinal_frame_headline": f"{name} has cyclomatic complexity {fn.complexity}",
                "recommended_move": f"Split {name} (lines {fn.lineno}-{fn.endline}).",
                "file_path": shown_path,
                "start_line": fn.lineno,
                "end_line": fn.endline,
            }
        )
    hints.sort(key=lambda h: (h["start_line"], h["end_line"]))
    return hints


def analyze(root: str, params: dict[str, Any]) -> list[dict[str, Any]]:
    requested = params["file_path"]
    cursor = params.get("cursor_position")
    target = os.path.join(root, requested)
    if not os.path.isdir(target):
        return file_hints(target, requested, cursor)
    hints = []
    for folder, dirs, names in os.walk(target):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(names):
            if name.endswith((".py", ".pyi")) and not name.startswith("."):
                path = os.path.join(folder, name)
                shown = os.path.join(requested, os.path.relpath(path, target))
                hints.extend(file_hints(path, shown, None))
    return hints


def main() -> int:
    root = os.getcwd()
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    while True:
        body = read_message(stdin)
        if body is None:
            return 0
        request = json.loads(body)
        method, request_id = request.get("method"), request.get("id")
        if method == "initialize":
            write_message(stdout, {"id": request_id, "result": {"version": "1.0"}})
        elif method == "analyze":
            hints = analyze(root, request.get("params") or {})
            write_message(stdout, {"id": request_id, "result": {"hints": hints}})
        elif method == "shutdown":
            write_message(stdout, {"id": request_id, "result": {}})
            return 0
        else:
            error = {"code": -32601, "message": f"unknown method {method!r}"}
            write_message(stdout, {"id": request_id, "error": error})


if __name__ == "__main__":
    raise SystemExit(main())
