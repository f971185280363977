"""An analysis that reuses the parts of earlier versions answers exactly as a cold one.

Random edit sequences (a function inserted, a statement deleted, a function renamed,
two statements swapped, a function moved, a function indented into a class, a body
changed, a comment line inserted anywhere, a block copied, a form feed before a
statement) are applied to real modules, each version
analyzed twice: with one :class:`~gzguide.analysis.reuse.PartMemo` kept across the
sequence (of a large or a tiny budget, so that parts are evicted too) and cold. The
reports must encode to the same bytes, and the measurements and tokens be equal.
"""

from __future__ import annotations

import ast
import io
import itertools
import re
import sysconfig
import tokenize
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from radon.metrics import h_visit_ast

from gzguide.analysis.engine import Measured, evaluate, measure
from gzguide.analysis.facts.parsed import parse_module
from gzguide.analysis.metrics.module import raw_counts
from gzguide.analysis.policy.thresholds import default_thresholds
from gzguide.analysis.reuse import PartMemo, reuse

_STDLIB = Path(sysconfig.get_paths()["stdlib"])
#: Real modules of a few hundred lines, with classes, decorators, nested functions,
#: comments between definitions and module-level code.
_MODULES = ("textwrap.py", "shlex.py", "fnmatch.py", "json/decoder.py", "netrc.py", "glob.py")
_TABLE = default_thresholds()


def _blocks(text: str) -> list[str]:
    """The text cut before each top-level statement (from its first decorator)."""
    tree = ast.parse(text)
    lines = text.splitlines(keepends=True)
    firsts = sorted(
        {1}
        | {
            min([s.lineno, *(d.lineno for d in getattr(s, "decorator_list", []))])
            for s in tree.body
        }
    )
    bounds = [*firsts, len(lines) + 1]
    return ["".join(lines[a - 1 : b - 1]) for a, b in itertools.pairwise(bounds)]


_SOURCES = {name: _blocks((_STDLIB / name).read_text()) for name in _MODULES}

_NEW_FUNCTION = """def added_{n}(items, limit=3):
    total = 0
    for item in items:
        if item > limit and item % 2:
            total += item
        elif item:
            total -= 1
    return total


"""


def _def_line(block: str) -> re.Match[str] | None:
    return re.search(r"^([ \t]*)(?:async )?def (\w+)\(.*:[ \t]*$", block, re.M)


def _insert(blocks: list[str], i: int, j: int, n: int) -> None:
    blocks.insert(i % (len(blocks) + 1), _NEW_FUNCTION.format(n=n))


def _delete(blocks: list[str], i: int, j: int, n: int) -> None:
    if len(blocks) > 1:
        del blocks[i % len(blocks)]


def _rename(blocks: list[str], i: int, j: int, n: int) -> None:
    k = i % len(blocks)
    found = _def_line(blocks[k])
    if found is not None:
        start, end = found.span(2)
        blocks[k] = f"{blocks[k][:start]}{found.group(2)}_{n}{blocks[k][end:]}"


def _swap(blocks: list[str], i: int, j: int, n: int) -> None:
    a, b = i % len(blocks), j % len(blocks)
    blocks[a], blocks[b] = blocks[b], blocks[a]


def _move(blocks: list[str], i: int, j: int, n: int) -> None:
    block = blocks.pop(i % len(blocks))
    blocks.insert(j % (len(blocks) + 1), block)


def _indent(blocks: list[str], i: int, j: int, n: int) -> None:
    """A top-level definition moved into a new class (a change of indentation)."""
    k = i % len(blocks)
    if blocks[k].startswith(("def ", "class ", "@")):
        inner = "".join(
            f"    {line}" if line.strip() else line for line in blocks[k].splitlines(True)
        )
        blocks[k] = f"class Holder{n}:\n{inner}"


def _edit_body(blocks: list[str], i: int, j: int, n: int) -> None:
    """One branch more at the top of a function's body."""
    k = i % len(blocks)
    found = _def_line(blocks[k])
    if found is not None:
        pad = found.group(1) + "    "
        at = found.end() + 1
        blocks[k] = f"{blocks[k][:at]}{pad}if flag_{n}:\n{pad}    pass\n{blocks[k][at:]}"


def _comment(blocks: list[str], i: int, j: int, n: int) -> None:
    """A comment line inserted at any line of any block (inside a string, a bracket...)."""
    k = i % len(blocks)
    lines = blocks[k].splitlines(True)
    at = j % (len(lines) + 1)
    lines.insert(at, f"# note {n}\n")
    blocks[k] = "".join(lines)


def _duplicate(blocks: list[str], i: int, j: int, n: int) -> None:
    """A block copied elsewhere: one text twice in a module."""
    blocks.insert(j % (len(blocks) + 1), blocks[i % len(blocks)])


def _form_feed(blocks: list[str], i: int, j: int, n: int) -> None:
    """A form feed before a top-level statement (blank to the tokenizer, at column 0)."""
    k = i % len(blocks)
    blocks[k] = f"\x0c{blocks[k]}"


