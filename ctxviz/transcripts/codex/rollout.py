"""What a Codex rollout says about the context (where rollouts are: ``codex``).

Each line is ``{timestamp, type, payload}``. What is read:
- ``event_msg`` of type ``token_count``: one API call per distinct event (Codex repeats the last totals,
  e.g. after a rate-limit update; a repeat is not a new call). The context at the call is
  ``info.last_token_usage.input_tokens`` (cached input included); the window is the recorded
  ``info.model_context_window``. ``info: null`` carries only rate limits.
- ``response_item``: what entered the conversation (messages, reasoning, shell and tool calls and their
  output, ``apply_patch``), sized chars/4 from the rollout; they share each call's measured growth.
- ``compacted`` items and ``context_compacted`` events: compactions (one written right after the
  other is the same compaction). The rollout does not say whether one was automatic or ``/compact``.
What cannot be known: the size of the instructions and tool schemas (the first call's remainder), the
true size of encrypted reasoning, and whether a compaction was automatic.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import msgspec

from ctxviz.kinds import BlockKind, CompactionTrigger
from ctxviz.timeline import Category
from ctxviz.tokens import estimate
from ctxviz.transcripts.assemble import Call, Compaction, Item
from ctxviz.transcripts.codex.record_types import CODEX_TOP_TYPES
from ctxviz.transcripts.jsonl import Record, count, each_record, first_line, part_texts, text_size
from ctxviz.transcripts.parsed_events import ParsedEvents
from ctxviz.transcripts.rows import is_time

OVERHEAD_LABEL = "instructions and tool schemas: not recorded in the rollout"
_IGNORED_TOP = frozenset({"world_state", "inter_agent_communication_metadata"})  # bookkeeping, not context
_NOT_SENT = frozenset({"ghost_snapshot"})  # response items kept for undo, never sent to the model
_TOOL_CALLS = frozenset({"function_call", "custom_tool_call", "local_shell_call"})
_TOOL_OUTPUTS = frozenset({"function_call_output", "custom_tool_call_output"})
_OTHER_ITEMS = frozenset({"message", "reasoning", "web_search_call", "tool_search_call", "image_generation_call",
                          "agent_message", "tool_search_output"})  # fmt: skip


def _message(payload: Mapping[str, Any], origin: str) -> Item:
    role = payload.get("role")
    text = part_texts(payload.get("content"))
    size = estimate(len(text))
    if role == "developer":
        return Item(BlockKind.SYSTEM_PROMPT, "developer instructions", size, Category.SYSTEM_PROMPT, origin)
    if text.startswith("# AGENTS.md instructions"):
        return Item(BlockKind.MEMORY_FILE, "AGENTS.md", size, Category.MEMORY_FILES, origin)
    if text.startswith("<environment_context>"):
        return Item(BlockKind.ENVIRONMENT, "environment context", size, Category.SYSTEM_PROMPT, origin)
    if role == "user":
        return Item(BlockKind.PROMPT, first_line(text) or "prompt", size, origin=origin)
    return Item(BlockKind.REPLY, first_line(text) or "reply", size, origin=origin)


_DECODER = msgspec.json.Decoder()


def _decode(text: str) -> object:
    """A JSON text decoded: by msgspec, several times faster than ``json`` on the per-call arguments; by
    ``json`` when msgspec refuses it (``NaN``, nesting past its limit), so that what decodes is unchanged."""
    try:
        return _DECODER.decode(text)
    except msgspec.DecodeError:
        return json.loads(text)


def _command(arguments: object) -> str:
    """A tool call's command, for its label (``{"command": [...]}`` or a JSON string of it)."""
    if isinstance(arguments, str):
        try:  # function_call arguments are a JSON text: the label shows its command, not its braces
            decoded = _decode(arguments)
        except ValueError:
            return first_line(arguments, 50)
        return _command(decoded) if isinstance(decoded, dict) else first_line(arguments, 50)
    if isinstance(arguments, dict):  # decoded JSON: a dict (no slower ABC check per call)
        command = arguments.get("command") or arguments.get("cmd")
        if isinstance(command, list):
            return first_line(" ".join(str(c) for c in command), 50)
        if isinstance(command, str):
            return first_line(command, 50)
    return ""


