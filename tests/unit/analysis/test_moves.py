"""Each detector on the smallest code that shows its shape, and on the code that
looks like it but is not (a move must be true of the code it is about).

Where a move claims points off radon's complexity, the test writes the rewrite the
move describes and measures both versions with radon: the claim is the difference.
"""

from __future__ import annotations

import ast
import textwrap

import pytest
from radon.visitors import ComplexityVisitor

from gzguide.analysis.engine import analyze_bytes
from gzguide.analysis.facts.toplevel import top_level
from gzguide.analysis.facts.twins import differences
from gzguide.analysis.facts.walk import real_depth, view_of
from gzguide.analysis.model import Finding
from gzguide.analysis.moves.extract import FLAG, Examiner, Extraction
from gzguide.analysis.moves.modules import split_move
from gzguide.analysis.policy.thresholds import parse_thresholds
from support import tables

#: Every function metric in band from 1 up (no gate): whatever the detector finds,
#: the test sees it.
OPEN = parse_thresholds(
    tables.table(
        ("radon_cc", 2, "advise"),
        ("lizard_nloc", 1, "advise"),
        ("lizard_nloc", 3, "warn"),
        ("lizard_nesting_depth", 1, "advise"),
        ("lizard_param_count", 1, "advise"),
        ("cohesion_lcom4", 2, "advise"),
    ),
    "test",
)


def hints(source: str, metric: str | None = None) -> list[Finding]:
    found = analyze_bytes(textwrap.dedent(source).encode(), OPEN).findings
    return [f for f in found if metric is None or f.metric == metric]


def move(source: str, metric: str = "radon_cc") -> Finding:
    (only,) = hints(source, metric)
    return only


def moves(source: str) -> str:
    """Every move given for the source, one per line (a move is given once, for
    whichever concern speaks first)."""
    return "\n".join(f.move for f in hints(source))


def radon(source: str) -> int:
    value: int = ComplexityVisitor.from_code(textwrap.dedent(source)).functions[0].complexity
    return value


# -- idioms ------------------------------------------------------------------------------

SEARCH = """
def has_admin(users):
    for user in users:
        if user.is_admin:
            return True
    return False
"""


def test_a_search_loop_is_any() -> None:
    f = move(SEARCH)
    assert "`return any(user.is_admin for user in users)`" in f.move
    assert "lines 3-5" in f.move
    after = "def has_admin(users):\n    return any(user.is_admin for user in users)\n"
    assert radon(SEARCH) - radon(after) == 1


def test_a_search_for_the_first_match_is_next() -> None:
    source = """
    def first_admin(users, bad):
        if bad:
            raise ValueError(bad)
        for user in users:
            if user.is_admin:
                return user
        return None
    """
    f = move(source)
    assert "next((user for user in users if user.is_admin), None)" in f.move


def test_a_loop_that_does_more_than_search_is_not_any() -> None:
    source = """
    def audit(users, log):
        for user in users:
            log.append(user)
            if user.is_admin:
                return True
        return False
    """
    assert "any(" not in move(source).move


def test_a_fill_loop_is_a_comprehension() -> None:
    source = """
    def names(users, active):
        found = []
        for user in users:
            if user.active == active:
                found.append(user.name)
        return found
    """
    f = move(source)
    assert "`found = [user.name for user in users if user.active == active]`" in f.move


def test_a_loop_that_reads_what_it_fills_is_not_a_comprehension() -> None:
    source = """
    def unique(items, key):
        found = []
        for item in items:
            if item not in found:
                found.append(item)
        return found
    """
    assert "builds it in one step" not in move(source).move


def test_chained_equality_is_membership() -> None:
    source = """
    def is_vowel(c):
        return c == 'a' or c == 'e' or c == 'i'
    """
    f = move(source)
    assert "`c in ('a', 'e', 'i')`" in f.move and "2 points less" in f.move
    assert radon(source) - radon("def is_vowel(c):\n    return c in ('a', 'e', 'i')\n") == 2


def test_isinstance_tests_become_one() -> None:
    source = """
    def numeric(v):
        return isinstance(v, int) or isinstance(v, float)
    """
    assert "`isinstance(v, (int, float))`" in move(source).move


def test_if_return_true_else_false_is_return_the_test() -> None:
    source = """
    def adult(p):
        if p.age >= 18:
            return True
        return False
    """
    f = move(source)
    assert "`return p.age >= 18`" in f.move and "1 point less" in f.move


def test_a_non_boolean_test_is_wrapped_in_bool() -> None:
    source = """
    def named(p):
        if p.name:
            return True
        else:
            return False
    """
    assert "`return bool(p.name)`" in move(source).move
    # Predicates that return a bool need no wrapping; a method of the same name on an
    # object the code does not know might not.
    predicate = source.replace("p.name", "os.path.isfile(p)")
    assert "`return os.path.isfile(p)`" in move(predicate).move
    assert (
        "`return p.name.startswith('_')`"
        in move(source.replace("p.name", "p.name.startswith('_')")).move
    )
    assert "`return bool(p.exists())`" in move(source.replace("p.name", "p.exists()")).move


def test_a_lookup_with_a_fallback_is_dict_get() -> None:
    source = """
    def price(prices, sku):
        if sku in prices:
            return prices[sku]
        return 0
    """
    assert "`return prices.get(sku, 0)`" in move(source).move


def test_try_except_pass_is_suppress() -> None:
    source = """
    def drop(cache, key):
        try:
            del cache[key]
        except KeyError:
            pass
    """
    f = move(source)
    assert "`with contextlib.suppress(KeyError):`" in f.move
    after = (
        "import contextlib\n"
        "def drop(cache, key):\n    with contextlib.suppress(KeyError):\n        del cache[key]\n"
    )
    assert radon(source) - ComplexityVisitor.from_code(after).functions[0].complexity == 1


