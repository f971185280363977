"""Per-function metrics equal to what ``lizard -End`` reports for Python, from our one parse.

`lizard <https://github.com/terryyin/lizard>`_ reads Python with a regular
expression tokenizer and a small state machine; it never builds a syntax tree. Its
numbers therefore follow its token rules, not Python's grammar. This module
reproduces those rules on the tokens of :attr:`ParsedModule.tokens` (the engine's
single tokenize pass) without importing lizard, so that every value equals lizard's
own. These are lizard 1.24's rules (checked against 1.24.3; other releases may
count differently):

Which function a token counts for
    ``def`` starts a function at its *name* token: ``def`` itself (and any
    decorator or ``async``) counts for the enclosing function. A function's body is
    tracked by indentation only: at the first token of every physical line (not a
    comment line, not a line continued by a backslash, not inside a string; but
    including continuation lines inside brackets, except in a ``def`` header before
    its closing ``)``), the line's indentation (a tab counts 8) is compared with a
    stack of indentations. A deeper line pushes a level; the first push after a
    ``def`` makes that function a level of its own. A shallower line pops levels,
    unless the line starts with ``)``. Popping a function's level ends the function
    that is *current*: ordinarily that function, but after a one-line function
    (``def f(): return 1``), whose body never pushes a level, the one-liner stays
    current until the next ``def`` or until its enclosing function's level is
    popped. Lizard then reports the one-liner in place of the enclosing function,
    and drops one-liners followed by another ``def``. A bracket closed on a line
    indented less than the body ends the function there.

NLOC
    A function starts at 1 (its ``def`` line, which also counts for the enclosing
    function). Each later physical line whose first token is code (not a comment)
    adds 1, each line joined by a backslash adds 1, and a multi-line string adds
    the lines it spans. A triple-quoted string then subtracts its line count when
    the token before it is not one of ``= += -= *= /= %= //= **= &= |= ^= <<= >>=
    ( [ , return + - * / // %`` (docstrings, but also e.g. ``x = r\"\"\"...\"\"\"``,
    whose previous token is the prefix ``r``).

Parameters
    The ``def`` header's tokens up to its ``)`` are split at top-level commas
    (commas inside brackets of a default value, a lambda head or a ``[...]``
    annotation do not split). A part counts if it contains a word followed by the
    end of the part, by `` = ...`` or by `` : ...``: ``self``, ``*args`` and
    ``**kwargs`` count, a bare ``*`` or ``/`` does not.

CCN
    1, plus 1 per ``if elif for while except finally and or`` token (comprehension
    ``for``/``if`` and conditional expressions included), plus 1 per ``case`` that
    starts a line and is judged a keyword (it is not followed by ``= . : ,`` or an
    augmented assignment, and if followed by ``(`` or ``[`` a ``:`` follows the
    closing bracket on the same logical line).

Nesting depth (``-End``, "ND")
    lizard's nesting extension is written for braces. In Python a depth counter
    rises by 1 at every ``if for while try def case`` token (and the identifiers
    ``catch``/``foreach``), except an ``if`` after an ``else`` with no ``{`` or
    ``;`` in between; it falls by 1 at every ``}`` and at a ``;`` that follows a
    rise not yet undone by a ``;``; a fall below 0 that comes from ``}`` or from a
    rise resets it to 0. A ``{`` toggles whether the next rise is undone by ``;``.
    Dedenting never lowers it, so ND is close to the count of those keywords. The
    reported value is the maximum reached. ``def`` raises the *enclosing*
    function's counter.

f-strings
    The ``{...}`` parts of an f-string are tokenized again as code, so keywords in
    them count, and a triple-quoted f-string with replacement fields splits into
    several triple-quoted literal parts, each subject to the NLOC subtraction above.

Functions lizard does not report (one-liners it drops, enclosing functions it
replaces by a one-liner) still get an entry here: the counts lizard had gathered
for them when it let them go. See :data:`KNOWN_DIFFERENCES` for where this module
knowingly does not follow lizard.
"""

from __future__ import annotations

import ast
import re
import tokenize
from collections.abc import Callable, Sequence
from typing import Any, Final, NamedTuple

from gzguide.analysis.facts.parsed import ParsedModule

__all__ = ["KNOWN_DIFFERENCES", "LizardValues", "lizard_function_metrics"]

#: Where this module knowingly differs from lizard 1.24.x; each is rare in real code.
KNOWN_DIFFERENCES: Final[tuple[str, ...]] = (
    # 1
    "Comment directives are ignored: lizard drops functions marked '#lizard forgive' "
    "and stops reading a file at a comment containing 'GENERATED CODE' (dropping "
    "every function still open there and all later ones); here every def is "
    "measured as if those comments were ordinary comments.",
    # 2
    "Functions lizard never reports (a one-line def followed by another def at the "
    "same level, or a function whose report lizard gives to a one-liner nested in "
    "it) get the counts lizard had gathered for them when it let them go, which "
    "lizard itself never shows.",
    # 3
    "f-strings that reuse their own quote inside a replacement field (legal from "
    "Python 3.12) are cut short by lizard's string pattern and the rest of the line "
    "is read as code; here the f-string is read whole.",
    # 4
    "A 'case' at the start of a line inside an f-string replacement field is not "
    "considered as a soft keyword (lizard may count it for CCN).",
    # 5
    "Source with lone carriage returns as line ends: lizard reads files with "
    "universal newlines, the engine's tokenizer splits lines at '\\n' only.",
)


class LizardValues(NamedTuple):
    """What ``lizard -End`` reports for one Python function."""

    nloc: int  # lizard's NLOC for the function
    param_count: int  # lizard's parameter count (self, *args, **kwargs counted)
    nesting_depth: int  # lizard -End max nesting depth ("ND")
    ccn: int  # lizard's cyclomatic complexity number


def lizard_function_metrics(module: ParsedModule) -> dict[tuple[int, int], LizardValues]:
    """Keyed by (lineno, col_offset) of every ast.FunctionDef / AsyncFunctionDef in the module.

    Methods and nested functions are included; lambdas are not functions here.
    """
    tokens = module.tokens
    if not tokens:
        return _fallback(module.tree)
    return _Emulator(module.text, tokens).run().values()


