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
    while (shorter := _one_pair_less(text, reference, tried)) is not None:
        text = shorter
    return text


def _one_pair_less(text: str, reference: str, tried: set[str]) -> str | None:
    """``text`` without the first pair of candidate parentheses whose dropping keeps the
    tree ``reference``; None when none can go. ``tried`` holds the texts that did not."""
    for opening, closing in _candidates(text):
        shorter = text[:opening] + text[opening + 1 : closing] + text[closing + 1 :]
        if shorter not in tried and _tree(shorter) == reference:
            return shorter
        tried.add(shorter)
    return None


def _candidates(text: str) -> list[tuple[int, int]]:
    """Offsets of parenthesis pairs around a ``not`` or around a call's only generator."""
    tokens = _tokens(text)
    pairs = _pairs(tokens)
    found = [
        (tokens[opening].start[1], tokens[closing].start[1])
        for opening, closing in pairs.items()
        if tokens[opening].string == "("
        and (
            _around_not(tokens, opening, closing) or _only_argument(tokens, pairs, opening, closing)
        )
    ]
    return sorted(found)


def _tokens(text: str) -> list[tokenize.TokenInfo]:
    """The tokens of one line of code, line ends left out; none when it is not one line."""
    try:
        tokens = [
            t
            for t in tokenize.generate_tokens(io.StringIO(text).readline)
            if t.type not in (tokenize.NEWLINE, tokenize.NL, tokenize.ENDMARKER)
        ]
    except (tokenize.TokenError, SyntaxError):
        return []
    # Every token is on line 1: unparse writes an expression on one line.
    return tokens if all(t.start[0] == 1 == t.end[0] for t in tokens) else []


def _pairs(tokens: list[tokenize.TokenInfo]) -> dict[int, int]:
    """The index of each opening bracket's token, to the index of its closing one's."""
    pairs: dict[int, int] = {}
    stack: list[int] = []
    for index, token in enumerate(tokens):
        if token.type != tokenize.OP:
            continue
        if token.string in "([{":
            stack.append(index)
        elif token.string in ")]}" and stack:
            pairs[stack.pop()] = index
    return pairs


def _around_not(tokens: list[tokenize.TokenInfo], opening: int, closing: int) -> bool:
    """Parentheses around a ``not`` that open the text or that ``and``/``or`` join."""
    if tokens[opening + 1].string != "not":
        return False
    if opening == 0:
        return True
    following = tokens[closing + 1].string if closing + 1 < len(tokens) else ""
    return tokens[opening - 1].string in _BOOL_WORDS or following in _BOOL_WORDS


def _only_argument(
    tokens: list[tokenize.TokenInfo], pairs: dict[int, int], opening: int, closing: int
) -> bool:
    """The parentheses of a generator that is a call's only argument, inside the call's."""
    return (
        opening > 0
        and tokens[opening - 1].string == "("
        and pairs.get(opening - 1) == closing + 1
        and tokens[opening + 1].string != ")"
    )


def _tree(text: str) -> str | None:
    try:
        return ast.dump(ast.parse(text, mode="eval"))
    except SyntaxError:
        try:
            return ast.dump(ast.parse(text))
        except SyntaxError:
            return None
