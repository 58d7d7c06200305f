"""What a gemini-cli chat says about the context (where chats are: ``gemini_cli``).

The JSONL form is an update log: a metadata line, message records (a message rewritten in full under
the same ``id`` each time its tool calls, results or tokens change: the last version wins, in its first
place), ``{"$set": {…}}`` metadata patches (``$set.messages`` replaces the whole history: a session
start, a compression, a rolled-back turn) and ``{"$rewindTo": id}`` (drops that message and all later).
The older ``.json`` form is one document: the metadata with its ``messages``.

Each ``gemini`` message with ``tokens`` is one API call; the context at the call is ``tokens.input``
(the prompt, cached part included). Its text, thoughts, tool calls and results entered afterwards,
sized chars/4. What cannot be known: the system prompt, GEMINI.md and tool declarations (the first
call's remainder), the size a compression left (until the next call), and calls of a rewound turn.
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
from ctxviz.transcripts.protocol import MODEL_NOT_RECORDED

if TYPE_CHECKING:
    from ctxviz.timeline import Timeline
    from ctxviz.transcripts.assemble import Event, Item

OVERHEAD_LABEL = "system prompt, GEMINI.md and tool declarations: not recorded in the chat"
_SENT_TYPES = frozenset({"user", "gemini", "model"})
_SHOWN_ONLY = frozenset({"info", "error", "warning"})  # shown to the person, never sent to the model


def _items(message: Mapping[str, Any], origin: str) -> list[Item]:
    """What a message put into the history, sized chars/4."""
    from ctxviz.transcripts.assemble import Item

    kind = message.get("type")
    if kind == "user":
        text = part_texts(message.get("content"))
        return [Item(BlockKind.PROMPT, first_line(text) or "prompt", estimate(len(text)), origin=origin)]
    text = part_texts(message.get("content")) or part_texts(message.get("parts"))
    found = [Item(BlockKind.REPLY, first_line(text) or "reply", estimate(len(text)), origin=origin)] if text else []
    thoughts = text_size(message.get("thoughts"))
    if thoughts:
        found.append(Item(BlockKind.REPLY, "thoughts", estimate(thoughts), origin=origin))
    calls = message.get("toolCalls")
    for call in calls if isinstance(calls, list) else []:
        if not isinstance(call, dict):
            continue
        name = str(call.get("name") or "tool")
        args = call.get("args")
        command = args.get("command") if isinstance(args, dict) else None
        label = f"{name} {command}" if isinstance(command, str) else name
        found.append(Item(BlockKind.TOOL_CALL, label[:60], estimate(len(name) + text_size(args)), origin=origin))
        found.append(Item(BlockKind.TOOL_OUTPUT, label[:60], estimate(text_size(call.get("result"))), origin=origin))
    return found


@dataclass
class Parsed:
    """What a gemini-cli chat says: its metadata and messages, and the problems met."""

    where: str
    problems: list[str] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)
    history: list[dict[str, dict[str, Any]]] = field(default_factory=lambda: [{}])  # id → message, per context
    started: str | None = None
    ended: str | None = None

    @property
    def current(self) -> dict[str, dict[str, Any]]:
        return self.history[-1]

    def upsert(self, number: int, message: dict[str, Any]) -> None:
        from ctxviz.transcripts.rows import is_time

        kind = message.get("type")
        if kind in _SHOWN_ONLY:
            return
        if kind not in _SENT_TYPES:
            self.problems.append(f"{self.where}:{number}: message type {kind!r} not known to ctxviz, skipped")
            return
        key = str(message.get("id") or f"line:{number}")
        stamp = message.get("timestamp")
        if is_time(stamp):
            self.started = self.started or stamp
            self.ended = stamp
        self.current[key] = message  # a rewrite keeps the message's first place

    def replace(self, number: int, messages: list[Any]) -> None:
        """``$set.messages``: a new history. After a call it is a compression; before, a start."""
        fresh = [m for m in messages if isinstance(m, dict)]
        if any(isinstance(m.get("tokens"), dict) for m in self.current.values()):
            self.history.append({})
        else:
            self.current.clear()
        for n, message in enumerate(fresh):
            self.current[f"restored:{number}:{n}"] = {**message, "tokens": None}

    def record(self, number: int, record: dict[str, Any]) -> None:
        if "$rewindTo" in record:
            keys = list(self.current)
            target = record["$rewindTo"]
            if target in self.current:
                for key in keys[keys.index(target) :]:
                    del self.current[key]
            else:
                self.problems.append(f"{self.where}:{number}: rewind to unknown message {target!r}, ignored")
        elif "$set" in record:
            patch = record["$set"]
            if not isinstance(patch, dict):
                self.problems.append(f"{self.where}:{number}: $set without an object, skipped")
                return
            if isinstance(patch.get("messages"), list):
                self.replace(number, patch["messages"])
            self.meta.update({k: v for k, v in patch.items() if k != "messages"})
        elif "type" in record:
            self.upsert(number, record)
        elif "sessionId" in record:
            self.meta.update(record)
            messages = record.get("messages")
            for n, message in enumerate(messages if isinstance(messages, list) else []):
                if isinstance(message, dict):
                    self.upsert(number, {"id": f"message:{n}", **message})
        else:
            self.problems.append(f"{self.where}:{number}: record not known to ctxviz, skipped")


@dataclass(frozen=True, slots=True)
class _Session:
    events: list[Event]
    models: list[str]
    missing_tokens: int


def _events(parse: Parsed) -> _Session:
    from ctxviz.transcripts.assemble import Call, Compaction

    events: list[Event] = []
    models: list[str] = []
    missing = 0
    for n, context in enumerate(parse.history):
        if n > 0:
            restored = tuple(i for key, m in context.items() if key.startswith("restored:") for i in _items(m, key))
            note = "gemini-cli replaced the history (a compression): the size after is estimated"
            events.append(Compaction(CompactionTrigger.AUTO, restored=restored, notes=(note,)))
            context = {k: m for k, m in context.items() if not k.startswith("restored:")}
        for key, message in context.items():
            tokens = message.get("tokens")
            if message.get("type") == "gemini":
                # an input of 0 is a reply that failed or was cut off, not a measured empty prompt
                if isinstance(tokens, dict) and count(tokens.get("input")):
                    events.append(Call(tokens["input"]))
                    model = message.get("model")
                    if isinstance(model, str) and model not in models:
                        models.append(model)
                elif not key.startswith("restored:"):
                    missing += 1
            try:
                events.extend(_items(message, key))
            except SHAPE_ERRORS:
                parse.problems.append(f"{parse.where}: message {key!r} of an unexpected shape, its content skipped")
    return _Session(events, models, missing)


def parse(lines: Iterable[tuple[int, Record]], where: str) -> Parsed:
    state = Parsed(where)
    each_record(lines, where, state.problems, state.record)
    return state


def window_of(model: str) -> tuple[int, bool]:
    """The model's token limit in gemini-cli (the gemini-cli profile's table), and whether it is known:
    a Gemini model the table does not list gets gemini-cli's own default limit, which is no guess."""
    from ctxviz.profiles.gemini_cli import PROFILE

    spec = PROFILE.model_window(model, foreign=False)
    return spec.window, spec.known or PROFILE.runs(model)