# --------------------------------------------------------------------------- tokens

_NAME: Final = tokenize.NAME
_OP: Final = tokenize.OP
_NUMBER: Final = tokenize.NUMBER
_STRING: Final = tokenize.STRING
_NL: Final = tokenize.NL
_NEWLINE: Final = tokenize.NEWLINE
_COMMENT: Final = tokenize.COMMENT
_INDENT: Final = tokenize.INDENT
_DEDENT: Final = tokenize.DEDENT
_ENDMARKER: Final = tokenize.ENDMARKER
# Python 3.12+ splits f-strings (3.14: t-strings) into several tokens.
_FSTART: Final[int] = getattr(tokenize, "FSTRING_START", -101)
_FEND: Final[int] = getattr(tokenize, "FSTRING_END", -102)
_TSTART: Final[int] = getattr(tokenize, "TSTRING_START", -103)
_TEND: Final[int] = getattr(tokenize, "TSTRING_END", -104)
_STRING_STARTS: Final = frozenset({_FSTART, _TSTART})
_STRING_ENDS: Final = frozenset({_FEND, _TEND})
_LINE_ENDS: Final = frozenset({_NL, _NEWLINE})
_CODE_TYPES: Final = frozenset({_NAME, _OP, _NUMBER})
_INDENTS: Final = frozenset({_INDENT, _DEDENT})
_BLANK: Final = frozenset({_NL, _NEWLINE, _INDENT, _DEDENT, _COMMENT})

_BACKSLASH: Final = "\\\n"  # lizard's token for a backslash line continuation

_CCN_WORDS: Final = frozenset({"if", "elif", "for", "while", "except", "finally", "and", "or"})
_ND_RISE: Final = frozenset({"if", "for", "while", "try", "def", "case", "catch", "foreach"})
_ND_TOKENS: Final = _ND_RISE | {"else", "{", "}", ";"}
#: Tokens that need more than line bookkeeping when met outside a def header.
_INTERESTING: Final = _CCN_WORDS | _ND_TOKENS | {"case"}
#: Previous tokens after which a triple-quoted string is an operand, not a comment.
#: ``@=`` is here because lizard splits it into ``@`` ``=``.
_OPERAND_BEFORE: Final = frozenset(
    {
        "=", "+=", "-=", "*=", "/=", "%=", "//=", "**=", "&=", "|=", "^=", "<<=", ">>=",
        "@=", "(", "return", ",", "[", "+", "-", "*", "/", "//", "%",
    }
)  # fmt: skip
#: After ``case`` at a line start, these make it a plain name (lizard's tokens).
_CASE_NAME_NEXT: Final = frozenset(
    {
        "=", ".", ":", ",", "+=", "-=", "*=", "/=", "%=", "//=", "**=",
        "&=", "|=", "^=", "<<=", ">>=", ":=",
    }
)  # fmt: skip
#: Operators tokenize keeps whole but lizard reads as two tokens (first, last).
_OP_SPLIT: Final = {
    "*=": ("*", "="), "/=": ("/", "="), "%=": ("%", "="), "**=": ("**", "="), "@=": ("@", "="),
}  # fmt: skip
#: What lizard reads first and last of each operator token.
_OP_FIRST: Final = {op: first for op, (first, _) in _OP_SPLIT.items()}
_OP_LAST: Final = {op: last for op, (_, last) in _OP_SPLIT.items()}
_F_PREFIXES: Final = frozenset({"f", "rf", "fr", "bf", "fb"})
_TRIPLES: Final = ('"""', "'''")
_OPENERS: Final = frozenset("([{")
_CLOSERS: Final = frozenset(")]}")
#: How each bracket changes the bracket depth (any other token: not at all).
_BRACKET_STEPS: Final[dict[object, int]] = {"(": 1, "[": 1, "{": 1, ")": -1, "]": -1, "}": -1}
_BRACES: Final[dict[str, int]] = {"{": 1, "}": -1}
_QUOTES: Final = "\"'"
#: Tokens skipped after a ``case`` to find what follows it.
_AFTER_CASE_SKIPPED: Final = frozenset({_NL, _NEWLINE, _INDENT, _DEDENT})
#: What ends the look past ``case (`` or ``case [`` at bracket depth 0: a ``:`` (a
#: keyword then) or the end of the line (a name).
_CASE_STOPS: Final[frozenset[object]] = frozenset({":", _NL, _NEWLINE})

#: A parameter part counts when a word is followed by its end, " = ..." or " : ...".
_PARAM_PART: Final = re.compile(r"\w+(?:\s=.*)?(?:\s:.*)?$")
#: Tokens of f-string replacement fields, split as lizard splits code.
_CODE_TOKEN: Final = re.compile(
    r"#[^\n]*|//=?"
    r'|"""(?:\\.|[^"]|"(?!"")|""(?!"))*"""'
    r"|'''(?:\\.|[^']|'(?!'')|''(?!'))*'''"
    r"|\w+"
    r'|"(?:\\.|[^"\\])*"'
    r"|'(?:\\.|[^'\\])*?'"
    r"|:=|::|\*\*|<<=|>>=|\|\||&&|===|!==|==|!=|<=|>=|->|=>|\+\+|--|\+=|-=|\^=|&=|\|=|\.\.\."
    r"|\\\n|\n|[^\S\n]+|.",
    re.S,
)
_FIELD_MARK: Final = re.compile(r"\{\{|\}\}|\{")
_ROW_END_BACKSLASH: Final = re.compile(r"\\\r?\n")
_WORD_END: Final = re.compile(r"\w$")
#: An f-string that may hold something lizard counts: a counted word, ``;`` or a
#: brace inside a replacement field (conservative: ``{{`` matches too).
_BUSY_FSTRING: Final = re.compile(
    r"\b(?:if|elif|for|while|except|finally|and|or|else|try|def|case|catch|foreach)\b|;|\{[^{}]*\{"
)