def test_suppress_takes_the_types_of_a_tuple_as_its_arguments() -> None:
    source = """
    def show(message, out=None):
        if message:
            out = out or sys.stderr
            try:
                out.write(message)
            except (AttributeError, OSError):
                pass
    """
    assert "`with contextlib.suppress(AttributeError, OSError):`" in move(source).move


def test_an_except_that_does_something_is_not_suppress() -> None:
    source = """
    def drop(cache, key, log):
        try:
            del cache[key]
        except KeyError:
            log.append(key)
    """
    assert "suppress" not in move(source).move


def test_field_by_field_equality_is_a_tuple_comparison() -> None:
    source = """
    def same(a, b):
        return a.x == b.x and a.y == b.y and a.z == b.z
    """
    f = move(source)
    assert "`(a.x, a.y, a.z) == (b.x, b.y, b.z)`" in f.move and "2 points less" in f.move


def test_an_if_holding_only_an_if_merges() -> None:
    source = """
    def ship(order, express):
        for line in order.lines:
            if order.paid:
                if line.ready:
                    line.ship(express)
    """
    assert "`if order.paid and line.ready:`" in moves(source)


def test_else_holding_only_an_if_is_elif() -> None:
    source = """
    def grade(score):
        if score > 90:
            return 'A'
        else:
            if score > 80:
                return 'B'
            else:
                return 'C'
    """
    assert "making it an `elif`" in moves(source)


def test_a_condition_wrapping_the_loop_body_is_a_continue_guard() -> None:
    source = """
    def bill(orders, out):
        for order in orders:
            if order.open:
                total = order.total()
                tax = order.tax()
                for line in order.lines:
                    if line.taxed:
                        out.append((order, line, total + tax))
                    else:
                        out.append((order, line, total))
    """
    assert "`if not order.open: continue` lets lines 5-11 move out a level" in moves(source)


def test_a_short_wrapped_loop_body_keeps_its_level() -> None:
    source = """
    def bill(orders, out):
        for order in orders:
            if order.open:
                total = order.total()
                for line in order.lines:
                    out.append((order, line, total))
    """
    assert "continue" not in moves(source)


def test_a_guard_around_plain_statements_is_not_worth_a_level() -> None:
    source = """
    def bill(orders, out):
        for order in orders:
            if order.open:
                total = order.total()
                out.append(total)
    """
    assert "continue" not in moves(source)


def test_identical_adjacent_arms_join() -> None:
    source = """
    def kind(x, out):
        if x < 0:
            out.append('neg')
        elif x == 0:
            out.append('small')
            out.append(x)
        elif x < 10:
            out.append('small')
            out.append(x)
        else:
            out.append('big')
    """
    assert "The arms on lines 5 and 8 run the same code" in moves(source)


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
    assert "`by_key.setdefault(key, []).append(value)`" in moves(source)


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


def test_a_loop_that_breaks_on_an_equal_item_is_membership() -> None:
    source = """
    def port_ok(cookie, req_port):
        if cookie.port:
            for p in cookie.port.split(","):
                if p == req_port:
                    break
            else:
                warn(req_port)
                return False
        return True
    """
    rewritten = """
    def port_ok(cookie, req_port):
        if cookie.port:
            if req_port not in cookie.port.split(","):
                warn(req_port)
                return False
        return True
    """
    assert (
        "The loop on line 4 only tests membership: `if req_port not in cookie.port.split(','):` "
        "with its `else` body (line 7) does the same, 2 points less."
    ) in moves(source)
    assert radon(source) - radon(rewritten) == 2
    # The loop's variable read after it: the loop is also an assignment.
    assert "membership" not in moves(source.replace("return True", "return p"))


def test_read_until_empty_is_a_walrus_loop() -> None:
    source = """
    def copy(conn, callback, blocksize, rest):
        if rest is not None:
            conn.skip(rest)
        while 1:
            data = conn.recv(blocksize)
            if not data:
                break
            callback(data)
        return conn.close()
    """
    rewritten = """
    def copy(conn, callback, blocksize, rest):
        if rest is not None:
            conn.skip(rest)
        while data := conn.recv(blocksize):
            callback(data)
        return conn.close()
    """
    assert (
        "Lines 5-8 read a value and stop when there is none: "
        "`while data := conn.recv(blocksize):` does both, 1 point less."
    ) in moves(source)
    assert radon(source) - radon(rewritten) == 1
    none_ends = source.replace("if not data:", "if data is None:")
    assert "`while (data := conn.recv(blocksize)) is not None:`" in moves(none_ends)
    assert "walrus" not in moves(source.replace("if not data:", "if not data.ok:"))


def test_a_negated_search_reads_as_not_any_or_de_morgan() -> None:
    source = """
    def allowed(self, domain):
        if self.domains is None:
            return False
        for allowed in self.domains:
            if match(domain, allowed):
                return False
        return True
    """
    assert "`return not any(match(domain, allowed) for allowed in self.domains)`" in moves(source)
    plain = source.replace("match(domain, allowed)", "allowed.host == domain or allowed.any")
    assert "`return all(allowed.host != domain and (not allowed.any) for" not in moves(plain)
    assert "`return not any(allowed.host == domain or allowed.any for" in moves(plain)
    both = source.replace(
        "match(domain, allowed)", "allowed.host == domain or allowed.port is None"
    )
    assert "`return all(allowed.host != domain and allowed.port is not None for" in moves(both)


def test_the_short_else_of_an_if_ending_the_function_goes_first() -> None:
    source = """
    def write_dict(self, d):
        if d:
            self.begin("dict")
            for key, value in sorted(d.items()):
                if not isinstance(key, str):
                    raise TypeError("keys must be strings")
                self.element("key", key)
                self.write_value(value)
            self.end("dict")
        else:
            self.element("dict")
    """
    assert (
        "The `else` of the `if` on line 3 is the short case: put it first, under `not d` "
        "and followed by `return`, and lines 4-10 move out a level."
    ) in moves(source)
    # Not where more follows the if, nor where the else leaves in its own way.
    assert "short case" not in moves(source + "    self.flush()\n")
    assert "short case" not in moves(source.replace('self.element("dict")', "yield None"))


