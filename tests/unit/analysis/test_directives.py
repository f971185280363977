"""Silencing hints: ``# gzguide: ignore[...]`` and lizard's own ``#lizard forgive``."""

from __future__ import annotations

import textwrap

from gzguide.analysis.engine import analyze_bytes
from gzguide.analysis.inventory import values_of
from gzguide.analysis.policy.thresholds import parse_thresholds
from support import tables

TABLE = parse_thresholds(
    tables.table(
        ("radon_cc", 2, "advise"),
        ("lizard_nloc", 1, "advise"),
        ("lizard_nloc", 3, "warn"),
        ("lizard_ccn", 2, "advise"),
        ("radon_raw_nloc", 1, "advise"),
    ),
    "test",
)

BODY = """\
    if a == 1 or a == 2 or a == 3:
        return 1
    return 0
"""


def metrics(source: str) -> list[tuple[str, int]]:
    data = textwrap.dedent(source).encode()
    return [(f.metric, f.start_line) for f in analyze_bytes(data, TABLE).findings]


def test_without_a_comment_the_function_has_its_hint() -> None:
    assert ("radon_cc", 1) in metrics("def f(a):\n" + BODY)


def test_ignore_on_the_def_line_silences_the_definition() -> None:
    assert metrics("def f(a):  # gzguide: ignore\n" + BODY) == []


def test_ignore_on_any_header_line_of_a_long_signature() -> None:
    source = "def f(\n    a,\n):  # gzguide: ignore\n" + BODY
    assert metrics(source) == []


def test_ignore_some_metrics_only() -> None:
    source = "def f(a):  # gzguide: ignore[radon_cc]\n" + BODY
    assert ("radon_cc", 1) not in metrics(source)
    lizard_only = textwrap.dedent(
        """\
        def f(a):  # gzguide: ignore[radon_cc, lizard_ccn]
            if a == 1 or a == 2 or a == 3:
                return 1
            return 0
        """
    )
    assert metrics(lizard_only) == []


def test_a_comment_in_the_body_is_not_a_header_comment() -> None:
    source = "def f(a):\n    # gzguide: ignore\n" + BODY
    assert ("radon_cc", 1) in metrics(source)


def test_ignore_above_the_first_statement_silences_the_module() -> None:
    source = '"""Doc."""\n# gzguide: ignore[radon_raw_nloc]\nimport os\n\ndef f(a):\n' + BODY
    found = metrics(source)
    assert all(m != "radon_raw_nloc" for m, _ in found)
    assert ("radon_cc", 5) in found  # the function's own hints stay


def test_lizard_forgive_inside_a_function_silences_its_lizard_hints() -> None:
    table = parse_thresholds(
        tables.table(("radon_cc", 50, "advise"), ("lizard_ccn", 2, "advise")), "t"
    )
    plain = textwrap.dedent("def f(a):\n" + BODY).encode()
    forgiven = textwrap.dedent("def f(a):\n    #lizard forgives\n" + BODY).encode()
    assert [f.metric for f in analyze_bytes(plain, table).findings] == ["lizard_ccn"]
    assert analyze_bytes(forgiven, table).findings == []
    some = textwrap.dedent("def f(a):\n    # lizard forgives(cyclomatic_complexity)\n" + BODY)
    assert analyze_bytes(some.encode(), table).findings == []


def test_lizard_forgive_applies_to_the_first_function_lizard_ends_after_it() -> None:
    table = parse_thresholds(
        tables.table(("radon_cc", 50, "advise"), ("lizard_ccn", 2, "advise")), "t"
    )
    source = "def g(a):\n" + BODY + "#lizard forgive\ndef f(a):\n" + BODY
    # lizard reads the comment before it ends g (at the next code line): g is forgiven
    found = analyze_bytes(textwrap.dedent(source).encode(), table).findings
    assert [f.start_line for f in found] == [6]


def test_silencing_hides_hints_never_values() -> None:
    data = b"def f(a):  # gzguide: ignore\n" + BODY.encode()
    values = values_of(data)
    assert values is not None
    assert any(v.metric == "radon_cc" and v.value == 4 for v in values)
