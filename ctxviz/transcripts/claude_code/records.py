"""The shape of a Claude Code transcript line, as far as ctxviz needs it, decoding one line, and the
rules every pass over the lines applies (which record is a call, what names it, what a compaction says).

Only the fields ctxviz reads are declared: msgspec skips everything else without building Python
objects, which is most of the cost of a transcript (see benchmarks/transcripts.py). Bulky content
(tool results, tool inputs, thinking) is kept as ``Raw`` bytes: its length is all the size estimate
needs, and it is never decoded into strings. One declaration serves both passes: the timeline's
``Record`` and the sessions summary's lighter ``CountedRecord`` share ``RecordHead``'s fields and differ
only in what they keep of a message's content (decoded blocks, or its bytes).
"""

from __future__ import annotations

from typing import Annotated

import msgspec
from msgspec import Raw, Struct

from ctxviz.tokens import MAX_CALL_TOKENS

EMPTY = Raw()  # an absent (or null) bulky field: length 0

SYNTHETIC_MODEL = "<synthetic>"  # Claude Code's locally made assistant records (errors): not API calls

# Record types Claude Code writes that carry nothing for the window (see docs/numbers.md, "Reading a real transcript").
IGNORED_TYPES = frozenset(
    {
        "progress", "summary", "file-history-snapshot", "queue-operation", "custom-title", "ai-title",
        "last-prompt", "task-summary", "tag", "agent-name", "agent-color", "agent-setting", "pr-link",
        "attribution-snapshot", "speculation-accept", "mode", "worktree-state", "content-replacement",
        "marble-origami-commit", "marble-origami-snapshot",
    }
)  # fmt: skip
SUBAGENT_TOOLS = frozenset({"Task", "Agent"})


# A call's token count as an API can return it: a count outside is damage, and its line is reported and
# skipped like any other damaged line (never shown as measured, never an overflow).
Tokens = Annotated[int, msgspec.Meta(ge=0, le=MAX_CALL_TOKENS)]


class Usage(Struct, frozen=True):
    input_tokens: Tokens | None = 0
    cache_creation_input_tokens: Tokens | None = 0
    cache_read_input_tokens: Tokens | None = 0

    @property
    def context(self) -> int | None:
        """What was in the window at this call (output tokens are not; they count on the next call), or
        None when no input count is recorded at all (``null`` fields measure nothing, not 0)."""
        parts = (self.input_tokens, self.cache_creation_input_tokens, self.cache_read_input_tokens)
        if all(part is None for part in parts):
            return None
        return sum(part or 0 for part in parts)


class Content(Struct, frozen=True):
    """One content block of a message: text, thinking, tool_use, tool_result, image, …"""

    type: str = ""
    text: str | None = None
    thinking: Raw = EMPTY
    id: str | None = None  # tool_use
    name: str | None = None  # tool_use
    input: Raw = EMPTY  # tool_use
    tool_use_id: str | None = None  # tool_result
    content: Raw = EMPTY  # tool_result (a string or a list of blocks)
    source: Raw = EMPTY  # image / document


class MessageHead(Struct, frozen=True):
    """What every pass reads of a message: its role, the call it belongs to, the model and the usage."""

    role: str | None = None
    id: str | None = None
    model: str | None = None
    usage: Usage | None = None


class Message(MessageHead, frozen=True):
    content: str | list[Content] | None = None


class MessageBytes(MessageHead, frozen=True):
    content: Raw = EMPTY  # searched (subagent calls, the warm-up prompt), decoded only where needed


class CompactMetadata(Struct, frozen=True):
    trigger: str | None = None
    preTokens: int | None = None
    postTokens: int | None = None


class RecordHead(Struct, frozen=True):
    """One transcript line as every pass reads it: its type, its place in the uuid tree, its session,
    time and message. ``type`` is missing in some minimal files; ``message.role`` stands in."""

    type: str | None = None
    subtype: str | None = None
    uuid: str | None = None
    parentUuid: str | None = None
    logicalParentUuid: str | None = None
    isSidechain: bool | None = False
    sessionId: str | None = None
    cwd: str | None = None
    timestamp: str | None = None
    message: MessageHead | None = None
    compactMetadata: CompactMetadata | None = None

    @property
    def kind(self) -> str | None:
        if self.type is not None:
            return self.type
        return self.message.role if self.message is not None else None


