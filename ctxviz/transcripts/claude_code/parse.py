"""Transcript lines → entries: each record reduced to what the timeline needs (sizes, labels, links).

Pure: numbered lines in, ``Parsed`` out; damaged lines become located problems, never exceptions.
Sizes are chars/4 estimates (Claude Code's own rough rule) over the raw JSON text of each piece.
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

import msgspec
from msgspec import Raw

from ctxviz.kinds import BlockKind
from ctxviz.timeline import Category
from ctxviz.tokens import estimate
from ctxviz.transcripts.claude_code.records import (
    CONVERSATIONAL_TYPES,
    IGNORED_TYPES,
    SUBAGENT_TOOLS,
    Content,
    DecodeError,
    Record,
    call_id,
    compaction,
    decode_attachment,
    decode_record,
    decode_tool_input,
    subagent_id,
    unknown_type,
)
from ctxviz.transcripts.safe import safe_or_none, safe_text

IMAGE_TOKENS = 1_600  # a typical screenshot; base64 length says nothing about an image's token cost
LABEL_CHARS = 70
WARMUP_PROMPT = "Warmup"  # Claude Code's cache-warming sidechains: no user subagent


# Piece and Entry are made once per record (tens of thousands per session): frozen msgspec Structs are
# built in C, several times faster than frozen dataclasses (benchmarks/transcripts.py).
class Piece(msgspec.Struct, frozen=True):
    """Something that entered the conversation: becomes a block when the next call measures it."""

    kind: str
    category: Category
    label: str
    estimate: int  # tokens, chars/4
    agent: str | None = None  # the subagent whose result this is


class Entry(msgspec.Struct, frozen=True):
    """One record on some chain. ``call`` is set for an assistant record with usage; ``compact`` for a
    compaction boundary; ``pieces`` for whatever content the record adds."""

    line: int
    uuid: str | None
    parent: str | None
    logical_parent: str | None
    sidechain: bool
    conversational: bool  # a candidate leaf (progress records link the chain but end no branch)
    timestamp: str | None = None
    pieces: tuple[Piece, ...] = ()
    message_id: str | None = None
    model: str | None = None
    used: int | None = None
    compact: tuple[str, int | None, int | None] | None = None  # trigger, preTokens, postTokens
    summary: bool = False  # the compaction summary record
    note: str | None = None
    agent: str | None = None  # agentId of a sidechain record
    prompt_key: str | None = None  # first user text of a sidechain (to find its Task call)


@dataclass(frozen=True, slots=True)
class Parsed:
    entries: tuple[Entry, ...]
    problems: tuple[str, ...]  # located: "file:line: what"
    unknown_types: dict[str, int]
    session: str | None
    cwd: str | None
    task_prompts: dict[str, str]  # Task tool_use id → prompt key (older layout's sidechain matching)
    lines: int = 0
    unmeasured_calls: int = 0  # API calls whose record carries no usage: not shown, counted in a notice
    other_session: str | None = None  # a later record's sessionId other than ``session`` (another session's lines)


def first_line(text: str, limit: int = LABEL_CHARS) -> str:
    line = safe_text(text.strip().split("\n", 1)[0].strip())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def prompt_key(text: str) -> str:
    return text.strip()[:200]


@dataclass
class ParseState:
    """What each tool_use said, so its tool_result can be named (the path read, the command run), and
    the session's folder, so that paths inside it are named relative to it."""

    names: dict[str, tuple[str, str]] = field(default_factory=dict)
    task_prompts: dict[str, str] = field(default_factory=dict)
    cwd: str | None = None
    measured: set[str] = field(default_factory=set)  # message ids of calls with usage
    unmeasured: set[str] = field(default_factory=set)  # … and of calls without it


def short_path(path: str, cwd: str | None, limit: int = LABEL_CHARS) -> str:
    """A path as a label: relative to the session's folder when inside it; when still too long, its
    end is kept (the file name says more than the folders above it)."""
    if cwd and path.startswith(cwd.rstrip("/") + "/"):
        path = path[len(cwd.rstrip("/")) + 1 :]
    path = safe_text(path)
    return path if len(path) <= limit else "…" + path[-(limit - 1) :]


def _tool_label(name: str, raw: Raw, cwd: str | None) -> str:
    given = decode_tool_input(raw)
    path = given.file_path or given.notebook_path
    if path:
        return short_path(path, cwd)
    target = (
        given.command or given.pattern or given.url or given.query or given.skill or given.description
        or (short_path(given.path, cwd) if given.path else "")
    )  # fmt: skip
    if name in SUBAGENT_TOOLS and given.subagent_type:
        target = f"{given.subagent_type}: {given.description or ''}".strip()
    return first_line(target) if target else ""