def test_a_loop_that_only_copies_is_the_constructor() -> None:
    source = """
    def merged(target, source):
        out = {}
        for func, caller in target.items():
            out[func] = caller
        for func, caller in source.items():
            if func in out:
                out[func] += caller
            else:
                out[func] = caller
        return out
    """
    assert "`out = dict(target)` builds it in one step" in moves(source)
    listed = """
    def names(target, extra):
        out = []
        for name in target:
            out.append(name)
        for name in extra:
            if name not in out:
                out.append(name)
            elif name.startswith("_"):
                out.remove(name)
        return out
    """
    assert "`out = list(target)` builds it in one step" in moves(listed)


def test_a_loop_alone_under_an_else_after_a_return_moves_out() -> None:
    source = """
    def contains(self, item):
        if self.complete:
            return item in self.cache
        else:
            for i in self:
                if i == item:
                    return True
                elif i > item:
                    return False
        return False
    """
    assert (
        "The `if` on line 3 ends in a `return`, so its `else` is not needed: "
        "lines 6-10 can move out a level."
    ) in moves(source)
    short = source.replace(
        """for i in self:
                if i == item:
                    return True
                elif i > item:
                    return False""",
        """for i in self:
                note(i)""",
    )
    assert "is not needed" not in moves(short)


def test_an_elif_holding_only_an_if_merges() -> None:
    source = """
    def is_marker(expr):
        if isinstance(expr, Name):
            return expr.id == 'marker'
        elif isinstance(expr, Attribute):
            if isinstance(expr.value, Name):
                return expr.attr == 'marker'
        return False
    """
    assert "`elif isinstance(expr, Attribute) and isinstance(expr.value, Name):`" in moves(source)


def test_ifs_that_differ_only_in_their_values_are_a_table() -> None:
    source = """
    def check(node, fail):
        if isinstance(node, Yield):
            fail('no yield here', node.lineno)
        if isinstance(node, Await):
            fail('no await here', node.lineno)
        if isinstance(node, Named):
            fail('no walrus here', node.lineno)
        return node
    """
    assert "The 3 `if`s at lines 3-8 do the same thing with other values" in moves(source)
    different = source.replace("fail('no walrus here', node.lineno)", "node.walrus = True")
    assert "same thing" not in moves(different)


# -- dispatch ------------------------------------------------------------------------------


def test_an_isinstance_chain_is_a_switch_on_type() -> None:
    source = """
    def render(node):
        if isinstance(node, Text):
            return node.value
        elif isinstance(node, Bold):
            return '**' + node.text + '**'
        elif isinstance(node, Link):
            return f'[{node.text}]({node.url})'
        raise TypeError(node)
    """
    f = move(source)
    assert f.archetype == "switch_on_type"
    assert "lines 3-8" in f.move and "3 short arms: clear as it is" in f.move
    longer = source.replace(
        "        raise TypeError(node)",
        "        elif isinstance(node, Code):\n            return node.text\n"
        "        raise TypeError(node)",
    )
    f = move(longer)
    assert f.archetype == "switch_on_type"
    # Four one-line arms are still a short chain ...
    assert "lines 3-10" in f.move and "4 short arms: clear as it is" in f.move
    # ... four arms that do more are handlers waiting to be written.
    longest = longer.replace(
        "            return node.text\n",
        "            text = escape(node.text)\n            return text\n",
    )
    f = move(longest)
    assert f.archetype == "switch_on_type"
    assert "singledispatch" in f.move and "lines 3-11" in f.move


def test_a_tag_ladder_is_a_switch_on_type() -> None:
    source = """
    def handle(msg):
        if msg['type'] == 'open':
            return opened(msg)
        if msg['type'] == 'close':
            return closed(msg)
        if msg['type'] == 'data':
            return received(msg)
        return None
    """
    assert move(source).archetype == "switch_on_type"


def test_a_chain_mapping_values_to_values_is_a_table() -> None:
    source = """
    def label(code):
        if code == 1:
            return 'one'
        elif code == 2:
            return 'two'
        elif code == 3:
            return 'three'
        return 'many'
    """
    f = move(source)
    assert f.archetype == "unclassified" and "dict lookup" in f.move


def test_two_arms_are_not_a_dispatch() -> None:
    source = """
    def render(node, deep):
        if isinstance(node, Text):
            return node.value
        elif isinstance(node, Bold):
            return node.text
        return deep and node or None
    """
    assert move(source).archetype == "unclassified"


# -- extraction ------------------------------------------------------------------------------

EXTRACTABLE = """
def report(rows, limit):
    if not rows:
        return None
    header = 'Report'
    total = 0
    for row in rows:
        if row.value > limit:
            total += row.value
        elif row.value < 0:
            total -= 1
    if total > limit:
        print(header)
    return header, total
"""


def test_a_block_that_moves_out_says_what_it_takes_and_gives() -> None:
    f = move(EXTRACTABLE)
    # The loop with the line that starts its total: one step, whole.
    assert f.move.startswith("Lines 6-11 (the `for` loop with its set-up) can move into a helper")
    assert "takes `limit` and `rows` and returns `total`" in f.move
    assert "3 of its 5 decision points go with them" in f.move


def test_a_jump_out_of_a_block_keeps_it_in() -> None:
    f = move(EXTRACTABLE.replace("total -= 1", "break"))
    assert f.move.startswith("Lines 6-11")  # a break of its own loop moves with it
    f = move(EXTRACTABLE.replace("total -= 1", "return row"))
    assert "can return from the function" in f.move


def test_a_generator_block_moves_out_with_yield_from() -> None:
    source = """
    def matches(patterns, names, strict):
        if strict:
            raise ValueError(strict)
        seen = 0
        for pattern in patterns:
            for name in names:
                if pattern.match(name):
                    print(pattern, name)
                    yield name
        print(seen)
    """
    assert "generator" in move(source).move and "`yield from`" in move(source).move


