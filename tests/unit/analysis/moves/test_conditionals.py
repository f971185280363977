"""Conditional moves: merged ifs, elif, guard clauses, no else, same arms.

Each detector on the smallest code that shows its shape, and on the code that looks
like it but is not (a move must be true of the code it is about). Where a move claims
points off radon's complexity, the test writes the rewrite the move describes and
measures both versions with radon: the claim is the difference.
"""

from __future__ import annotations

import textwrap

import pytest

from gzguide.analysis.moves.kinds import Kind
from support.moves import hints, kinds, move, moves, radon


def test_an_if_holding_only_an_if_merges() -> None:
    source = """
    def ship(order, express):
        for line in order.lines:
            if order.paid:
                if line.ready:
                    line.ship(express)
    """
    assert Kind.MERGE_IFS in kinds(source)
    assert "`if order.paid and line.ready:`" in moves(source)
    # `if __debug__:` is a block the compiler drops under -O, kept apart on purpose (the
    # eighth fresh review's imaplib, which nests its traces under it throughout).
    assert Kind.MERGE_IFS not in kinds(source.replace("if order.paid:", "if __debug__:"))
    # Four tests in one `and` flatten two cases into one list (a fresh review's pickle
    # `encode_long`); three still read as one.
    three = source.replace("if line.ready:", "if line.ready and line.x:")
    assert "`if order.paid and line.ready and line.x:`" in moves(three)
    four = three.replace("if order.paid:", "if order.paid and order.y:")
    assert Kind.MERGE_IFS not in kinds(four)


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
    assert Kind.ELSE_IF in kinds(source)
    assert "making it an `elif`" in moves(source)
    # A comment on the else case stays where it is (the seventh fresh review's
    # traitlets `Config.merge`: the `elif` would lose it).
    commented = source.replace("        else:\n", "        else:\n            # not an A\n", 1)
    assert Kind.ELSE_IF not in kinds(commented)


def test_an_else_beside_an_arm_of_one_if_too_is_two_parallel_cases() -> None:
    """``if https: if port != '443': ...`` / ``else: if port != '80': ...``: each case
    holds its own test, side by side; an ``elif`` takes the pair apart (a fresh
    review's wsgiref ``application_uri``, judged wrong)."""
    source = """
    def application_uri(environ):
        url = environ['wsgi.url_scheme'] + '://'
        if environ.get('HTTP_HOST'):
            url += environ['HTTP_HOST']
        else:
            url += environ['SERVER_NAME']

            if environ['wsgi.url_scheme'] == 'https':
                if environ['SERVER_PORT'] != '443':
                    url += ':' + environ['SERVER_PORT']
            else:
                if environ['SERVER_PORT'] != '80':
                    url += ':' + environ['SERVER_PORT']

        url += quote(environ.get('SCRIPT_NAME') or '/')
        return url
    """
    assert Kind.ELSE_IF not in kinds(source)
    one = source.replace(
        "                if environ['SERVER_PORT'] != '443':\n"
        "                    url += ':' + environ['SERVER_PORT']\n",
        "                url += ':443'\n",
    )
    assert Kind.ELSE_IF in kinds(one)


def test_a_condition_wrapping_the_loop_body_is_a_continue_guard() -> None:
    source = """
    def bill(orders, out):
        for order in orders:
            if order.open:
                total = order.total()
                tax = order.tax()
                fee = order.fee()
                due = order.due()
                payer = order.payer()
                region = order.region()
                rate = order.rate()
                zone = order.zone()
                for line in order.lines:
                    if line.taxed:
                        out.append((order, line, total + tax))
                    else:
                        out.append((order, line, total))
    """
    assert Kind.CONTINUE_GUARD in kinds(source)
    assert "`if not order.open: continue` lets lines 5-17 move out a level" in moves(source)
    # Eleven lines of code under the if: a guard there is taste (the seventh fresh
    # review judged the guards of 6 to 9 lines not worth the change).
    assert "continue" not in moves(source.replace("        rate = order.rate()\n", ""))
    # Right after another `if` of the loop, the two are checks side by side: a guard
    # for the second sets it apart (a fresh review's falcon `before._before`).
    header = "            if order.open:\n"
    peer = "            if order.late:\n                out.append(order)\n" + header
    assert Kind.CONTINUE_GUARD not in kinds(source.replace(header, peer))
    guard = "            if order.late:\n                continue\n" + header
    assert Kind.CONTINUE_GUARD in kinds(source.replace(header, guard))


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
    assert Kind.SAME_ARMS in kinds(source)
    assert "The arms on lines 5 and 8 run the same code" in moves(source)
    # A comment in an arm says why its case is there: one arm for both would drop it
    # (a fresh review's threading `Barrier.reset`, two commented transitions).
    commented = source.replace("    elif x < 10:\n", "    elif x < 10:\n        # a digit\n")
    assert Kind.SAME_ARMS not in kinds(commented)
    # A test over two lines would make one test of three, mixing two cases (a fresh
    # review's html5lib `BufferedStream.read`).
    spanning = source.replace("    elif x < 10:\n", "    elif (x < 10 and\n          x > 1):\n")
    assert Kind.SAME_ARMS not in kinds(spanning)
    assert Kind.SAME_ARMS in kinds(spanning.replace(" and\n          x > 1", " and x > 1"))


