"""A Codex rollout as ``fidelity`` replays it: each call's measured input and output, what Codex could count
between calls (tool outputs as its history keeps them, user and developer messages; each item as its
serialised bytes / 4, as codex-rs's estimate_item_token_count counts it), and each compaction with the size
Codex itself recorded for the new context (the token_count written right after it, input 0)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ctxviz.kinds import AgentName
from ctxviz.recorded import RecordedCall, RecordedCompaction, RecordedSession
from ctxviz.transcripts.jsonl import Record, count, each_record, text_size
from ctxviz.transcripts.protocol import MODEL_NOT_RECORDED

_OUTPUTS = frozenset({"function_call_output", "custom_tool_call_output"})
_CALLS = frozenset({"function_call", "custom_tool_call", "local_shell_call"})
_AFTER_COMPACTION = frozenset({"token_count", "context_compacted"})  # written with a compaction, not after it


@dataclass
class _Calls:
    max_output_tokens: int
    used: list[int] = field(default_factory=list)
    output: list[int] = field(default_factory=list)
    reasoning: list[int] = field(default_factory=list)  # each call's reasoning output tokens
    turn: list[int] = field(default_factory=list)  # each call's turn: the user messages before it
    user_messages: int = 0
    added: dict[int, int] = field(default_factory=dict)  # by call (from 0): what entered after its answer
    after_compaction: dict[int, int] = field(default_factory=dict)
    owner: dict[str, int] = field(default_factory=dict)  # a tool call's id → the call whose answer made it
    compactions: list[RecordedCompaction] = field(default_factory=list)
    open_compaction: dict[str, Any] | None = None
    last_totals: object = None
    before_first: int = 0  # what the log records before the first call, estimated
    version: str | None = None
    model: str | None = None
    window: int | None = None
    session: str | None = None
    previous_kind: str | None = None

    def estimate(self, value: object) -> int:
        return -(-text_size(value) // 4)

    @staticmethod
    def serialised(item: Mapping[str, Any]) -> int:
        """Codex's estimate of an item it keeps: its serialised bytes / 4, rounded up."""
        size = len(json.dumps(item, ensure_ascii=False, separators=(",", ":")).encode())
        return -(-size // 4)

    def add(self, call: int, tokens: int) -> None:
        if call < 0:
            self.before_first += tokens
            return
        self.added[call] = self.added.get(call, 0) + tokens
        if call in self.after_compaction:
            self.after_compaction[call] += tokens

    def token_count(self, info: Mapping[str, Any]) -> None:
        last = info.get("last_token_usage")
        totals = info.get("total_token_usage")
        if not isinstance(last, dict):
            return
        if self.open_compaction is not None and not count(last.get("input_tokens")):
            # Codex's own count of the new context, written right after the compaction
            self.open_compaction["agent_after"] = count(last.get("total_tokens"))
            return
        if totals is not None and totals == self.last_totals or not count(last.get("input_tokens")):
            return
        self.last_totals = totals
        self.window = count(info.get("model_context_window")) or self.window
        self.close_compaction()
        self.used.append(last["input_tokens"])
        self.output.append(count(last.get("output_tokens")) or 0)
        self.reasoning.append(count(last.get("reasoning_output_tokens")) or 0)
        self.turn.append(self.user_messages)

    def close_compaction(self) -> None:
        if self.open_compaction is not None:
            self.compactions.append(RecordedCompaction(**self.open_compaction))
            self.open_compaction = None

    def response_item(self, payload: Mapping[str, Any]) -> None:
        kind = payload.get("type")
        last = len(self.used) - 1
        if kind in _CALLS:
            # made by an answer whose usage comes after it: the call counted next
            self.owner[str(payload.get("call_id"))] = len(self.used)
        elif kind in _OUTPUTS:
            # Codex counts an item it added as its serialised bytes / 4, the output cut to the history's limit
            call = self.owner.get(str(payload.get("call_id")), last)
            item = {"type": kind, "call_id": payload.get("call_id"), "output": payload.get("output")}
            self.add(call, min(self.max_output_tokens, self.serialised(item)))
        elif kind == "message" and payload.get("role") in ("user", "developer"):
            self.add(last, self.serialised(payload))
            self.user_messages += payload.get("role") == "user"

    def earlier_reasoning(self) -> list[int]:
        """Per call: the reasoning tokens recorded for the calls of earlier turns since the last compaction
        (which drops them)."""
        after = {c.after_call for c in self.compactions}
        found: list[int] = []
        earlier = this_turn = 0
        for n, (turn, reasoning) in enumerate(zip(self.turn, self.reasoning, strict=True)):
            if n in after:  # ``n`` counts from 0: the call after the one a compaction followed
                earlier = this_turn = 0
            elif n and turn != self.turn[n - 1]:
                earlier, this_turn = earlier + this_turn, 0
            found.append(earlier)
            this_turn += reasoning
        return found

    def compacted(self, payload: Mapping[str, Any]) -> None:
        if not self.used:
            return
        self.close_compaction()
        at = len(self.used) - 1
        self.after_compaction[at] = 0
        history = payload.get("replacement_history")
        kept = self.estimate(history) if isinstance(history, list) else None
        self.open_compaction = {"after_call": len(self.used), "pre_tokens": None, "agent_after": None,
                                "kept": kept, "manual": self.previous_kind == "task_started"}  # fmt: skip

    def record(self, _number: int, record: Record) -> None:
        kind = record.get("type")
        payload = record.get("payload")
        if not isinstance(payload, dict):
            return
        inner = payload.get("type")
        if kind == "session_meta":
            self.session = self.session or payload.get("id")
            self.version = self.version or payload.get("cli_version")
        elif kind == "turn_context" and isinstance(payload.get("model"), str):
            self.model = payload["model"]
        elif kind == "response_item":
            self.response_item(payload)
        elif kind == "compacted":
            self.compacted(payload)
        elif kind == "event_msg" and inner == "token_count" and isinstance(payload.get("info"), dict):
            self.token_count(payload["info"])
        elif kind == "event_msg" and inner == "task_started":
            self.window = self.window or count(payload.get("model_context_window"))
        if not (kind == "event_msg" and inner in _AFTER_COMPACTION):
            # a compaction that is a whole turn (task_started, compacted, task_complete) was typed
            self.previous_kind = str(inner if kind == "event_msg" else kind)


def recorded_session(records: Iterable[tuple[int, Record]], path: Path, problems: list[str]) -> RecordedSession:
    """Pure: a rollout's records → what ``fidelity`` replays (a record of an unexpected shape: skipped,
    located in ``problems``)."""
    from ctxviz.profiles.codex import NUMBERS

    calls = _Calls(NUMBERS.output_max_tokens)
    each_record(records, str(path), problems, calls.record)
    calls.close_compaction()
    reasoning = calls.earlier_reasoning()
    found = tuple(
        RecordedCall(used, output, calls.added.get(n, 0), calls.after_compaction.get(n, 0), reasoning[n])
        for n, (used, output) in enumerate(zip(calls.used, calls.output, strict=True))
    )
    window = calls.window or NUMBERS.window * NUMBERS.effective_percent // 100
    overhead = max(0, found[0].used - calls.before_first) if found else 0
    return RecordedSession(AgentName.CODEX, str(calls.session or path.stem), calls.version,
                           calls.model or MODEL_NOT_RECORDED, window, found, tuple(calls.compactions),
                           overhead, tuple(problems))  # fmt: skip


def read_recorded(path: Path) -> RecordedSession:
    """The rollout at ``path`` for ``fidelity`` (``InputError`` when unreadable or no call is recorded)."""
    from ctxviz.transcripts.jsonl import records, spanning_records, spans_lines
    from ctxviz.transcripts.rows import nothing_measured

    read = spanning_records if spans_lines(path) else records
    problems: list[str] = []
    session = recorded_session(read(path, problems), path, problems)
    if not session.calls:
        raise nothing_measured(path, AgentName.CODEX, "no token_count events with usage")
    return session