_EDITS = (
    _insert,
    _delete,
    _rename,
    _swap,
    _move,
    _indent,
    _edit_body,
    _comment,
    _duplicate,
    _form_feed,
)

_edit = st.tuples(
    st.sampled_from(_EDITS), st.integers(0, 10_000), st.integers(0, 10_000), st.integers(0, 99)
)


def _facts(measured: Measured) -> list[tuple[Any, ...]]:
    return [(m.metric, m.value, m.start_line, m.end_line) for m in measured.measurements]


def _cold_tokens(text: str) -> list[tokenize.TokenInfo]:
    return list(tokenize.generate_tokens(io.StringIO(text).readline))


def _check(data: bytes, memo: PartMemo) -> None:
    cold_module = parse_module(data)
    warm_module = parse_module(data)
    if cold_module is None or warm_module is None:
        return  # not Python any more: both analyses give the empty report
    cold = measure(cold_module)
    warm = measure(warm_module, memo)
    assert warm_module.tokens == _cold_tokens(cold_module.text)
    assert _facts(warm) == _facts(cold)
    encode = msgspec.json.encode
    assert encode(evaluate(warm, _TABLE)) == encode(evaluate(cold, _TABLE))


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True
)
@given(
    name=st.sampled_from(_MODULES),
    edits=st.lists(_edit, min_size=1, max_size=5),
    budget=st.sampled_from((64 * 1024 * 1024, 16 * 1024)),
)
def test_incremental_analysis_equals_cold_analysis(
    name: str, edits: list[tuple[Any, int, int, int]], budget: int
) -> None:
    blocks = list(_SOURCES[name])
    memo = PartMemo(budget)
    _check("".join(blocks).encode(), memo)
    for edit, i, j, n in edits:
        edit(blocks, i, j, n)
        _check("".join(blocks).encode(), memo)


def test_unchanged_parts_are_found_again_after_an_edit_shifts_their_lines() -> None:
    blocks = list(_SOURCES["textwrap.py"])
    memo = PartMemo(64 * 1024 * 1024)
    first = parse_module("".join(blocks).encode())
    assert first is not None
    measure(first, memo)
    before = memo.stats.misses
    _insert(blocks, 3, 0, 1)
    second = parse_module("".join(blocks).encode())
    assert second is not None
    measure(second, memo)
    # the new function's tokens, complexity and Halstead counts; every other part,
    # at its new lines or not, is found
    assert memo.stats.misses - before == 3
    assert memo.stats.hits >= len(blocks)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "x = 1",
        "def f():\n    return 1",
        "# only a comment\n",
        "class A:\n    def f(self):\n        pass\n# after\n\n\n@dec\ndef g():\n    pass\n",
        "if True:\n    def f():\n        pass\nx = (1,\n 2)\n",
        "x = 1; y = 2\ndef f(): pass\n",
        "def f():\n\tif x:\n\t\treturn 1\n\n\n\ndef g():\n  return 2\n",
        "x = 1\r\ndef f():\r\n    return 1\r\n",
        "x = 1 \\\n\ndef f():\n    return 1\n",
        "x = 1\n\x0cdef f():\n    return 1\n",
        "def f():\n    return 1\n\x0cdef g():\n    pass\n",
        "class A:\n    x = 1\n  \x0c\x0c@d\ndef g():\n    pass\n",
        "def f():\n    return 1",
    ],
)
def test_edge_texts_tokenize_and_count_as_the_whole_file(text: str) -> None:
    module = parse_module(text.encode())
    assert module is not None
    found = reuse(PartMemo(1 << 20), module)
    assert found is not None
    found.lend_tokens()
    assert module.tokens == _cold_tokens(module.text)
    raw = found.raw_counts()
    assert raw is None or raw == raw_counts(module)


def test_a_definition_twice_counts_its_node_operands_twice() -> None:
    function = "def f(x):\n    return g(x) + h(x)[0]\n\n\n"
    module = parse_module((function * 2).encode())
    assert module is not None
    found = reuse(PartMemo(1 << 20), module)
    assert found is not None
    assert found.halstead() == h_visit_ast(module.tree).total


def test_a_continuation_ended_by_a_blank_line_is_counted_from_the_tokens() -> None:
    module = parse_module(b"x = 1 \\\n\ndef f():\n    return 1\n")
    assert module is not None
    found = reuse(PartMemo(1 << 20), module)
    assert found is not None
    found.lend_tokens()
    assert found.raw_counts() is None


def test_a_lone_carriage_return_is_tokenized_whole() -> None:
    module = parse_module(b"x = 1\rdef f():\n    return 1\n")
    assert module is not None
    assert reuse(PartMemo(1 << 20), module) is None


def test_the_memo_stays_within_its_budget() -> None:
    memo = PartMemo(4096)
    module = parse_module((_STDLIB / "textwrap.py").read_bytes())
    assert module is not None
    measure(module, memo)
    assert 0 < memo.bytes <= 4096
