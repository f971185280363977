"""The kinds of move, each one :class:`Kind` member carrying its traits.

What the policy needs to know of a kind beyond its name (does it take a level of
nesting away, does it only say a loop more plainly, does it name the code without
proposing a change) is a trait of that member, so no list of kind names lives
anywhere else. The value of a member is how the kind is written in logs and tests.
"""

from __future__ import annotations

import enum


class Trait(enum.Flag):
    """What the policy needs to know of a kind of move."""

    NONE = 0
    #: Takes a level of nesting away where it matters (a nesting hint may carry it).
    FLATTENS = enum.auto()
    #: Flattens an arrowhead, the shape a complexity hint names first there.
    UNNESTS = enum.auto()
    #: Says a loop or a chain more plainly without lowering the count.
    PLAIN = enum.auto()
    #: Tidies a function without lowering its count: a complexity hint that has
    #: nothing better may carry it.
    TIDY = enum.auto()
    #: Names what the code is and proposes no change.
    NAMES = enum.auto()
    #: A chain of cases on one subject; when it makes up the function, it is the
    #: function's shape.
    SWITCH = enum.auto()


_F = Trait.FLATTENS | Trait.UNNESTS


class Kind(enum.StrEnum):
    """Every kind of move; the value is how the kind is written (in logs and tests)."""

    traits: Trait

    def __new__(cls, value: str, traits: Trait = Trait.NONE) -> Kind:
        member = str.__new__(cls, value)
        member._value_ = value
        member.traits = traits
        return member

    # loops
    ANY = "any", _F | Trait.PLAIN
    ALL = "all"
    NEXT = "next", Trait.TIDY
    COMPREHENSION = "comprehension", Trait.FLATTENS | Trait.PLAIN | Trait.TIDY
    LOOP_ELSE = "loop_else"
    WALRUS_LOOP = "walrus_loop"
    MEMBERSHIP_ELSE = "membership_else"
    YIELD_FROM = "yield_from"
    MIN_MAX = "min_max"
    # boolean expressions and returns
    MEMBERSHIP = "membership"
    ISINSTANCE_TUPLE = "isinstance_tuple"
    STARTSWITH_TUPLE = "startswith_tuple"
    CONDITIONAL = "conditional"
    BOOL_RETURN = "bool_return"
    DEAD_OR = "dead_or"
    # conditionals
    DICT_GET = "dict_get"
    MERGE_IFS = "merge_ifs", _F | Trait.TIDY
    ELSE_IF = "else_if", _F
    CONTINUE_GUARD = "continue_guard", _F | Trait.TIDY
    RETURN_GUARD = "return_guard", _F | Trait.TIDY
    ELSE_GUARD = "else_guard", _F | Trait.TIDY
    NO_ELSE = "no_else", _F | Trait.TIDY
    SAME_ARMS = "same_arms", Trait.PLAIN | Trait.TIDY
    ONE_OR_MANY = "one_or_many", Trait.PLAIN | Trait.TIDY
    SETDEFAULT = "setdefault", _F
    # exceptions
    SAME_HANDLERS = "same_handlers"
    # chains of cases
    DISPATCH_TABLE = "dispatch_table", Trait.SWITCH
    SHORT_SWITCH = "short_switch", Trait.SWITCH | Trait.NAMES
    DICT_LOOKUP = "dict_lookup"
    TABLE_OF_CASES = "table_of_cases", Trait.PLAIN | Trait.TIDY
    # blocks, copies, objects
    EXTRACT = "extract"
    COPIED_FUNCTION = "copied_function"
    HIDE_DELEGATE = "hide_delegate"
    # signatures
    FLAG_SPLIT = "flag_split"
    PARAMETER_OBJECT = "parameter_object"
    LONG_LIST = "long_list"
    # classes and modules
    EXTRACT_CLASS = "extract_class"
    SPLIT_MODULE = "split_module"

    def has(self, trait: Trait) -> bool:
        return trait in self.traits


#: The Python a kind's rewrite needs, where it needs one newer than 3.0: the move is
#: not made in a module that says it runs on an older one.
SINCE: dict[Kind, tuple[int, int]] = {
    Kind.WALRUS_LOOP: (3, 8),
    Kind.YIELD_FROM: (3, 3),
    Kind.MIN_MAX: (3, 4),
}
