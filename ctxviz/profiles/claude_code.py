"""The ``claude-code`` profile: Claude Code's context rules as numbers (each with its source) and the
policies built from them. SRC = Claude Code 2.1.88's published source; DOCS = code.claude.com docs."""

from __future__ import annotations

from dataclasses import dataclass

from ctxviz.kinds import AgentName
from ctxviz.profiles.base import Confidence, HookRules, ModelSpec, Profile, SearchCaps, ToolNames, number
from ctxviz.profiles.policies.compaction import RestoreEvidence, SummaryAndRecentFiles, SummarySize
from ctxviz.profiles.policies.instructions import ImportingMemory
from ctxviz.profiles.policies.mentions import ReadThroughTool
from ctxviz.profiles.policies.output import SpillToFile
from ctxviz.profiles.policies.reads import RefuseOverLimit
from ctxviz.profiles.policies.startup import AutoMemoryRule, GitStatusRule, SkillListingRule, StandardStartup
from ctxviz.profiles.policies.subagents import TaskSubagents
from ctxviz.profiles.policies.thresholds import ReserveAndBuffer
from ctxviz.profiles.teaching import CompactionWords, Teaching
from ctxviz.profiles.versions import at_least
from ctxviz.tokens import CHARS_PER_TOKEN

_200K_32K = ModelSpec(window=200_000, max_output=32_000)
_200K_8K = ModelSpec(window=200_000, max_output=8_192)
_SRC: Confidence = "source"
_DOCS: Confidence = "documented"
_GUESS: Confidence = "assumed"
_MEASURED: Confidence = "measured"
# the sessions rules were fitted on: the fit half of the benchmark corpus (benchmarks/fidelity.py)
_FIT = "fit half of benchmarks/fidelity.py's corpus"
_MODELS = {
    "claude-opus-4-6": ModelSpec(window=200_000, max_output=64_000),
    "claude-sonnet-4-6": _200K_32K,
    "claude-opus-4-5": _200K_32K,
    "claude-sonnet-4-5": _200K_32K,
    "claude-haiku-4-5": _200K_32K,
    "claude-sonnet-5": ModelSpec(window=1_000_000, max_output=64_000),
    "claude-sonnet-4": _200K_32K,
    "claude-opus-4-1": _200K_32K,
    "claude-opus-4": _200K_32K,
    "claude-haiku-4": _200K_32K,
    "claude-3-7-sonnet": _200K_32K,
    "claude-3-5-sonnet": _200K_8K,
    "claude-3-5-haiku": _200K_8K,
    "claude-3-opus": ModelSpec(window=200_000, max_output=4_096),
}
_HOOK_CONTEXT_EVENTS = (
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "SubagentStart",
    "Setup",
)