def _result_kind(tool: str) -> BlockKind:
    if tool == "Read":
        return BlockKind.FILE_READ
    if tool in ("Edit", "Write", "MultiEdit", "NotebookEdit"):
        return BlockKind.EDIT
    if tool in SUBAGENT_TOOLS:
        return BlockKind.SUBAGENT_RESULT
    if tool == "Skill":
        return BlockKind.SKILL_BODY
    return BlockKind.TOOL_OUTPUT


def _assistant_pieces(content: str | list[Content] | None, tools: ParseState) -> tuple[Piece, ...]:
    if isinstance(content, str):
        return (Piece(BlockKind.REPLY, Category.MESSAGES, first_line(content) or "reply", estimate(len(content))),)
    pieces: list[Piece] = []
    for block in content or ():
        if block.type == "text" and block.text:
            pieces.append(Piece(BlockKind.REPLY, Category.MESSAGES, first_line(block.text), estimate(len(block.text))))
        elif block.type == "thinking" and block.thinking:
            pieces.append(Piece(BlockKind.REPLY, Category.MESSAGES, "thinking", estimate(len(block.thinking))))
        elif block.type in ("tool_use", "server_tool_use") and block.name:
            label = _tool_label(block.name, block.input, tools.cwd)
            if block.id:
                # one string per tool name, not one per call: a session keeps an entry per tool call
                tools.names[block.id] = (sys.intern(block.name), label)
                if block.name in SUBAGENT_TOOLS:
                    given = decode_tool_input(block.input)
                    if given.prompt:
                        tools.task_prompts[block.id] = prompt_key(given.prompt)
            size = estimate(len(block.name) + len(block.input))
            pieces.append(Piece(BlockKind.TOOL_CALL, Category.MESSAGES, f"{block.name} {label}".strip(), size))
    return tuple(pieces)


def _user_text_piece(text: str, meta: bool) -> Piece:
    stripped = text.lstrip()
    if stripped.startswith("<system-reminder>"):
        kind = BlockKind.HOOK_OUTPUT
    elif meta:
        kind = BlockKind.NOTIFICATION
    else:
        kind = BlockKind.PROMPT
    return Piece(kind, Category.MESSAGES, first_line(text), estimate(len(text)))


def _user_pieces(record: Record, tools: ParseState) -> tuple[Piece, ...]:
    content = record.message.content if record.message is not None else None
    meta = bool(record.isMeta)
    if record.isCompactSummary:
        size = len(content) if isinstance(content, str) else sum(len(b.text or "") for b in content or ())
        return (Piece(BlockKind.SUMMARY, Category.MESSAGES, "compaction summary", estimate(size)),)
    if isinstance(content, str):
        return (_user_text_piece(content, meta),) if content.strip() else ()
    pieces: list[Piece] = []
    for block in content or ():
        if block.type == "text" and block.text:
            pieces.append(_user_text_piece(block.text, meta))
        elif block.type == "tool_result":
            tool, label = tools.names.get(block.tool_use_id or "", ("tool", ""))
            kind = _result_kind(tool)
            agent = subagent_id(record.toolUseResult) if kind == BlockKind.SUBAGENT_RESULT else None
            if kind == BlockKind.SUBAGENT_RESULT and agent is None and block.tool_use_id:
                agent = f"task:{block.tool_use_id}"  # older layout: matched by the Task's prompt
            name = label if kind in (BlockKind.FILE_READ, BlockKind.EDIT) else f"{tool} {label}".strip()
            pieces.append(Piece(kind, Category.MESSAGES, name, estimate(len(block.content)), agent))
        elif block.type in ("image", "document"):
            pieces.append(Piece(BlockKind.FILE_REFERENCE, Category.MESSAGES, block.type, IMAGE_TOKENS))
    return tuple(pieces)


_ATTACHMENT_KINDS = {
    "nested_memory": (BlockKind.NESTED_MEMORY, Category.MEMORY_FILES),
    "skill_listing": (BlockKind.SKILL_LISTING, Category.SKILLS),
    "compact_file_reference": (BlockKind.FILE_REFERENCE, Category.MESSAGES),
}


def _attachment_pieces(raw: Raw) -> tuple[Piece, ...]:
    if not raw:
        return ()
    attachment = decode_attachment(raw)
    kind_name = attachment.type if attachment else "attachment"
    if kind_name.startswith("hook"):
        kind, category = BlockKind.HOOK_OUTPUT, Category.MESSAGES
    else:
        kind, category = _ATTACHMENT_KINDS.get(kind_name, (BlockKind.NOTIFICATION, Category.MESSAGES))
    label = kind_name
    if attachment is not None:
        label = attachment.path or attachment.filename or attachment.hookName or kind_name
    size = len(attachment.content) if attachment and attachment.content else len(raw)
    return (Piece(kind, category, first_line(label), estimate(size)),)


