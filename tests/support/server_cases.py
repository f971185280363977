"""What the tests of the real server in both protocol versions share.

The contract's worked examples as bytes on the wire, sources of known radon
complexity (one per band, and shapes with nested scopes), and the arguments that
start the server without its analysis workers.
"""

from __future__ import annotations

#: For tests of lifecycle and transport that involve no analysis: the same server
#: without its analysis worker processes (faster to start and stop). Everything
#: about workers is tested with the default configuration.
NO_WORKERS = ("--workers", "0")

EXAMPLE_1_REQUEST = (
    b'Content-Length: 63\r\n\r\n{"id":1,"method":"initialize","params":{"clientVersion":"1.0"}}'
)
EXAMPLE_1_RESPONSE = (
    b'Content-Length: 62\r\n\r\n{"id":1,"result":{"version":"1.0","capabilities":["analyze"]}}'
)
EXAMPLE_3_REQUEST = (
    b'Content-Length: 63\r\n\r\n{"id":3,"method":"initialize","params":{"clientVersion":"2.0"}}'
)
EXAMPLE_3_RESPONSE = (
    b"Content-Length: 129\r\n\r\n"
    b'{"id":3,"error":{"code":-32099,"message":"VERSION_MISMATCH: client major version 2 '
    b'is incompatible with server major version 1"}}'
)

# radon cyclomatic complexity 4: inside the default advise band [4, 7), "approaching".
FOUR = """\
def four(a, b, c):
    if a:
        return 1
    if b:
        return 2
    if c:
        return 3
    return 0
"""
# Complexity 6: past the midpoint 5.5, "approaching_warn".
SIX = """\
def six(a, b, c, d, e):
    if a:
        return 1
    if b:
        return 2
    if c:
        return 3
    if d:
        return 4
    if e:
        return 5
    return 0
"""
# Complexity 7: at the warn boundary, so no authoring hint.
SEVEN = SIX.replace("def six(a, b, c, d, e):", "def seven(a, b, c, d, e, f):").replace(
    "    return 0\n", "    if f:\n        return 6\n    return 0\n"
)
CALM = "def calm(a):\n    return a\n"
# four: lines 1-8; six: lines 11-22.
TWO = FOUR + "\n\n" + SIX
NESTED = """\
def outer(a, b, c):
    if a:
        return 0

    def inner(x, y, z):
        if x:
            return 1
        if y:
            return 2
        if z:
            return 3
        return 4

    if b:
        return inner(1, 2, 3)
    if c:
        return 6
    return 5


class Holder:
    def method(self, a, b, c):
        if a:
            return 1
        if b:
            return 2
        if c:
            return 3
        return 0
"""
