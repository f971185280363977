"""Class moves: Extract Class where the methods fall apart.

Each detector on the smallest code that shows its shape, and on the code that looks
like it but is not (a move must be true of the code it is about). Where a move claims
points off radon's complexity, the test writes the rewrite the move describes and
measures both versions with radon: the claim is the difference.
"""

from __future__ import annotations

from gzguide.analysis.moves.kinds import Kind
from support.moves import hints, move

#: A class whose working methods fall into two groups: ``stock`` and ``rota``.
DEPOT = """
class Depot:
    def __init__(self):
        self.stock = {}
        self.rota = []

    def receive(self, sku):
        self.stock[sku] = 1

    def pick(self, sku):
        del self.stock[sku]

    def assign(self, van):
        self.rota.append(van)

    def vans(self):
        return list(self.rota)
"""


def test_a_class_of_two_working_groups_splits() -> None:
    f = move(DEPOT, "cohesion_lcom4")
    assert f.kind == Kind.EXTRACT_CLASS
    assert "`receive` and `pick` (lines 7-11) use `stock`" in f.move


def test_groups_built_from_one_value_stay_one_class() -> None:
    """Two views of the same data, kept in step (the ninth fresh review's starlette
    ``ImmutableMultiDict``: ``_dict`` and ``_list`` both from the items, judged wrong)."""
    source = DEPOT.replace("def __init__(self):", "def __init__(self, items):").replace(
        "self.stock = {}", "self.stock = dict(items)"
    )
    assert len(hints(source, "cohesion_lcom4")) == 1  # one group from the value: a split
    both = source.replace("self.rota = []", "self.rota = list(items)")
    assert hints(both, "cohesion_lcom4") == []


def test_groups_that_may_override_a_base_stay_one_class() -> None:
    """An adapter of an interface defined elsewhere (a fresh review's dnspython
    ``_DatagramSocket(dns._asyncbackend.DatagramSocket)``, judged wrong): callers reach
    both groups' methods on the one object, whatever state each uses."""
    for base in ("backend.Depot", "Depot", "Base[T]"):
        imported = DEPOT.replace("class Depot:", f"class Depots({base}):")
        assert hints(imported, "cohesion_lcom4") == [], base
    # A base whose methods are known (in the file, a builtin, Generic) shows that the
    # groups' methods are the class's own: still a split.
    for base in ("Generic[T]", "Exception", "Store"):
        known = "class Store:\n    def load(self):\n        pass\n\n" + DEPOT.replace(
            "class Depot:", f"class Depots({base}):"
        )
        assert len(hints(known, "cohesion_lcom4")) == 1, base
    store = "class Store:\n    def pick(self, sku):\n        pass\n"
    store += "\n    def vans(self):\n        pass\n"
    overriding = store + "\n" + DEPOT.replace("class Depot:", "class Depots(Store):")
    assert hints(overriding, "cohesion_lcom4") == []


def test_groups_whose_public_attributes_other_code_reads_stay_one_class() -> None:
    # Other code reads ``depot.rota`` from the one object: a split changes that.
    source = DEPOT + "\n\ndef first_van(depot):\n    return depot.rota[0]\n"
    assert hints(source, "cohesion_lcom4") == []
    private = source.replace("rota", "_rota").replace("depot._rota", "depot.vans()")
    assert len(hints(private, "cohesion_lcom4")) == 1


def test_a_method_that_aliases_its_receiver_leaves_the_split_unproven() -> None:
    # ``node = self`` walks up a chain of parents: the stock it reads is the same
    # attribute the other group uses, out of sight of the groups. (Private
    # attributes, so that reads on ``node`` are no public interface either.)
    source = DEPOT + (
        "\n    def all_stock(self):\n"
        "        node = self\n"
        "        while node:\n"
        "            yield from node.stock\n"
        "            node = node.parent\n"
    )
    private = source.replace("stock", "_stock").replace("rota", "_rota")
    assert hints(private, "cohesion_lcom4") == []
    # Starting from the parent, the method is a group of its own and the split holds.
    unaliased = private.replace("node = self\n", "node = self.parent\n")
    assert len(hints(unaliased, "cohesion_lcom4")) == 1


def test_factories_statics_and_dunders_do_not_split_a_class() -> None:
    source = """
    class Money:
        def __init__(self, cents):
            self.cents = cents

        @classmethod
        def parse(cls, text):
            return cls(int(text))

        @staticmethod
        def zero():
            return Money(0)

        def __repr__(self):
            return f'Money({self.cents})'

        @property
        def euros(self):
            return self.cents / 100
    """
    assert hints(source, "cohesion_lcom4") == []


def test_groups_a_special_method_uses_together_stay_one_class() -> None:
    # The object is pickled as one state: a split would break that.
    # (A method that uses no state keeps LCOM4 at 2.)
    source = DEPOT.replace(
        "    def receive",
        "    def __getstate__(self):\n        return self.stock, self.rota\n\n"
        "    def kind(self):\n        return 'depot'\n\n    def receive",
    )
    assert Kind.EXTRACT_CLASS not in [f.kind for f in hints(source, "cohesion_lcom4")]
    one_group = source.replace("return self.stock, self.rota", "return self.stock")
    assert Kind.EXTRACT_CLASS in [f.kind for f in hints(one_group, "cohesion_lcom4")]
