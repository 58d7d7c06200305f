"""A Claude Code session's main chain as the importer needs it: the measured API calls and, between two
calls, what entered the conversation (replies, tool calls with their results, prompts, compactions).

Pure: the chain's entries (from the transcript reader) and the raw lines in, ``Session`` out. Sizes here
are characters of the recorded text; turning them into tokens is the builder's job. One exception: a
tool result also carries Claude Code's own count of it (each of its text blocks at length / 4, rounded),
which only its blocks tell.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import msgspec
from msgspec import Raw

from ctxviz.kinds import RestoredPiece
from ctxviz.profiles.limits import rounded_tokens, utf16_length
from ctxviz.transcripts.claude_code.import_fields import (
    CALL_FACTS,
    FLAGS,
    PLAN,
    REFERENCE_NOTE,
    RESTORE,
    RESTORE_TYPES,
    CallFacts,
    ToolArgs,
    ToolResultInfo,
    restored_file_text,
    result_info,
    result_text,
    tool_args,
)
from ctxviz.transcripts.claude_code.parse import Entry
from ctxviz.transcripts.claude_code.records import SUBAGENT_TOOLS, Content, DecodeError, Record, decode_record

READ_UNCHANGED = "File unchanged since last read"


@dataclass
class ToolUse:
    """One tool call and, once it arrives, its result."""

    id: str
    name: str
    args: ToolArgs
    call_chars: int
    result_chars: int | None = None
    result_counted: int = 0  # Claude Code's own count of the result's text blocks (tokens)
    result_media: int = 0  # its image or document blocks, which that count takes at a fixed size
    result_head: str = ""  # the result's first characters: an error or a "file unchanged" stub
    error: bool = False
    partial_read: bool = False  # a Read of a line range (offset/limit, or a file cut at its line limit)
    file_chars: int | None = None  # the whole file, when the transcript shows it (an Edit's original)
    overwrote: bool = False  # a Write over an existing file (which Claude Code allows only once it was read)
    # (chars, lines) of the whole file as this call left it, where the transcript shows it: the text a
    # whole Read returned, a Write's text, an Edit's original with its change applied
    file_after: tuple[int, int] | None = None
    lines: int | None = None  # the lines a Read returned
    total_lines: int | None = None  # the lines of the whole file, as a Read recorded them
    agent: str | None = None  # a subagent's id
    # sha256 of the result as the transcript records it: the same content sent again has the same digest
    digest: str | None = None


@dataclass
class Reply:
    chars: int


@dataclass
class Tools:
    """The tool calls of one assistant message: more than one runs as a ``parallel`` group."""

    calls: list[ToolUse]


@dataclass
class Prompt:
    text: str
    chars: int
    kind: str  # "prompt" (typed by the person), "meta" (expanded commands, caveats), "hook" (reminders)
    media: bool = False  # an image or a document: its chars are encoded data, not text
    plan_chars: int = 0  # of ``chars``, a plan accepted from plan mode that the prompt carries (its plan file)


@dataclass
class Compaction:
    trigger: str  # "auto" | "manual"
    pre_tokens: int | None
    summary_chars: int = 0
    # the transcript records what this compaction put back (``Restored`` items follow it)
    restores_recorded: bool = False


@dataclass
class Restored:
    """One piece a compaction put back, as the transcript records it after the boundary."""

    piece: RestoredPiece
    label: str  # the file's path, the plan file's path, or the skills' names
    chars: int  # of the text put back: the file's, the reference's note, the plan's, the skills' bodies


Item = Reply | Tools | Prompt | Compaction | Restored


@dataclass
class Segment:
    """What entered between one call and the next; ``used`` is the call that ends it (None: no call)."""

    items: list[Item] = field(default_factory=list)
    used: int | None = None
    line: int | None = None  # the call's line in the file
    output: int | None = None  # the call's output tokens as recorded
    cache_read: int | None = None  # of the call's input, what the API read from its prompt cache


@dataclass(frozen=True)
class Session:
    segments: tuple[Segment, ...]  # segment k ends with call k; a last one may follow the last call
    model: str | None
    cwd: str | None
    session_id: str | None
    version: str | None = None  # the Claude Code version of the last call (a session may span an update)

    @property
    def calls(self) -> list[int]:
        return [s.used for s in self.segments if s.used is not None]


def _text_of(content: str | list[Content] | None) -> str:
    if isinstance(content, str):
        return content
    return "\n".join(b.text for b in content or () if b.type == "text" and b.text)


def _call_facts(raw: bytes) -> CallFacts:
    try:
        return CALL_FACTS.decode(raw)
    except msgspec.DecodeError:
        return CallFacts()


def _counted(raw: Raw) -> tuple[int, int]:
    """Claude Code's own count of a tool result (tokens.ts roughTokenCountEstimationForBlock): a string, or
    each text block, at its length in UTF-16 units / 4, rounded; another block at its JSON's length. Also
    the image and document blocks, which it counts at a fixed size."""
    try:
        value = msgspec.json.decode(raw) if raw else ""
    except msgspec.DecodeError:
        return 0, 0
    if isinstance(value, str):
        return rounded_tokens(utf16_length(value)), 0
    tokens = media = 0
    for block in value if isinstance(value, list) else ():
        kind = block.get("type") if isinstance(block, dict) else None
        if kind in ("image", "document"):
            media += 1
        elif kind == "text":
            tokens += rounded_tokens(utf16_length(str(block.get("text", ""))))
        else:
            tokens += rounded_tokens(utf16_length(msgspec.json.encode(block).decode()))
    return tokens, media


def _text_shape(text: str) -> tuple[int, int]:
    """(chars, lines) of a file's text, its lines as a Read numbers them."""
    return len(text), text.count("\n") + (0 if text.endswith("\n") else 1)