# Reader states of a def header.
_GLOBAL: Final = 0
_NAME_NEXT: Final = 1  # after ``def``
_TYPE_PARAMS: Final = 2  # ``def f[T]``
_PARAMS: Final = 3
_DEFAULT: Final = 4  # a default value in brackets, or a lambda
_ANNOTATION: Final = 5  # ``[...]`` in a parameter
_COLON: Final = 6  # after the closing ``)``
_FIRST: Final = 7  # first token of the body
_HEADER_OVER: Final = frozenset({_GLOBAL, _FIRST})


def _spaces(text: str) -> int:
    """Indentation width as lizard counts it: every tab is 8, any other blank is 1."""
    return len(text) + 7 * text.count("\t")


def _is_triple(text: str) -> bool:
    return text.startswith(_TRIPLES) and len(text) >= 6


def _split_prefix(text: str) -> tuple[str, str]:
    """``rb'x'`` -> ``('rb', "'x'")``."""
    k = 0
    while text[k] not in "'\"":
        k += 1
    return text[:k], text[k:]


def _skip_quoted(body: str, pos: int) -> int:
    """Index just past the string literal that starts at ``body[pos]``."""
    n = len(body)
    quote = body[pos : pos + 3]
    if quote not in _TRIPLES:
        quote = body[pos]
    pos += len(quote)
    while pos < n:
        if body[pos] == "\\":
            pos += 2
        elif body.startswith(quote, pos):
            return pos + len(quote)
        else:
            pos += 1
    return n


def _field_end(body: str, start: int) -> int:
    """Index just past the ``}`` that closes the replacement field opened at ``start``."""
    depth = 1
    j = start + 1
    n = len(body)
    while j < n and depth:
        c = body[j]
        if c in _QUOTES:
            j = _skip_quoted(body, j)
            continue
        depth += _BRACES.get(c, 0)
        j += 1
    return j


Piece = tuple[str, bool]  # (token text, comes from a replacement field)


def _code_tokens(code: str) -> list[str]:
    """Tokens of ``code`` as lizard splits them, f-strings in it expanded."""
    out: list[str] = []
    raw = _CODE_TOKEN.findall(code)
    k = 0
    while k < len(raw):
        tok = raw[k]
        nxt = raw[k + 1] if k + 1 < len(raw) else ""
        out.append(tok)
        if tok.lower() in _F_PREFIXES and nxt[:1] in ("'", '"'):
            out.extend(_expanded(nxt))
            k += 1
        k += 1
    return out


def _expanded(quoted: str) -> list[str]:
    """The tokens lizard reads for an f-string's quoted part."""
    pieces = _fstring_pieces(quoted)
    return [quoted] if pieces is None else [p for p, _ in pieces]


def _fstring_pieces(quoted: str) -> list[Piece] | None:
    """lizard's tokens for the body of an f-string (prefix removed); None without fields."""
    quote = quoted[:3] if quoted[:3] in _TRIPLES else quoted[:1]
    body = quoted[len(quote) : len(quoted) - len(quote)]
    out: list[Piece] = []
    literal: list[str] = []
    pos = 0
    search = _FIELD_MARK.search
    while (m := search(body, pos)) is not None:
        start = m.start()
        literal.append(body[pos:start])
        mark = m.group()
        if mark != "{":  # "{{" or "}}": one literal brace
            literal.append(mark[0])
            pos = m.end()
            continue
        end = _field_end(body, start)
        out.extend(_literal_piece(quote, literal))
        literal = []
        out.extend((tok, True) for tok in _code_tokens(body[start + 1 : end - 1]))
        pos = end
    if not out:
        return None
    literal.append(body[pos:])
    out.extend(_literal_piece(quote, literal))
    return out


def _literal_piece(quote: str, literal: list[str]) -> list[Piece]:
    """The literal text between replacement fields, quoted as its own string, if any."""
    text = "".join(literal)
    return [(quote + text + quote, False)] if text else []


def _last_piece(pieces: list[Piece]) -> str:
    """The last token of ``pieces`` that lizard remembers as the previous token."""
    for text, _ in reversed(pieces):
        if text != "\n" and not text.isspace() and not text.startswith("#"):
            return text
    return ""


_new_values: Final = tuple.__new__  # LizardValues without its Python-level __new__


class _Func:
    """lizard's running counts for one function (also its global pseudo-function)."""

    __slots__ = (
        "after_else",
        "ccn",
        "depth",
        "hidden",
        "key",
        "max_depth",
        "nloc",
        "parts",
        "rparen",
        "toggle",
    )

    def __init__(self, key: tuple[int, int] = (0, 0)) -> None:
        self.key = key
        self.nloc = 1
        self.ccn = 1
        self.parts: list[list[str]] = []  # the def header's tokens, split at top-level commas
        self.rparen = False  # lizard's "long name" of the function ends with ")"
        self.depth = 0
        self.max_depth = 0
        self.hidden = 0
        self.toggle = False
        self.after_else = False

    def values(self) -> LizardValues:
        search = _PARAM_PART.search
        params = 0
        for tokens in self.parts:
            # lizard joins a part's tokens with spaces; a lone name is the common case.
            if (len(tokens) == 1 and tokens[0].isidentifier()) or search(" ".join(tokens)):
                params += 1
        return _new_values(LizardValues, (self.nloc, params, self.max_depth, self.ccn))

    def reset_depth(self) -> None:
        self.depth = 0
        self.hidden = 0
        self.toggle = False
        self.after_else = False


def _count(f: _Func, s: str) -> None:
    """What a token counts for ``f``: a CCN point, a nesting-depth step, or both."""
    step = _COUNT_STEPS.get(s)
    if step is not None:
        step(f)


def _ccn_point(f: _Func) -> None:
    f.ccn += 1


def _if_point(f: _Func) -> None:
    f.ccn += 1
    _if_word(f)


def _loop_point(f: _Func) -> None:
    f.ccn += 1
    _rise(f)


def _after_else(f: _Func) -> None:
    f.after_else = True


def _open_brace(f: _Func) -> None:
    f.after_else = False
    f.toggle = not f.toggle


