"""Small modules whose one hint has a fix, shared by the tests of ``gz complexity fix``
and of the LSP code actions."""

from __future__ import annotations

#: A search loop in the band: its fix (any()) is safe, radon_cc 5 -> 4.
SEARCH = """\
def has_negative(xs, ys, zs):
    if ys:
        print(ys)
    if zs:
        print(zs)
    for x in xs:
        if x < 0:
            return True
    return False
"""

#: ``SEARCH`` fixed.
FIXED = """\
def has_negative(xs, ys, zs):
    if ys:
        print(ys)
    if zs:
        print(zs)
    return any(x < 0 for x in xs)
"""

#: A loop that only yields: its fix (yield from) is unsafe.
YIELDS = """\
def each(xs, ys, zs):
    if ys:
        print(ys)
    if zs:
        print(zs)
    for x in xs:
        yield x
"""

#: A `while True` that reads and stops: its fix (walrus_loop) writes `:=`, which needs
#: Python 3.8.
READS = """\
def copy(src, dst, size, a, b):
    if a:
        print(a)
    if b:
        print(b)
    while True:
        chunk = src.read(size)
        if not chunk:
            break
        dst.write(chunk)
"""
