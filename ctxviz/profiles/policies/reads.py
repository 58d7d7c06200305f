"""Read limits: what an agent's read tool returns for a file (and for a line range of it)."""

from __future__ import annotations

from dataclasses import dataclass

from ctxviz.profiles.base import ReadOutcome
from ctxviz.scenario.measure import Measure


def line_range(size: Measure, lines: tuple[int, int]) -> Measure:
    """The part of a file within a 1-based inclusive line range (clipped to the file)."""
    first, last = lines
    count = max(0, min(last, size.lines) - first + 1)
    return size.scaled(count / size.lines) if size.lines else size


def within(size: Measure, max_lines: int, max_bytes: int) -> Measure:
    """What stays of content cut to ``max_lines`` lines, then to ``max_bytes`` bytes (head or tail alike)."""
    if size.lines > max_lines:
        size = size.scaled(max_lines / size.lines)
    if size.bytes > max_bytes:
        size = size.scaled(max_bytes / size.bytes)
    return size


@dataclass(frozen=True, slots=True)
class RefuseOverLimit:
    """Claude Code's Read: a file over ``max_bytes``, or (after the first ``max_lines`` lines) over
    ``max_tokens``, is not read — the result is a short error telling the model to use offset/limit."""

    max_lines: int
    max_tokens: int
    max_bytes: int
    error: int
    unchanged_stub: int | None

    def read(self, path: str, size: Measure, lines: tuple[int, int] | None = None) -> ReadOutcome:
        if lines is not None:
            size = line_range(size, lines)
        if size.bytes > self.max_bytes:
            return ReadOutcome(
                "error",
                self.error,
                f"{path} not read: {size.bytes:,} bytes > {self.max_bytes:,}; "
                f"the model gets a {self.error}-token error telling it to use offset/limit",
            )
        content, why = size, None
        if size.lines > self.max_lines:
            content = size.scaled(self.max_lines / size.lines)
            why = f"{path}: first {self.max_lines:,} of {size.lines:,} lines read ({content.tokens:,} tokens)"
        if content.tokens > self.max_tokens:
            return ReadOutcome(
                "error",
                self.error,
                f"{path} not read: {content.tokens:,} tokens > {self.max_tokens:,}; "
                f"the model gets a {self.error}-token error telling it to use offset/limit",
            )
        return ReadOutcome("content", content.tokens, why)


@dataclass(frozen=True, slots=True)
class TruncateAtLimits:
    """A read cut to its first ``max_lines`` lines and then to ``max_bytes`` (opencode, pi, gemini-cli):
    never an error, the cut is said in a note."""

    max_lines: int
    max_bytes: int
    unchanged_stub: int | None = None

    def read(self, path: str, size: Measure, lines: tuple[int, int] | None = None) -> ReadOutcome:
        if lines is not None:
            size = line_range(size, lines)
        kept, reasons = size, []
        if kept.lines > self.max_lines:
            reasons.append(f"first {self.max_lines:,} of {kept.lines:,} lines")
            kept = kept.scaled(self.max_lines / kept.lines)
        if kept.bytes > self.max_bytes:
            reasons.append(f"cut at {self.max_bytes:,} bytes")
            kept = kept.scaled(self.max_bytes / kept.bytes)
        why = f"{path}: {'; then '.join(reasons)} ({kept.tokens:,} of {size.tokens:,} tokens)" if reasons else None
        return ReadOutcome("content", kept.tokens, why)
