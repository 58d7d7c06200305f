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
from msgspec import Raw, Struct

from ctxviz.kinds import RestoredPiece
from ctxviz.profiles.limits import rounded_tokens, utf16_length
from ctxviz.transcripts.claude_code.parse import Entry
from ctxviz.transcripts.claude_code.records import SUBAGENT_TOOLS, Content, DecodeError, Record, decode_record

READ_UNCHANGED = "File unchanged since last read"


class ToolArgs(Struct, frozen=True):
    """The tool_use input fields the importer maps onto scenario events."""

    file_path: str | None = None
    notebook_path: str | None = None
    path: str | None = None
    offset: int | None = None
    limit: int | None = None
    pages: str | None = None
    command: str | None = None
    pattern: str | None = None
    skill: str | None = None
    subagent_type: str | None = None
    description: str | None = None
    run_in_background: bool | None = None


class _FileInfo(Struct, frozen=True):
    numLines: int | None = None
    startLine: int | None = None
    totalLines: int | None = None
    content: str | None = None  # the text read (without the line numbers the Read adds)


class _ToolResultInfo(Struct, frozen=True):
    """``toolUseResult``: a Read's line range and text, an Edit's file before the change and its old and
    new strings, a Write's text, a Task's agent."""

    file: _FileInfo | None = None
    originalFile: str | None = None
    oldString: str | None = None
    newString: str | None = None
    replaceAll: bool | None = None
    agentId: str | None = None
    content: Raw = Raw()  # Write: the written text


class _ResultFlag(Struct, frozen=True):
    tool_use_id: str | None = None
    is_error: bool | None = None


class _FlagMessage(Struct, frozen=True):
    content: list[_ResultFlag] | str | None = None


class _Output(Struct, frozen=True):
    output_tokens: int | None = None
    cache_read_input_tokens: int | None = None


class _OutputMessage(Struct, frozen=True):
    usage: _Output | None = None


class _CallFacts(Struct, frozen=True):
    """Of an API call's record: the Claude Code version that wrote it (the replay takes that version's
    rules), the output tokens recorded (Claude Code's own count before the next call adds them) and what
    the prompt cache held (a prefix read from it tells how much of the start-up other calls shared)."""

    version: str | None = None
    message: _OutputMessage | None = None


class _FlagRecord(Struct, frozen=True):
    """Only the ``is_error`` flags of a user record's tool results (the shared record type omits them)."""

    message: _FlagMessage | None = None


class _PlanRecord(Struct, frozen=True):
    """A prompt that starts work on a plan accepted in plan mode records the plan (its plan file's text)."""

    planContent: str | None = None


class _RestoredFile(Struct, frozen=True):
    content: str | None = None


class _RestoredContent(Struct, frozen=True):
    file: _RestoredFile | None = None


class _RestoredSkill(Struct, frozen=True):
    name: str | None = None
    content: str | None = None


class _RestoreAttachment(Struct, frozen=True):
    """An attachment that puts back what a compaction kept (newer Claude Code writes them after the
    boundary): a file with its text, a file reference, the plan with its text, the invoked skills."""

    type: str | None = None
    filename: str | None = None
    content: Raw = Raw()  # a file's: {"type": "text", "file": {"content": ...}}; other attachments: a string
    planFilePath: str | None = None
    planContent: str | None = None
    skills: list[_RestoredSkill] | None = None


class _RestoreRecord(Struct, frozen=True):
    attachment: _RestoreAttachment | None = None


# what Claude Code sends for a file reference (its source, 2.1.42 to 2.1.110)
_REFERENCE_NOTE = (
    "Note: {path} was read before the last conversation was summarized, but the contents are too large to "
    "include. Use Read tool if you need to access it."
)
# Claude Code's attachment types for what a compaction puts back
_RESTORE_TYPES = {
    "file": RestoredPiece.FILE,
    "compact_file_reference": RestoredPiece.FILE_REFERENCE,
    "plan_file_reference": RestoredPiece.PLAN,
    "invoked_skills": RestoredPiece.SKILLS,
}
_FLAGS = msgspec.json.Decoder(_FlagRecord)
_RESTORE = msgspec.json.Decoder(_RestoreRecord)
_RESTORED_CONTENT = msgspec.json.Decoder(_RestoredContent)
_PLAN = msgspec.json.Decoder(_PlanRecord)
_CALL_FACTS = msgspec.json.Decoder(_CallFacts)
_ARGS = msgspec.json.Decoder(ToolArgs)
_RESULT_INFO = msgspec.json.Decoder(_ToolResultInfo)


def _args(raw: Raw) -> ToolArgs:
    try:
        return _ARGS.decode(raw) if raw else ToolArgs()
    except msgspec.DecodeError:
        return ToolArgs()


def _result_info(raw: Raw) -> _ToolResultInfo:
    try:
        return _RESULT_INFO.decode(raw) if raw and bytes(raw)[:1] == b"{" else _ToolResultInfo()
    except msgspec.DecodeError:
        return _ToolResultInfo()


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


def _call_facts(raw: bytes) -> _CallFacts:
    try:
        return _CALL_FACTS.decode(raw)
    except msgspec.DecodeError:
        return _CallFacts()


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


def _file_after(use: ToolUse, info: _ToolResultInfo) -> tuple[int, int] | None:
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


def _raw_text(raw: Raw) -> str:
    """The text of a tool result (a JSON string or a list of text blocks), for its first characters."""
    try:
        value = msgspec.json.decode(raw) if raw else ""
    except msgspec.DecodeError:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "\n".join(str(b.get("text", "")) for b in value if isinstance(b, dict))
    return ""


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
                use = ToolUse(block.id, block.name, _args(block.input), len(block.name) + len(block.input))
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
                message = _FLAGS.decode(raw).message
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
        plan, prompt = _PLAN.decode(raw).planContent, self.current.items[-1]
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
        use.result_head = _raw_text(block.content)[:200] if len(block.content) < 400 else use.result_head
        use.error = block.tool_use_id in self.failed or use.result_head.lstrip().startswith("<tool_use_error>")
        info = _result_info(record.toolUseResult)
        if use.name == "Read" and (use.args.offset is not None or use.args.limit is not None):
            use.partial_read = True
        if use.name == "Read" and info.file is not None:
            whole = info.file.totalLines is None or (info.file.numLines or 0) >= info.file.totalLines
            use.partial_read = not whole or bool(use.args.offset or use.args.limit)
            use.lines = info.file.numLines
            use.total_lines = info.file.totalLines
        if info.originalFile is not None:
            use.file_chars = len(info.originalFile)
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
            attachment = _RESTORE.decode(raw).attachment
        except msgspec.DecodeError:
            return False
        piece = _RESTORE_TYPES.get(attachment.type or "") if attachment is not None else None
        if attachment is None or piece is None:
            return False
        if piece is RestoredPiece.FILE:
            text = _restored_file_text(attachment.content)
            label, chars = attachment.filename or "file", utf16_length(text)
        elif piece is RestoredPiece.FILE_REFERENCE:
            label = attachment.filename or "file"
            chars = utf16_length(_REFERENCE_NOTE.format(path=label))
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


def _restored_file_text(raw: Raw) -> str:
    if not raw or bytes(raw)[:1] != b"{":
        return ""
    try:
        content = _RESTORED_CONTENT.decode(raw)
    except msgspec.DecodeError:
        return ""
    return content.file.content or "" if content.file is not None else ""


def is_unchanged_stub(use: ToolUse) -> bool:
    return use.name == "Read" and use.result_head.lstrip().startswith(READ_UNCHANGED)
