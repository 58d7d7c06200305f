"""What a grok-build session folder says about the context (where sessions are: ``grok_build``).

grok-build keeps **no per-call usage**: the usage it stores (``turn_completed``) is summed over all the
model calls of a prompt, so it says nothing about the context at any call. What is shown:
- one step per prompt (turn), at the *estimated* size of what the log recorded, bytes/4 (the estimator
  grok-build itself uses), plus the system prompt's known template size; never marked measured;
- each auto-compaction with grok-build's own figures (``auto_compact_started``: its estimate of the
  context and the window; ``auto_compact_completed``: the size after);
- the latest context size ``signals.json`` holds, as a notice.
Without ``updates.jsonl``, ``chat_history.jsonl`` gives the context as it is now, as one step.
What cannot be known: the context at any call, the tool schemas and AGENTS.md sizes, manual compactions.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ctxviz.errors import InputError
from ctxviz.kinds import AgentName, BlockKind, CompactionTrigger, StepKind
from ctxviz.transcripts.grok_build.record_types import GROK_UPDATE_METHODS
from ctxviz.transcripts.jsonl import Record, document, each_record, obj, text_size
from ctxviz.transcripts.parsed_events import ParsedEvents
from ctxviz.transcripts.protocol import MODEL_NOT_RECORDED, counted

if TYPE_CHECKING:
    from ctxviz.timeline import Timeline
    from ctxviz.transcripts.assemble import Event

SYSTEM_PROMPT_TOKENS = 1_296  # the interactive template renders to 5,183 chars; grok counts bytes/4
_UNKNOWN = "grok-build records no per-call usage: sizes are estimates (bytes/4) of what its log holds"


def _bytes4(value: object) -> int:
    """grok-build's own estimate: UTF-8 bytes / 4."""
    if isinstance(value, str):
        return len(value.encode("utf-8", "replace")) // 4
    return text_size(value) // 4


def _text(content: object) -> str:
    if isinstance(content, dict):
        inner = content.get("text")
        return inner if isinstance(inner, str) else _text(content.get("content"))
    if isinstance(content, list):
        return "".join(_text(c) for c in content)
    return content if isinstance(content, str) else ""


