"""Archetype rules: each fires on its shape and not on the others; the table is validated."""

from __future__ import annotations

import json
import textwrap
from importlib import resources

import pytest

from gzguide.analysis.archetypes import (
    UNCLASSIFIED,
    Classification,
    FileContext,
    RuleError,
    classify,
    default_rules,
    parse_rules,
)
from gzguide.analysis.measure import Measurement
from gzguide.analysis.parsed import parse_module
from gzguide.analysis.scopes import collect_scopes

# One fixture per archetype, each holding that shape and no other.
FIXTURES: dict[str, tuple[str, str, str]] = {
    # archetype: (source, qualname of the subject, metric of the hint)
    "arrowhead": (
        """
        def ship(orders):
            sent = []
            for order in orders:
                if order.paid:
                    if order.address:
                        sent.append(order)
            return sent
        """,
        "ship",
        "radon_cc",
    ),
    "switch_on_type": (
        """
        def render(node):
            if isinstance(node, Text):
                return node.value
            elif isinstance(node, Link):
                return node.href
            elif isinstance(node, Image):
                return node.src
            return ""
        """,
        "render",
        "radon_cc",
    ),
    "long_parameter_list": (
        """
        def connect(host, port, timeout):
            return host, port, timeout
        """,
        "connect",
        "lizard_param_count",
    ),
    "data_clumps": (
        """
        def open_session(user, host, port, retries):
            return user, host, port, retries

        def probe(host, port, retries):
            return host, port, retries

        def reconnect(host, port, retries, delay):
            return host, port, retries, delay
        """,
        "probe",
        "lizard_param_count",
    ),
    "primitive_obsession": (
        """
        def label(status):
            if status == "new":
                return "New"
            if status == "paid":
                return "Paid"
            if status == "shipped":
                return "Shipped"
            return "?"
        """,
        "label",
        "radon_cc",
    ),
    "feature_envy": (
        """
        def invoice_total(order):
            net = order.net + order.shipping
            tax = order.tax_rate * net
            return net + tax - order.discount
        """,
        "invoice_total",
        "radon_cc",
    ),
    "message_chain": (
        """
        def manager_email(employee):
            return employee.department().manager.contact().email
        """,
        "manager_email",
        "radon_cc",
    ),
    "large_class": (
        "class Everything:\n"
        + "".join(f"    def m{i}(self):\n        return {i}\n" for i in range(16)),
        "Everything",
        "cohesion_lcom4",
    ),
}

PLAIN = """
def steps(a, b):
    x = a + 1
    y = b + 2
    return x * y
"""


def classify_in(source: str, qualname: str, metric: str) -> Classification:
    module = parse_module(textwrap.dedent(source).encode())
    assert module is not None
    scopes = collect_scopes(module.tree)
    scope = next(s for s in scopes if s.qualname == qualname)
    m = Measurement(metric, 5.0, scope.start_line, scope.end_line, scope)
    return classify(m, FileContext(module.tree, scopes))


@pytest.mark.parametrize("archetype", sorted(FIXTURES))
def test_each_archetype_fires_on_its_shape(archetype: str) -> None:
    source, qualname, metric = FIXTURES[archetype]
    found = classify_in(source, qualname, metric)
    assert found.archetype == archetype
    assert found.evidence is not None and found.evidence.summary


#: Shapes that contain another by definition: a data clump is three or more
#: parameters, so it is also a long parameter list. The table orders the more
#: specific rule first, which the ordering test below pins.
SUBSUMED = {("long_parameter_list", "data_clumps")}


@pytest.mark.parametrize("archetype", sorted(FIXTURES))
def test_each_rule_fires_on_no_other_shape(archetype: str) -> None:
    rules = [r for r in default_rules() if r.archetype == archetype]
    assert len(rules) == 1
    rule = rules[0]
    for other, (source, qualname, _metric) in FIXTURES.items():
        if other == archetype or (archetype, other) in SUBSUMED:
            continue
        module = parse_module(textwrap.dedent(source).encode())
        assert module is not None
        scopes = collect_scopes(module.tree)
        scope = next(s for s in scopes if s.qualname == qualname)
        metric = next(iter(sorted(rule.metrics)))
        m = Measurement(metric, 5.0, scope.start_line, scope.end_line, scope)
        evidence = rule.detect(m, FileContext(module.tree, scopes), rule.params)
        assert evidence is None, f"{archetype} fired on the {other} fixture: {evidence}"