def test_a_block_that_calls_its_own_function_stays() -> None:
    source = """
    def flatten(items, depth, out):
        if depth < 0:
            raise ValueError(depth)
        for item in items:
            if isinstance(item, list):
                flatten(item, depth - 1, out)
                print(depth)
            else:
                out.append(item)
        return out
    """
    assert "calls this function again" in move(source).move


# -- parameters ------------------------------------------------------------------------------


def test_the_receiver_is_not_a_parameter() -> None:
    source = """
    class Error:
        def __init__(self, msg, exc):
            self.msg = msg
            self.exc = exc
    """
    assert hints(source, "lizard_param_count") == []


def test_a_code_handed_in_picks_behaviour_is_a_primitive() -> None:
    source = """
    def render(fmt, rows, out):
        if fmt == 'csv':
            out.write(header(rows))
            write_csv(rows, out)
        elif fmt == 'json':
            json.dump(rows, out)
        elif fmt == 'html':
            out.write('<table>')
            write_rows(rows, out)
            out.write('</table>')
        elif fmt == 'text':
            for row in rows:
                print(row, file=out)
    """
    f = move(source)
    assert f.archetype == "primitive_obsession"
    assert "by the code of `fmt` in 4 arms" in f.move


def test_a_code_whose_arms_differ_only_in_values_is_a_table() -> None:
    source = """
    def show_help(what, name):
        if what == 'lexer':
            cls = find_lexer(name)
            print(f"Help on the {cls.name} lexer:")
        elif what == 'formatter':
            cls = find_formatter(name)
            print(f"Help on the {cls.name} formatter:")
        elif what == 'filter':
            cls = find_filter(name)
            print(f"Help on the {cls.name} filter:")
    """
    f = move(source)
    assert f.archetype == "primitive_obsession"
    assert "do the same thing with other values" in f.move


def test_the_name_a_special_method_is_asked_for_is_no_code() -> None:
    source = """
    def __getattr__(name):
        if name == 'Tree':
            warn('Tree moved')
            from .tree import Tree
            return Tree
        elif name == 'registry':
            warn('registry is private')
            return _REGISTRY
        elif name == 'schemas':
            warn('schemas is private')
            return _SCHEMAS
        raise AttributeError(name)
    """
    assert move(source).archetype != "primitive_obsession"


def test_a_whole_body_wrapped_in_one_if_gets_a_return_guard() -> None:
    source = """
    def verify(self, kwargs):
        if self.spec:
            for name in self.spec.names:
                if name not in kwargs:
                    default = self.spec.defaults.get(name)
                    kwargs[name] = default
                    warn(f"{name} not given")
                else:
                    check(kwargs[name])
    """
    assert "`if not self.spec: return` lets lines 4-10 move out a level" in moves(source)


def test_a_data_clump_travels_through_functions_of_different_signatures() -> None:
    source = """
    def validate(street, city, postcode):
        return bool(street and city and postcode)

    def quote(street, city, postcode, weight):
        return weight

    def label(name, street, city, postcode):
        return name
    """
    found = {f.start_line: f for f in hints(source, "lizard_param_count")}
    # A three-parameter signature is not worth a hint of its own; the clump is named
    # on the signatures it makes long.
    assert sorted(found) == [5, 8]
    assert found[5].archetype == "data_clumps"
    assert "`validate` (line 2) and `label` (line 8)" in found[5].move


def test_a_family_of_callbacks_is_not_a_data_clump() -> None:
    source = """
    def minimum(validator, minimum, instance, schema):
        return validator

    def maximum(validator, maximum, instance, schema):
        return validator

    def pattern(validator, pattern, instance, schema):
        return validator
    """
    assert hints(source, "lizard_param_count") == []


def test_a_flag_that_selects_the_whole_body_is_a_split() -> None:
    source = """
    def export(rows, path, compressed=False):
        if compressed:
            data = compress(rows)
            write(path, data)
            log(path)
        else:
            write(path, rows)
    """
    f = move(source, "lizard_param_count")
    assert "`compressed` only chooses between the branches of the `if` on line 3" in f.move


# -- classes and modules ----------------------------------------------------------------------


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
    assert "`receive` and `pick` (lines 7-11) use `stock`" in f.move


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


# -- the walk ------------------------------------------------------------------------------------


def test_real_depth_from_statements_matches_the_walk() -> None:
    import sysconfig
    from pathlib import Path

    path = Path(sysconfig.get_paths()["stdlib"]) / "argparse.py"
    for node in ast.walk(ast.parse(path.read_bytes())):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            assert real_depth(node.body) == view_of(node).max_depth, node.lineno


def test_with_and_try_add_no_level_and_elif_continues_its_if() -> None:
    source = textwrap.dedent(
        """
        def f(a, b):
            with a:
                try:
                    if a:
                        pass
                    elif b:
                        if b:
                            pass
                except KeyError:
                    pass
        """
    )
    node = ast.parse(source).body[0]
    assert isinstance(node, ast.FunctionDef)
    assert view_of(node).max_depth == 2


def test_nested_definitions_are_not_walked() -> None:
    source = textwrap.dedent(
        """
        def outer(a):
            def inner(b):
                if b:
                    return 1
            return inner
        """
    )
    node = ast.parse(source).body[0]
    assert isinstance(node, ast.FunctionDef)
    view = view_of(node)
    assert view.points == [] and view.max_depth == 0
    assert [j.kind for j in view.jumps] == ["return"]


def test_a_flag_tested_twice_names_both_ifs() -> None:
    source = """
    def export(rows, path, compressed=False):
        if compressed:
            data = compress(rows)
            write(path, data)
        else:
            write(path, rows)
        if compressed:
            log(path, 'compressed')
            notify(path)
    """
    f = move(source, "lizard_param_count")
    assert "the branches of the `if`s on lines 3 and 8:" in f.move


