"""The fields of Claude Code's records that the importer reads: a tool call's arguments, a tool result's
facts (a Read's text and lines, an Edit's file before it, a Write's text, a Task's agent), the error flags,
what an API call's record says of its version, output and cache, an accepted plan, and the attachments
newer versions write for what a compaction put back. Decoded on demand with msgspec; a record that does
not decode gives the empty facts."""

from __future__ import annotations

import msgspec
from msgspec import Raw, Struct

from ctxviz.kinds import RestoredPiece


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


class ToolResultInfo(Struct, frozen=True):
    """``toolUseResult``: a Read's line range and text, an Edit's file before the change and its old and
    new strings, a Write's text, a Task's agent."""

    file: _FileInfo | None = None
    originalFile: str | None = None
    oldString: str | None = None
    newString: str | None = None
    replaceAll: bool | None = None
    agentId: str | None = None
    content: Raw = Raw()  # Write: the written text
    type: str | None = None  # Write: "create" (a new file) or "update" (over an existing one)


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


class CallFacts(Struct, frozen=True):
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
REFERENCE_NOTE = (
    "Note: {path} was read before the last conversation was summarized, but the contents are too large to "
    "include. Use Read tool if you need to access it."
)
# Claude Code's attachment types for what a compaction puts back
RESTORE_TYPES = {
    "file": RestoredPiece.FILE,
    "compact_file_reference": RestoredPiece.FILE_REFERENCE,
    "plan_file_reference": RestoredPiece.PLAN,
    "invoked_skills": RestoredPiece.SKILLS,
}
FLAGS = msgspec.json.Decoder(_FlagRecord)
RESTORE = msgspec.json.Decoder(_RestoreRecord)
RESTORED_CONTENT = msgspec.json.Decoder(_RestoredContent)
PLAN = msgspec.json.Decoder(_PlanRecord)
CALL_FACTS = msgspec.json.Decoder(CallFacts)
_ARGS = msgspec.json.Decoder(ToolArgs)
_RESULT_INFO = msgspec.json.Decoder(ToolResultInfo)


def tool_args(raw: Raw) -> ToolArgs:
    try:
        return _ARGS.decode(raw) if raw else ToolArgs()
    except msgspec.DecodeError:
        return ToolArgs()


def result_info(raw: Raw) -> ToolResultInfo:
    try:
        return _RESULT_INFO.decode(raw) if raw and bytes(raw)[:1] == b"{" else ToolResultInfo()
    except msgspec.DecodeError:
        return ToolResultInfo()


def restored_file_text(raw: Raw) -> str:
    """A restored file attachment's text (empty when the record holds none)."""
    if not raw or bytes(raw)[:1] != b"{":
        return ""
    try:
        content = RESTORED_CONTENT.decode(raw)
    except msgspec.DecodeError:
        return ""
    return content.file.content or "" if content.file is not None else ""


def result_text(raw: Raw) -> str:
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
