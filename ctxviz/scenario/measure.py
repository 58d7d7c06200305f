"""A size known as tokens, chars, lines and bytes: each given, counted from text, or converted (chars/4,
about 10 tokens a line). Pure: no pydantic, so profiles and readers may use it."""

from __future__ import annotations

import math
from dataclasses import dataclass

from ctxviz.tokens import CHARS_PER_TOKEN, TokenCounter

TOKENS_PER_LINE = 10


@dataclass(frozen=True, slots=True)
class Measure:
    tokens: int
    chars: int
    lines: int
    bytes: int
    text: str | None = None  # kept when known, for content rules (HTML comment stripping)

    @classmethod
    def of_tokens(cls, tokens: int) -> Measure:
        chars = tokens * CHARS_PER_TOKEN
        return cls(tokens, chars, max(1, math.ceil(tokens / TOKENS_PER_LINE)) if tokens else 0, chars)

    @classmethod
    def of_chars(cls, chars: int) -> Measure:
        tokens = math.ceil(chars / CHARS_PER_TOKEN)
        return cls(tokens, chars, max(1, math.ceil(tokens / TOKENS_PER_LINE)) if chars else 0, chars)

    @classmethod
    def of_lines(cls, lines: int) -> Measure:
        tokens = lines * TOKENS_PER_LINE
        return cls(tokens, tokens * CHARS_PER_TOKEN, lines, tokens * CHARS_PER_TOKEN)

    @classmethod
    def of_text(cls, text: str, counter: TokenCounter) -> Measure:
        lines = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
        return cls(counter.count(text), len(text), lines, len(text.encode("utf-8")), text)

    def scaled(self, fraction: float) -> Measure:
        """A leading part of this content (a read cut at N lines, a file cut at N bytes)."""
        return Measure(
            math.ceil(self.tokens * fraction),
            math.ceil(self.chars * fraction),
            math.ceil(self.lines * fraction),
            math.ceil(self.bytes * fraction),
        )