class Record(RecordHead, frozen=True):
    """A line as the timeline reads it: every content block, and what names a subagent or a summary."""

    isMeta: bool | None = False
    isCompactSummary: bool | None = False
    agentId: str | None = None
    message: Message | None = None
    attachment: Raw = EMPTY
    toolUseResult: Raw = EMPTY
    content: Raw = EMPTY  # system records' text


class CountedRecord(RecordHead, frozen=True):
    """A line as the sessions summary reads it: the message's content left as bytes."""

    message: MessageBytes | None = None


# Record types that are part of the conversation; IGNORED_TYPES carry nothing for the window, any other
# type is unknown (reported, skipped).
CONVERSATIONAL_TYPES = frozenset({"user", "assistant", "system", "attachment"})


def call_id(message: MessageHead, line: int) -> str | None:
    """What names the API call an assistant message belongs to (its records repeat its usage), or None
    for a record Claude Code made itself (an error shown as a reply): no call."""
    if message.model == SYNTHETIC_MODEL:
        return None
    return message.id or f"line:{line}"


def compaction(record: RecordHead) -> tuple[str, int | None, int | None]:
    """A compaction boundary's trigger (``auto`` when not recorded), tokens before and after."""
    meta = record.compactMetadata
    return (meta.trigger or "auto", meta.preTokens, meta.postTokens) if meta else ("auto", None, None)


def unknown_type(where: str, line: int, kind: str | None) -> str:
    return f"{where}:{line}: record type {kind!r} not known to ctxviz, skipped"


class Attachment(Struct, frozen=True):
    """The newer ``{"type": "attachment", "attachment": {...}}`` record's payload, decoded on demand."""

    type: str = ""
    path: str | None = None
    filename: str | None = None
    hookName: str | None = None
    hookEvent: str | None = None
    content: Raw = EMPTY


class ToolInput(Struct, frozen=True):
    """The few tool_use input fields that name what a call touched (its label)."""

    file_path: str | None = None
    notebook_path: str | None = None
    path: str | None = None
    command: str | None = None
    pattern: str | None = None
    url: str | None = None
    query: str | None = None
    description: str | None = None
    prompt: str | None = None
    subagent_type: str | None = None
    skill: str | None = None


class SubagentResult(Struct, frozen=True):
    """The Task tool's ``toolUseResult``: names the subagent file (newer layout)."""

    agentId: str | None = None


_RECORD = msgspec.json.Decoder(Record)
_ATTACHMENT = msgspec.json.Decoder(Attachment)
_TOOL_INPUT = msgspec.json.Decoder(ToolInput)
_SUBAGENT_RESULT = msgspec.json.Decoder(SubagentResult)

DecodeError = msgspec.DecodeError  # ValidationError is a subclass: a field of the wrong type


def decode_record(line: bytes) -> Record:
    """Decode one line; raises ``DecodeError`` (malformed JSON, or a field of an unexpected type)."""
    return _RECORD.decode(line)


def decode_attachment(raw: Raw) -> Attachment | None:
    if not raw:
        return None
    try:
        return _ATTACHMENT.decode(raw)
    except msgspec.DecodeError:
        return None


def decode_tool_input(raw: Raw) -> ToolInput:
    if not raw:
        return ToolInput()
    try:
        return _TOOL_INPUT.decode(raw)
    except msgspec.DecodeError:  # input is not an object: no label, still sized by its bytes
        return ToolInput()


def subagent_id(raw: Raw) -> str | None:
    if not raw:
        return None
    try:
        return _SUBAGENT_RESULT.decode(raw).agentId
    except msgspec.DecodeError:  # toolUseResult is often a plain string
        return None


class _Head(Struct, frozen=True):
    sessionId: str | None = None
    cwd: str | None = None


_HEAD = msgspec.json.Decoder(_Head)


def decode_head(line: bytes) -> tuple[str | None, str | None] | None:
    """The sessionId and cwd of one line (None when it is not a JSON object)."""
    try:
        head = _HEAD.decode(line)
    except msgspec.DecodeError:
        return None
    return head.sessionId, head.cwd
