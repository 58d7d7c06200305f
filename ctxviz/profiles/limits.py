"""Sizes of the fixed text agents add (markers, wrappers, line numbers), counted as the agents estimate
them: chars / 4."""

from __future__ import annotations

import math

from ctxviz.tokens import CHARS_PER_TOKEN


def tokens_of(text: str, chars_per_token: int = CHARS_PER_TOKEN) -> int:
    """A fixed text an agent adds (a marker, a wrapper, a synthetic tool call), counted as chars / 4."""
    return chars_tokens(len(text), chars_per_token)


def chars_tokens(chars: int, chars_per_token: int = CHARS_PER_TOKEN) -> int:
    """``chars`` of text the agent adds or keeps, counted as chars / 4."""
    return math.ceil(chars / chars_per_token)


def utf16_length(text: str) -> int:
    """A text's length as JavaScript counts it (UTF-16 code units), which is what Claude Code divides by 4:
    a character past U+FFFF counts twice."""
    return len(text) if text.isascii() else len(text.encode("utf-16-le")) // 2


def rounded_tokens(length: int, chars_per_token: int = CHARS_PER_TOKEN) -> int:
    """``length`` characters as Claude Code's own rough count takes them: length / 4 rounded, halves up
    (tokens.ts roughTokenCountEstimation, Math.round), one text block at a time."""
    return (2 * length + chars_per_token) // (2 * chars_per_token)


def numbering_bytes(first: int, last: int, marker_bytes: int) -> int:
    """Bytes that ``N<marker>`` prefixes add to lines ``first``–``last``: the digits of each N plus the marker."""
    total = 0
    width, start = 1, 1
    while start <= last:
        end = start * 10 - 1
        low, high = max(first, start), min(last, end)
        if low <= high:
            total += (high - low + 1) * (width + marker_bytes)
        width, start = width + 1, end + 1
    return total
