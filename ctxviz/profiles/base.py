"""A profile is one agent's context rules as data. The engine reads every number from here; a scenario may
override any of them under ``profile:``. No agent name appears in the engine's logic.

Plain frozen dataclasses, not pydantic models: the transcript reader needs the window arithmetic and
should not pay for importing pydantic. Overrides are validated at the scenario edge (scenario/check.py).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class ModelSpec:
    window: int
    max_output: int


@dataclass(frozen=True, slots=True)
class Profile:
    """Every parameter of the context rules. Sizes are tokens unless the name says chars/bytes/lines."""

    name: str
    chars_per_token: int

    # §1 window and thresholds
    models: dict[str, ModelSpec]
    unknown_model: ModelSpec
    long_context_window: int
    summary_reserve_cap: int
    autocompact_buffer: int
    warning_buffer: int
    blocking_buffer: int

    # §2 startup
    system_prompt: int
    environment: int
    tools: int
    mcp_deferred_tokens_per_tool: int
    mcp_schema_tokens_per_tool: int
    git_status_max_chars: int
    git_status_header: int
    git_status_truncation_note: int
    git_status_commit_line: int
    git_status_max_commits: int
    memory_import_max_depth: int
    memory_load_order: tuple[str, ...]  # "~/…" = the user's files, "<rules>" = unscoped rules
    nested_memory_names: tuple[str, ...]  # memory files in a subfolder, loaded when it is touched
    config_folder: str  # the agent's own folder in a project (its memory files there are not "nested")
    opt_in_memory_names: tuple[str, ...]  # loaded only when the scenario says so (setup.agents_md)
    auto_memory_max_lines: int
    auto_memory_max_bytes: int
    auto_memory_warning: int
    skill_listing_budget_fraction: float
    skill_description_max_chars: int
    skill_entry_overhead_chars: int

    # §3 work
    tool_call: int
    read_max_lines: int
    read_max_tokens: int
    read_max_bytes: int
    read_error: int
    read_unchanged_stub: int
    rule_triggers: tuple[str, ...]
    edit_result: int
    glob_max_results: int
    grep_max_results: int
    glob_tokens_per_path: int
    grep_tokens_per_result: int
    spill_limits_chars: dict[str, int]
    spill_default_chars: int
    spill_cap_chars: int
    spill_preview_bytes: int
    spill_wrapper: int
    turn_results_budget_chars: int
    hook_output_max_chars: int
    hook_stdout_events: tuple[str, ...]
    hook_context_events: tuple[str, ...]
    subagent_system_prompt: int
    subagent_trailer: int
    subagent_lean_types: tuple[str, ...]
    subagent_trailerless_types: tuple[str, ...]
    background_launch: int
    notification: int

    # §4 compaction
    summary_tokens: int
    summary_max_tokens: int
    restore_max_files: int
    restore_max_tokens_per_file: int
    restore_total_tokens: int
    file_reference: int
    restore_skill_max_tokens: int
    restore_skills_total_tokens: int
    task_status: int