@dataclass(frozen=True, slots=True)
class ClaudeCodeNumbers:
    """Every number of the claude-code profile. Sizes are tokens unless the name says chars/bytes/lines."""

    chars_per_token: int = number(CHARS_PER_TOKEN, _SRC, "tokens.ts roughTokenCountEstimation")
    # a file read whole: its characters (as on disk) per token of the Read result, line numbers included
    file_chars_per_read_token: float = number(
        2.26, _MEASURED, f"{_FIT}: median of the 118 files both read whole and edited (deciles 1.78-2.54)"
    )
    media_estimate_tokens: int = number(2_000, _SRC, "microCompact.ts IMAGE_MAX_TOKEN_SIZE: an image or document")
    # window and thresholds (docs/numbers.md, "The window and its lines")
    models: dict[str, ModelSpec] = number(_MODELS, _SRC, "context.ts getContextWindowForModel, getModelMaxOutputTokens")
    default_model: str = number("claude-sonnet-4-6", _DOCS, "the default model of a Pro/Max plan")
    unknown_model: ModelSpec = number(_200K_32K, _SRC, "context.ts: defaults for an unknown model")
    long_context_window: int = number(1_000_000, _DOCS, "a [1m] model suffix")
    summary_reserve_cap: int = number(20_000, _SRC, "autoCompact.ts MAX_OUTPUT_TOKENS_FOR_SUMMARY")
    # the rules of which version: a session's replay takes the version it recorded (`--set version=X`)
    version: str = number("2.1.88", _SRC, "the version whose source these numbers were read in")
    reserve_capped_since: str = number(
        "2.1.21",
        _DOCS,
        "CHANGELOG 2.1.21: auto-compact no longer triggers too early on models with large output "
        "limits; before it the whole max output (32,000) was reserved: 155k sessions measured up to 2.1.20",
    )
    autocompact_buffer: int = number(13_000, _SRC, "autoCompact.ts AUTOCOMPACT_BUFFER_TOKENS")
    warning_buffer: int = number(20_000, _SRC, "autoCompact.ts WARNING_THRESHOLD_BUFFER_TOKENS")
    blocking_buffer: int = number(3_000, _SRC, "autoCompact.ts MANUAL_COMPACT_BUFFER_TOKENS")
    # a session that opens as another's continuation: its first call carries the earlier conversation
    continuation_first_call: int = number(
        60_000, _MEASURED, f"{_FIT}: first calls were 27k-45k (start-up and prompt) or 68k-152k (resumed)"
    )
    continuation_startup: int = number(
        41_794, _MEASURED, f"{_FIT}: the median first call minus its messages of the 24 sessions not resumed"
    )
    # a start-up past the prefix its calls read from the prompt cache (system prompt, tools): a continued
    # session whose calls show that prefix has at most the prefix plus this
    continuation_uncached: int = number(
        9_396, _MEASURED, f"{_FIT}: the median start-up minus that prefix of 5 sessions of 2.1.5-2.1.17 (6.5k-10.4k)"
    )
    continuation_uncached_later: int = number(
        25_476, _MEASURED, f"{_FIT}: the same of 11 sessions of 2.1.25-2.1.39 (11.4k-26.9k)"
    )
    continuation_uncached_later_since: str = number(
        "2.1.18", _MEASURED, f"{_FIT}: the version after the last with the smaller remainder (2.1.17)"
    )
    # startup ("What loads before your first message"; DOCS illustrative sizes; tools from real /context
    # output, 13.5k–20.5k)
    system_prompt: int = number(4_200, _DOCS, "context-window docs, illustrative size")
    environment: int = number(280, _DOCS, "context-window docs, illustrative size")
    tools: int = number(13_500, _GUESS, "real /context output shows 13.5k–20.5k")
    mcp_deferred_tokens_per_tool: int = number(15, _GUESS, "a tool name in the deferred list")
    mcp_schema_tokens_per_tool: int = number(400, _GUESS, "a typical MCP tool schema")
    git_status_max_chars: int = number(2_000, _SRC, "context.ts MAX_STATUS_CHARS")
    git_status_header: int = number(60, _GUESS, "the git status block's fixed text")
    git_status_truncation_note: int = number(35, _GUESS, "the truncation line")
    git_status_commit_line: int = number(15, _GUESS, "one recent commit line")
    git_status_max_commits: int = number(5, _SRC, "context.ts: git log -n 5")
    memory_import_max_depth: int = number(4, _SRC, "claudemd.ts MAX_INCLUDE_DEPTH = 5 with the root at depth 0")
    memory_names: tuple[str, ...] = number(("CLAUDE.md", "CLAUDE.local.md"), _DOCS, "memory docs")
    memory_load_order: tuple[str, ...] = number(
        ("~/", "CLAUDE.md", ".claude/CLAUDE.md", "<rules>", "CLAUDE.local.md"), _SRC, "claudemd.ts"
    )
    nested_memory_names: tuple[str, ...] = number(("CLAUDE.md", "CLAUDE.local.md"), _DOCS, "memory docs")
    config_folder: str = number(".claude/", _DOCS, "settings docs")
    opt_in_memory_names: tuple[str, ...] = number(("AGENTS.md",), _GUESS, "version-dependent")
    auto_memory_max_lines: int = number(200, _SRC, "memdir.ts MAX_ENTRYPOINT_LINES")
    auto_memory_max_bytes: int = number(25_000, _SRC, "memdir.ts MAX_ENTRYPOINT_BYTES")
    auto_memory_warning: int = number(40, _GUESS, "the truncation warning line")
    skill_listing_budget_fraction: float = number(0.01, _SRC, "1% of the window, in chars")
    skill_description_max_chars: int = number(1_536, _SRC, "since 2.1.105")
    skill_entry_overhead_chars: int = number(4, _SRC, '"- " and ": " around name and description')
    # work ("What the work adds")
    tool_call: int = number(60, _GUESS, "one tool call's envelope")
    read_max_lines: int = number(2_000, _SRC, "FileReadTool MAX_LINES_TO_READ")
    read_max_tokens: int = number(25_000, _SRC, "FileReadTool DEFAULT_MAX_OUTPUT_TOKENS")
    read_max_bytes: int = number(256 * 1024, _SRC, "FileReadTool MAX_OUTPUT_SIZE 0.25 MB")
    read_error: int = number(100, _GUESS, "the offset/limit error message")
    read_unchanged_stub: int = number(40, _SRC, "FILE_UNCHANGED_STUB")
    mention_listing_max_entries: int = number(1_000, _SRC, "attachments.ts: readdir, 1,000 entries")
    rule_triggers: tuple[str, ...] = number(("read", "write", "edit"), _DOCS, "2.1.88 used read only")
    edit_result: int = number(40, _GUESS, "the edit tool's short answer")
    glob_max_results: int = number(100, _SRC, "GlobTool")
    grep_max_results: int = number(250, _SRC, "GrepTool head_limit")
    glob_tokens_per_path: int = number(10, _GUESS, "one path")
    grep_tokens_per_result: int = number(15, _GUESS, "one matching line")
    spill_limits_chars: dict[str, int] = number({"Bash": 30_000, "Grep": 20_000}, _SRC, "toolLimits.ts")
    spill_default_chars: int = number(50_000, _SRC, "toolLimits.ts")
    spill_cap_chars: int = number(50_000, _SRC, "DEFAULT_MAX_RESULT_SIZE_CHARS")
    spill_preview_bytes: int = number(2_000, _SRC, "PREVIEW_SIZE_BYTES")
    spill_wrapper: int = number(50, _GUESS, "the wrapper around a preview")
    turn_results_budget_chars: int = number(200_000, _SRC, "MAX_TOOL_RESULTS_PER_MESSAGE_CHARS")
    hook_output_max_chars: int = number(10_000, _DOCS, "hooks docs")
    hook_stdout_events: tuple[str, ...] = number(("SessionStart", "UserPromptSubmit"), _DOCS, "hooks docs")
    hook_context_events: tuple[str, ...] = number(_HOOK_CONTEXT_EVENTS, _DOCS, "hooks docs")
    subagent_types: tuple[str, ...] = number(
        ("general-purpose", "Explore", "Plan", "statusline-setup", "claude-code-guide"), _DOCS, "subagents docs"
    )
    subagent_system_prompt: int = number(900, _GUESS, "a built-in agent's prompt")
    subagent_trailer: int = number(60, _SRC, "agentId + <usage> trailer")
    subagent_lean_types: tuple[str, ...] = number(("Explore", "Plan"), _SRC, "skip CLAUDE.md and git status")
    subagent_trailerless_types: tuple[str, ...] = number(("Explore", "Plan"), _SRC, "ONE_SHOT_BUILTIN_AGENT_TYPES")
    background_launch: int = number(40, _GUESS, "the background-start notice")
    notification: int = number(60, _GUESS, "a task notification")
    # compaction ("What a compaction keeps"; compact.ts POST_COMPACT_* constants)
    summary_tokens: int = number(4_000, _GUESS, "a typical summary")
    summary_tokens_each: tuple[int, ...] = number(
        (), _MEASURED, "a session's own: each automatic compaction's recorded summary in turn (import sets it)"
    )
    summary_max_tokens: int = number(20_000, _SRC, "COMPACT_MAX_OUTPUT_TOKENS")
    restores_recorded: bool = number(
        False, _MEASURED, "a session's own: its transcript records what each compaction put back, which the replay "
        "then puts back instead of choosing (import sets it)",
    )  # fmt: skip
    restore_known: tuple[tuple[int, tuple[str, ...], tuple[str, ...]], ...] = number(
        (), _MEASURED, "a session's own: for each compaction, the scenario event it came at, the files "
        "the session's later edits show came back whole and those they show did not (import sets it; "
        "importer/restores.py)",
    )  # fmt: skip
    restore_max_files: int = number(5, _SRC, "POST_COMPACT_MAX_FILES_TO_RESTORE")
    restore_never: tuple[str, ...] = number(
        ("CLAUDE.md", "CLAUDE.local.md", "~/.claude/CLAUDE.md", "~/.claude/projects/*/memory/MEMORY.md",
         "~/.claude/plans/*.md"),
        _SRC, "shouldExcludeFromPostCompactRestore: the memory files' own paths and the plan file",
    )  # fmt: skip
    restore_max_tokens_per_file: int = number(5_000, _SRC, "POST_COMPACT_MAX_TOKENS_PER_FILE")
    restore_total_tokens: int = number(50_000, _SRC, "POST_COMPACT_TOKEN_BUDGET")
    file_reference: int = number(40, _GUESS, "a one-line file reference")
    restore_line_number_tokens: int = number(
        0, _SRC, "FileReadTool validateContentTokens: the limit counts the content, not the line numbers a Read "
        "adds (0: a scenario's file sizes are content; an imported one's are Reads: read_line_number_tokens)",
    )  # fmt: skip
    read_line_number_tokens: int = number(
        3, _MEASURED, f"{_FIT}: a Read's line numbers, per line; 3 fits its compactions best of 2, 3, 4 (next call "
        "within 5%: 11, 12, 10 of 37)",
    )  # fmt: skip
    restore_skill_max_tokens: int = number(5_000, _SRC, "POST_COMPACT_MAX_TOKENS_PER_SKILL")
    restore_skills_total_tokens: int = number(25_000, _SRC, "POST_COMPACT_SKILLS_TOKEN_BUDGET")
    task_status: int = number(40, _GUESS, "a still-running task line")