@dataclass
class Parsed(ParsedEvents):
    """What a grok-build session's updates say: its events and the problems met."""

    window: int | None = None
    turns: int = 0
    model_calls: int = 0
    started_used: int | None = None  # the estimate at the start of the compaction under way
    started: float | None = None
    ended: float | None = None
    prompt: str = ""
    started_note: str | None = None
    titles: dict[str, str] = field(default_factory=dict)  # tool call id → its title
    streaming: tuple[BlockKind, str] | None = None  # (kind, text so far) of the message being streamed

    def flush(self) -> None:
        from ctxviz.transcripts.assemble import Item

        if self.streaming is not None:
            kind, text = self.streaming
            label = text.strip().split("\n", 1)[0][:60] or kind
            self.events.append(Item(kind, label, _bytes4(text)))
            self.streaming = None

    def chunk(self, kind: BlockKind, text: str) -> None:
        if self.streaming is not None and self.streaming[0] != kind:
            self.flush()
        previous = self.streaming[1] if self.streaming is not None else ""
        self.streaming = (kind, previous + text)
        if kind == BlockKind.PROMPT and not previous:
            self.prompt = text

    def update(self, number: int, update: Mapping[str, Any]) -> None:
        from ctxviz.transcripts.assemble import Item

        kind = update.get("sessionUpdate")
        if kind == "user_message_chunk":
            self.chunk(BlockKind.PROMPT, _text(update.get("content")))
        elif kind in ("agent_message_chunk", "agent_thought_chunk"):
            self.chunk(BlockKind.REPLY, _text(update.get("content")))
        elif kind == "tool_call":
            self.flush()
            title = str(update.get("title") or update.get("kind") or "tool")[:60]
            self.titles[str(update.get("toolCallId"))] = title
            self.events.append(Item(BlockKind.TOOL_CALL, title, _bytes4(update.get("rawInput"))))
        elif kind == "tool_call_update" and update.get("status") in ("completed", "failed"):
            self.flush()
            output = update.get("content") or update.get("rawOutput")
            title = update.get("title") or self.titles.get(str(update.get("toolCallId")), "tool output")
            self.events.append(Item(BlockKind.TOOL_OUTPUT, str(title)[:60], _bytes4(output)))
        elif kind == "turn_completed":
            self.turn(update)
        elif kind == "auto_compact_started":
            used, window = update.get("tokens_used"), update.get("context_window")
            if isinstance(window, int) and window > 0:
                self.window = window
            if isinstance(used, int) and isinstance(window, int):
                self.started_note = f"grok-build estimated the context at {used:,} of {window:,} tokens"
                self.started_used = used
        elif kind == "auto_compact_completed":
            self.compacted(update)

    def turn(self, update: Mapping[str, Any]) -> None:
        from ctxviz.transcripts.assemble import Checkpoint

        self.flush()
        self.turns += 1
        usage = obj(update.get("usage"))
        calls = usage.get("modelCalls")
        calls = calls if isinstance(calls, int) else 0
        self.model_calls += calls
        notes = [_UNKNOWN]
        if isinstance(usage.get("inputTokens"), int):
            made = counted(calls, "model call", "model calls")
            notes.append(f"the turn's {made} read {usage['inputTokens']:,} input tokens in all "
                         "(a sum over calls, not a context size)")  # fmt: skip
        label = f"turn {self.turns}: {self.prompt.strip()[:50]}".rstrip(": ")
        self.events.append(Checkpoint(StepKind.PROMPT, label, tuple(notes)))
        self.prompt = ""

    def compacted(self, update: Mapping[str, Any]) -> None:
        from ctxviz.transcripts.assemble import Compaction, Item

        self.flush()
        before, after = update.get("tokens_before"), update.get("tokens_after")
        # the figure after the fact wins over the estimate at the start
        pre = before if isinstance(before, int) else self.started_used if self.started_note is not None else None
        preview = update.get("summary_preview")
        summary = Item(BlockKind.SUMMARY, "compaction summary", _bytes4(preview) if isinstance(preview, str) else 0)
        notes = [n for n in (self.started_note, "the size after is grok-build's own estimate") if n]
        post = after if isinstance(after, int) else None
        self.events.append(Compaction(CompactionTrigger.AUTO, pre, post, False, summary, notes=tuple(notes)))
        self.started_note, self.started_used = None, None

    def record(self, number: int, record: Mapping[str, Any]) -> None:
        params = obj(record.get("params"))
        update = params.get("update")
        if record.get("method") not in GROK_UPDATE_METHODS or not isinstance(update, dict):
            self.problems.append(f"{self.where}:{number}: not a session update, skipped")
            return
        self.session = self.session or params.get("sessionId")
        stamp = record.get("timestamp")
        if isinstance(stamp, int | float) and not isinstance(stamp, bool):
            self.started = self.started if self.started is not None else float(stamp)
            self.ended = float(stamp)
        self.update(number, update)


def parse(lines: Iterable[tuple[int, Record]], where: str) -> Parsed:
    from ctxviz.timeline import Category
    from ctxviz.transcripts.assemble import Checkpoint, Compaction, Item

    state = Parsed(where)
    state.events.append(Item(BlockKind.SYSTEM_PROMPT, "system prompt (template size; tools and AGENTS.md not recorded)",
                             SYSTEM_PROMPT_TOKENS, Category.SYSTEM_PROMPT))  # fmt: skip
    each_record(lines, where, state.problems, state.record)
    state.flush()
    if state.events and not isinstance(state.events[-1], Checkpoint | Compaction):
        state.events.append(Checkpoint(StepKind.PROMPT, "turn in progress", (_UNKNOWN,)))
    return state