def build(state: Parsed, path: Path) -> tuple[Timeline, list[str]]:
    from ctxviz.transcripts.assemble import Call, assemble, transcript_timeline
    from ctxviz.transcripts.rows import nothing_measured, skipped_notice

    session = _events(state)
    if not any(isinstance(e, Call) for e in session.events):
        raise nothing_measured(path, AgentName.GEMINI_CLI, "no gemini message carries tokens")
    assembled = assemble(session.events, OVERHEAD_LABEL)
    model = session.models[-1] if session.models else MODEL_NOT_RECORDED
    window, known = window_of(model)
    notices = list(skipped_notice(state.problems))
    if not known:
        notices.append(f"model {model!r} is not a Gemini model gemini-cli knows: the window {window:,} is a guess")
    if session.missing_tokens:
        notices.append(f"{session.missing_tokens} gemini replies without token counts (not counted as calls)")
    from ctxviz.profiles.gemini_cli import NUMBERS

    autocompact = window * NUMBERS.compress_percent // 100
    name = str(state.meta.get("sessionId") or path.stem)
    timeline = transcript_timeline(AgentName.GEMINI_CLI, name, str(path), _project(state, path), model=model,
                                   window=window, autocompact=autocompact, assembled=assembled,
                                   notices=notices)  # fmt: skip
    return timeline, session.models


def _project(state: Parsed, path: Path) -> str:
    folders = state.meta.get("directories")
    if isinstance(folders, list) and folders and isinstance(folders[0], str):
        return folders[0]
    parts = path.parts
    return parts[parts.index("chats") - 1] if "chats" in parts[:-1] and parts.index("chats") > 0 else ""
