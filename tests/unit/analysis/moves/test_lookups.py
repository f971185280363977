"""Lookup moves: dict.get and setdefault.

Each detector on the smallest code that shows its shape, and on the code that looks
like it but is not (a move must be true of the code it is about). Where a move claims
points off radon's complexity, the test writes the rewrite the move describes and
measures both versions with radon: the claim is the difference.
"""

from __future__ import annotations

from gzguide.analysis.moves.kinds import Kind
from support.moves import kinds, move, moves, radon


def test_a_lookup_with_a_fallback_is_dict_get() -> None:
    source = """
    def price(prices, sku):
        if sku in prices:
            return prices[sku]
        return 0
    """
    assert Kind.DICT_GET in kinds(source)
    assert "`return prices.get(sku, 0)`" in move(source).move


def test_no_dict_get_when_the_fallback_does_work() -> None:
    """``.get``'s default is worked out even when the key is there: an import in it
    would run every time (the seventh fresh review's distlib ``resolve``, judged wrong)."""
    source = """
    def resolve(module_name, path):
        if module_name in sys.modules:
            mod = sys.modules[module_name]
        else:
            mod = __import__(module_name)
        return getattr(mod, path)
    """
    assert Kind.DICT_GET not in kinds(source)
    assert Kind.DICT_GET in kinds(source.replace("__import__(module_name)", "None"))


def test_start_or_extend_a_list_is_setdefault() -> None:
    source = """
    def group(pairs):
        by_key = {}
        for key, value in pairs:
            if key in by_key:
                by_key[key].append(value)
            else:
                by_key[key] = [value]
        return by_key
    """
    assert Kind.SETDEFAULT in kinds(source)
    assert "`by_key.setdefault(key, []).append(value)`" in moves(source)
    # A list started with another item than the one appended is no setdefault of it.
    assert Kind.SETDEFAULT not in kinds(source.replace("= [value]", "= [key]"))


def test_an_entry_made_when_missing_is_setdefault() -> None:
    source = """
    def add(self, realm, uri, user):
        if isinstance(uri, str):
            uri = [uri]
        if realm not in self.passwd:
            self.passwd[realm] = {}
        for u in uri:
            self.passwd[realm][u] = user
    """
    rewritten = source.replace(
        """if realm not in self.passwd:
            self.passwd[realm] = {}""",
        "self.passwd.setdefault(realm, {})",
    )
    assert (
        "Lines 5-6 make the entry when it is missing: `self.passwd.setdefault(realm, {})` "
        "does the same in one statement, 1 point less."
    ) in moves(source)
    assert radon(source) - radon(rewritten) == 1
    used_at_once = source.replace(
        """for u in uri:
            self.passwd[realm][u] = user""",
        "self.passwd[realm].update(uri)",
    )
    assert "`self.passwd.setdefault(realm, {}).update(uri)` does both" in moves(used_at_once)
    taken = used_at_once.replace(
        "self.passwd[realm].update(uri)", "entry = self.passwd[realm]\n        entry.update(uri)"
    )
    assert (
        "Lines 5-7 make the entry when it is missing, then use it: "
        "`entry = self.passwd.setdefault(realm, {})` does both, 1 point less."
    ) in moves(taken)
    # A default of containers is built on every call, key there or not: no setdefault
    # (the eighth fresh review's tomli `Flags.set`, judged a slowdown); constants are cheap.
    nested = source.replace("self.passwd[realm] = {}", "self.passwd[realm] = {'a': set(), 'b': {}}")
    assert "setdefault" not in moves(nested)
    constants = source.replace("self.passwd[realm] = {}", "self.passwd[realm] = {'a': 1}")
    assert "setdefault" in moves(constants)


def test_a_value_set_from_a_key_or_a_fallback_is_dict_get() -> None:
    source = """
    def price(prices, sku, log):
        if sku in prices:
            value = prices[sku]
        else:
            value = 0
        log(value)
        return value
    """
    f = move(source)
    assert f.kind == Kind.DICT_GET
    assert f.move == (
        "Lines 3-6 look a key up or fall back: `value = prices.get(sku, 0)`, 1 point less."
    )
    after = """
    def price(prices, sku, log):
        value = prices.get(sku, 0)
        log(value)
        return value
    """
    assert radon(source) - radon(after) == 1
    # Two names, or another mapping's key: no lookup of one entry.
    assert Kind.DICT_GET not in kinds(source.replace("value = 0", "other = 0"))
    assert Kind.DICT_GET not in kinds(source.replace("value = prices[sku]", "value = cache[sku]"))
