"""LCOM4 per class, on hand-made classes."""

from __future__ import annotations

import ast
import textwrap

from gzguide.analysis.facts.parsed import parse_module
from gzguide.analysis.metrics.cohesion import ClassCohesion, class_cohesion


def _classes(source: str) -> dict[str, ClassCohesion]:
    module = parse_module(textwrap.dedent(source).encode("utf-8"))
    assert module is not None
    result = class_cohesion(module)
    by_name = {c.name: c for c in result.values()}
    assert len(by_name) == len(result)
    return by_name


def test_cohesive_class() -> None:
    (account,) = _classes(
        """
        class Account:
            def __init__(self, owner):
                self.owner = owner
                self.balance = 0

            def deposit(self, amount):
                self.balance += amount

            def withdraw(self, amount):
                self.balance -= amount

            def report(self):
                return f"{self.owner}: {self.balance}"
        """
    ).values()
    assert account.lcom4 == 1
    assert account.components == [["deposit", "report", "withdraw"]]


def test_two_disjoint_groups() -> None:
    (mixed,) = _classes(
        """
        class Mixed:
            def __init__(self):
                self.items = []
                self.path = None

            def add(self, item):
                self.items.append(item)

            def open(self):
                return open(self.path)

            def count(self):
                return len(self.items)

            def close(self):
                self.path = None
        """
    ).values()
    assert mixed.lcom4 == 2
    # Ordered by first method's line, each sorted: add (l.7) before open (l.10).
    assert mixed.components == [["add", "count"], ["close", "open"]]


def test_linkage_through_calls_and_method_references() -> None:
    classes = _classes(
        """
        class Calls:
            def a(self):
                return self.b() + 1

            def b(self):
                return 2

            def c(self):
                return list(map(self.d, [1]))

            def d(self, x):
                return x

            def e(self):
                return 5
        """
    )
    assert classes["Calls"].components == [["a", "b"], ["c", "d"], ["e"]]
    assert classes["Calls"].lcom4 == 3


def test_properties_link_like_methods() -> None:
    classes = _classes(
        """
        class Temperature:
            def __init__(self):
                self._celsius = 0.0

            @property
            def celsius(self):
                return self._celsius

            @celsius.setter
            def celsius(self, value):
                self._celsius = value

            @property
            def fahrenheit(self):
                return self.celsius * 9 / 5 + 32

            def unrelated(self):
                return 42
        """
    )
    temperature = classes["Temperature"]
    # Getter and setter are one node; fahrenheit reads the property.
    assert temperature.components == [["celsius", "fahrenheit"], ["unrelated"]]
    assert temperature.lcom4 == 2


def test_nested_classes_are_separate() -> None:
    classes = _classes(
        """
        class Outer:
            def a(self):
                return self.x

            def b(self):
                return self.x

            class Inner:
                def c(self):
                    return self.y

                def d(self):
                    return self.z

        def factory():
            class Local:
                def e(self):
                    return 1
            return Local
        """
    )
    assert classes["Outer"].lcom4 == 1
    assert classes["Outer"].components == [["a", "b"]]
    assert classes["Inner"].lcom4 == 2
    assert classes["Inner"].components == [["c"], ["d"]]
    assert classes["Local"].lcom4 == 1


def test_keys_and_lines() -> None:
    module = parse_module(b"class A:\n    pass\n\n\nclass B:\n    class C:\n        x = 1\n")
    assert module is not None
    result = class_cohesion(module)
    assert sorted(result) == [(1, 0), (5, 0), (6, 4)]
    assert result[(5, 0)].lineno == 5
    assert result[(5, 0)].end_lineno == 7
    assert result[(6, 4)].name == "C"


def test_class_without_methods_is_zero() -> None:
    classes = _classes(
        """
        class Empty:
            pass

        class Data:
            x: int = 0
            y: str = ""

        class OnlyInit:
            def __init__(self):
                self.a = 1
        """
    )
    assert [classes[n].lcom4 for n in ("Empty", "Data", "OnlyInit")] == [0, 0, 0]
    assert classes["Empty"].components == []


def test_initializer_does_not_glue() -> None:
    (point,) = _classes(
        """
        class Point:
            def __init__(self, x, y):
                self.x = x
                self.y = y

            def __post_init__(self):
                self.x = self.y

            def get_x(self):
                return self.x

            def get_y(self):
                return self.y
        """
    ).values()
    assert point.lcom4 == 2


def test_inherited_methods_not_counted() -> None:
    classes = _classes(
        """
        class Base:
            def helper(self):
                return self.value

            def other(self):
                return 0

        class Child(Base):
            def a(self):
                return self.helper()

            def b(self):
                return self.helper() + super().other()

            def c(self):
                return super().other()
        """
    )
    child = classes["Child"]
    # helper is not a node of Child but a member both a and b use; c only reaches
    # the base class through super().
    assert child.components == [["a", "b"], ["c"]]
    assert child.lcom4 == 2
    assert classes["Base"].lcom4 == 2


