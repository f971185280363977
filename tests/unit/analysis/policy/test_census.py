"""The census: where a function's decision points are, each on the line of its keyword.

Each detector on the smallest code that shows its shape, and on the code that looks
like it but is not (a move must be true of the code it is about). Where a move claims
points off radon's complexity, the test writes the rewrite the move describes and
measures both versions with radon: the claim is the difference.
"""

from __future__ import annotations

from support.moves import examined, move, moves


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