def _semicolon(f: _Func) -> None:
    f.after_else = False
    if f.hidden > 0:
        f.hidden -= 1
        f.depth -= 1


def _close_brace(f: _Func) -> None:
    f.depth -= 1
    if f.depth < 0:
        f.reset_depth()


def _if_word(f: _Func) -> None:
    """An ``if`` right after an ``else`` continues it; any other rises."""
    if f.after_else:
        f.after_else = False
    else:
        _rise(f)


def _rise(f: _Func) -> None:
    f.depth += 1
    if f.depth > f.max_depth:
        f.max_depth = f.depth
    if not f.toggle:
        f.hidden += 1
        f.toggle = True
    if f.depth < 0:
        f.reset_depth()


#: What each token of :data:`_CCN_WORDS` and :data:`_ND_TOKENS` counts: a CCN point,
#: lizard's nesting-depth step for it, or both.
_COUNT_STEPS: Final[dict[str, Callable[[_Func], None]]] = {
    "elif": _ccn_point,
    "except": _ccn_point,
    "finally": _ccn_point,
    "and": _ccn_point,
    "or": _ccn_point,
    "if": _if_point,
    "for": _loop_point,
    "while": _loop_point,
    "try": _rise,
    "def": _rise,
    "case": _rise,
    "catch": _rise,
    "foreach": _rise,
    "else": _after_else,
    "{": _open_brace,
    ";": _semicolon,
    "}": _close_brace,
}


def _innermost(stack: list[_Func | None], glob: _Func) -> _Func:
    """The innermost function still open on ``stack``; ``glob`` when there is none."""
    return next((level for level in reversed(stack) if level is not None), glob)


def _line_spaces(tok: tokenize.TokenInfo, carry: tuple[bool, int, int, int] | None) -> int | None:
    """Where lizard takes a line's indentation to be: its leading blanks, or after a
    line ended inside an f-string's last field, that field's blanks (None when the
    f-string's line did not end in a field)."""
    start = tok[2]
    if carry is None:
        return _spaces(tok[4][: start[1]])
    if not carry[0]:
        return None
    gap = start[1] - carry[3] if start[0] == carry[2] else 0
    return carry[1] + max(gap, 0)


def _kept_lines(text: str, last: str) -> int:
    """The NLOC a string token adds: the lines it spans, or, for a triple-quoted string
    lizard takes for a comment (no operand comes before it), one less than none."""
    if _is_triple(text) and last not in _OPERAND_BEFORE:
        return -1
    return text.count("\n")


def _remembered_string(s: str) -> str:
    """What lizard remembers of a string as the previous token: its quoted part, or the
    last piece of an f-string with fields."""
    prefix, quoted = _split_prefix(s)
    if prefix.lower() in _F_PREFIXES:
        pieces = _fstring_pieces(quoted)
        if pieces is not None:
            return _last_piece(pieces)
    return quoted


class _FieldLine:
    """Where lizard's line reading is inside an f-string's replacement fields."""

    __slots__ = ("leading", "newline", "spaces")

    def __init__(self) -> None:
        self.newline = False  # lizard's line counter saw a newline (inside a field)
        self.leading = False  # lizard still reads a line's leading blanks
        self.spaces = 0

    def blank(self, text: str) -> bool:
        """Whether ``text`` is a newline, blanks or a comment (read here; no code)."""
        if text == "\n":
            self.newline = self.leading = True
            self.spaces = 0
            return True
        if text.isspace():
            if self.leading:
                self.spaces += _spaces(text)
            return True
        if text[0] == "#":
            self.leading = False
            return True
        return False


