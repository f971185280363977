"""Message chains: a walk through other objects' structure to reach one value.

Each detector on the smallest code that shows its shape, and on the code that looks
like it but is not (a move must be true of the code it is about).
"""

from __future__ import annotations

from gzguide.analysis.moves.kinds import Kind
from support.moves import kinds, move

CHAIN = """
def city_of(order, log):
    if log:
        log(order)
    return order.customer().address.city.name
"""


def test_a_walk_from_a_parameter_through_four_links_is_hidden_by_a_method() -> None:
    f = move(CHAIN)
    assert f.kind == Kind.HIDE_DELEGATE
    assert f.archetype == "message_chain"
    assert f.move == (
        "`order.customer().address.city.name` (line 5) reaches through `customer`, "
        "`address` and `city` to get `name`: a method on `order`'s class that returns "
        "it hides the walk."
    )


def test_short_walks_walks_without_a_call_and_walks_through_values_are_no_chain() -> None:
    assert Kind.HIDE_DELEGATE not in kinds(CHAIN.replace(".city.name", ".city"))
    assert Kind.HIDE_DELEGATE not in kinds(CHAIN.replace("customer()", "customer"))
    through_values = CHAIN.replace(
        "order.customer().address.city.name", "order.text.strip().lower().title"
    )
    assert Kind.HIDE_DELEGATE not in kinds(through_values)