def test_static_and_class_methods() -> None:
    classes = _classes(
        """
        class Registry:
            entries = {}

            @classmethod
            def register(cls, key, value):
                cls.entries[key] = value

            def lookup(self, key):
                return self.entries[key]

            @staticmethod
            def normalize(key):
                return key.lower()

            def get(self, key):
                return self.lookup(Registry.normalize(key))

            @staticmethod
            def version():
                return 3

            def clear(self):
                type(self).entries.clear()
        """
    )
    registry = classes["Registry"]
    assert registry.components == [["clear", "get", "lookup", "normalize", "register"], ["version"]]
    assert registry.lcom4 == 2


def test_abstract_and_empty_methods_are_ignored() -> None:
    classes = _classes(
        '''
        import abc

        class Shape(abc.ABC):
            @abc.abstractmethod
            def area(self):
                """The area."""

            @abc.abstractmethod
            def perimeter(self):
                raise NotImplementedError

            def hook(self):
                pass

            def todo(self):
                ...

            def describe(self):
                return f"{self.area()} / {self.perimeter()}"

            def name(self):
                return "shape"
        '''
    )
    shape = classes["Shape"]
    assert shape.components == [["describe"], ["name"]]
    assert shape.lcom4 == 2


def test_dunder_methods_are_nodes() -> None:
    (stack,) = _classes(
        """
        class Stack:
            def __init__(self):
                self._items = []

            def __len__(self):
                return len(self._items)

            def push(self, item):
                self._items.append(item)

            def __repr__(self):
                return "Stack()"
        """
    ).values()
    assert stack.components == [["__len__", "push"], ["__repr__"]]


def test_receiver_is_the_first_parameter() -> None:
    classes = _classes(
        """
        class Odd:
            def a(this):
                return this.x

            def b(me):
                return me.x

            def c(self, other):
                return other.x

            def d(self):
                def inner(self):
                    return self.q
                return inner, self.y

            def g(self):
                return self.q

            def e(self):
                return [self.y for _ in range(3)] + [(lambda: self.x)()]

            def f(self):
                return getattr(self, "y")
        """
    )
    odd = classes["Odd"]
    # c only touches another object's x; inner's own "self" hides d's receiver,
    # so d's inner q is not g's q.
    assert odd.components == [["a", "b", "d", "e", "f"], ["c"], ["g"]]
    assert odd.lcom4 == 3


def test_conditional_definitions_are_methods() -> None:
    classes = _classes(
        """
        import sys

        class Compat:
            if sys.platform == "win32":
                def run(self):
                    return self.cmd
            else:
                def run(self):
                    return self.cmd + self.shell

            try:
                def extra(self):
                    return self.shell
            except ImportError:
                pass

            def alone(self):
                return 0
        """
    )
    compat = classes["Compat"]
    assert compat.components == [["extra", "run"], ["alone"]]


def test_classes_found_in_every_block() -> None:
    source = textwrap.dedent(
        """
        import sys

        if sys:
            class InIf: pass
        else:
            class InElse: pass
        try:
            class InTry: pass
        except ImportError:
            class InHandler: pass
        else:
            class InTryElse: pass
        finally:
            class InFinally: pass
        for _ in ():
            class InFor: pass
        while False:
            class InWhile: pass
        with open(__file__):
            class InWith: pass
        match sys:
            case _:
                class InCase: pass

        def func():
            class InFunc:
                def method(self):
                    class InMethod: pass
                    return InMethod

        async def coro():
            async with x:
                class InAsyncWith: pass
        """
    )
    module = parse_module(source.encode("utf-8"))
    assert module is not None
    expected = {
        (node.lineno, node.col_offset)
        for node in ast.walk(module.tree)
        if isinstance(node, ast.ClassDef)
    }
    assert len(expected) == 13
    assert set(class_cohesion(module)) == expected


def test_overloads_and_partly_empty_names_are_one_node() -> None:
    (parser,) = _classes(
        """
        from typing import overload

        class Parser:
            @overload
            def parse(self, data: str) -> str: ...
            @overload
            def parse(self, data: bytes) -> bytes: ...
            def parse(self, data):
                return self.decode(data)

            def decode(self, data):
                return data

            @property
            def mode(self):
                raise NotImplementedError

            @mode.setter
            def mode(self, value):
                self._mode = value

            def reset(self):
                self._mode = None
        """
    ).values()
    assert parser.components == [["decode", "parse"], ["mode", "reset"]]
    assert parser.lcom4 == 2
