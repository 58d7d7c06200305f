"""Subagents: the types an agent has, what each starts with, and what the parent gets back."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class TaskSubagents:
    """A subagent runs in its own window with its own ``prompt_tokens`` system prompt; the parent gets its
    answer plus a ``trailer`` (except for ``trailerless`` types); ``lean`` types skip instruction files.
    Only Claude Code is known to add a trailer or to have lean types: the defaults are none."""

    types: tuple[str, ...]
    prompt_tokens: int
    trailer_tokens: int = 0
    lean_types: tuple[str, ...] = ()
    trailerless_types: tuple[str, ...] = ()

    def system_prompt(self, subagent_type: str) -> int:
        return self.prompt_tokens

    def trailer(self, subagent_type: str) -> int:
        return 0 if subagent_type in self.trailerless_types else self.trailer_tokens

    def lean(self, subagent_type: str) -> bool:
        return subagent_type in self.lean_types


@dataclass(frozen=True, slots=True)
class NoSubagents:
    """The agent has no subagents: the engine replays a subagent event's work in the main window."""

    types: tuple[str, ...] = ()

    def system_prompt(self, subagent_type: str) -> int:
        return 0

    def trailer(self, subagent_type: str) -> int:
        return 0

    def lean(self, subagent_type: str) -> bool:
        return False