def history_items(lines: Iterable[tuple[int, Record]], where: str, problems: list[str]) -> list[Event]:
    """Pure: ``chat_history.jsonl`` (the context as it is now) as items, sized bytes/4."""
    from ctxviz.timeline import Category
    from ctxviz.transcripts.assemble import Checkpoint, Item

    events: list[Event] = []

    def add(number: int, item: Record) -> None:
        kind = item.get("type")
        content = item.get("content")
        text = _text(content)
        if kind == "system":
            events.append(Item(BlockKind.SYSTEM_PROMPT, "system prompt", _bytes4(content), Category.SYSTEM_PROMPT))
        elif kind == "user" and item.get("synthetic_reason") == "project_instructions":
            events.append(Item(BlockKind.MEMORY_FILE, "project instructions", _bytes4(content), Category.MEMORY_FILES))
        elif kind == "user" and item.get("synthetic_reason"):
            events.append(
                Item(BlockKind.ENVIRONMENT, str(item["synthetic_reason"]), _bytes4(content), Category.SYSTEM_PROMPT)
            )
        elif kind == "user":
            events.append(Item(BlockKind.PROMPT, text.strip().split("\n", 1)[0][:60] or "prompt", _bytes4(content)))
        elif kind in ("assistant", "reasoning"):
            label = "reasoning" if kind == "reasoning" else text.strip().split("\n", 1)[0][:60] or "reply"
            events.append(
                Item(BlockKind.REPLY, label, _bytes4(content if kind == "assistant" else item.get("summary")))
            )
            calls = item.get("tool_calls")
            for call in calls if isinstance(calls, list) else []:
                name = str(obj(call).get("name") or "tool")
                events.append(Item(BlockKind.TOOL_CALL, name, _bytes4(obj(call).get("arguments")) + len(name) // 4))
        elif kind in ("tool_result", "backend_tool_call"):
            label = "tool result" if kind == "tool_result" else "backend tool call"
            events.append(
                Item(BlockKind.TOOL_OUTPUT if kind == "tool_result" else BlockKind.TOOL_CALL, label, _bytes4(item))
            )
        else:
            problems.append(f"{where}:{number}: item type {kind!r} not known to ctxviz, skipped")

    each_record(lines, where, problems, add)
    note = "chat_history.jsonl holds only the current context (grok-build rewrites it at each compaction)"
    events.append(Checkpoint(StepKind.PROMPT, "the context now", (_UNKNOWN, note)))
    return events


def parse_history(lines: Iterable[tuple[int, Record]], where: str) -> Parsed:
    """Pure: a session with no event log, from its ``chat_history.jsonl`` alone."""
    state = Parsed(where)
    state.events = history_items(lines, where, state.problems)
    return state


def json_or_empty(path: Path) -> dict[str, Any]:
    try:
        return document(path) if path.is_file() else {}
    except InputError:
        return {}


def build(state: Parsed, folder: Path) -> Timeline:
    from ctxviz.profiles.grok_build import NUMBERS
    from ctxviz.transcripts.assemble import Checkpoint, Compaction, assemble, transcript_timeline
    from ctxviz.transcripts.rows import skipped_notice

    if not any(isinstance(e, Checkpoint | Compaction) for e in state.events):
        raise InputError(f"{folder}: grok-build session with no completed turn")
    assembled = assemble(state.events, "")
    signals = json_or_empty(folder / "signals.json")
    meta = json_or_empty(folder / "summary.json")
    window = state.window or signals.get("contextWindowTokens")
    notices = [*skipped_notice(state.problems), _UNKNOWN]
    if not isinstance(window, int) or window <= 0:
        window = NUMBERS.window  # grok-build's window when its model catalog has none
        notices.append(f"the session records no window: {window:,} (grok-build's fallback) is a guess")
    used = signals.get("contextTokensUsed")
    if isinstance(used, int):
        notices.append(f"grok-build's latest recorded context size (signals.json): {used:,} tokens")
    autocompact = window * NUMBERS.autocompact_percent // 100
    info = obj(meta.get("info"))
    model = meta.get("current_model_id")
    cwd = info.get("cwd")
    name = state.session or str(info.get("id") or folder.name)
    return transcript_timeline(AgentName.GROK_BUILD, name, str(state.where), cwd if isinstance(cwd, str) else None,
                               model=model if isinstance(model, str) else MODEL_NOT_RECORDED, window=window,
                               autocompact=autocompact, assembled=assembled,
                               notices=notices, tokenizer="bytes4")  # fmt: skip
