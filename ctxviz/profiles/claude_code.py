"""The ``claude-code`` profile: MECHANICS.md §1–4 as data. Sources for each number are in
shared/research/FACTS-claude-code.md (SRC = the 2.1.88 source; DOCS = code.claude.com docs)."""

from __future__ import annotations

from ctxviz.profiles.base import ModelSpec, Profile

_200K_32K = ModelSpec(window=200_000, max_output=32_000)
_200K_8K = ModelSpec(window=200_000, max_output=8_192)

CLAUDE_CODE = Profile(
    name="claude-code",
    chars_per_token=4,  # Claude Code's own rough estimate (tokens.ts roughTokenCountEstimation)
    # §1 — context.ts getContextWindowForModel / getModelMaxOutputTokens; autoCompact.ts
    models={
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
    },
    unknown_model=_200K_32K,
    long_context_window=1_000_000,  # a "[1m]" model suffix
    summary_reserve_cap=20_000,  # MAX_OUTPUT_TOKENS_FOR_SUMMARY
    autocompact_buffer=13_000,  # AUTOCOMPACT_BUFFER_TOKENS
    warning_buffer=20_000,  # WARNING_THRESHOLD_BUFFER_TOKENS
    blocking_buffer=3_000,  # MANUAL_COMPACT_BUFFER_TOKENS
    # §2 — DOCS-ctx illustrative sizes; tools from real /context output (13.5k–20.5k)
    system_prompt=4_200,
    environment=280,
    tools=13_500,
    mcp_deferred_tokens_per_tool=15,
    mcp_schema_tokens_per_tool=400,
    git_status_max_chars=2_000,  # context.ts MAX_STATUS_CHARS
    git_status_header=60,
    git_status_truncation_note=35,
    git_status_commit_line=15,
    git_status_max_commits=5,
    memory_import_max_depth=4,  # claudemd.ts MAX_INCLUDE_DEPTH = 5 with the root at depth 0
    memory_load_order=("~/", "CLAUDE.md", ".claude/CLAUDE.md", "<rules>", "CLAUDE.local.md"),  # claudemd.ts
    nested_memory_names=("CLAUDE.md", "CLAUDE.local.md"),
    config_folder=".claude/",
    opt_in_memory_names=("AGENTS.md",),  # version-dependent (FACTS §1.3)
    auto_memory_max_lines=200,  # memdir.ts MAX_ENTRYPOINT_LINES
    auto_memory_max_bytes=25_000,  # memdir.ts MAX_ENTRYPOINT_BYTES
    auto_memory_warning=40,
    skill_listing_budget_fraction=0.01,  # 1% of the window, in chars (8,000 for 200k)
    skill_description_max_chars=1_536,  # since 2.1.105
    skill_entry_overhead_chars=4,  # "- " and ": " around name and description
    # §3
    tool_call=60,
    read_max_lines=2_000,  # FileReadTool MAX_LINES_TO_READ
    read_max_tokens=25_000,  # DEFAULT_MAX_OUTPUT_TOKENS
    read_max_bytes=256 * 1024,
    read_error=100,
    read_unchanged_stub=40,  # FILE_UNCHANGED_STUB
    rule_triggers=("read", "write", "edit"),  # 2.1.88 used ("read",)
    edit_result=40,
    glob_max_results=100,
    grep_max_results=250,
    glob_tokens_per_path=10,
    grep_tokens_per_result=15,
    spill_limits_chars={"Bash": 30_000, "Grep": 20_000},  # toolLimits.ts; Read is exempt
    spill_default_chars=50_000,
    spill_cap_chars=50_000,  # DEFAULT_MAX_RESULT_SIZE_CHARS
    spill_preview_bytes=2_000,  # PREVIEW_SIZE_BYTES
    spill_wrapper=50,
    turn_results_budget_chars=200_000,  # MAX_TOOL_RESULTS_PER_MESSAGE_CHARS
    hook_output_max_chars=10_000,
    hook_stdout_events=("SessionStart", "UserPromptSubmit"),
    hook_context_events=(
        "SessionStart",
        "UserPromptSubmit",
        "PreToolUse",
        "PostToolUse",
        "PostToolUseFailure",
        "SubagentStart",
        "Setup",
    ),
    subagent_system_prompt=900,
    subagent_trailer=60,
    subagent_lean_types=("Explore", "Plan"),  # skip CLAUDE.md and git status
    subagent_trailerless_types=("Explore", "Plan"),  # ONE_SHOT_BUILTIN_AGENT_TYPES
    background_launch=40,
    notification=60,
    # §4 — compact.ts POST_COMPACT_* constants
    summary_tokens=4_000,
    summary_max_tokens=20_000,  # COMPACT_MAX_OUTPUT_TOKENS
    restore_max_files=5,
    restore_max_tokens_per_file=5_000,
    restore_total_tokens=50_000,
    file_reference=40,
    restore_skill_max_tokens=5_000,
    restore_skills_total_tokens=25_000,
    task_status=40,
)
