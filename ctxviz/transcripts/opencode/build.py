"""What an opencode session's messages and parts say about the context, from either store: the JSON
tree or the database (where sessions are: ``opencode``).

Each assistant step is one API call: a ``step-finish`` part's ``tokens`` (or, without step parts, the
message's ``tokens``); the context at the call is ``input + cache.read + cache.write``. The parts after
a step began (text, reasoning, tool calls and outputs) entered with that call, sized chars/4. A
``compaction`` part starts a compaction (``auto`` says which kind, ``tail_start_id`` where the kept tail
begins); the next ``summary: true`` assistant message holds its summary. What cannot be known: the
system prompt, AGENTS.md and tool definitions (the first call's remainder), the window (not recorded),
and when a pruned tool output left the context.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from ctxviz.errors import InputError, Unreadable
from ctxviz.kinds import AgentName, BlockKind, CompactionTrigger
from ctxviz.tokens import estimate
from ctxviz.transcripts.jsonl import SHAPE_ERRORS, document, first_line, obj, text_size
from ctxviz.transcripts.model_windows import profile_window
from ctxviz.transcripts.protocol import MODEL_NOT_RECORDED, counted

if TYPE_CHECKING:
    from ctxviz.timeline import Timeline
    from ctxviz.transcripts.assemble import Event, Item
    from ctxviz.transcripts.opencode.database import Row
    from ctxviz.transcripts.reads import Reads

OVERHEAD_LABEL = "system prompt, AGENTS.md and tool definitions: not recorded in the storage"
_ID = re.compile(r"[\w.-]+")
_QUIET_PARTS = frozenset({"step-start", "snapshot", "patch", "agent", "retry", "subtask"})  # no content sent


def _used(tokens: object) -> int | None:
    if not isinstance(tokens, dict) or not isinstance(tokens.get("input"), int):
        return None
    cache = tokens.get("cache")
    cache = cache if isinstance(cache, dict) else {}
    extra = [cache.get(k, 0) for k in ("read", "write")]
    used = int(tokens["input"]) + sum(v for v in extra if isinstance(v, int))
    return used or None  # all zeros: a message opencode had not finished (or that failed), not a measurement


def json_files(folder: Path, where: list[str], *, whole: bool = False) -> list[Row]:
    """Every JSON object file in a folder, in name order (opencode's ids sort in time order). A folder
    that cannot be listed is a problem noted in ``where``; with ``whole`` (the folder is all a session
    has, its messages) it is the session's failure, ``Unreadable``, never read as a session without usage."""
    try:
        files = sorted(p for p in folder.iterdir() if p.suffix == ".json")
    except FileNotFoundError:
        return []  # none written yet
    except OSError as error:
        why = f"{folder}: cannot list this folder: {error.strerror or error}"
        if whole:
            raise Unreadable(why) from None
        where.append(why)
        return []
    found = []
    for file in files:
        try:
            found.append((str(file), document(file)))
        except InputError as error:
            where.append(f"{error.message}, skipped")
    return found


# Each session folder's count of children per parent, with the folder's key (its files' names, sizes and
# times, taken before they were read): every session of a folder counts its subagents among the same
# files, which are so read once a run, not once per session.
_CHILDREN: dict[str, tuple[tuple[int, ...], Counter[str]]] = {}


def children_in(folder: Path, key: tuple[int, ...]) -> Counter[str]:
    """How many sessions in ``folder`` name each id their parent, read again only when ``key`` is not
    the key of the last count."""
    kept = _CHILDREN.get(str(folder))
    if kept is None or kept[0] != key:
        parents = (session.get("parentID") for _, session in json_files(folder, []))
        # a counted session's id is a name (``build`` makes sure), so only a text parent can be its
        kept = _CHILDREN[str(folder)] = (key, Counter(p for p in parents if isinstance(p, str)))
    return kept[1]


class Store(Protocol):
    """Where a session's messages and parts come from: the JSON tree or the database."""

    def messages(self, session_id: str, problems: list[str]) -> list[Row]: ...

    def parts(self, message_id: str, problems: list[str]) -> list[Row]: ...

    def session_bytes(self, session_id: str, message_ids: Sequence[str]) -> int:
        """What the session's messages and parts take on disk (a database: their records' data)."""
        ...


@dataclass(frozen=True, slots=True)
class Files:
    """The older layout: ``storage/message/<session>/`` and ``storage/part/<message>/``. opencode rewrites
    a message's or part's file in place as it streams, so each folder is noted file by file."""

    storage: Path
    reads: Reads

    def messages(self, session_id: str, problems: list[str]) -> list[Row]:
        self.reads.every_file_in(self.storage / "message" / session_id)
        found = json_files(self.storage / "message" / session_id, problems, whole=True)
        return sorted(found, key=lambda m: (_created(m[1]), m[0]))

    def parts(self, message_id: str, problems: list[str]) -> list[Row]:
        self.reads.every_file_in(self.storage / "part" / message_id)
        return json_files(self.storage / "part" / message_id, problems)

    def session_bytes(self, session_id: str, message_ids: Sequence[str]) -> int:
        folders = [self.storage / "message" / session_id, *(self.storage / "part" / m for m in message_ids)]
        return sum(_json_bytes(folder) for folder in folders)


def _json_bytes(folder: Path) -> int:
    try:
        return sum(p.stat().st_size for p in folder.iterdir() if p.suffix == ".json")
    except OSError:
        return 0


@dataclass
class Gathered:
    """What an opencode session's messages add up to while its timeline is built, and the problems met."""

    problems: list[str]
    events: list[Event] = field(default_factory=list)
    models: list[str] = field(default_factory=list)
    pruned: int = 0
    missing: int = 0
    open_compaction: tuple[CompactionTrigger, list[str]] | None = None  # trigger, kept message ids
    message_ids: list[str] = field(default_factory=list)

    def part(self, part: Mapping[str, Any], role: str, origin: str, step_at: int, file: str) -> int:
        """One part's items; returns where the current step's call belongs in ``events``."""
        from ctxviz.transcripts.assemble import Call, Item

        kind = part.get("type")
        if kind == "step-start":
            return len(self.events)
        if kind == "step-finish":
            used = _used(part.get("tokens"))
            if used is not None:
                self.events.insert(step_at, Call(used))
            return len(self.events)
        if kind == "text":
            text = str(part.get("text") or "")
            item_kind = BlockKind.PROMPT if role == "user" else BlockKind.REPLY
            self.events.append(Item(item_kind, first_line(text) or item_kind, estimate(len(text)), origin=origin))
        elif kind == "reasoning":
            self.events.append(Item(BlockKind.REPLY, "reasoning", estimate(text_size(part.get("text"))), origin=origin))
        elif kind == "tool":
            state = obj(part.get("state"))
            name = str(part.get("tool") or "tool")
            arguments = state.get("input")
            command = arguments.get("command") or arguments.get("filePath") if isinstance(arguments, dict) else None
            label = (f"{name} {command}" if isinstance(command, str) else name)[:60]
            block_kind = BlockKind.EDIT if name in ("edit", "write", "patch") else BlockKind.TOOL_CALL
            self.events.append(Item(block_kind, label, estimate(len(name) + text_size(arguments)), origin=origin))
            self.events.append(
                Item(BlockKind.TOOL_OUTPUT, label, estimate(text_size(state.get("output"))), origin=origin)
            )
            time = state.get("time")
            if isinstance(time, dict) and time.get("compacted"):
                self.pruned += 1
        elif kind == "file":
            self.events.append(Item(BlockKind.FILE_REFERENCE, str(part.get("filename") or "file"), 0, origin=origin))
        elif kind == "compaction":
            tail = part.get("tail_start_id")
            kept = self.message_ids[self.message_ids.index(tail) :] if tail in self.message_ids else []
            self.open_compaction = (CompactionTrigger.AUTO if part.get("auto") else CompactionTrigger.MANUAL, kept)
        elif kind not in _QUIET_PARTS:
            self.problems.append(f"{file}: part type {kind!r} not known to ctxviz, skipped")
        return step_at

    def close_compaction(self, summary: Item | None) -> None:
        from ctxviz.transcripts.assemble import Compaction

        if self.open_compaction is None:
            return
        trigger, kept = self.open_compaction
        self.events.append(Compaction(trigger, summary=summary, keep=frozenset(kept)))
        self.open_compaction = None

    def message(self, message: Mapping[str, Any], parts: list[Row]) -> None:
        from ctxviz.transcripts.assemble import Call, Item

        role = str(message.get("role"))
        origin = str(message.get("id"))
        if role == "user":
            self.close_compaction(None)
        self.message_ids.append(origin)
        if role == "assistant" and message.get("summary") is True:
            text = "".join(str(p.get("text") or "") for _, p in parts if p.get("type") == "text")
            used = _used(message.get("tokens"))
            if used is not None:
                self.events.append(Call(used, label="compaction summary call"))
            if self.open_compaction is None:
                self.open_compaction = (CompactionTrigger.AUTO, [])
            self.close_compaction(Item(BlockKind.SUMMARY, "compaction summary", estimate(len(text)), origin=origin))
            return
        start = len(self.events)
        step_at = start
        calls_before = sum(isinstance(e, Call) for e in self.events)
        for file, part in parts:
            try:
                step_at = self.part(part, role, origin, step_at, file)
            except SHAPE_ERRORS:
                self.problems.append(f"{file}: a part of an unexpected shape, skipped")
        if role == "assistant":
            model = message.get("modelID") or obj(message.get("model")).get("modelID")
            if isinstance(model, str) and model not in self.models:
                self.models.append(model)
            if sum(isinstance(e, Call) for e in self.events) == calls_before:
                used = _used(message.get("tokens"))
                if used is None:
                    self.missing += 1
                else:
                    self.events.insert(start, Call(used))


def build(
    where: Path, session: Mapping[str, Any], store: Store, problems: list[str], notices: tuple[str, ...] = ()
) -> tuple[Timeline, Gathered]:
    """Pure but for ``store``: the Timeline of one session."""
    from ctxviz.profiles.opencode import PROFILE
    from ctxviz.transcripts.assemble import Call, assemble, transcript_timeline
    from ctxviz.transcripts.rows import nothing_measured, skipped_notice

    session_id = _name(session.get("id"))
    if session_id is None:
        raise InputError(f"{where}: an opencode session without a usable id")
    state = Gathered(problems)
    messages = store.messages(session_id, problems)
    for file, message in messages:
        message_id = _name(message.get("id"))
        if message_id is None or message.get("role") not in ("user", "assistant"):
            problems.append(f"{file}: not a user or assistant message with an id, skipped")
            continue
        try:
            state.message(message, store.parts(message_id, problems))
        except SHAPE_ERRORS:
            problems.append(f"{file}: a message of an unexpected shape, skipped")
    state.close_compaction(None)
    if not any(isinstance(e, Call) for e in state.events):
        raise nothing_measured(
            where, AgentName.OPENCODE, f"session {session_id}: none of its {len(messages)} messages carries tokens"
        )
    assembled = assemble(state.events, OVERHEAD_LABEL)
    model = state.models[-1] if state.models else MODEL_NOT_RECORDED
    window, window_notice = profile_window(AgentName.OPENCODE, model)
    # the opencode profile's trigger, with the model's max output from its table
    trigger = PROFILE.thresholds
    output = PROFILE.model_window(model.rsplit("/", 1)[-1], foreign=False).max_output
    autocompact = max(0, trigger.thresholds(window, output).autocompact or 0)
    told = [*notices, *skipped_notice(problems), window_notice,
               f"auto-compaction assumed at {autocompact:,} ({trigger.formula()})"]  # fmt: skip
    if state.missing:
        told.append(
            f"{counted(state.missing, 'assistant message', 'assistant messages')} without tokens (not counted as calls)"
        )
    if state.pruned:
        told.append(f"{state.pruned} tool outputs were pruned later; when they left is not recorded")
    timeline = transcript_timeline(AgentName.OPENCODE, session_id, str(where), session.get("directory"),
                                   model=model, window=window, autocompact=autocompact, assembled=assembled,
                                   notices=told)  # fmt: skip
    return timeline, state


def _name(value: object) -> str | None:
    """An id usable as a folder name: never a path that leads out of the storage."""
    if isinstance(value, str) and value not in (".", "..") and _ID.fullmatch(value):
        return value
    return None


def _created(record: Mapping[str, Any]) -> float:
    time = record.get("time")
    created = time.get("created") if isinstance(time, dict) else None
    return float(created) if isinstance(created, int | float) else 0.0