class _Emulator:
    """One pass over the tokens, keeping lizard's state as lizard would."""

    def __init__(self, text: str, tokens: list[tokenize.TokenInfo]) -> None:
        self.text = text
        self.tokens = tokens
        self.glob = _Func()
        # Indentation is tracked in the global code and in a body whose header ended
        # with ")": as if the global pseudo-function's header had (no header of valid
        # code is read while it is current, so nothing undoes this).
        self.glob.rparen = True
        self.cur = self.glob
        self.pending: _Func | None = None  # a function whose body level is not pushed yet
        self.stack: list[_Func | None] = []  # nesting levels: a function or a bare level
        self.indents = [0]
        self.state = _GLOBAL
        self.brackets = 0
        self.lambdas = 0
        self.def_key = (0, 0)
        self.keys: list[tuple[int, int]] = []  # every def, in order
        self.funcs: dict[tuple[int, int], _Func] = {}
        self.reported: list[_Func] = []  # functions lizard lists, in its order
        self.case_end = -1  # last token index read ahead for a ``case``
        self.case_keyword = False
        self._offsets: list[int] | None = None
        # Where the pass is in the physical lines.
        self.line_start = True  # the next token starts a line
        self.carry: tuple[bool, int, int, int] | None = None  # see _pieces
        self.prev_row = 1  # row where the previous token ended
        self.end_row = 0  # row of the last NL/NEWLINE
        # Only a row whose text ends with a backslash can be joined to the next one,
        # so rows are compared token by token only while on such a row.
        self.joinable = self._backslash_rows()
        self.tabs = "\t" in text
        self.check = False  # on such a row now

    # ----------------------------------------------------------------- driving

    def run(self) -> _Emulator:
        """One pass over the tokens: each goes to the step for its kind, which says where to go on.

        INDENT and DEDENT tokens have no step: lizard's reader never sees them.
        """
        tokens = self.tokens
        step_for = _STEPS.get
        i, n = 0, len(tokens)
        while i < n:
            step = step_for(tokens[i][0])
            i = step(self, i) if step is not None else i + 1
        self._set_nesting(0, False)
        return self

    # ---------------------------------------------------------------- the steps

    def _code(self, i: int) -> int:
        """A name, operator or number: its line first, then what it counts for."""
        tokens = self.tokens
        tok = tokens[i]
        if self.line_start:
            self._code_starts_line(tok)
        elif self.check:
            self._maybe_joined(tok[2][0])
        state = self.state
        if tok[1] in _INTERESTING:
            self._interesting(i, tok, state)
        elif state in _HEADER_OVER:  # outside a header, or the body's first token
            self.state = _GLOBAL
            return self._past_plain(i + 1)
        else:
            return i + self._read_run(tokens, i)
        return i + 1

    def _past_plain(self, j: int) -> int:
        """Index of the first token from ``j`` on that may count for something, outside
        a def header: names, numbers and operators that are no keyword count for
        nothing there, unless the row ends in a backslash (only a line end starts a
        line, so none of them does)."""
        if self.check:
            return j
        tokens = self.tokens
        for k in range(j, len(tokens)):
            t = tokens[k]
            if t[0] not in _CODE_TYPES or t[1] in _INTERESTING:
                return k
        return len(tokens)

    def _interesting(self, i: int, tok: tokenize.TokenInfo, state: int) -> None:
        """A keyword, brace or semicolon: counted here, unless it needs the full step."""
        s = tok[1]
        if state or s == "def" or s == "case" or self.tokens[i - 1][0] == _NUMBER:
            self._token(i, tok)
        else:
            _COUNT_STEPS[s](self.cur)

    def _code_starts_line(self, tok: tokenize.TokenInfo) -> None:
        """Code at the start of a physical line: indentation levels, then the line's NLOC.

        The plain case is handled here; :meth:`_odd_line_start` covers rows holding
        only a backslash before ``tok`` and a line ended inside an f-string.
        """
        self.line_start = False
        row = tok[2][0]
        if self.carry is not None or row - self.end_row > 1:
            self._odd_line_start(tok, self.end_row, self.carry)
            self.carry = None
        else:
            if self.cur.rparen:
                col = tok[2][1]
                spaces = col + 7 * tok[4].count("\t", 0, col) if self.tabs else col
                if spaces != self.indents[-1]:
                    self._set_nesting(spaces, tok[1] == ")")
            self.cur.nloc += 1
        self.prev_row = row
        self.check = row in self.joinable

    def _maybe_joined(self, row: int) -> None:
        """On a row ending in a backslash: a token on a later row is on a joined one."""
        if row != self.prev_row:
            self._joined_row(row)

    def _joined_row(self, row: int) -> None:
        """A token on a later row than the one before it, the rows joined by backslashes."""
        self._backslashes(row - self.prev_row)
        self.prev_row = row
        self.check = row in self.joinable

    def _line_end(self, i: int) -> int:
        row = self.tokens[i][2][0]
        if self.check and not self.line_start and row != self.prev_row:
            # A backslash before a blank line: lizard counts the join.
            self._backslashes(row - self.prev_row)
        self.line_start = True
        self.carry = None
        self.end_row = row
        return i + 1

    def _comment(self, i: int) -> int:
        row = self.tokens[i][2][0]
        if self.check and not self.line_start and row != self.prev_row:
            # A comment alone on a line joined by a backslash: lizard counts the join.
            self._joined_row(row)
        return i + 1

    def _string_token(self, i: int) -> int:
        """A string, or the start of a (3.12+) f-string or t-string and the tokens up to its end."""
        tok = self.tokens[i]
        if self.line_start or self.check:
            self._string_line(tok)
        if tok[0] != _STRING:
            return self._split_string(i)
        self.prev_row = row = tok[3][0]
        self.check = row in self.joinable
        if self._taken_alone(tok[1]):
            return i + 1
        return self._whole_string(i, i, tok[1])

    def _string_line(self, tok: tokenize.TokenInfo) -> None:
        """A string that starts a physical line, or that follows a row ending in a backslash."""
        if self.line_start:
            self.line_start = False
            self._odd_line_start(tok, self.end_row, self.carry)
            self.carry = None
        elif tok[2][0] != self.prev_row:
            self._backslashes(tok[2][0] - self.prev_row)

    def _taken_alone(self, s: str) -> bool:
        """Whether a string token needs no more than this: a docstring, or a one-line
        string that holds nothing lizard counts."""
        if self.state == _FIRST and s.startswith(_TRIPLES):
            # A docstring: its lines count, then all of them and one more are
            # taken back (lizard's first-line rule), so NLOC - 1.
            self.cur.nloc -= 1
            self.state = _GLOBAL
            return True
        head = s[:5]  # a prefix has at most 2 letters
        one_line = "\n" not in s and _TRIPLES[0] not in head and _TRIPLES[1] not in head
        return one_line and self._plain_one_line(s)

    def _plain_one_line(self, s: str) -> bool:
        """A one-line string: a plain one only matters inside a def header; an f-string
        whose fields hold nothing lizard counts, only there too."""
        c = s[0]
        if c in _QUOTES:
            if self.state:
                self._read(s, False)
            return True
        return not self.state and c in "fF" and not _BUSY_FSTRING.search(s)

    def _split_string(self, i: int) -> int:
        """A (3.12+) f-string or t-string, read whole from its start token to its end."""
        tokens = self.tokens
        end = self._string_end(i)
        s = self._slice(tokens[i][2], tokens[end][3])
        self.prev_row = row = tokens[end][3][0]
        self.check = row in self.joinable
        return self._whole_string(i, end, s)

    def _whole_string(self, i: int, end: int, s: str) -> int:
        """A string read as lizard reads it; a line it leaves open is carried on."""
        left = self._string(i, s)
        if left is not None:
            self.line_start = True
            end_pos = self.tokens[end][3]
            self.carry = (left[0], left[1], end_pos[0], end_pos[1])
        return end + 1

    def _backslash_rows(self) -> frozenset[int]:
        """Rows whose text ends with a backslash (in code, a string or a comment)."""
        text = self.text
        rows: list[int] = []
        row = 1
        pos = 0
        for m in _ROW_END_BACKSLASH.finditer(text):
            row += text.count("\n", pos, m.start())
            pos = m.start()
            rows.append(row)
        return frozenset(rows)

    def values(self) -> dict[tuple[int, int], LizardValues]:
        funcs = self.funcs
        out: dict[tuple[int, int], LizardValues] = {}
        for key in self.keys:
            func = funcs.get(key)
            # A def lizard's reader skipped (not seen in valid code): no counts of its own.
            out[key] = func.values() if func is not None else LizardValues(1, 0, 0, 1)
        return out

    # ------------------------------------------------------------ line structure

    def _odd_line_start(
        self, tok: tokenize.TokenInfo, end_row: int, carry: tuple[bool, int, int, int] | None
    ) -> None:
        """The first token of a physical line: indentation levels, then its NLOC.

        The plain case is :meth:`_code_starts_line`'s; this also covers strings, rows
        holding only a backslash before ``tok`` and a line ended inside an f-string.
        """
        if carry is None and tok[2][0] - end_row > 1:
            self._backslash_lines(end_row + 1, tok[2][0])
            return
        if self.cur.rparen:
            spaces = _line_spaces(tok, carry)
            if spaces is not None:
                self._set_nesting(spaces, tok[1] == ")")
        self.cur.nloc += 1

    def _set_nesting(self, spaces: int, rparen: bool) -> None:
        """lizard's indentation step for a line of ``spaces``; ``rparen``: it starts with ``)``."""
        indents = self.indents
        stack = self.stack
        if not rparen and indents[-1] > spaces:
            self.pending = None
            while indents[-1] > spaces:
                indents.pop()
                if stack.pop() is not None:
                    # lizard ends the *current* function, then resumes the innermost open one.
                    self.reported.append(self.cur)
                    self.cur = _innermost(stack, self.glob)
        if indents[-1] < spaces:
            indents.append(spaces)
            stack.append(self.pending)
            self.pending = None

    def _backslash_lines(self, first: int, row: int) -> None:
        """Rows ``first``..``row - 1`` hold only a backslash (tokenize shows nothing there).

        lizard sees a line starting with its backslash token: indentation is taken
        there, that line counts twice (the joined line too), and the token on ``row``
        does not start a line.
        """
        if self.cur.rparen:
            line = self._slice((first, 0), (first + 1, 0))
            blank = line[: len(line) - len(line.lstrip())]
            self._set_nesting(_spaces(blank), False)
        self.cur.nloc += 1
        self._backslashes(row - first)

    def _backslashes(self, count: int) -> None:
        """Lines joined by backslashes: one lizard token and one NLOC each."""
        self.cur.nloc += count
        if self.state:
            for _ in range(count):
                self._read(_BACKSLASH, False)

    # ------------------------------------------------------------------ tokens

    def _token(self, i: int, tok: tokenize.TokenInfo) -> None:
        """A keyword, brace or semicolon: CCN, nesting depth, def header."""
        s = tok[1]
        if tok[0] == _NAME:
            if self._glued(i, tok):
                return
            self._name_token(i, tok)
        _count(self.cur, s)
        if s == "def" and self.state in _HEADER_OVER:
            self.state = _NAME_NEXT
        elif self.state:
            self._read(s, False)

    def _glued(self, i: int, tok: tokenize.TokenInfo) -> bool:
        """``1if``: lizard reads a number and the name right after it as one word, no keyword."""
        prev = self.tokens[i - 1]
        glued = i > 0 and prev[0] == _NUMBER and prev[3] == tok[2] and _WORD_END.search(prev[1])
        if glued and self.state:
            self._read(tok[1], False)
        return bool(glued)

    def _name_token(self, i: int, tok: tokenize.TokenInfo) -> None:
        """A ``def`` (where its function starts), or a ``case`` that is a keyword."""
        s = tok[1]
        if s == "def":
            self._def_at(i, tok)
        elif s == "case" and i and self._case_is_keyword(i):
            self.cur.ccn += 1

    def _def_at(self, i: int, tok: tokenize.TokenInfo) -> None:
        """A ``def``: its function's key is where it starts (at ``async`` if any)."""
        prev = self.tokens[i - 1]
        start = prev[2] if i and prev[0] == _NAME and prev[1] == "async" else tok[2]
        self.def_key = start
        self.keys.append(start)

    def _feed(self, s: str, field: bool) -> None:
        """One lizard token after line bookkeeping: CCN, nesting depth, def header."""
        _count(self.cur, s)
        if self.state or s == "def":
            self._read(s, field)

    def _case_is_keyword(self, i: int) -> bool:
        """lizard's soft-keyword test for ``case`` (its CCN point), with its read-ahead."""
        if i <= self.case_end:
            return self.case_keyword  # read ahead with an earlier ``case``: its verdict
        if not self._case_starts_line(i):
            self.case_keyword = False
            return False
        self.case_end, self.case_keyword = self._case_verdict(i)
        return self.case_keyword

    def _case_starts_line(self, i: int) -> bool:
        """Whether the ``case`` at ``i`` starts a line lizard has not read ahead into."""
        tokens = self.tokens
        j = i - 1
        while j >= 0 and tokens[j][0] in _INDENTS:
            j -= 1
        return j < 0 or (tokens[j][0] in _LINE_ENDS and j > self.case_end)

    def _case_verdict(self, i: int) -> tuple[int, bool]:
        """Whether the ``case`` at ``i`` is a keyword, by what follows it, and the index
        of the last token read ahead to tell."""
        tokens = self.tokens
        n = len(tokens)
        j = i + 1
        while j < n and tokens[j][0] in _AFTER_CASE_SKIPPED:
            j += 1
        if j >= n or tokens[j][0] == _ENDMARKER:
            return j, True
        head = self._first_lizard_token(tokens[j])
        if head in ("(", "["):
            return self._colon_after_brackets(j + 1)
        return j, head not in _CASE_NAME_NEXT

    def _colon_after_brackets(self, j: int) -> tuple[int, bool]:
        """After ``case (`` or ``case [``: whether a ``:`` follows the closing bracket on
        the same logical line, and the index where the look stopped."""
        tokens = self.tokens
        n = len(tokens)
        depth = 1
        while j < n:
            typ, s = tokens[j][0], tokens[j][1]
            mark = s if typ == _OP else typ  # an operator by its text, others by kind
            if depth == 0 and mark in _CASE_STOPS:
                return j, mark == ":"
            depth += _BRACKET_STEPS.get(mark, 0)
            j += 1
        return j, False

    @staticmethod
    def _first_lizard_token(tok: tokenize.TokenInfo) -> str:
        typ, s = tok[0], tok[1]
        if typ == _OP:
            return _OP_FIRST.get(s, s)
        if typ == _STRING or typ in _STRING_STARTS:
            prefix, rest = _split_prefix(s)
            return prefix or rest
        return s

    # ----------------------------------------------------------------- strings

    def _string_end(self, i: int) -> int:
        """Index of the token closing the (3.12+) f-string or t-string opened at ``i``."""
        tokens = self.tokens
        depth = 0
        for j in range(i, len(tokens)):
            typ = tokens[j][0]
            if typ in _STRING_STARTS:
                depth += 1
            elif typ in _STRING_ENDS:
                depth -= 1
                if depth == 0:
                    return j
        return i  # unpaired (not produced by tokenize): read the start token alone

    def _slice(self, start: tuple[int, int], end: tuple[int, int]) -> str:
        offsets = self._offsets
        if offsets is None:
            offsets = [0]
            offsets.extend(m.end() for m in re.finditer("\n", self.text))
            self._offsets = offsets
        return self.text[offsets[start[0] - 1] + start[1] : offsets[end[0] - 1] + end[1]]

    def _string(self, i: int, text: str) -> tuple[bool, int] | None:
        """A string token (line start already counted). Returns f-string line carry."""
        prefix, quoted = _split_prefix(text)
        if prefix:
            pieces = self._prefixed(prefix, quoted)
            if pieces is not None:
                return self._pieces(pieces, prefix)
        self.cur.nloc += self._string_lines(i, quoted, prefix)
        if self.state == _FIRST:  # a docstring (its NLOC is handled above)
            self.state = _GLOBAL
        elif self.state:
            self._read(quoted, False)
        return None

    def _string_lines(self, i: int, quoted: str, prefix: str) -> int:
        """:func:`_kept_lines` of string token ``i``, after its prefix or else the token
        before it (looked for only when the string is triple-quoted: only then does it
        matter)."""
        if _is_triple(quoted) and (prefix or self._previous(i)) not in _OPERAND_BEFORE:
            return -1
        return quoted.count("\n")

    def _prefixed(self, prefix: str, quoted: str) -> list[Piece] | None:
        """The prefix is a token of its own; an f-string with fields, its pieces."""
        if self.state:
            self._read(prefix, False)
        if prefix.lower() in _F_PREFIXES and "{" in quoted:
            return _fstring_pieces(quoted)
        return None

    def _pieces(self, pieces: list[Piece], last: str) -> tuple[bool, int] | None:
        """The tokens of an expanded f-string, run through lizard's whole pipeline."""
        line = _FieldLine()
        for text, field in pieces:
            if line.blank(text):
                continue
            if line.leading:
                line.leading = False
                self._field_indent(line.spaces, text)
            self.cur.nloc += _kept_lines(text, last) + line.newline
            line.newline = False
            self._feed(text, field)
            last = text
        return (line.leading, line.spaces) if line.newline else None

    def _field_indent(self, spaces: int, text: str) -> None:
        """The first code of a line inside a replacement field: its indentation."""
        if self.cur.rparen:
            self._set_nesting(spaces, text.startswith(")"))

    def _previous(self, i: int) -> str:
        """The token lizard saw last before token ``i`` (comments and newlines skipped)."""
        j, crossed = self._before_blanks(i)
        if j < 0:
            return ""
        if not crossed and self.tokens[j][3][0] < self.tokens[i][2][0]:
            return _BACKSLASH
        return self._remembered(j)

    def _before_blanks(self, i: int) -> tuple[int, bool]:
        """The last token before ``i`` that is not blank, and whether a line ends between."""
        tokens = self.tokens
        j = i - 1
        crossed = False
        while j >= 0 and tokens[j][0] in _BLANK:
            crossed = crossed or tokens[j][0] in _LINE_ENDS
            j -= 1
        return j, crossed

    def _remembered(self, j: int) -> str:
        """What lizard remembers of token ``j`` as the previous token."""
        prev = self.tokens[j]
        typ, s = prev[0], prev[1]
        if typ == _OP:
            return _OP_LAST.get(s, s)
        if typ in _STRING_ENDS:
            return _remembered_string(self._slice(self.tokens[self._string_start(j)][2], prev[3]))
        if typ == _STRING:
            return _remembered_string(s)
        return s

    def _string_start(self, j: int) -> int:
        """Index of the token opening the (3.12+) f-string or t-string closed at ``j``."""
        tokens = self.tokens
        k = j
        depth = 0
        while k > 0:
            typ = tokens[k][0]
            if typ in _STRING_ENDS:
                depth += 1
            elif typ in _STRING_STARTS:
                depth -= 1
                if depth == 0:
                    break
            k -= 1
        return k

    # -------------------------------------------------------------- def header

    def _read(self, s: str, field: bool) -> None:
        """One token for the reader (``field``: from an f-string replacement field)."""
        steps = _HEADER_STEPS
        while steps[self.state](self, s, field):
            pass  # the step moved to a state that reads ``s`` again

    def _read_run(self, tokens: Sequence[tuple[Any, ...]], i: int) -> int:
        """lizard's reader state machine, which only matters from ``def`` to the body.

        Reads ``tokens[i]``, then the plain tokens that follow it on the same row
        (names, numbers and operators that count for nothing but the def header),
        until the header is over; returns how many tokens it read.
        """
        row = tokens[i][2][0]
        steps = _HEADER_STEPS
        j = i  # a plain token on ``row``, and the header is not over: the caller's word
        # The ENDMARKER that ends every token list is no plain token: j stays in range.
        while (
            self.state not in _HEADER_OVER
            and (t := tokens[j])[0] in _CODE_TYPES
            and t[2][0] == row
            and t[1] not in _INTERESTING
        ):
            while steps[self.state](self, t[1], False):
                pass  # the step moved to a state that reads the token again
            j += 1
        return j - i

    # Each step of the header reader takes one token in the state it is named for;
    # True: the token is to be read again, in the state the step moved to.

    def _at_global(self, s: str, field: bool) -> bool:
        if s == "def":
            self.state = _NAME_NEXT
        return False

    def _after_def(self, s: str, field: bool) -> bool:
        """``def`` was read: its name (the function starts here), type parameters or ``(``."""
        if s == "[":
            self.brackets = 0
            self.state = _TYPE_PARAMS
            return True
        if s == "(":
            self.cur.rparen = False
            self.state = _PARAMS
            return False
        cur = _Func(self.def_key)
        self.cur = self.pending = self.funcs[self.def_key] = cur
        return False

    def _in_type_params(self, s: str, field: bool) -> bool:
        """``def f[T]``: bracket depth, up to the ``]`` that closes them."""
        if s == "def" or s == "class":
            self.brackets = 0
            self.state = _GLOBAL
            return True
        self.cur.rparen = s[-1] == ")"
        self.brackets += 1 if s == "[" else -1 if s == "]" else 0
        if self.brackets == 0:
            self.state = _NAME_NEXT
        return False

    def _in_params(self, s: str, field: bool) -> bool:
        """The parameter list: lizard's add_parameter, a top-level comma starting a new part."""
        if field:
            self._stick(s)
            return False
        mark = _PARAMETER_MARKS.get(s)
        if mark is not None:
            return mark(self)
        self.cur.rparen = s[-1] == ")"
        parts = self.cur.parts
        if not parts:
            parts.append([s])
        elif s == ",":
            parts.append([])
        else:
            parts[-1].append(s)
        return False

    def _stick(self, s: str) -> None:
        """A token of a replacement field: it sticks to the current parameter, if any."""
        cur = self.cur
        cur.rparen = s[-1] == ")"
        if cur.parts:
            cur.parts[-1].append(s)

    def _close_params(self) -> bool:
        self.cur.rparen = True
        self.state = _COLON
        return False

    def _open_annotation(self) -> bool:
        self.cur.rparen = False
        self.brackets = 1
        self.state = _ANNOTATION
        return False

    def _open_default(self) -> bool:
        self.brackets = 0
        self.lambdas = 0
        self.state = _DEFAULT
        return True

    def _in_default(self, s: str, field: bool) -> bool:
        """A default value in brackets, or a lambda: commas inside it do not split parameters."""
        if field:
            self._stick(s)
            return False
        self._default_token(s)
        self._default_depth(s)
        if self.brackets < 0 or (self.brackets == 0 and self.lambdas == 0):
            self.state = _PARAMS
        return False

    def _default_token(self, s: str) -> None:
        """A token of a default value sticks to the current parameter (a comma too)."""
        cur = self.cur
        cur.rparen = s[-1] == ")"
        if cur.parts:
            cur.parts[-1].append(s)
        elif s != ",":
            cur.parts.append([s])

    def _default_depth(self, s: str) -> None:
        """Brackets open in the default value, and lambdas whose ``:`` is still to come."""
        self.brackets += _BRACKET_STEPS.get(s, 0)
        if self.brackets == 0:
            if s == "lambda":
                self.lambdas += 1
            elif s == ":" and self.lambdas:
                self.lambdas -= 1

    def _in_annotation(self, s: str, field: bool) -> bool:
        """``[...]`` inside the parameter list."""
        self.cur.rparen = s[-1] == ")"
        if not field:
            self.brackets += 1 if s == "[" else -1 if s == "]" else 0
            if self.brackets == 0:
                self.state = _PARAMS
        return False

    def _after_params(self, s: str, field: bool) -> bool:
        """After the closing ``)``: a ``:`` opens the body."""
        self.state = _FIRST if s == ":" else _GLOBAL
        return False

    def _at_first(self, s: str, field: bool) -> bool:
        """The body's first token (a docstring there is handled with the other strings)."""
        self.state = _NAME_NEXT if s == "def" else _GLOBAL
        return False