def _entry(number: int, record: Record, kind: str, tools: ParseState) -> Entry:
    # built positionally (Entry's field order): this runs for every conversational record
    uuid, parent, logical = record.uuid, record.parentUuid, record.logicalParentUuid
    sidechain, stamp, agent = bool(record.isSidechain), record.timestamp, record.agentId
    if kind == "assistant":
        message = record.message
        pieces = _assistant_pieces(message.content if message else None, tools)
        usage = message.usage if message else None
        used = usage.context if usage is not None else None
        message_id = call_id(message, number) if message is not None else None
        if message is None or message_id is None:
            return Entry(number, uuid, parent, logical, sidechain, True, stamp, pieces, agent=agent)
        if used is None:  # a call whose usage was not recorded: its pieces wait for the next call
            tools.unmeasured.add(message_id)
            return Entry(number, uuid, parent, logical, sidechain, True, stamp, pieces, agent=agent)
        tools.measured.add(message_id)
        return Entry(number, uuid, parent, logical, sidechain, True, stamp, pieces,
                     message_id, safe_or_none(message.model), used, agent=agent)  # fmt: skip
    if kind == "user":
        pieces = _user_pieces(record, tools)
        key = None
        if record.isSidechain and parent is None and pieces and pieces[0].kind == BlockKind.PROMPT:
            content = record.message.content if record.message else None
            text = content if isinstance(content, str) else next((b.text for b in content or () if b.text), "")
            key = prompt_key(text or "")
        return Entry(number, uuid, parent, logical, sidechain, True, stamp, pieces,
                     summary=bool(record.isCompactSummary), agent=agent, prompt_key=key)  # fmt: skip
    if kind == "attachment":
        return Entry(number, uuid, parent, logical, sidechain, True, stamp, _attachment_pieces(record.attachment),
                     agent=agent)  # fmt: skip
    # system
    if record.subtype == "compact_boundary":
        return Entry(number, uuid, parent, logical, sidechain, True, stamp, compact=compaction(record), agent=agent)
    note = "microcompaction: older tool results cleared" if record.subtype == "microcompact_boundary" else None
    return Entry(number, uuid, parent, logical, sidechain, True, stamp, note=note, agent=agent)


def parse_lines(lines: Iterable[tuple[int, bytes, bool]], where: str, tools: ParseState | None = None) -> Parsed:
    """Reduce numbered lines to entries. ``where`` locates problems (the file's path). ``tools`` carries
    what earlier lines said (tool names, the folder) when a file is read in parts as it grows."""
    where = safe_text(where)
    tools = ParseState() if tools is None else tools
    entries: list[Entry] = []
    problems: list[str] = []
    unknown: Counter[str] = Counter()
    session, cwd, other = None, tools.cwd, None
    count = 0
    add, decode = entries.append, decode_record  # the loop runs for every line of a session
    for number, line, complete in lines:
        count = number
        try:
            record = decode(line)
        except DecodeError as error:
            start = line.lstrip()[:1]
            if start != b"{":  # not a record cut short: junk, or a whole log written as one JSON array
                what = "a JSON array, not a JSON object" if start == b"[" else "not a JSON object"
                problems.append(f"{where}:{number}: {what}, skipped")
            elif not complete:
                problems.append(f"{where}:{number}: last line is incomplete (a session still being written?)")
            else:
                problems.append(f"{where}:{number}: {error}, skipped")
            continue
        kind = record.kind
        if session is None and record.sessionId:
            session = safe_text(record.sessionId)
        elif other is None and record.sessionId and safe_text(record.sessionId) != session:
            other = safe_text(record.sessionId)
        if cwd is None and record.cwd:
            cwd = safe_text(record.cwd)
            tools.cwd = record.cwd
        if kind in CONVERSATIONAL_TYPES:
            add(_entry(number, record, kind, tools))
        elif kind in IGNORED_TYPES:
            if record.uuid:  # progress records sit on the chain between messages
                add(Entry(number, record.uuid, record.parentUuid, None, bool(record.isSidechain), False))
        else:
            unknown[str(kind)] += 1
            problems.append(unknown_type(where, number, kind))
    unmeasured = len(tools.unmeasured - tools.measured)
    return Parsed(
        tuple(entries), tuple(problems), dict(unknown), session, cwd, tools.task_prompts, count, unmeasured, other
    )