def test_identical_arms_on_two_equal_values_are_one_in_test() -> None:
    # `x in (0, 5)` takes the elif's point where `or` would only take its place (a
    # fresh review's threading `Barrier.reset`: "only the `in` form changes the metric").
    source = """
    def kind(x, out):
        if x < 0:
            out.append('neg')
        elif x == 0:
            out.append('small')
        elif x == 5:
            out.append('small')
        else:
            out.append('big')
    """
    assert "`x in (0, 5)` tests both, 1 point less" in moves(source)
    pair = "x == 0:\n            out.append('small')\n        elif x == 5:"
    assert radon(source) - radon(source.replace(pair, "x in (0, 5):")) == 1
    assert radon(source) - radon(source.replace(pair, "x == 0 or x == 5:")) == 0


def test_the_short_else_of_an_if_ending_the_function_goes_first() -> None:
    source = """
    def write_dict(self, d):
        if d:
            self.begin("dict")
            self.indent()
            self.mark()
            self.count(len(d))
            self.note("sorted")
            self.note("keys")
            self.note("values")
            for key, value in sorted(d.items()):
                if not isinstance(key, str):
                    raise TypeError("keys must be strings")
                self.element("key", key)
                self.write_value(value)
            self.end("dict")
        else:
            self.element("dict")
    """
    assert Kind.ELSE_GUARD in kinds(source)
    assert (
        "The `else` of the `if` on line 3 is the short case: put it first, under `not d` "
        "and followed by `return`, and lines 4-16 move out a level."
    ) in moves(source)
    # Not where more follows the if, nor where the else leaves in its own way.
    assert "short case" not in moves(source + "    self.flush()\n")
    assert "short case" not in moves(source.replace('self.element("dict")', "yield None"))


#: An `else` after a return, holding a loop and ten lines of code: a no_else move.
CONTAINS = """
    def contains(self, item):
        if self.complete:
            return item in self.cache
        else:
            for i in self:
                note(0)
                note(1)
                note(2)
                note(3)
                note(4)
                if i == item:
                    return True
                elif i > item:
                    return False
        return False
    """


def test_a_loop_alone_under_an_else_after_a_return_moves_out() -> None:
    source = CONTAINS
    assert Kind.NO_ELSE in kinds(source)
    assert (
        "The `if` on line 3 ends in a `return`, so its `else` is not needed: "
        "lines 6-15 can move out a level."
    ) in moves(source)
    # Nine lines under the else: a two-way choice that reads well (the seventh fresh
    # review's docker `ContainerCollection.list`: taste).
    assert "is not needed" not in moves(source.replace("                note(4)\n", ""))
    short = source.replace(
        """for i in self:
                note(0)
                note(1)
                note(2)
                note(3)
                note(4)
                if i == item:
                    return True
                elif i > item:
                    return False""",
        """for i in self:
                note(i)""",
    )
    assert "is not needed" not in moves(short)


def test_an_else_after_a_return_the_module_writes_throughout_stays() -> None:
    """cssutils' serializer writes `if not x: return '' else:` in 22 functions; five,
    over the size, were flagged: an inconsistency to make (a fresh review)."""
    source = CONTAINS
    short = "\ndef f{n}(x):\n    if not x:\n        return ''\n    else:\n        return x\n"
    four = textwrap.dedent(source) + "".join(short.format(n=n) for n in range(3))
    assert Kind.NO_ELSE in kinds(four)  # with its own: four in the module
    five = four + short.format(n=4)
    assert Kind.NO_ELSE not in kinds(five)


def test_two_branches_of_a_size_keep_their_else() -> None:
    source = """
    def stats(self, container, stream=True):
        url = self._url(container)
        if stream:
            response = self._get(url, stream=True)
            return self._stream(response, decode=True)
        else:
            for part in self._get(url, stream=False).parts:
                self._check(part)
            return self._result(url)
    """
    assert Kind.NO_ELSE not in kinds(source)


