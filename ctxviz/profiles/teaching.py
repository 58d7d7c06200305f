"""How a profile explains itself to a learner: what its compaction keeps, restores and drops (the compaction
screen's rows), and what the words its why-notes use mean for this agent (the "Words" box and the
glossary). Descriptive data only; the numbers in it are the profile's own, passed in by its ``build``."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class CompactionWords:
    """What one agent's compaction does, in words the compaction screen shows beside its figures."""

    summary: str = "Summary"  # the name of what the summary is ("Structured summary", "State snapshot")
    keeps: str | None = None  # the history it keeps verbatim; None: it keeps none
    drops: str = "the conversation before the summary"  # what goes for good
    restored_files: tuple[int, int] | None = None  # (at most so many recent files, each ≤ tokens) read again
    skills_back: tuple[int, int] | None = None  # invoked skills put back: (each ≤, in all ≤ tokens)
    instructions_reread: str | None = None  # instruction files read again from disk, by their name


@dataclass(frozen=True, slots=True)
class Teaching:
    compaction: CompactionWords = CompactionWords()
    # glossary words this agent's notes use, in its own meaning (a term not here keeps the glossary's own)
    words: Mapping[str, str] = field(default_factory=dict)