# -- where the census puts what the tree does not place ---------------------------------


def test_an_and_is_cited_on_its_own_line() -> None:
    source = """
    def ready(order, stock):
        if order.paid:
            log(order)
        if (order.lines and
                (stock.has(order)
                 or order.backorder)):
            ship(order)
        log(stock)
    """
    text = moves(source)
    assert "`and` (line 5)" in text and "`or` (line 7)" in text


def test_a_loop_else_is_not_a_second_loop() -> None:
    source = """
    def find(items, key):
        for item in items:
            if item.key == key:
                log(item)
                break
        else:
            raise KeyError(key)
        if key is None:
            log(key)
    """
    text = moves(source)
    assert "loop `else` (line 7)" in text and "2 loops" not in text


def test_a_try_else_is_cited_at_its_keyword() -> None:
    source = """
    def load(path):
        try:
            data = read(path)
        except OSError:
            return None
        else:
            check(data)
        if data:
            log(data)
        return data
    """
    assert "`try` `else` (line 7)" in moves(source)


def test_a_docstring_stays_with_its_function() -> None:
    node = ast.parse(
        textwrap.dedent(
            """
            def tobuf(self, format):
                \"\"\"The header as a string
                of blocks.\"\"\"
                info = self.get_info()
                for name, value in info.items():
                    if value is None:
                        raise ValueError(name)

                if format == 1:
                    log(format)
                    return self.ustar(info)
                return self.gnu(info)
            """
        )
    ).body[0]
    assert isinstance(node, ast.FunctionDef)
    blocks = Examiner(view_of(node), is_method=True).extractions()
    assert blocks and all(b.start_line > 4 for b in blocks)


def test_names_a_block_binds_first_are_not_inputs() -> None:
    source = """
    def build(self, offset, size, blockinfo):
        self.offset = offset
        self.size = size
        self.log(offset, size)

        last = 0
        for offset, size in blockinfo:
            if offset > last:
                self.gap(last, offset)
            self.data(offset, size)
            last = offset + size
        if last < self.size:
            self.gap(last, self.size)
    """
    text = moves(source)
    assert "takes `blockinfo` and" in text and "`offset`" not in text.split("takes")[1]


def test_a_call_of_a_same_named_method_elsewhere_is_no_recursion() -> None:
    source = """
    class Request:
        def write(self, buf):
            put(buf, self.tag)
            put(buf, len(self.errors))
            for path, errors in self.errors.items():
                put(buf, path)
                put(buf, len(errors))
                for error in errors:
                    if error.serious:
                        error.write(buf)
            put(buf, len(self.data))
            for name, data in self.data.items():
                put(buf, name)
    """
    assert "Lines 7-11 (the body of the `for` loop) can move into a helper" in moves(source)


def test_no_comprehension_for_a_loop_an_error_can_leave_half_done() -> None:
    source = """
    def read_quick(path):
        quick = None
        try:
            raw = load(path)
            quick = {}
            for name, (x, y) in raw.items():
                quick[name] = (x, y)
        except Exception as e:
            warn(e)
        return quick
    """
    assert "builds it in one step" not in moves(source)


def test_a_context_managers_yield_does_not_move_into_a_generator() -> None:
    source = """
    @contextlib.contextmanager
    def locked(self, path):
        log(path)
        path = normalise(path)
        self.check(path)
        self.note(path)
        self.open(path)
        self.mark(path)
        self.count += 1
        try:
            handle = self.lock(path)
            if handle is None:
                raise LockError(path)
            yield handle
        except OSError:
            self.report(path)
            raise
        finally:
            self.release(path)
    """
    text = moves(source)
    assert "yield from" not in text
    assert "holds the `yield` its decorator hands control through" in text


def examined(source: str, line: int, is_method: bool = True) -> Extraction | str:
    """The examiner's verdict on the compound statement at ``line`` of a method (or
    of a plain function)."""
    tree = ast.parse(textwrap.dedent(source))
    node = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef))
    view = view_of(node)
    (stmt,) = [s for s in view.statements if s.line == line]
    return Examiner(view, is_method=is_method).examine((stmt,))


def test_a_block_that_only_tests_a_flag_set_before_it_is_not_the_step() -> None:
    source = """
    def swap(self, path):
        if not self.shadow:
            return path
        path = normpath(path)
        checked = path in self.seen
        if not checked:
            for source, shadow in self.shadow.items():
                if same(path, source):
                    self.seen[path] = shadow
                    break
                self.seen[path] = None
        return self.seen.get(path, path)
    """
    assert examined(source, 7) == FLAG
    inner = examined(source, 8)
    assert isinstance(inner, Extraction) and inner.inputs == ("path",)


def test_a_name_set_in_a_loop_body_before_it_is_read_is_no_input() -> None:
    source = """
    def split_name(self, name, encoding):
        parts = name.split('/')
        log(parts)
        self.count += 1
        for i in range(1, len(parts)):
            prefix = '/'.join(parts[:i])
            name = '/'.join(parts[i:])
            if fits(prefix, encoding) and fits(name, encoding):
                log(prefix)
        self.done(parts)
        self.done(encoding)
        return parts
    """
    found = examined(source, 6)
    assert isinstance(found, Extraction) and found.inputs == ("encoding", "parts")


# -- copies ------------------------------------------------------------------------------


def test_a_block_written_twice_is_one_helper_for_both() -> None:
    source = """
    class Parser:
        def set(self, section, option, value):
            if option is None:
                log(option)
            if not section or section == self.default:
                sectdict = self._defaults
            else:
                try:
                    sectdict = self._sections[section]
                except KeyError:
                    raise NoSectionError(section) from None
            sectdict[self.xform(option)] = value
            self.changed = True
            self.notify(section)
            self.count += 1

        def remove(self, section, option):
            if option is None:
                log(option)
            if not section or section == self.default:
                sectdict = self._defaults
            else:
                try:
                    sectdict = self._sections[section]
                except KeyError:
                    raise NoSectionError(section) from None
            existed = option in sectdict
            self.changed = True
            self.notify(section)
            self.count += 1
            return existed
    """
    found = {f.start_line: f.move for f in hints(source, "radon_cc")}
    assert found[3].startswith(
        "Lines 6-12 (the `if`/`else`) repeat lines 21-27 (in `remove`) word for"
    )
    assert "one helper that takes `section` and returns `sectdict` can serve both" in found[3]
    assert "repeat lines 6-12 (in `set`)" in found[18]


