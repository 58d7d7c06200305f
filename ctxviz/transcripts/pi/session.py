"""What a pi session says about the context (where sessions are: ``pi``).

The file is a tree of entries (``id``, ``parentId``): the session header, ``message`` entries (user,
assistant, toolResult, bashExecution, …), model and thinking-level changes, ``compaction`` entries
(``summary``, ``firstKeptEntryId``, ``tokensBefore``) and extension entries. The current branch is the
path from the last entry back to the root; entries on other branches are not in the context.

Each assistant message with ``usage`` is one API call; the context at the call is
``input + cacheRead + cacheWrite``. A compaction keeps the entries from ``firstKeptEntryId`` on and
adds its summary. What cannot be known: the system prompt, AGENTS.md and tool definitions (the first
call's remainder), the window (pi does not record it), and whether a compaction was automatic.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ctxviz.kinds import AgentName, BlockKind, CompactionTrigger
from ctxviz.tokens import estimate
from ctxviz.transcripts.jsonl import (
    SHAPE_ERRORS,
    Record,
    count,
    each_record,
    first_line,
    part_texts,
    text_size,
)
from ctxviz.transcripts.model_windows import profile_window
from ctxviz.transcripts.protocol import MODEL_NOT_RECORDED, counted

if TYPE_CHECKING:
    from ctxviz.timeline import Timeline
    from ctxviz.transcripts.assemble import Event, Item

OVERHEAD_LABEL = "system prompt, AGENTS.md and tool definitions: not recorded in the session"
_KNOWN = frozenset({"session", "message", "model_change", "thinking_level_change", "compaction", "branch_summary",
                    "custom", "custom_message", "label", "session_info", "context_transform", "ephemeral"})  # fmt: skip
_NOT_SENT = frozenset({"model_change", "thinking_level_change", "custom", "label", "session_info",
                       "context_transform", "ephemeral", "session"})  # fmt: skip
_EDIT_TOOLS = frozenset({"edit", "write"})


def _message_items(message: Mapping[str, Any], origin: str) -> list[Item]:
    from ctxviz.transcripts.assemble import Item

    role = message.get("role")
    content = message.get("content")
    if role == "user":
        text = part_texts(content)
        return [Item(BlockKind.PROMPT, first_line(text) or "prompt", estimate(text_size(content)), origin=origin)]
    if role == "toolResult":
        label = str(message.get("toolName") or "tool result")
        return [Item(BlockKind.TOOL_OUTPUT, label, estimate(text_size(content)), origin=origin)]
    if role == "bashExecution":
        label = f"!{message.get('command') or ''}"[:60]
        return [
            Item(BlockKind.TOOL_OUTPUT, label, estimate(text_size(message.get("output")) + len(label)), origin=origin)
        ]
    if role != "assistant":
        return [Item(BlockKind.NOTIFICATION, str(role), estimate(text_size(content)), origin=origin)]
    found: list[Item] = []
    for part in content if isinstance(content, list) else []:
        if not isinstance(part, dict):
            continue
        kind = part.get("type")
        if kind == "text":
            text = str(part.get("text") or "")
            found.append(Item(BlockKind.REPLY, first_line(text) or "reply", estimate(len(text)), origin=origin))
        elif kind == "thinking":
            found.append(Item(BlockKind.REPLY, "thinking", estimate(text_size(part.get("thinking"))), origin=origin))
        elif kind == "toolCall":
            name = str(part.get("name") or "tool")
            arguments = part.get("arguments")
            path = arguments.get("path") or arguments.get("command") if isinstance(arguments, dict) else None
            label = f"{name} {path}" if isinstance(path, str) else name
            block_kind = BlockKind.EDIT if name in _EDIT_TOOLS else BlockKind.TOOL_CALL
            found.append(Item(block_kind, label[:60], estimate(len(name) + text_size(arguments)), origin=origin))
    return found


def usage_size(usage: object) -> int | None:
    if not isinstance(usage, dict):
        return None
    parts = [count(usage.get(k, 0)) for k in ("input", "cacheRead", "cacheWrite")]
    if "input" not in usage or None in parts:
        return None
    # all zeros: a message pi aborted or that failed before the API answered, not a measured empty prompt
    return sum(p or 0 for p in parts) or None


@dataclass
class Parsed:
    """What a pi session file says: its header and entries, and the problems met."""

    where: str
    problems: list[str] = field(default_factory=list)
    entries: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    header: dict[str, Any] = field(default_factory=dict)

    def record(self, number: int, record: dict[str, Any]) -> None:
        kind = record.get("type")
        if kind not in _KNOWN:
            self.problems.append(f"{self.where}:{number}: entry type {kind!r} not known to ctxviz, skipped")
        elif kind == "session":
            self.header = self.header or record
        else:
            self.entries.append((number, record))


def parse(lines: Iterable[tuple[int, Record]], where: str) -> Parsed:
    state = Parsed(where)
    each_record(lines, where, state.problems, state.record)
    return state


def current_branch(entries: list[tuple[int, dict[str, Any]]]) -> tuple[list[tuple[int, dict[str, Any]]], int]:
    """The entries from the root to the last entry, and how many entries lie on other branches. Entries
    without ids (older files) are one straight line."""
    if not entries or not all(isinstance(e.get("id"), str) for _, e in entries):
        return entries, 0
    by_id = {e["id"]: (n, e) for n, e in entries}
    path: list[tuple[int, dict[str, Any]]] = []
    seen: set[str] = set()
    cursor: str | None = entries[-1][1]["id"]
    while cursor is not None and cursor in by_id and cursor not in seen:
        seen.add(cursor)
        path.append(by_id[cursor])
        parent = by_id[cursor][1].get("parentId")
        cursor = parent if isinstance(parent, str) else None
    path.reverse()
    return path, len(entries) - len(path)


def entry_key(number: int, entry: Mapping[str, Any]) -> str:
    """An entry's key: its id, or in older files (no ids) its line."""
    return str(entry.get("id") or f"line:{number}")