CLAUDE_CODE = ClaudeCodeNumbers()


def build(n: ClaudeCodeNumbers) -> Profile:
    spill = SpillToFile(
        limits_chars=n.spill_limits_chars,
        default_chars=n.spill_default_chars,
        cap_chars=n.spill_cap_chars,
        preview_bytes=n.spill_preview_bytes,
        wrapper=n.spill_wrapper,
        turn_budget_chars=n.turn_results_budget_chars,
        chars_per_token=n.chars_per_token,
    )
    skills = SkillListingRule(
        n.skill_listing_budget_fraction, n.skill_description_max_chars, n.skill_entry_overhead_chars, n.chars_per_token
    )
    return Profile(
        name=AgentName.CLAUDE_CODE,
        title="Claude Code",
        reply_label="Claude's reply",
        teaching=teaching(n),
        numbers=n,
        build=build,
        models=n.models,
        model_prefixes=("claude-",),
        unknown_model=n.unknown_model,
        long_context=("[1m]", n.long_context_window),
        tools=ToolNames("Read", "Edit", "Write", "Grep", "Glob", "Bash", "Agent", "Skill", mcp_separator="__"),
        search=SearchCaps(n.glob_max_results, n.grep_max_results, n.glob_tokens_per_path, n.grep_tokens_per_result),
        hooks=HookRules(
            n.hook_context_events,
            n.hook_stdout_events,
            n.hook_output_max_chars,
            n.spill_preview_bytes,
            spill.preview_tokens(),
        ),
        rule_triggers=n.rule_triggers,
        thresholds=ReserveAndBuffer(
            n.summary_reserve_cap if at_least(n.version, n.reserve_capped_since) else None,
            n.autocompact_buffer,
            n.warning_buffer,
            n.blocking_buffer,
        ),
        startup=StandardStartup(
            system_prompt=n.system_prompt,
            environment=n.environment,
            tools=n.tools,
            mcp_deferred_tokens_per_tool=n.mcp_deferred_tokens_per_tool,
            mcp_schema_tokens_per_tool=n.mcp_schema_tokens_per_tool,
            git_status=GitStatusRule(
                n.git_status_max_chars,
                n.git_status_header,
                n.git_status_truncation_note,
                n.git_status_commit_line,
                n.git_status_max_commits,
                n.chars_per_token,
            ),
            auto_memory=AutoMemoryRule(n.auto_memory_max_lines, n.auto_memory_max_bytes, n.auto_memory_warning),
            skills=skills,
        ),
        instructions=ImportingMemory(
            names=n.memory_names,
            load_order=n.memory_load_order,
            nested_names=n.nested_memory_names,
            config_folder=n.config_folder,
            opt_in_names=n.opt_in_memory_names,
            import_max_depth=n.memory_import_max_depth,
        ),
        mention=ReadThroughTool(n.tool_call, n.mention_listing_max_entries, n.glob_tokens_per_path),
        reads=RefuseOverLimit(
            n.read_max_lines, n.read_max_tokens, n.read_max_bytes, n.read_error, n.read_unchanged_stub
        ),
        output=spill,
        compaction=SummaryAndRecentFiles(
            summary=SummarySize(n.summary_tokens, n.summary_max_tokens, tuple(n.summary_tokens_each)),
            max_files=n.restore_max_files,
            max_tokens_per_file=n.restore_max_tokens_per_file,
            total_tokens=n.restore_total_tokens,
            file_reference=n.file_reference,
            skill_max_tokens=n.restore_skill_max_tokens,
            skills_total_tokens=n.restore_skills_total_tokens,
            task_status=n.task_status,
            skills=skills,
            line_number_tokens=n.restore_line_number_tokens,
            restores_recorded=n.restores_recorded,
            never_restored=n.restore_never,
            known=tuple(RestoreEvidence(event, tuple(b), tuple(nb)) for event, b, nb in n.restore_known),
        ),
        subagents=TaskSubagents(
            types=n.subagent_types,
            prompt_tokens=n.subagent_system_prompt,
            trailer_tokens=n.subagent_trailer,
            lean_types=n.subagent_lean_types,
            trailerless_types=n.subagent_trailerless_types,
        ),
    )


def teaching(n: ClaudeCodeNumbers) -> Teaching:
    """Claude Code in its own words: its compaction re-reads recent files and skills; its notes' jargon."""
    return Teaching(
        CompactionWords(
            summary="Summary",
            drops="every message, tool result and reply; path-scoped rules until a matching file is touched again",
            restored_files=(n.restore_max_files, n.restore_max_tokens_per_file),
            skills_back=(n.restore_skill_max_tokens, n.restore_skills_total_tokens),
            instructions_reread="CLAUDE.md and memory",
        ),
        words={
            "stub": "The short answer Read gives for a file it already read and that has not changed since.",
            "spilled preview": "A tool result too big for the context: saved to a file; Claude sees its first "
            f"{n.spill_preview_bytes:,} bytes.",
            "reinjected": "Put back after a compaction, read fresh from disk (CLAUDE.md, rules, the skill listing).",
            "deferred (MCP)": "Only the tool's name is loaded; its full description loads when Claude first needs it.",
            "additionalContext": "The field a hook's JSON answer uses to add text to Claude's context.",
        },
    )


PROFILE = build(CLAUDE_CODE)