def test_copies_differing_in_more_than_two_places_are_not_twins() -> None:
    def loop(name: str, attr: str, value: int) -> ast.AST:
        return ast.parse(f"for {name} in xs:\n    if {name}.{attr}:\n        f({value})\n").body[0]

    assert differences(loop("x", "a", 1), loop("x", "a", 1)) == set()
    assert differences(loop("x", "a", 1), loop("x", "a", 2)) == {("1", "2")}
    assert differences(loop("x", "a", 1), loop("y", "b", 2)) is None


#: Two methods that differ only in the header they read and the prefix they build.
AUTH = """
class Opener:
    def on_401(self, url, headers, retry=False):
        if "www-authenticate" not in headers:
            return self.default(url)
        scheme, realm = parse(headers["www-authenticate"])
        if scheme.lower() != "basic" or not retry:
            return self.default(url)
        return getattr(self, "retry_" + self.type)(url, realm)

    def on_407(self, url, headers, retry=False):
        if "proxy-authenticate" not in headers:
            return self.default(url)
        scheme, realm = parse(headers["proxy-authenticate"])
        if scheme.lower() != "basic" or not retry:
            return self.default(url)
        return getattr(self, "retry_proxy_" + self.type)(url, realm)
"""


def test_a_function_written_twice_is_one_helper_taking_what_differs() -> None:
    found = {f.start_line: f.move for f in hints(AUTH, "radon_cc")}
    assert found[3] == (
        "`on_407` (lines 11-17) is this method but for `'proxy-authenticate'` and "
        "`'retry_proxy_'` (here `'www-authenticate'`, `'retry_'`): one helper taking "
        "them as parameters can serve both."
    )
    assert found[11].startswith("`on_401` (lines 3-9) is this method but for `'www-authenticate'`")


def test_a_copy_word_for_word_in_a_sibling_class_belongs_in_a_class_they_share() -> None:
    source = AUTH.replace("proxy-authenticate", "www-authenticate").replace(
        "retry_proxy_", "retry_"
    )
    split = source.replace("    def on_407", "class Other:\n    def on_407")
    same = {f.start_line: f.move for f in hints(source, "radon_cc")}
    assert same[3] == (
        "`on_407` (lines 11-17) is this method word for word: keep one and have the other call it."
    )
    apart = {f.start_line: f.move for f in hints(split, "radon_cc")}
    assert apart[3] == (
        "`Other.on_407` (lines 12-18) is this method word for word: "
        "one definition in a class they share can serve both."
    )


#: ``first`` and ``second`` of one shape: the first reads ``{a}``, the second ``{b}``.
PAIR = """
def first(rows, key):
    for row in rows:
        if {a}:
            return row
    log(rows, key)
    return None

def second(rows, key):
    for row in rows:
        if {b}:
            return row
    log(rows, key)
    return None
"""


@pytest.mark.parametrize(
    ("a", "b", "named"),
    [
        ("match(row, key)", "match(row, KEY)", True),  # a global the helper can take
        ("row.name == key", "row.name == KEY", True),
        ("match(row, key)", "match(key, row)", False),  # two names change places
        ("match(row, key)", "match(row, rows)", False),  # another parameter stands in
        ("match(row, 1)", "match(row.parent, 1)", False),  # the loop's own variable
        ("row.name == key", "row.size == key", False),  # the same, an attribute of it
    ],
)
def test_a_copy_is_named_only_where_a_caller_could_pass_what_differs(
    a: str, b: str, named: bool
) -> None:
    given = " ".join(f.move for f in hints(PAIR.format(a=a, b=b), "radon_cc"))
    assert ("is this function" in given) is named, given


def test_alternative_definitions_of_one_name_are_no_copies() -> None:
    source = """
    if sys.platform == "win32":
        def home(env):
            if "HOME" in env:
                return env["HOME"]
            drive = env.get("HOMEDRIVE") or "C:"
            return drive + env.get("HOMEPATH", "")
    else:
        def home(env):
            if "HOME" in env:
                return env["HOME"]
            drive = env.get("XDG") or "/"
            return drive + env.get("USER", "")
    """
    assert "is this function" not in moves(source)


def test_a_copy_among_several_says_how_many_more() -> None:
    source = """
    class Path:
        def is_dir(self):
            try:
                return S_ISDIR(self.stat().st_mode)
            except OSError as e:
                if not ignore(e):
                    raise
                return False
    """
    body = textwrap.dedent(source)
    for name, test in (("is_file", "S_ISREG"), ("is_fifo", "S_ISFIFO"), ("is_socket", "S_ISSOCK")):
        body += (
            f"    def {name}(self):\n"
            "        try:\n"
            f"            return {test}(self.stat().st_mode)\n"
            "        except OSError as e:\n"
            "            if not ignore(e):\n"
            "                raise\n"
            "            return False\n"
        )
    found = {f.start_line: f.move for f in hints(body, "radon_cc")}
    assert found[3] == (
        "`is_file` (lines 10-16) is this method but for `S_ISREG` (here `S_ISDIR`), "
        "and 2 others copy it too: one helper taking parameters for what differs can serve all."
    )


# -- what stays behind ---------------------------------------------------------------------


def test_statements_that_only_prepare_the_block_stay_with_it() -> None:
    # Without the loop, copy keeps only a default and two aliases the loop alone
    # reads: a helper taking them would be the function again.
    source = """
    def copy(src, dst, size=0):
        if not size:
            size = BUFSIZE
        read = src.read
        write = dst.write
        while True:
            chunk = read(size)
            if not chunk:
                break
            write(chunk)
    """
    assert examined(source, 7) == "bare"
    assert "can move into" not in moves(source)


