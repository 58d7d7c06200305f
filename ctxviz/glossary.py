"""What every word, colour and glyph ctxviz shows means, in one sentence each, for someone who has never
heard of a context window. Plain data keyed by the vocabularies the views use (block kinds, bar segments,
step kinds, thresholds, compaction fates), plus the few pure functions that put a block's own numbers
into its explanation. No Textual, no Rich: the TUI and ``ctxviz run --why`` both read it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from ctxviz.kinds import BlockKind as B
from ctxviz.kinds import StepKind as S
from ctxviz.timeline import Block


@dataclass(frozen=True, slots=True)
class Entry:
    term: str
    meaning: str


# How every view says that a real session's System prompt figure also holds the tools, memory and skills
# its log does not itemise (``ctxviz context``, the TUI's legend, /context view and compaction story).
UNRECORDED_SPLIT = "with tools, memory, skills: not recorded apart"

# The bar and legend's segments (keys as in ``ctxviz.tui.segments``), and the two derived rows.
SEGMENTS: Mapping[str, str] = {
    "system-prompt": "The agent's instructions to the model, plus facts about your machine; sent every time.",
    "system-tools": "The descriptions of the built-in tools (Read, Edit, Bash, …) the model may call; sent every time.",
    "mcp-tools": "Tools from MCP servers you connected; usually just their names until the model needs one.",
    "custom-agents": "One line per custom subagent you defined, so the model knows it can hand work to it.",
    "memory-files": "CLAUDE.md files, unscoped rules and auto memory: your standing instructions, loaded at startup.",
    "skills": "One short description per skill the model may invoke on its own (the skill listing).",
    "prompts": "What you typed, including ! shell commands; what an @-mention sends counts under Files.",
    "replies": "What the model wrote back, and the tool calls it made (each call costs a few dozen tokens).",
    "file-reads": "Contents of files the model read or edited, and what an @-mention of a file sent; your "
    "terminal shows only a one-line notice.",
    "rules": "Path-scoped rules and CLAUDE.md files in subfolders: they load when a matching file is touched.",
    "hooks": "Text your hooks added (only what a hook hands back as context; plain output goes to a log).",
    "tool-output": "Results of searches, shell commands and other tools; very large ones are cut to a short preview.",
    "subagents": "The final answer a subagent sent back; its own reading happened in its own window.",
    "skill-bodies": "The full instructions of a skill that was invoked (by you or by the model).",
    "summary": "After a compaction: the summary that replaced the conversation so far.",
    "overhead": "In a real session: growth a call measured that the log does not itemise (reminders, hook "
    "context); the first call's is in System prompt.",
    "other": "Messages of a kind ctxviz has no colour for.",
    "free": "Room left for the conversation to grow before auto-compaction starts.",
    "reserve": "Space kept free on purpose, so there is always room to write a compaction summary.",
}

THRESHOLDS: Mapping[str, str] = {
    "warning": "When the context reaches this, the agent's indicator turns yellow: compaction is getting close.",
    "auto-compact": "Reaching this before a model call makes the agent compact: the history is summarised.",
    "blocking": "With auto-compaction off, a request above this is refused: you must /compact or /clear.",
    "buffer": "The window minus the auto-compact line: what /context shows as the Autocompact buffer.",
}

# What happened to a piece of content at a compaction (the words in the compaction table).
FATES: Mapping[str, str] = {
    "kept": "Stays as it was: sent with every request, or recent history this agent keeps verbatim.",
    "reinjected": "Removed with the history, then put back from disk right after the summary.",
    "restored": "A recently used file, read again after the summary, within the agent's limits.",
    "truncated": "Put back, but only its start: it was over the per-item cap.",
    "referenced": "Too big to put back: a one-line reference tells the model the file exists.",
    "dropped": "Gone; it comes back only if the trigger that loaded it happens again.",
    "summarised": "Replaced by the summary: only what the summary says about it remains.",
    "new": "Written by the compaction itself: the summary that starts the new history.",
    "not-restored": "Summarised with the rest (its tokens are counted there) and not brought back after it.",
}

# One sentence per block kind: what this piece of content is. The startup steps use these as notes.
BLOCK_KINDS: Mapping[B, str] = {
    B.SYSTEM_PROMPT: "The coding agent's own instructions to the model; always first, never shown to you.",
    B.ENVIRONMENT: "Facts about where the agent runs: working folder, platform, whether it is a git repository.",
    B.TOOLS: "The built-in tool definitions (Read, Edit, Bash, Grep, …): every request carries them, and they "
    "are usually the biggest thing at startup.",
    B.MCP_TOOLS: "Tools from an MCP server. Deferred by default: only their names load now (about 15 tokens "
    "each); a tool's full description loads the first time the model looks it up.",
    B.AGENTS: "A short description of each custom subagent, so the model knows what it can delegate.",
    B.MEMORY_FILE: "A CLAUDE.md (or an unscoped rule): instructions loaded whole at every startup.",
    B.AUTO_MEMORY: "The agent's own notes about your project (MEMORY.md): its first 200 lines or 25 KB load.",
    B.DIRECTORY_TREE: "A listing of the project's folders, sent at startup by some agents.",
    B.SKILL_LISTING: "The name and a one-line description of each skill the model may invoke by itself; the "
    "bodies load only when a skill is used.",
    B.RULE: "A rule file scoped with paths: it loads the first time the model touches a matching file.",
    B.NESTED_MEMORY: "A CLAUDE.md in a subfolder: it loads the first time the model touches a file under it.",
    B.PROMPT: "Your message.",
    B.REPLY: "The model's text answer.",
    B.TOOL_CALL: "The request the model made to a tool (its name and arguments).",
    B.FILE_READ: "A file's contents, as the Read tool returned them.",
    B.EDIT: "An edit the model made: the old and new text.",
    B.TOOL_OUTPUT: "What a tool returned.",
    B.SPILLED_OUTPUT: "A result too big for the context: saved to a file, and only a 2,000-byte preview "
    "(about 550 tokens) plus the file's path enters.",
    B.HOOK_OUTPUT: "Context a hook handed back to the model.",
    B.SKILL_BODY: "The whole SKILL.md of an invoked skill.",
    B.SUBAGENT_RESULT: "The subagent's final answer: the only part of its work that comes back.",
    B.PLAN: "The plan the model wrote in plan mode.",
    B.SUMMARY: "The compaction summary: it replaces the conversation before it.",
    B.RESTORED_FILE: "A file read again right after a compaction.",
    B.FILE_REFERENCE: "A one-line note that a file exists, without its contents (it was too big to restore).",
    B.REPEAT_REFERENCE: "Only under the dedup=sha256 what-if: content the window still holds, sent again as a short "
    "reference (path, sha256) instead of in full.",
    B.MENTION: "What an @-mention of a file sent: its contents, a short stub, or only its path.",
    B.NOTIFICATION: "A note that a background command or subagent finished.",
    B.OVERHEAD: "What a real log does not record: at the first call the system prompt, tools and memory (sent "
    "each request); later, growth a call measured that the log does not itemise.",
}

# What each step kind is (the step list draws each with its own glyph).
STEP_KINDS: Mapping[S, str] = {
    S.STARTUP: "Loaded before your first message: the same every session.",
    S.PROMPT: "You sent a message.",
    S.REPLY: "The model answered in text.",
    S.READ: "The model read a file.",
    S.EDIT: "The model changed part of a file.",
    S.WRITE: "The model wrote a whole file.",
    S.GREP: "The model searched file contents.",
    S.GLOB: "The model listed files by name pattern.",
    S.BASH: "The model ran a shell command.",
    S.TOOL: "The model called another tool (web fetch, an MCP tool, …).",
    S.SUBAGENT: "The model handed a task to a subagent with its own window (press enter to open it).",
    S.SKILL: "A skill was invoked: its instructions load.",
    S.PLAN: "The model wrote a plan.",
    S.COMPACT: "You ran /compact: the history is replaced by a summary.",
    S.AUTO_COMPACT: "The context reached the auto-compact line: the agent compacted by itself.",
    S.CLEAR: "You ran /clear: the history is emptied.",
    S.NOTIFICATION: "A background command or subagent finished, and the model is told.",
    S.NOTE: "Narration only: nothing enters the context.",
    S.API_CALL: "In a real session: one request to the model, with its measured size.",
}

# Words the notes and tables use that a newcomer would not know, explained once.
JARGON: tuple[Entry, ...] = (
    Entry(
        "context window", "Everything the model reads before each answer, counted in tokens (about 4 characters each)."
    ),
    Entry("token", "The unit models count text in: roughly 4 characters of English or ¾ of a word."),
    Entry("compaction", "Replacing the conversation so far with a summary, to free space; /compact or automatic."),
    Entry(
        "deferred (MCP)", "Only the tool's name is loaded; its full description loads when the model first needs it."
    ),
    Entry(
        "disable-model-invocation",
        "A skill setting: the model cannot start the skill itself, so it is not in the listing; only you can run it.",
    ),
    Entry("preTokens", "In a real transcript: how full the context was when a compaction started."),
    Entry("reinjected", "Put back after a compaction, read fresh from disk."),
    Entry("spilled preview", "A tool result too big for the context: the model sees only part of it."),
    Entry("additionalContext", "The field a hook's JSON answer uses to add text to the model's context."),
    Entry("stub", "A short stand-in sent instead of a file's or an output's contents."),
    Entry(
        "estimated / measured",
        "Measured totals come from a real API response; everything else is counted by ctxviz. A ~ marks an"
        " estimate: in a real session, one item's share of a call's measured growth (by its size in characters / 4).",
    ),
)


# The words in a note that call for an explanation (lower case), for each jargon entry.
_TRIGGERS: Mapping[str, tuple[str, ...]] = {
    "deferred (MCP)": ("deferred", "names only"),
    "disable-model-invocation": ("disable-model-invocation", "disable_model_invocation"),
    "preTokens": ("pretokens",),
    "reinjected": ("reinjected", "re-injected"),
    "spilled preview": ("preview",),
    "additionalContext": ("additionalcontext",),
    "stub": ("stub",),
}


def words(own: Mapping[str, str] | None = None) -> list[Entry]:
    """The jargon, each term in an agent's ``own`` meaning where its profile gives one."""
    own = own or {}
    return [Entry(e.term, own.get(e.term, e.meaning)) for e in JARGON]


