"""A syntax tree as the source a person would write, for quoting in a move.

``ast.unparse`` is exact but, on the Pythons this project supports, not always
idiomatic: it parenthesizes a ``not`` inside ``and``/``or`` (``a and (not b)``),
doubles the parentheses of a generator that is a call's only argument
(``any((x for x in y))``), and keeps the grouping of an ``and`` made of ``and``s.
A move quotes code the user is meant to type, so :func:`render` writes what they
would: ``and``s and ``or``s are flattened first, and each pair of parentheses of
those two kinds is dropped only if the text without it parses to the same tree.
"""

from __future__ import annotations

import ast
import io
import tokenize
from typing import Final

_BOOL_WORDS: Final = frozenset({"and", "or"})


def render(node: ast.AST) -> str:
    """``node`` as one line of idiomatic source (may raise what ``ast.unparse`` raises)."""
    text = ast.unparse(_flattened(node))
    if "(not " not in text and "((" not in text:
        return text
    return _tidied(text)


def _flattened(node: ast.AST) -> ast.AST:
    """``node`` with every ``and`` (``or``) operand that is itself one spread out.

    Builds new nodes only where something changes: the caller's tree is shared by
    the whole analysis and must not be touched.
    """
    if not isinstance(node, ast.BoolOp):
        return node
    values: list[ast.expr] = []
    for value in node.values:
        flat = _flattened(value)
        if isinstance(flat, ast.BoolOp) and type(flat.op) is type(node.op):
            values.extend(flat.values)
        else:
            assert isinstance(flat, ast.expr)
            values.append(flat)
    return ast.BoolOp(node.op, values)


def _tidied(text: str) -> str:
    """``text`` without the redundant parentheses :func:`render` knows of."""
    reference = _tree(text)
    if reference is None:
        return text
    tried: set[str] = set()
    while True:
        for opening, closing in _candidates(text):
            shorter = text[:opening] + text[opening + 1 : closing] + text[closing + 1 :]
            if shorter not in tried and _tree(shorter) == reference:
                text = shorter
                break
            tried.add(shorter)
        else:
            return text


def _candidates(text: str) -> list[tuple[int, int]]:
    """Offsets of parenthesis pairs around a ``not`` or around a call's only generator."""
    try:
        tokens = [
            t
            for t in tokenize.generate_tokens(io.StringIO(text).readline)
            if t.type not in (tokenize.NEWLINE, tokenize.NL, tokenize.ENDMARKER)
        ]
    except (tokenize.TokenError, SyntaxError):
        return []
    # Every token is on line 1: unparse writes an expression on one line.
    if any(t.start[0] != 1 or t.end[0] != 1 for t in tokens):
        return []
    pairs: dict[int, int] = {}
    stack: list[int] = []
    for index, token in enumerate(tokens):
        if token.type == tokenize.OP and token.string in "([{":
            stack.append(index)
        elif token.type == tokenize.OP and token.string in ")]}" and stack:
            pairs[stack.pop()] = index
    found: list[tuple[int, int]] = []
    for opening, closing in pairs.items():
        if tokens[opening].string != "(" or opening + 1 >= len(tokens):
            continue
        after = tokens[opening + 1]
        before = tokens[opening - 1] if opening else None
        around_not = after.string == "not" and (
            before is None
            or before.string in _BOOL_WORDS
            or (closing + 1 < len(tokens) and tokens[closing + 1].string in _BOOL_WORDS)
        )
        only_argument = (
            before is not None
            and before.string == "("
            and pairs.get(opening - 1) == closing + 1
            and after.string != ")"
        )
        if around_not or only_argument:
            found.append((tokens[opening].start[1], tokens[closing].start[1]))
    return sorted(found)


def _tree(text: str) -> str | None:
    try:
        return ast.dump(ast.parse(text, mode="eval"))
    except SyntaxError:
        try:
            return ast.dump(ast.parse(text))
        except SyntaxError:
            return None