def _parent_thread(meta: Mapping[str, Any], subagent: object) -> str:
    """A subagent rollout's parent: ``parent_thread_id`` beside its id, or (versions that write it only
    there) in ``source.subagent.thread_spawn``; "unknown" when neither says."""
    spawn = subagent.get("thread_spawn") if isinstance(subagent, dict) else None
    for parent in (meta.get("parent_thread_id"), spawn.get("parent_thread_id") if isinstance(spawn, dict) else None):
        if isinstance(parent, str) and parent:
            return parent
    return "unknown"


@dataclass
class Parsed(ParsedEvents):
    """What a rollout says, record by record: its events, session, models and the problems met."""

    cwd: str | None = None
    models: list[str] = field(default_factory=list)
    model: str | None = None
    window: int | None = None
    started: str | None = None
    ended: str | None = None
    spawned: set[str] = field(default_factory=set)  # the subagents started: their thread ids (else call ids)
    spawn_calls: set[str] = field(default_factory=set)  # call ids of spawn_agent calls
    repeats: int = 0
    turn_usage: int = 0
    parent: str | None = None  # `codex exec --json` turn totals: usage, but no context size
    zero_counts: int = 0
    call_names: dict[str, str] = field(default_factory=dict)
    last_totals: object = None
    # The compaction not yet followed by a call: (its index in events, whether it came from the event).
    open_compaction: tuple[int, bool] | None = None
    seen_instructions: bool = False
    # origins of the instructions, AGENTS.md and environment messages in the history: a compaction's
    # replacement history holds them again, so it replaces these copies
    history_context: set[str] = field(default_factory=set)
    out_of_time_order: bool = False  # a timestamp earlier than one on a line before it
    reordered: bool = False  # read again in time order (``in_time_order``)
    # Only what the sessions row needs: calls, compactions, subagents, problems; what entered the
    # conversation (the response items' sizes and labels) is not made.
    counting: bool = False

    @property
    def subagents(self) -> int:
        return len(self.spawned)

    def spawn_output(self, call_id: str, output: object) -> None:
        """A spawn_agent call's result: ``{"agent_id": …}`` when the subagent started (Codex's handler
        returns it; an error is text). Not every version writes a collab event beside it."""
        try:
            result = json.loads(output) if isinstance(output, str) else output
        except ValueError:
            return
        agent = result.get("agent_id") if isinstance(result, dict) else None
        if isinstance(agent, str) and agent:
            self.spawned.add(agent)

    def use_model(self, model: object) -> None:
        if isinstance(model, str) and model:
            self.model = model

    def response_item(self, number: int, payload: Mapping[str, Any]) -> None:
        kind = payload.get("type")
        if kind in _TOOL_CALLS:
            if payload.get("name") == "spawn_agent":
                self.spawn_calls.add(str(payload.get("call_id")))
        elif kind in _TOOL_OUTPUTS:
            if str(payload.get("call_id")) in self.spawn_calls:
                self.spawn_output(str(payload.get("call_id")), payload.get("output"))
        elif kind not in _OTHER_ITEMS:
            if kind not in _NOT_SENT:
                self.problems.append(f"{self.where}:{number}: response item {kind!r} not known to ctxviz, skipped")
            return
        if not self.counting:
            self.entered(number, kind, payload)

    def entered(self, number: int, kind: str, payload: Mapping[str, Any]) -> None:
        """The item a known response item adds to the conversation, sized and labelled."""
        origin = f"line:{number}"
        if kind == "message":
            self.events.append(self._context(_message(payload, origin)))
        elif kind == "reasoning":
            text = part_texts(payload.get("summary")) + part_texts(payload.get("content"))
            self.events.append(Item(BlockKind.REPLY, "reasoning", estimate(len(text)), origin=origin))
        elif kind in _TOOL_CALLS:
            name = str(payload.get("name") or "shell")
            arguments = payload.get("arguments", payload.get("input", payload.get("action")))
            label = f"{name} {_command(arguments)}".strip()
            self.call_names[str(payload.get("call_id"))] = label
            block_kind = BlockKind.EDIT if name == "apply_patch" else BlockKind.TOOL_CALL
            self.events.append(Item(block_kind, label, estimate(text_size(arguments) + len(name)), origin=origin))
        elif kind in _TOOL_OUTPUTS:
            label = self.call_names.get(str(payload.get("call_id")), "tool output")
            self.events.append(
                Item(BlockKind.TOOL_OUTPUT, label, estimate(text_size(payload.get("output"))), origin=origin)
            )
        elif kind in ("web_search_call", "tool_search_call", "image_generation_call", "agent_message"):
            self.events.append(Item(BlockKind.TOOL_CALL, str(kind).replace("_", " "), estimate(text_size(payload)),
                                    origin=origin))  # fmt: skip
        else:  # tool_search_output
            self.events.append(Item(BlockKind.TOOL_OUTPUT, "tool search", estimate(text_size(payload.get("tools"))),
                                    origin=origin))  # fmt: skip

    def token_count(self, number: int, payload: Mapping[str, Any]) -> None:
        info = payload.get("info")
        if info is None:
            return  # a rate-limit update, no usage
        last = info.get("last_token_usage") if isinstance(info, dict) else None
        if not isinstance(last, dict) or count(last.get("input_tokens")) is None:
            self.problems.append(f"{self.where}:{number}: token_count without last_token_usage.input_tokens, skipped")
            return
        totals = info.get("total_token_usage")
        if totals is not None and totals == self.last_totals:
            self.repeats += 1
            return
        self.last_totals = totals
        if not any(v for v in last.values() if isinstance(v, int)):
            self.zero_counts += 1
            return
        window = count(info.get("model_context_window"))
        if window:
            self.window = window
        self.use_model(info.get("model"))
        if self.model and self.model not in self.models:
            self.models.append(self.model)
        self.events.append(Call(last["input_tokens"]))
        self.open_compaction = None

    def compacted(self, number: int, payload: Mapping[str, Any]) -> None:
        """A compaction. Its ``replacement_history`` (when written) is the new context, the summary
        included; else only its ``message`` (the summary) is known to be in it."""
        origin = f"line:{number}"
        message = payload.get("message")
        summary_text = message if isinstance(message, str) else ""
        restored: list[Item] = []
        history = payload.get("replacement_history")
        for n, entry in enumerate(history if isinstance(history, list) else []):
            if isinstance(entry, dict) and entry.get("type") == "message":
                item = _message(entry, f"{origin}:{n}")
                if summary_text and summary_text in part_texts(entry.get("content")):
                    item = Item(BlockKind.SUMMARY, "compaction summary", item.estimate, origin=item.origin)
                restored.append(item)
            elif isinstance(entry, dict):
                restored.append(
                    Item(BlockKind.SUMMARY, str(entry.get("type")), estimate(text_size(entry)), origin=origin)
                )
        summary = None
        if summary_text and not any(i.kind == BlockKind.SUMMARY and i.label == "compaction summary" for i in restored):
            summary = Item(BlockKind.SUMMARY, "compaction summary", estimate(len(summary_text)), origin=origin)
        replaced = frozenset(self.history_context) if restored else frozenset()
        for item in restored:
            self._context(item)
        compaction = Compaction(CompactionTrigger.UNKNOWN, summary=summary, restored=tuple(restored), replaces=replaced)
        if self.open_compaction is not None and self.open_compaction[1]:
            at = self.open_compaction[0]
            self.events[at] = compaction  # its event came first: the same compaction
        else:
            self.events.append(compaction)
            at = len(self.events) - 1
        self.open_compaction = (at, False)

    def _context(self, item: Item) -> Item:
        """``item``, its origin noted when it is history outside the conversation (instructions, memory)."""
        if item.category != Category.MESSAGES and item.origin is not None:
            self.history_context.add(item.origin)
        return item

    def event_msg(self, number: int, payload: Mapping[str, Any]) -> None:
        kind = payload.get("type")
        if kind == "token_count":
            self.token_count(number, payload)
        elif kind == "context_compacted":
            if self.open_compaction is None:  # the event that accompanies a compacted item is not a second one
                note = "recorded as an event only: what the new context holds is not in the rollout"
                self.events.append(Compaction(CompactionTrigger.UNKNOWN, notes=(note,)))
                self.open_compaction = (len(self.events) - 1, True)
        elif kind == "task_started" and self.window is None:
            self.window = count(payload.get("model_context_window")) or None
        elif kind == "collab_agent_spawn_end":  # the same subagent as its spawn_agent call's result
            thread = payload.get("new_thread_id") or payload.get("call_id")
            self.spawned.add(str(thread) if thread else f"line:{number}")
        elif kind == "turn.completed":
            self.turn_usage += 1

    def record(self, number: int, record: Record) -> None:
        kind = record.get("type")
        payload = record.get("payload")
        if kind in _IGNORED_TOP:
            return
        if kind not in CODEX_TOP_TYPES:
            self.problems.append(f"{self.where}:{number}: record type {kind!r} not known to ctxviz, skipped")
            return
        if not isinstance(payload, dict):
            self.problems.append(f"{self.where}:{number}: {kind} record without a payload object, skipped")
            return
        stamp = record.get("timestamp")
        if isinstance(stamp, str) and is_time(stamp):
            if self.ended is not None and stamp < self.ended:
                self.out_of_time_order = True
            self.started = self.started or stamp
            self.ended = stamp
        if kind == "session_meta":
            if self.session is None:
                self.session = payload.get("id") or payload.get("session_id")
                self.cwd = payload.get("cwd") if isinstance(payload.get("cwd"), str) else None
                source = payload.get("source")
                if isinstance(source, dict) and "subagent" in source:  # a subagent's own rollout
                    self.parent = _parent_thread(payload, source["subagent"])
            self.instructions(payload.get("base_instructions"), number)
        elif kind == "turn_context":
            self.use_model(payload.get("model"))
            self.instructions(payload.get("base_instructions"), number)
        elif kind == "response_item":
            self.response_item(number, payload)
        elif kind == "compacted":
            self.compacted(number, payload)
        else:
            self.event_msg(number, payload)

    def instructions(self, value: object, number: int) -> None:
        """The base instructions, once: Codex sends them with every request, as ``instructions``."""
        text = value.get("text") if isinstance(value, dict) else value
        if self.seen_instructions or not isinstance(text, str) or not text:
            return
        self.seen_instructions = True
        size = estimate(len(text))
        item = Item(BlockKind.SYSTEM_PROMPT, "base instructions", size, Category.SYSTEM_PROMPT, f"line:{number}")
        self.events.append(item)


def parse(lines: Iterable[tuple[int, Record]], where: str, *, counting: bool = False) -> Parsed:
    """Pure: a rollout's records → events and what the summary needs (``counting``: only that)."""
    state = Parsed(where, counting=counting)
    each_record(lines, where, state.problems, state.record)
    return state


def in_time_order(lines: list[tuple[int, Record]]) -> list[tuple[int, Record]]:
    """A rollout's records in the order of their timestamps: a file written backwards is reversed
    whole (records of the same instant keep their order), any other disorder stably sorted. A record
    without a timestamp stays after the one before it."""
    stamps: list[str] = []
    last = ""
    for _, record in lines:
        stamp = record.get("timestamp")
        last = stamp if isinstance(stamp, str) and stamp else last
        stamps.append(last)
    if all(a >= b for a, b in zip(stamps, stamps[1:], strict=False)):
        return lines[::-1]
    order = sorted(range(len(lines)), key=stamps.__getitem__)
    return [lines[i] for i in order]