def terms_in(texts: Iterable[str], own: Mapping[str, str] | None = None) -> list[Entry]:
    """The jargon entries whose words appear in ``texts``, in glossary order, in the agent's ``own`` words."""
    text = " ".join(texts).lower()
    return [e for e in words(own) if any(word in text for word in _TRIGGERS.get(e.term, ()))]


def segment_meaning(key: str) -> str:
    return SEGMENTS.get(key, "")


def fate_meaning(fate: str) -> str:
    return FATES.get(fate, "")


def display_fate(fate: str, kind: str, tokens: int = 1) -> str:
    """The word shown for a compaction fate. Timelines saved before "new" and "not-restored" existed
    called the summary "restored" (or "kept") and a piece left out after it "dropped" with 0 tokens."""
    if kind == "summary":
        return "new"
    return "not-restored" if fate == "dropped" and tokens == 0 else fate


# by plain string too: a transcript's or a JSON timeline's kinds need not be the enums
_BLOCK_BY_VALUE = {str(kind): meaning for kind, meaning in BLOCK_KINDS.items()}
_STEP_BY_VALUE = {str(kind): meaning for kind, meaning in STEP_KINDS.items()}


def block_meaning(kind: str) -> str:
    return _BLOCK_BY_VALUE.get(kind, "")


def step_meaning(kind: str) -> str:
    return _STEP_BY_VALUE.get(kind, "")


def explain_block(block: Block, window: int) -> str:
    """One line about a block with its own numbers: "13,500 tokens (6.8% of the window): …"."""
    meaning = block_meaning(block.kind)
    share = 100 * block.tokens / window if window else 0.0
    figures = f"{block.tokens:,} tokens ({share:.1f}% of the window)"
    return f"{figures}: {meaning}" if meaning else figures
