"""Parameter moves: flag splits and data clumps.

Each detector on the smallest code that shows its shape, and on the code that looks
like it but is not (a move must be true of the code it is about). Where a move claims
points off radon's complexity, the test writes the rewrite the move describes and
measures both versions with radon: the claim is the difference.
"""

from __future__ import annotations

from gzguide.analysis.moves.kinds import Kind
from support.moves import hints, kinds, move


def test_the_receiver_is_not_a_parameter() -> None:
    source = """
    class Error:
        def __init__(self, msg, exc):
            self.msg = msg
            self.exc = exc
    """
    assert hints(source, "lizard_param_count") == []


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
    assert Kind.PARAMETER_OBJECT in kinds(source)
    assert sorted(found) == [5, 8]
    assert found[5].archetype == "data_clumps"
    assert "`validate` (line 2) and `label` (line 8)" in found[5].move


def test_a_large_clump_names_two_of_its_other_functions_and_counts_the_rest() -> None:
    clump = ["street", "city", "postcode"]
    functions = [
        f"def {name}({', '.join(clump[:k] + extra + clump[k:])}):\n    return weight\n"
        for name, k, extra in [
            ("quote", 0, ["weight"]),
            ("label", 1, ["weight"]),
            ("ship", 2, ["weight"]),
            ("bill", 3, ["weight"]),
            ("store", 0, ["weight", "count"]),
            ("send", 1, ["weight", "count"]),
        ]
    ]
    source = "\n\n".join(functions)
    found = {f.start_line: f.move for f in hints(source, "lizard_param_count")}
    assert "through `label` (line 5), `ship` (line 9) and 3 more:" in found[1]
    assert "through `quote` (line 1), `ship` (line 9) and 3 more:" in found[5]


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

    def save(rows):
        export(rows, "out.gz", compressed=True)
    """
    f = move(source, "lizard_param_count")
    assert f.kind == Kind.FLAG_SPLIT
    assert "`compressed` only chooses between the branches of the `if` on line 3" in f.move


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

    def save(rows):
        export(rows, "out", False)
    """
    f = move(source, "lizard_param_count")
    assert f.kind == Kind.FLAG_SPLIT
    assert "the branches of the `if`s on lines 3 and 8:" in f.move


def test_a_flag_tested_inside_shared_work_is_no_split() -> None:
    source = """
    def filtered(member, dest, owner, group, for_data=True):
        mode = member.mode
        if mode is not None:
            if for_data:
                if member.isreg():
                    mode |= 0o600
                elif member.isdir():
                    mode = None
                else:
                    raise ValueError(member)
        return {"mode": mode, "owner": owner, "group": group, "dest": dest}
    """
    assert hints(source, "lizard_param_count")  # in the band, but the flag is no split
    assert Kind.FLAG_SPLIT not in kinds(source)


def test_a_long_list_of_plain_parameters_is_named_as_such() -> None:
    source = """
    def connect(host, port, user, password, timeout):
        return open_socket(host, port, user, password, timeout)
    """
    f = move(source, "lizard_param_count")
    assert f.kind == Kind.LONG_LIST
    assert f.archetype == "long_parameter_list"
    assert f.move.startswith("The signature on line 2 takes 5 parameters (`host`, `port`")
    # Four are not a long list.
    assert kinds(source.replace(", timeout", "")) == []


def test_a_flag_callers_pass_on_is_no_split() -> None:
    source = """
    def export(rows, path, compressed=False):
        if compressed:
            data = compress(rows)
            write(path, data)
            log(path)
        else:
            write(path, rows)

    def save(rows, packed):
        export(rows, "out", packed)
    """
    assert Kind.FLAG_SPLIT not in kinds(source)  # the caller would only take the if
    unseen = source.split("\n\n    def save")[0] + "\n"
    assert Kind.FLAG_SPLIT not in kinds(unseen)  # no caller in the file says what it wants