# The step tables are the class's functions, not bound methods kept by each
# instance: those would make every emulator a reference cycle, and a worker,
# which freezes its heap after each job, would keep each one (and the tokens it
# holds) until its next full collection.
_STEPS: Final[dict[int, Callable[[_Emulator, int], int]]] = {
    _NAME: _Emulator._code,
    _OP: _Emulator._code,
    _NUMBER: _Emulator._code,
    _NL: _Emulator._line_end,
    _NEWLINE: _Emulator._line_end,
    _COMMENT: _Emulator._comment,
    _STRING: _Emulator._string_token,
    _FSTART: _Emulator._string_token,
    _TSTART: _Emulator._string_token,
}
#: What opens or closes a part of the parameter list (any other token: part of a parameter).
_PARAMETER_MARKS: Final[dict[str, Callable[[_Emulator], bool]]] = {
    ")": _Emulator._close_params,
    "[": _Emulator._open_annotation,
    "(": _Emulator._open_default,
    "{": _Emulator._open_default,
    "lambda": _Emulator._open_default,
}
#: The def-header reader's step for each of its states, indexed by state.
_HEADER_STEPS: Final[tuple[Callable[[_Emulator, str, bool], bool], ...]] = (
    _Emulator._at_global,
    _Emulator._after_def,
    _Emulator._in_type_params,
    _Emulator._in_params,
    _Emulator._in_default,
    _Emulator._in_annotation,
    _Emulator._after_params,
    _Emulator._at_first,
)


def _fallback(tree: ast.Module) -> dict[tuple[int, int], LizardValues]:
    """Without tokens (tokenizer rejected parsed source): line span, AST parameters, no counts."""
    out: dict[tuple[int, int], LizardValues] = {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            a = node.args
            params = len(a.posonlyargs) + len(a.args) + len(a.kwonlyargs)
            params += (a.vararg is not None) + (a.kwarg is not None)
            end = node.end_lineno or node.lineno
            out[(node.lineno, node.col_offset)] = LizardValues(end - node.lineno + 1, params, 0, 1)
    return out
