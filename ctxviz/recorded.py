"""What ``fidelity`` needs from a session of an agent other than Claude Code, whatever its log format: the
measured calls, what the agent could count between them, and its compactions (pure values).

Each agent's reader package fills these (``transcripts/<agent>/recorded.py``); ``importer.replay_recorded``
replays them under the agent's profile and scores the prediction.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class RecordedCall:
    used: int  # the prompt's size, measured by the API
    output: int  # what the answer added (output tokens), as the agent's own count of the context includes it
    added: int  # what entered after the answer and before the next call, estimated as the agent estimates it
    added_after_compaction: int = 0  # of ``added``: what entered after a compaction that followed this call
    # reasoning tokens of the earlier turns since the last compaction: the API leaves them out of the next
    # prompt, yet an agent may still count them (Codex estimates them from their encrypted text)
    earlier_reasoning: int = 0


@dataclass(frozen=True, slots=True)
class RecordedCompaction:
    after_call: int  # the call it follows, numbered from 1
    pre_tokens: int | None  # the size before, as the agent recorded it
    agent_after: int | None  # the agent's own figure for the new context, written with the compaction
    kept: int | None  # what the compaction kept, summary included, estimated from the log's text
    manual: bool | None  # None: the log does not say


@dataclass(frozen=True, slots=True)
class RecordedSession:
    agent: str
    session: str
    version: str | None
    model: str
    window: int
    calls: tuple[RecordedCall, ...]
    compactions: tuple[RecordedCompaction, ...]
    overhead: int  # the first call's size beyond what the log records (instructions, tools)
    problems: tuple[str, ...] = ()  # damaged or unexpected records skipped, each located
