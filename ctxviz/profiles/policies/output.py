"""Output caps: what enters the window for a tool's output — whole, spilled to a file with a preview, or
cut to a head and a tail."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from ctxviz.profiles.base import OutputOutcome
from ctxviz.scenario.measure import Measure
from ctxviz.tokens import CHARS_PER_TOKEN


@dataclass(frozen=True, slots=True)
class SpillToFile:
    """Over min(the tool's limit, ``cap_chars``) chars, the output is saved to a file and the context gets a
    wrapper and a ``preview_bytes`` preview (Claude Code). ``turn_budget_chars``: one turn's results
    together; over it, the largest spill first (the engine applies it, and the decision is frozen)."""

    limits_chars: Mapping[str, int]  # by the agent's tool name
    default_chars: int
    cap_chars: int
    preview_bytes: int
    wrapper: int
    turn_budget_chars: int | None
    chars_per_token: int

    def limit(self, tool: str) -> int | None:
        return min(self.limits_chars.get(tool, self.default_chars), self.cap_chars)

    def preview_tokens(self) -> int:
        return self.wrapper + math.ceil(self.preview_bytes / self.chars_per_token)

    def result(self, tool: str, label: str, size: Measure, forced: bool) -> OutputOutcome:
        limit = self.limit(tool)
        over = limit is not None and size.chars > limit
        if not over and not forced:
            return OutputOutcome(size.tokens, spilled=False)
        tokens = self.preview_tokens()
        reason = (
            f"{size.chars:,} chars > {limit:,} for {tool}"
            if over
            else f"this turn's results exceed {self.turn_budget_chars or 0:,} chars, largest first"
        )
        return OutputOutcome(
            tokens,
            spilled=True,
            why=f"{label}: kept as a {self.preview_bytes:,}-byte preview ({tokens:,} tokens) instead of "
            f"{size.tokens:,}: {reason}; the full output is saved to disk, and the result stays a preview for "
            "the rest of the session",
        )


@dataclass(frozen=True, slots=True)
class HeadAndTail:
    """Over ``max_tokens`` (estimated as chars / chars_per_token), the output is cut to its head and tail
    with a marker in between; nothing is saved (Codex). ``head_fraction`` of the kept tokens is the head."""

    max_tokens: int
    marker: int
    head_fraction: float = 0.5
    chars_per_token: int = CHARS_PER_TOKEN
    turn_budget_chars: int | None = None

    def limit(self, tool: str) -> int | None:
        return self.max_tokens * self.chars_per_token

    def result(self, tool: str, label: str, size: Measure, forced: bool) -> OutputOutcome:
        tokens = math.ceil(size.chars / self.chars_per_token)
        if tokens <= self.max_tokens:
            return OutputOutcome(size.tokens, spilled=False)
        head = int(self.max_tokens * self.head_fraction)
        return OutputOutcome(
            self.max_tokens + self.marker,
            spilled=False,
            why=f"{label}: ~{tokens:,} tokens > {self.max_tokens:,}: cut to the first {head:,} and last "
            f"{self.max_tokens - head:,} tokens with a {self.marker}-token marker; nothing saved",
        )