def test_ifs_whose_merged_test_would_read_worse_stay_apart() -> None:
    merged = """
    def check(value, strict, logger):
        if strict or logger.enabled:
            if value is not None:
                logger.warn(value)
    """
    assert Kind.MERGE_IFS not in kinds(merged)  # `(strict or ...) and ...` needs parentheses
    spread = """
    def check(value, strict, logger):
        if value is not None:
            if (strict and logger.enabled
                    and value.level > logger.level):
                logger.warn(value)
    """
    assert Kind.MERGE_IFS not in kinds(spread)
    short = merged.replace("strict or logger.enabled", "strict")
    assert Kind.MERGE_IFS in kinds(short)


def test_a_guard_on_the_negation_of_an_and_needs_a_long_body() -> None:
    body = "".join(f"                step{n}(x)\n" for n in range(11))
    source = f"""
    def run(items, ready, limit):
        for x in items:
            if ready and x < limit:
                if x:
                    log(x)
{body}
    """
    assert not {Kind.CONTINUE_GUARD, Kind.RETURN_GUARD} & set(kinds(source))
    plain = source.replace("if ready and x < limit:", "if ready:")
    assert Kind.CONTINUE_GUARD in kinds(plain)


def test_a_long_guard_keeps_its_leaving_in_view() -> None:
    body = "".join(f"                step{n}(x)\n" for n in range(11))
    source = f"""
    def run(items):
        for x in items:
            if x.opname not in ('RETURN_VALUE', 'RAISE_VARARGS', 'RERAISE', 'YIELD'):
                if x:
                    log(x)
{body}
    """
    text = moves(source)
    assert "…: continue`" in text, text


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


def test_a_whole_body_wrapped_in_one_if_gets_a_return_guard() -> None:
    source = """
    def verify(self, kwargs):
        if self.spec:
            self.log("verify")
            self.count(len(kwargs))
            self.check_types()
            self.check_names()
            self.check_order()
            self.mark()
            for name in self.spec.names:
                if name not in kwargs:
                    default = self.spec.defaults.get(name)
                    kwargs[name] = default
                    warn(f"{name} not given")
                else:
                    check(kwargs[name])
    """
    assert Kind.RETURN_GUARD in kinds(source)
    assert "`if not self.spec: return` lets lines 4-16 move out a level" in moves(source)


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
            self.log(q)
            self.count(q)
            self.flush()
            return self.get()
    """
    assert "ends in a `raise`, so its `else` is not needed" in move(source).move


MID_GUARD = """
def load(path, log):
    if path.exists():
        text = path.read_text()
        for line in text.splitlines():
            if line.startswith("#"):
                continue
            log.append(line)
        log.append(path)
    else:
        return None
    log.flush()
    return log
"""


def test_an_else_that_only_leaves_goes_first_where_more_follows_the_if() -> None:
    """What follows the `if` runs only after its body: the body can follow a guard."""
    assert Kind.ELSE_GUARD in kinds(MID_GUARD)
    assert (
        "The `else` of the `if` on line 3 only does a `return`: put it first, under "
        "`not path.exists()`, and lines 4-9 move out a level."
    ) in moves(MID_GUARD)
    # As the last statement, as before.
    last = MID_GUARD.replace("    log.flush()\n    return log\n", "")
    assert "only does a `return`" in moves(last)
    # One answer per type of value is two cases of one choice (the seventh fresh
    # review's traitlets `merge_into` and fractions `__pow__`: taste); an else that
    # raises rejects the wrong type, a check that goes first.
    # Two arms that each return are peers: swapping a short body is taste (the ninth
    # fresh review's toolz `isdistinct` and httpx `_get_proxy_map`), a long one is not.
    both = last.replace("        log.append(path)\n", "        return log.append(path)\n")
    assert Kind.ELSE_GUARD not in kinds(both)
    work = "".join(f"        log.note({n})\n" for n in range(6))
    assert Kind.ELSE_GUARD in kinds(
        both.replace("        return log.append", work + "        return log.append")
    )
    typed = MID_GUARD.replace("if path.exists():", "if isinstance(path, Path):")
    assert Kind.ELSE_GUARD not in kinds(typed)
    assert Kind.ELSE_GUARD in kinds(typed.replace("return None", "raise TypeError(path)"))


def test_an_else_that_only_continues_goes_first_in_a_loop_body() -> None:
    source = """
    def load_all(paths, log):
        for path in paths:
            if path.exists():
                text = path.read_text()
                for line in text.splitlines():
                    if line.startswith("#"):
                        continue
                    log.append(line)
                log.append(path)
            else:
                continue
            log.flush()
        return log
    """
    assert "only does a `continue`: put it first, under `not path.exists()`" in moves(source)


def test_an_else_that_leaves_is_no_guard_of_an_elif_or_of_little_work() -> None:
    elif_ = MID_GUARD.replace(
        "if path.exists():", "if path.is_dir():\n        pass\n    elif path.exists():"
    )
    assert "only does a `return`" not in moves(elif_)
    short = MID_GUARD.replace(
        '            if line.startswith("#"):\n                continue\n', ""
    )
    assert "only does a `return`" not in moves(short)
    long_else = MID_GUARD.replace(
        "        return None",
        "        log.append(1)\n        log.append(2)\n" * 2 + "        return None",
    )
    assert "only does a `return`" not in moves(long_else)


ONE_OR_MANY = """
def add(seen, names, log):
    if isinstance(names, str):
        if names not in seen:
            seen.add(names)
        log(names)
    else:
        for name in names:
            if name not in seen:
                seen.add(name)
            log(name)
