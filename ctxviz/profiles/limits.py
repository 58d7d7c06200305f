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
