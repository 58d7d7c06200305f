"""The vocabularies of a Timeline, in one place: which agent it is of, what a step is, what a block is,
what a scenario event is.

StrEnums, so a member equals the string written in ``ctxviz.timeline/1`` JSON (``StepKind.READ == "read"``)
and code that reads timelines from elsewhere (transcripts, JSON) may still compare with plain strings.
"""

from __future__ import annotations

from enum import StrEnum


class AgentName(StrEnum):
    """An agent's name: its profile's (what ``--agent`` and a scenario's ``agent:`` say) and its transcript
    reader's (``Timeline.agent``)."""

    CLAUDE_CODE = "claude-code"
    CODEX = "codex"
    GEMINI_CLI = "gemini-cli"
    OPENCODE = "opencode"
    PI = "pi"
    GROK_BUILD = "grok-build"
    CURSOR = "cursor"
    PAIMON = "paimon"  # a design, not a shipped agent: @-mentions sent once (see the paimon profile)


# The agent a scenario runs under when it names none, and whose reader takes a file no reader recognises.
DEFAULT_AGENT = AgentName.CLAUDE_CODE


class EventKind(StrEnum):
    """A scenario event's kind: the key that names it in the YAML."""

    PROMPT = "prompt"
    REPLY = "reply"
    READ = "read"
    EDIT = "edit"
    WRITE = "write"
    GREP = "grep"
    GLOB = "glob"
    BASH = "bash"
    TOOL = "tool"
    SUBAGENT = "subagent"
    SKILL = "skill"
    PLAN = "plan"
    COMPACT = "compact"
    CLEAR = "clear"
    PARALLEL = "parallel"
    NOTE = "note"


# The events that are tool calls (the only ones a ``parallel:`` group may hold).
TOOL_EVENT_KINDS: tuple[EventKind, ...] = (
    EventKind.READ,
    EventKind.EDIT,
    EventKind.WRITE,
    EventKind.GREP,
    EventKind.GLOB,
    EventKind.BASH,
    EventKind.TOOL,
    EventKind.SUBAGENT,
    EventKind.SKILL,
)


class StepKind(StrEnum):
    """A step's kind: the event kinds that make steps, plus what happens on its own."""

    STARTUP = "startup"
    PROMPT = "prompt"
    REPLY = "reply"
    READ = "read"
    EDIT = "edit"
    WRITE = "write"
    GREP = "grep"
    GLOB = "glob"
    BASH = "bash"
    TOOL = "tool"
    SUBAGENT = "subagent"
    SKILL = "skill"
    PLAN = "plan"
    COMPACT = "compact"
    AUTO_COMPACT = "auto-compact"
    CLEAR = "clear"
    NOTE = "note"
    NOTIFICATION = "notification"
    API_CALL = "api-call"  # transcripts: one model call


class BlockKind(StrEnum):
    """What a block of the window is, finer than its ``/context`` category."""

    SYSTEM_PROMPT = "system-prompt"
    ENVIRONMENT = "environment"
    TOOLS = "tools"
    MCP_TOOLS = "mcp-tools"
    AGENTS = "agents"
    MEMORY_FILE = "memory-file"
    AUTO_MEMORY = "auto-memory"
    SKILL_LISTING = "skill-listing"
    DIRECTORY_TREE = "directory-tree"
    RULE = "rule"
    NESTED_MEMORY = "nested-memory"
    PROMPT = "prompt"
    REPLY = "reply"
    TOOL_CALL = "tool-call"
    FILE_READ = "file-read"
    EDIT = "edit"
    TOOL_OUTPUT = "tool-output"
    SPILLED_OUTPUT = "spilled-output"
    REPEAT_REFERENCE = "repeat-reference"  # the dedup what-if: content still in the window, sent as a reference
    HOOK_OUTPUT = "hook-output"
    SKILL_BODY = "skill-body"
    SUBAGENT_RESULT = "subagent-result"
    PLAN = "plan"
    SUMMARY = "summary"
    RESTORED_FILE = "restored-file"
    FILE_REFERENCE = "file-reference"
    MENTION = "mention"  # what an @-mention sent: a path, a stub, metadata
    NOTIFICATION = "notification"
    OVERHEAD = "overhead"  # transcripts: what the transcript does not record


class Touch(StrEnum):
    """How a file was touched: what path-scoped rules and nested instruction files may load on."""

    READ = "read"
    EDIT = "edit"
    WRITE = "write"


class CostKind(StrEnum):
    """What the audit calls a transcript's unrecorded content (an ``overhead`` block): the start-up the
    first call sent beyond its recorded messages, or a later call's growth that no recorded item explains."""

    STARTUP_OVERHEAD = "startup-overhead"
    UNEXPLAINED_GROWTH = "unexplained-growth"


class FindingKind(StrEnum):
    """What ``ctxviz audit`` found could have been sent less, each with a what-if that replays it."""

    REPEATED_CONTENT = "repeated-content"
    LARGE_OUTPUT = "large-output"
    STALE_READ = "stale-read"
    STARTUP_OVERHEAD = "startup-overhead"
    WINDOW_CHOICE = "window-choice"
    OTHER_AGENT = "other-agent"


class CompactionTrigger(StrEnum):
    """What started a compaction: the agent on its own, the user (``/compact``), or a log that does not say."""

    AUTO = "auto"
    MANUAL = "manual"
    UNKNOWN = "unknown"


class RestoredPiece(StrEnum):
    """What a compaction put back, as a transcript that records it says: a file re-read whole, a file
    only named (too big to put back), the plan, the skills invoked before."""

    FILE = "file"
    FILE_REFERENCE = "file-reference"
    PLAN = "plan"
    SKILLS = "skills"


USER_STEP_KINDS = frozenset({StepKind.PROMPT, StepKind.COMPACT, StepKind.CLEAR})
COMPACTION_STEP_KINDS = frozenset({StepKind.COMPACT, StepKind.AUTO_COMPACT})
# A replayed scenario has no API calls of its own: the model is called after each of these (a prompt,
# or a tool's result) and answers; a reply, a note, a compaction or a /clear is no call of its own.
ANSWERED_STEP_KINDS = frozenset(
    {
        StepKind.PROMPT,
        StepKind.READ,
        StepKind.EDIT,
        StepKind.WRITE,
        StepKind.GREP,
        StepKind.GLOB,
        StepKind.BASH,
        StepKind.TOOL,
        StepKind.SUBAGENT,
        StepKind.SKILL,
        StepKind.PLAN,
        StepKind.NOTIFICATION,
    }
)