"""


def test_one_value_or_many_handled_alike_is_one_loop() -> None:
    assert Kind.ONE_OR_MANY in kinds(ONE_OR_MANY)
    assert (
        "The `if` on line 3 runs on `names` the code its `else` runs on each `name` of it: "
        "`names = [names]` under the `if`, then the loop alone, say it once, 1 point less."
    ) in moves(ONE_OR_MANY)
    after = """
    def add(seen, names, log):
        if isinstance(names, str):
            names = [names]
        for name in names:
            if name not in seen:
                seen.add(name)
            log(name)
    """
    assert radon(ONE_OR_MANY) - radon(after) == 1


@pytest.mark.parametrize(
    "source",
    [
        # the arms do different things
        ONE_OR_MANY.replace("log(names)", "log(names, 1)"),
        # the loop reads the whole value too
        ONE_OR_MANY.replace("log(name)", "log(name, names)"),
        # the value is read after the if: it would be a list there
        ONE_OR_MANY + "    return names\n",
        # the loop's variable is read after it: the loop sets it, the `if` arm does not
        ONE_OR_MANY + "    return name\n",
        ONE_OR_MANY.replace("for name in names:", "for name in names.split():"),
        ONE_OR_MANY.replace(
            "            log(name)", "            log(name)\n        else:\n            log(0)"
        ),
    ],
)
def test_arms_that_differ_beyond_the_name_are_not_one_loop(source: str) -> None:
    assert Kind.ONE_OR_MANY not in kinds(source)


def test_a_jump_in_the_single_arm_leaves_another_loop() -> None:
    source = """
    def add_all(groups, seen):
        for names in groups:
            if isinstance(names, str):
                if names in seen:
                    continue
                seen.add(names)
            else:
                for name in names:
                    if name in seen:
                        continue
                    seen.add(name)
    """
    assert Kind.ONE_OR_MANY not in kinds(source)
    assert Kind.ONE_OR_MANY in kinds(source.replace("continue", "print(seen)"))


def test_a_value_a_loop_around_reads_again_is_not_made_a_list() -> None:
    source = """
    def drain(queue, seen):
        while queue:
            names = queue.pop()
            if isinstance(names, str):
                seen.add(names)
                seen.discard(None)
            else:
                for name in names:
                    seen.add(name)
                    seen.discard(None)
    """
    assert Kind.ONE_OR_MANY in kinds(source)
    # The next pass reads `names` before anything sets it again: it would be the list.
    again = source.replace("names = queue.pop()", "print(names)").replace("queue,", "names,")
    assert Kind.ONE_OR_MANY not in kinds(again)


def test_a_loop_that_searches_and_returns_gets_no_continue_guard() -> None:
    body = "".join(f"                step{n}(x)\n" for n in range(11))
    source = f"""
    def first(items, wanted):
        for x in items:
            check(x)
            if x.name in wanted:
                if x:
                    log(x)
{body}                return x
    """
    assert Kind.CONTINUE_GUARD not in kinds(source)
    assert Kind.CONTINUE_GUARD in kinds(source.replace("                return x\n", ""))


def test_an_inner_if_that_repeats_the_outer_test_is_dropped() -> None:
    source = """
    def defaults(parameter, seen):
        if 'default' in parameter:
            if 'default' in parameter:
                seen.append(parameter['default'])
    """
    assert Kind.MERGE_IFS in kinds(source)
    assert (
        "The `if` on line 3 holds only the `if` on line 4, which repeats its test: "
        "drop the inner `if`, one level less."
    ) in moves(source)


def test_an_if_that_chooses_by_type_keeps_its_else() -> None:
    source = """
    def item(self, i):
        if i.__class__ is slice:
            return self.clone([self[x] for x in range(*i.indices(len(self)))])
        else:
            length = len(self._value) - 1
            if i > length or i < 0:
                raise IndexError('bit index out of range')
            self.check(i)
            self.log(i)
            self.count(i)
            self.note(i)
            self.mark(i)
            self.seen(i)
            return (self._value >> (length - i)) & 1
    """
    assert Kind.NO_ELSE not in kinds(source)
    assert Kind.NO_ELSE in kinds(source.replace("i.__class__ is slice", "i is None"))
