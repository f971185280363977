"""What every JSON-RPC body is checked for, whichever protocol it carries.

Both front ends decode their envelopes with msgspec, which stops at the first
value of the wrong type and does not check the strings of fields it leaves
undecoded; these two checks settle what such a decode cannot: whether a body is
UTF-8 at all, and whether it is JSON at all (which decides between a parse error
and an invalid request). The standard JSON-RPC 2.0 error codes live here too.
"""

from __future__ import annotations

import codecs
from typing import Final

import msgspec

PARSE_ERROR: Final = -32700
INVALID_REQUEST: Final = -32600
METHOD_NOT_FOUND: Final = -32601
INVALID_PARAMS: Final = -32602

_syntax_decoder: Final = msgspec.json.Decoder(msgspec.Raw)


def syntax_error(body: bytes) -> str | None:
    """Why ``body`` is not JSON at all, or None when it is well-formed.

    The envelope decoder stops at the first value of the wrong type (``[`` where
    an object belongs, ``true`` where an id belongs) without reading the rest, so
    before a body is called an invalid request it is checked to be JSON; decoding
    it as ``Raw`` checks the syntax without building anything.
    """
    try:
        _syntax_decoder.decode(body)
    except msgspec.DecodeError as exc:
        return str(exc)
    except RecursionError:
        return "JSON nested too deeply"
    return None


#: How much of a body is checked for UTF-8 at a time (see :func:`is_utf8`).
_UTF8_CHUNK: Final = 1 << 16


def is_utf8(body: bytes) -> bool:
    """Whether all of ``body`` is UTF-8.

    msgspec checks the strings it decodes, but not those inside ``Raw`` fields
    (``params``) or inside fields it skips (unknown ones), so the check is made
    once for the whole body here. It decodes a piece at a time, never the whole
    body at once: a buffer's text may take megabytes, and its decoded form up to
    four times as many, which the check has no use for.
    """
    if body.isascii():
        return True
    decoder = codecs.getincrementaldecoder("utf-8")()
    view = memoryview(body)
    try:
        for start in range(0, len(view), _UTF8_CHUNK):
            decoder.decode(view[start : start + _UTF8_CHUNK])
        decoder.decode(b"", True)
    except UnicodeDecodeError:
        return False
    return True