def test_a_plain_function_is_unclassified() -> None:
    for metric in ("radon_cc", "lizard_nloc", "lizard_ccn"):
        assert classify_in(PLAIN, "steps", metric).archetype == UNCLASSIFIED


def test_rules_only_classify_the_metrics_they_list() -> None:
    source, qualname, _ = FIXTURES["long_parameter_list"]
    # three parameters do not make a complexity hint a long-parameter-list one
    assert classify_in(source, qualname, "radon_cc").archetype == UNCLASSIFIED


def test_methods_do_not_count_self_as_a_parameter() -> None:
    source = """
    class Client:
        def send(self, host, port):
            return host, port
    """
    assert classify_in(source, "Client.send", "lizard_param_count").archetype == UNCLASSIFIED


def test_match_on_classes_is_switch_on_type() -> None:
    source = """
    def area(shape):
        match shape:
            case Circle(r=r):
                return 3.14 * r * r
            case Square(side=s):
                return s * s
            case Rect(w=w, h=h):
                return w * h
        return 0
    """
    found = classify_in(source, "area", "radon_cc")
    assert found.archetype == "switch_on_type"
    assert found.evidence is not None and "shape" in found.evidence.summary


def test_tag_dispatch_is_switch_on_type() -> None:
    source = """
    def handle(msg):
        if msg["type"] == "ping":
            return 1
        elif msg["type"] == "data":
            return 2
        elif msg["type"] == "close":
            return 3
    """
    assert classify_in(source, "handle", "radon_cc").archetype == "switch_on_type"


def test_two_functions_sharing_names_are_not_yet_a_clump() -> None:
    source = """
    def a(host, port, retries):
        return host

    def b(host, port, retries):
        return port
    """
    assert classify_in(source, "a", "lizard_param_count").archetype == "long_parameter_list"


def test_dotted_module_paths_are_not_message_chains() -> None:
    source = """
    def parse(text):
        return xml.etree.ElementTree.fromstring(text)
    """
    assert classify_in(source, "parse", "radon_cc").archetype == UNCLASSIFIED


def test_elif_does_not_deepen_nesting() -> None:
    source = """
    def pick(a):
        if a == 1:
            return 1
        elif a == 2:
            return 2
        return 0
    """
    assert classify_in(source, "pick", "radon_cc").archetype == UNCLASSIFIED


def test_the_shipped_table_is_valid_and_in_the_documented_order() -> None:
    data = resources.files("gzguide").joinpath("data/archetype-rules.json").read_bytes()
    order = [r["archetype"] for r in json.loads(data)["rules"]]
    assert order == [
        "switch_on_type",
        "data_clumps",
        "long_parameter_list",
        "primitive_obsession",
        "feature_envy",
        "message_chain",
        "arrowhead",
        "large_class",
    ]
    assert [r.archetype for r in default_rules()] == order
    for general, specific in SUBSUMED:
        assert order.index(specific) < order.index(general)
    # history-based archetypes are never emitted
    assert not {"divergent_change", "shotgun_surgery"} & set(order)


def _rule(**overrides: object) -> dict[str, object]:
    rule: dict[str, object] = {
        "archetype": "arrowhead",
        "metrics": ["radon_cc"],
        "detector": "nesting",
        "params": {"min_depth": 2},
    }
    rule.update(overrides)
    return rule


@pytest.mark.parametrize(
    "broken",
    [
        {"version": 1, "rules": [_rule(archetype="spaghetti")]},
        {"version": 1, "rules": [_rule(detector="vibes", params={})]},
        {"version": 1, "rules": [_rule(params={"depth": 2})]},
        {"version": 1, "rules": [_rule(metrics=[])]},
        {"version": 2, "rules": []},
    ],
)
def test_an_invalid_rule_table_is_rejected(broken: dict[str, object]) -> None:
    with pytest.raises(RuleError):
        parse_rules(json.dumps(broken).encode())