def test_a_statement_whose_value_is_read_after_the_block_is_work_of_its_own() -> None:
    source = """
    def copy(src, dst, size=0):
        if not size:
            size = BUFSIZE
        read = src.read
        write = dst.write
        while True:
            chunk = read(size)
            if not chunk:
                break
            write(chunk)
        return size
    """
    assert isinstance(examined(source, 7), Extraction)


def test_a_value_set_only_before_a_raise_is_no_output() -> None:
    source = """
    def put(self, cmd, args=""):
        if args == "":
            s = cmd
        else:
            s = f"{cmd} {args}"
        if "\\r" in s or "\\n" in s:
            s = s.replace("\\n", "\\\\n")
            s = s.replace("\\r", "\\\\r")
            raise ValueError(f"newline in command: {s}")
        self.send(s)
    """
    found = examined(source, 7)
    assert isinstance(found, Extraction) and found.inputs == ("s",) and found.output is None


def test_an_init_keeps_the_attributes_it_sets() -> None:
    source = """
    def __init__(self, stuff, test):
        self.stuff = stuff
        if test is not None:
            self.test = test
            self.name = test.__name__ if test else "anonymous"
            self.count = 0
            self.rest = [a for a in stuff.args if a]
        self.done = False
    """
    assert examined(source, 4) == "initializes"


def test_the_census_names_what_keeps_a_block_in() -> None:
    source = """
    def get_cfws(value):
        cfws = CFWSList()
        while value and value[0] in LEADER:
            if value[0] in WSP:
                token, value = get_fws(value)
            else:
                token, value = get_comment(value)
            cfws.append(token)
        return cfws, value
    """
    assert move(source).move.endswith("holds 3 of them and changes `cfws` in place.")


def test_an_if_that_uses_the_value_it_tests_is_no_flag_test() -> None:
    source = """
    def log(self, msg, exc_info=None, extra=None):
        record = self.make(msg)
        if exc_info:
            if isinstance(exc_info, BaseException):
                exc_info = (type(exc_info), exc_info, exc_info.__traceback__)
            elif not isinstance(exc_info, tuple):
                exc_info = sys.exc_info()
        self.handle(record, exc_info, extra)
    """
    assert examined(source, 4) == "threads"
    assert move(source).move.endswith(
        "reassigns `exc_info` (a parameter), which the function reads after it."
    )
    local = source.replace("record = self.make(msg)", "record = self.make(msg)\n    exc = exc_info")
    local = local.replace("if exc_info:", "if exc:").replace("exc_info = (", "exc = (")
    local = local.replace("exc_info = sys", "exc = sys").replace(
        "record, exc_info,", "record, exc,"
    )


NESTED_BOTH_WAYS = """
def capture(on):
    global saved
    if on:
        if saved is None:
            saved = hooks.show
            hooks.show = show
    else:
        if saved is not None:
            hooks.show = saved
            saved = None
"""


def test_an_elif_is_no_nesting_move_while_the_other_branch_stays_as_deep() -> None:
    assert hints(NESTED_BOTH_WAYS, "lizard_nesting_depth") == []


def test_an_elif_is_the_nesting_move_when_its_branch_is_the_deepest() -> None:
    source = NESTED_BOTH_WAYS.replace(
        "        if saved is None:\n"
        "            saved = hooks.show\n"
        "            hooks.show = show\n",
        "        saved = hooks.show\n",
    )
    (found,) = hints(source, "lizard_nesting_depth")
    assert found.move.startswith("The `else` of the `if` on line 4 holds only the `if` on line 7")


# -- loop else -----------------------------------------------------------------------------


def test_a_loop_else_with_no_break_always_runs() -> None:
    source = """
    def spec(value):
        out = Spec()
        for token in value:
            if token.kind == "a":
                out.append(token)
            elif token.kind == "b":
                out.extend(token)
        else:
            out.done()
        return out
    """
    f = move(source)
    assert f.move == (
        "The `for` loop on line 4 has no `break`, so its `else` (line 9) always runs: "
        "drop the `else:` and unindent its body, 1 point less."
    )
    # The claim is exact: unindented, the function has one point less.
    flat = textwrap.dedent(source).replace("    else:\n        out.done()", "    out.done()")
    assert radon(flat) == radon(source) - 1


@pytest.mark.parametrize(
    "loop",
    [
        "for x in xs:\n        if x:\n            break",
        "while xs:\n        try:\n            xs.pop()\n"
        "        except IndexError:\n            break",
        "for x in xs:\n        for y in x:\n            pass\n        else:\n            break",
    ],
)
def test_a_loop_else_that_a_break_can_skip_is_left_alone(loop: str) -> None:
    source = f"""
def f(xs):
    {loop}
    else:
        g(xs)
    return xs
"""
    assert "loop on line 3 has no `break`" not in moves(source)


def test_a_break_of_a_nested_loop_does_not_skip_the_outer_else() -> None:
    source = """
    def f(xs):
        for x in xs:
            for y in x:
                if y:
                    break
        else:
            g(xs)
        return xs
    """
    assert "The `for` loop on line 3 has no `break`" in moves(source)


def test_a_parameter_named_like_its_function_is_no_recursion() -> None:
    source = """
    def properties(validator, properties, instance, schema):
        if not validator.is_type(instance, "object"):
            return
        for prop, sub in properties.items():
            if prop in instance:
                yield from validator.descend(instance[prop], sub, path=prop)
                note(prop, schema)
                count(prop)
    """
    assert examined(source, 5, is_method=False) != "recurses"
    assert examined(source.replace("properties.items()", "items(properties)"), 5) != "recurses"