def first_kept(compaction: Mapping[str, Any]) -> str | None:
    """The key of the first entry a compaction keeps. Older files give its position in the file instead of
    its id, the session header being entry 0: one entry a line, so the entry at position i is line i + 1."""
    first = compaction.get("firstKeptEntryId")
    if isinstance(first, str):
        return first
    index = count(compaction.get("firstKeptEntryIndex"))
    return f"line:{index + 1}" if index is not None else None


@dataclass(frozen=True, slots=True)
class _Session:
    events: list[Event]
    models: list[str]
    missing_usage: int
    other_branches: int


def _events(state: Parsed) -> _Session:
    from ctxviz.transcripts.assemble import Call, Compaction, Item

    branch, others = current_branch(state.entries)
    order = [entry_key(number, entry) for number, entry in branch]
    compactions = {entry_key(n, e) for n, e in branch if e.get("type") == "compaction"}  # replaced, never kept
    events: list[Event] = []
    models: list[str] = []
    missing = 0
    for position, (number, entry) in enumerate(branch):
        try:
            kind = entry.get("type")
            origin = entry_key(number, entry)
            if kind == "compaction":
                first = first_kept(entry)
                kept = (
                    [k for k in order[order.index(first) : position] if k not in compactions] if first in order else []
                )
                summary = str(entry.get("summary") or "")
                pre = entry.get("tokensBefore")
                summary_item = Item(BlockKind.SUMMARY, "compaction summary", estimate(len(summary)), origin=origin)
                keep = frozenset(str(k) for k in kept if k is not None)
                events.append(Compaction(CompactionTrigger.UNKNOWN, pre if isinstance(pre, int) else None,
                                         summary=summary_item, keep=keep))  # fmt: skip
            elif kind == "branch_summary":
                text = str(entry.get("summary") or "")
                events.append(Item(BlockKind.SUMMARY, "branch summary", estimate(len(text)), origin=origin))
            elif kind == "custom_message":
                events.append(Item(BlockKind.NOTIFICATION, str(entry.get("customType") or "extension message"),
                                   estimate(text_size(entry.get("content"))), origin=origin))  # fmt: skip
            elif kind == "message" and isinstance(entry.get("message"), dict):
                message = entry["message"]
                if message.get("role") == "assistant":
                    used = usage_size(message.get("usage"))
                    if used is None:
                        missing += 1
                    else:
                        events.append(Call(used))
                        model = message.get("model")
                        if isinstance(model, str) and model not in models:
                            models.append(model)
                events.extend(_message_items(message, origin))
            elif kind == "message":
                state.problems.append(f"{state.where}:{number}: message entry without a message object, skipped")
        except SHAPE_ERRORS:
            state.problems.append(f"{state.where}:{number}: an entry of an unexpected shape, skipped")
    return _Session(events, models, missing, others)


def build(state: Parsed, path: Path) -> tuple[Timeline, _Session]:
    from ctxviz.transcripts.assemble import Call, assemble, transcript_timeline
    from ctxviz.transcripts.rows import nothing_measured, skipped_notice

    session = _events(state)
    if not any(isinstance(e, Call) for e in session.events):
        raise nothing_measured(path, AgentName.PI, "no assistant message carries usage")
    assembled = assemble(session.events, OVERHEAD_LABEL)
    model = session.models[-1] if session.models else MODEL_NOT_RECORDED
    window, window_notice = profile_window(AgentName.PI, model)
    notices = [*skipped_notice(state.problems), window_notice]
    if session.missing_usage:
        notices.append(f"{counted(session.missing_usage, 'assistant message', 'assistant messages')} without "
                       "usage or with all-zero usage (aborted or failed; not counted as calls)")  # fmt: skip
    if session.other_branches:
        notices.append(
            f"{counted(session.other_branches, 'entry', 'entries')} on other branches of the session tree not shown"
        )
    from ctxviz.profiles.pi import NUMBERS

    autocompact = max(0, window - NUMBERS.reserve)  # pi compacts past the window minus its reserve
    name = str(state.header.get("id") or path.stem)
    timeline = transcript_timeline(AgentName.PI, name, str(path), state.header.get("cwd"), model=model,
                                   window=window, autocompact=autocompact, assembled=assembled,
                                   notices=notices)  # fmt: skip
    return timeline, session