def _file_after(use: ToolUse, info: ToolResultInfo) -> tuple[int, int] | None:
    """The whole file as the call left it, where its result records it (None: it does not)."""
    if use.name == "Read" and not use.partial_read and info.file is not None and info.file.content is not None:
        return _text_shape(info.file.content)
    if use.name == "Write" and info.content:
        try:
            written = msgspec.json.decode(info.content)
        except msgspec.DecodeError:
            return None
        return _text_shape(written) if isinstance(written, str) else None
    if use.name == "Edit" and info.originalFile is not None and info.oldString and info.newString is not None:
        chars, lines = _text_shape(info.originalFile)
        # an Edit replaces the one occurrence of its old string, or each with replace_all
        times = max(1, info.originalFile.count(info.oldString)) if info.replaceAll else 1
        chars += times * (len(info.newString) - len(info.oldString))
        lines += times * (info.newString.count("\n") - info.oldString.count("\n"))
        return chars, max(1, lines)
    return None


class _Builder:
    def __init__(self) -> None:
        self.segments: list[Segment] = [Segment()]
        self.tools: dict[str, ToolUse] = {}
        self.message_group: dict[str, tuple[int, Tools]] = {}
        self.call_segments: dict[str, Segment] = {}  # message id → the segment its call ends
        self.model: str | None = None
        self.version: str | None = None
        self.failed: set[str] = set()  # tool_use ids whose result the current user record marks as an error

    @property
    def current(self) -> Segment:
        return self.segments[-1]

    def assistant(self, entry: Entry, record: Record, raw: bytes) -> None:
        if entry.used is not None:
            facts = _call_facts(raw)
            usage = facts.message.usage if facts.message is not None else None
            output = usage.output_tokens if usage is not None else None
            cache_read = usage.cache_read_input_tokens if usage is not None else None
            called = self.call_segments.get(entry.message_id or "")
            if called is not None:
                # one response, several records: Claude Code's count takes the output of the last one
                called.output = output if output is not None else called.output
            else:
                self.call_segments[entry.message_id or ""] = self.current
                self.current.used, self.current.line, self.current.output = entry.used, entry.line, output
                self.current.cache_read = cache_read
                self.segments.append(Segment())
                self.model = entry.model or self.model
                self.version = facts.version or self.version
        message = record.message
        content = message.content if message is not None else None
        if isinstance(content, str):
            self.current.items.append(Reply(len(content)))
            return
        for block in content or ():
            if block.type == "text" and block.text:
                self.current.items.append(Reply(len(block.text)))
            elif block.type == "thinking" and block.thinking:
                self.current.items.append(Reply(len(block.thinking)))
            elif block.type in ("tool_use", "server_tool_use") and block.name and block.id:
                use = ToolUse(block.id, block.name, tool_args(block.input), len(block.name) + len(block.input))
                self.tools[block.id] = use
                key = entry.message_id or f"line:{entry.line}"
                at, group = self.message_group.get(key, (-1, None))
                if group is None or at != len(self.segments):
                    group = Tools([])
                    self.message_group[key] = (len(self.segments), group)
                    self.current.items.append(group)
                group.calls.append(use)

    def user(self, record: Record, raw: bytes) -> None:
        content = record.message.content if record.message is not None else None
        self.failed = set()
        if b'"is_error":true' in raw:
            try:
                message = FLAGS.decode(raw).message
            except msgspec.DecodeError:
                message = None
            if message is not None and isinstance(message.content, list):
                self.failed = {f.tool_use_id or "" for f in message.content if f.is_error}
        if record.isCompactSummary:
            compaction = next((i for i in reversed(self.current.items) if isinstance(i, Compaction)), None)
            if compaction is None and len(self.segments) == 1:
                # a summary before any call or boundary: the session opens as another's continuation, and
                # its first call carries that summary as history
                text = _text_of(content)
                self.current.items.append(Prompt(text, len(text), "meta"))
                return
            if compaction is None:
                compaction = Compaction("auto", None)
                self.current.items.append(compaction)
            compaction.summary_chars += len(_text_of(content))
            return
        if isinstance(content, str):
            items = len(self.current.items)
            self._prompt(content, bool(record.isMeta))
            if len(self.current.items) > items and b'"planContent"' in raw:
                self._plan(raw)
            return
        for block in content or ():
            if block.type == "text" and block.text:
                self._prompt(block.text, bool(record.isMeta))
            elif block.type == "tool_result":
                self._result(block, record)
            elif block.type in ("image", "document"):
                self.current.items.append(Prompt(f"[{block.type}]", len(block.source), "meta", media=True))

    def _prompt(self, text: str, meta: bool) -> None:
        if not text.strip():
            return
        stripped = text.lstrip()
        kind = (
            "hook" if stripped.startswith("<system-reminder>") else "meta" if meta or stripped.startswith("<") else ""
        )
        self.current.items.append(Prompt(text, utf16_length(text), kind or "prompt"))

    def _plan(self, raw: bytes) -> None:
        """The prompt just added carries the plan its record holds."""
        plan, prompt = PLAN.decode(raw).planContent, self.current.items[-1]
        if plan and isinstance(prompt, Prompt):
            prompt.plan_chars = min(utf16_length(plan), prompt.chars)

    def _result(self, block: Content, record: Record) -> None:
        use = self.tools.get(block.tool_use_id or "")
        if use is None:
            self.current.items.append(Prompt("tool result", len(block.content), "meta"))
            return
        use.result_chars = (use.result_chars or 0) + len(block.content)
        use.digest = hashlib.sha256((use.digest or "").encode() + bytes(block.content)).hexdigest()
        counted, media = _counted(block.content)
        use.result_counted += counted
        use.result_media += media
        use.result_head = result_text(block.content)[:200] if len(block.content) < 400 else use.result_head
        use.error = block.tool_use_id in self.failed or use.result_head.lstrip().startswith("<tool_use_error>")
        info = result_info(record.toolUseResult)
        if use.name == "Read" and (use.args.offset is not None or use.args.limit is not None):
            use.partial_read = True
        if use.name == "Read" and info.file is not None:
            whole = info.file.totalLines is None or (info.file.numLines or 0) >= info.file.totalLines
            use.partial_read = not whole or bool(use.args.offset or use.args.limit)
            use.lines = info.file.numLines
            use.total_lines = info.file.totalLines
        if info.originalFile is not None:
            use.file_chars = len(info.originalFile)
        use.overwrote = use.name == "Write" and info.type == "update"
        if not use.error:
            use.file_after = _file_after(use, info)
        if use.name in SUBAGENT_TOOLS:
            use.agent = info.agentId

    def restored(self, raw: bytes) -> bool:
        """A restore attachment after a boundary (no call since) becomes what the compaction put back;
        False: it is not one, or no compaction precedes it."""
        compaction = next((i for i in reversed(self.current.items) if isinstance(i, Compaction)), None)
        if compaction is None or b'"attachment"' not in raw:
            return False
        try:
            attachment = RESTORE.decode(raw).attachment
        except msgspec.DecodeError:
            return False
        piece = RESTORE_TYPES.get(attachment.type or "") if attachment is not None else None
        if attachment is None or piece is None:
            return False
        if piece is RestoredPiece.FILE:
            text = restored_file_text(attachment.content)
            label, chars = attachment.filename or "file", utf16_length(text)
        elif piece is RestoredPiece.FILE_REFERENCE:
            label = attachment.filename or "file"
            chars = utf16_length(REFERENCE_NOTE.format(path=label))
        elif piece is RestoredPiece.PLAN:
            label, chars = attachment.planFilePath or "plan", utf16_length(attachment.planContent or "")
        else:
            skills = attachment.skills or []
            label = ", ".join(s.name or "skill" for s in skills)
            chars = sum(utf16_length(s.content or "") for s in skills)
        self.current.items.append(Restored(piece, label, chars))
        compaction.restores_recorded = True
        return True

    def boundary(self, entry: Entry) -> None:
        trigger, pre, _ = entry.compact or ("auto", None, None)
        self.current.items.append(Compaction(trigger if trigger == "manual" else "auto", pre))


def build_session(chain: Sequence[Entry], lines: Mapping[int, bytes], cwd: str | None, session: str | None) -> Session:
    """Group the chain's records into segments between calls. A line that no longer decodes is skipped
    (the reader has already reported it)."""
    builder = _Builder()
    for entry in chain:
        if entry.compact is not None:
            builder.boundary(entry)
            continue
        raw = lines.get(entry.line)
        if raw is None or not entry.conversational:
            continue
        try:
            record = decode_record(raw)
        except DecodeError:
            continue
        if record.kind == "assistant":
            builder.assistant(entry, record, raw)
        elif record.kind == "user":
            builder.user(record, raw)
        elif record.kind == "attachment" and builder.restored(raw):
            continue
        elif record.kind == "attachment" and entry.pieces:
            piece = entry.pieces[0]
            builder.current.items.append(Prompt(piece.label, piece.estimate * 4, "hook"))
    segments = builder.segments
    if not segments[-1].items:
        segments.pop()
    return Session(tuple(segments), builder.model, cwd, session, builder.version)


def is_unchanged_stub(use: ToolUse) -> bool:
    return use.name == "Read" and use.result_head.lstrip().startswith(READ_UNCHANGED)