def test_a_bare_call_of_a_methods_name_is_not_the_method() -> None:
    source = """
    def set(self, key, flag):
        cont = self.flags
        for k in key:
            if k not in cont:
                cont[k] = {"flags": set(), "nested": {}}
                note(k)
                count(k)
            cont = cont[k]["nested"]
        return cont
    """
    assert examined(source, 4) != "recurses"  # the builtin `set`
    assert examined(source, 4, is_method=False) == "recurses"  # a function's own name


def test_a_block_that_counts_stack_frames_stays() -> None:
    source = """
    def caller(self, n):
        check(n)
        if n > 0:
            frame = sys._getframe(n)
            while frame.f_back is not None and frame.f_globals.get("__name__") == __name__:
                frame = frame.f_back
            note(frame)
        count(n)
    """
    assert examined(source, 4) == "frame"
    assert examined(source.replace("sys._getframe(n)", "self.frame"), 4) != "frame"


def test_a_name_set_in_a_with_body_is_set_for_what_follows_the_with() -> None:
    source = """
    def merge(self, counts=None, infile=None):
        self.counts = counts or {}
        if infile:
            try:
                with open(infile, "rb") as f:
                    counts, callers = pickle.load(f)
                self.update(counts, callers)
            except OSError as err:
                warn(err)
        self.merged = True
        self.notify(infile)
        self.log(infile)
        self.count += 1
        return self
    """
    verdict = examined(source, 4)
    assert isinstance(verdict, Extraction) and "counts" not in verdict.inputs


def test_a_value_every_later_read_of_which_is_set_again_is_no_output() -> None:
    source = """
    def describe(self):
        out = []
        for attr in ("years", "months", "days"):
            value = getattr(self, attr)
            if value:
                out.append(attr)
                note(attr)
        for attr in ("year", "month", "day"):
            value = getattr(self, attr)
            if value is not None:
                out.append(repr(value))
        return ", ".join(out)
    """

    def outputs(text: str) -> list[str]:
        tree = ast.parse(textwrap.dedent(text))
        node = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef))
        view = view_of(node)
        (stmt,) = [s for s in view.statements if s.line == 4]
        return Examiner(view, is_method=True).outputs((stmt,))

    assert outputs(source) == []
    # Read before it is set again: the first loop's value flows on.
    kept = source.replace(
        '        for attr in ("year"', '        log(value)\n        for attr in ("year"'
    )
    assert outputs(kept) == ["value"]


def test_two_ifs_are_one_helper_only_when_they_are_near_copies() -> None:
    source = """
    def check(rel, expected, limit):
        if rel is not None:
            note(rel)
        if not isinstance(rel, (int, float)):
            raise TypeError(
                f"relative tolerance must be a number, got {type(rel).__name__}"
            )
        if not isinstance(expected, SupportsAbs):
            raise TypeError(
                f"expected value must support abs, got {type(expected).__name__}"
            )
        return limit
    """
    assert "do the same thing with other values" not in moves(source)
    near = source.replace("expected value must support abs", "relative tolerance must be a number")
    near = near.replace("isinstance(expected, SupportsAbs)", "isinstance(expected, (int, float))")
    assert "do the same thing with other values: one helper" in moves(near)


def test_a_name_set_first_in_each_branch_is_no_input() -> None:
    source = """
    def open(self, url, data=None, timeout=None):
        if isinstance(url, str):
            req = Request(url, data)
        else:
            req = url
            if data is not None:
                req.data = data
        req.timeout = timeout
        return self.send(req)
    """
    found = examined(source, 3)
    assert isinstance(found, Extraction)
    assert found.inputs == ("data", "url") and found.output == "req"


def test_each_case_of_a_match_is_counted_on_its_own_line() -> None:
    source = """
    def mode(config):
        value = config.getini("strict")
        match value:
            case "all":
                return ALL
            case "some":
                return SOME
            case "none":
                return NONE
            case other:
                raise ValueError(other)
    """
    assert "3 `case`s (lines 5, 7 and 9)" in move(source).move


def test_an_else_after_a_raise_goes_before_any_extraction() -> None:
    source = """
    def data(self, msg):
        self.put("data")
        code, reply = self.get()
        if code != 354:
            raise DataError(code, reply)
        else:
            if isinstance(msg, str):
                msg = fix(msg)
            q = quote(msg)
            if q[-2:] != END:
                q = q + END
            self.send(q)
            return self.get()
    """
    assert "ends in a `raise`, so its `else` is not needed" in move(source).move


# -- modules ---------------------------------------------------------------------------


def _group(prefix: str, count: int, extra: str = "") -> str:
    """``count`` functions that call the next one, each a dozen lines long."""
    out = []
    for i in range(count):
        body = "".join(f"    v{j} = {prefix}{i + 1}(x) + {j}\n" for j in range(10))
        out.append(f"def {prefix}{i}(x):\n{extra if i == 0 else ''}{body}    return v9\n")
    return "\n".join(out)


def test_a_module_of_two_unrelated_groups_splits_unless_they_share_global_state() -> None:
    apart = _group("a", 10) + "\n" + _group("b", 10)
    move_ = split_move(top_level(ast.parse(apart), apart))
    assert move_ is not None and "never refer to each other" in move_.text
    # `b0` sets a global that `a0` reads: moving either group away breaks the other.
    shared = (
        _group("a", 10, "    print(CACHE)\n")
        + "\n"
        + _group("b", 10, "    global CACHE\n    CACHE = x\n")
    )
    assert split_move(top_level(ast.parse(shared), shared)) is None


def test_a_block_that_sets_a_declared_global_stays() -> None:
    source = """
    def init(files=None):
        global types_map, inited
        inited = True
        db = make()
        for file in files:
            if exists(file):
                db.read(file)
                note(file)
                types_map = db.types_map
        return db
    """
    assert examined(source, 6, is_method=False) == "declares"
    assert (
        examined(
            source.replace("types_map = db.types_map", "other = db.types_map"), 6, is_method=False
        )
        != "declares"
    )
