"""Start-up (docs/numbers.md): startup, exact numbers from the rules and the claude-code profile's parameters."""

from __future__ import annotations

import json
import math

from engine_helpers import (
    STARTUP_200K,
    P,
    blocks_of_kind,
    hooks_at_and_over_the_cap,
    steps_of_kind,
    timeline,
    used_after_startup,
)

from ctxviz.timeline import Category


def startup_blocks(tl):
    return [b for s in tl.steps if s.kind == "startup" for b in tl.blocks_of(s.added)]


def memory_labels(tl) -> list[str]:
    return [b.label for b in startup_blocks(tl) if b.kind == "memory-file"]


def yaml_text(text: str) -> str:
    """A YAML double-quoted scalar (JSON strings are valid YAML)."""
    return json.dumps(text)


# --- defaults and order ------------------------------------------------------------------------------
def test_default_startup_sizes() -> None:
    tl = timeline("events: []\n")
    blocks = startup_blocks(tl)
    assert [(b.kind, b.category, b.tokens) for b in blocks] == [
        ("system-prompt", Category.SYSTEM_PROMPT, 4_200),
        ("environment", Category.SYSTEM_PROMPT, 280),
        ("tools", Category.SYSTEM_TOOLS, 13_500),
    ]
    assert used_after_startup(tl) == 4_200 + 280 + 13_500 == STARTUP_200K
    rows = tl.breakdown_at(tl.last)
    assert rows["System prompt"] == 4_200 + 280
    assert rows["System tools"] == 13_500
    assert rows["Free space"] == 200_000 - 17_980 - 33_000


def test_setup_overrides_default_sizes() -> None:
    tl = timeline("setup: {system_prompt: 3k, environment: 100, tools: 20.5k}\n")
    assert used_after_startup(tl) == 3_000 + 100 + 20_500


def test_startup_order_and_categories() -> None:
    tl = timeline(
        """
        setup:
          output_style: 100
          append_system_prompt: 50
          git_status: {status: {chars: 400}, commits: 2}
          mcp: [{server: gh, tools: 4}]
          agents: [{name: rev, description: 120}]
          memory: {CLAUDE.md: 33}
          auto_memory: 88
          skills: [{name: pdf, description: {chars: 100}}]
          hooks: [{event: SessionStart, matcher: startup, name: s, adds: 300}]
        """
    )
    blocks = startup_blocks(tl)
    assert [(b.category, b.kind) for b in blocks] == [
        (Category.SYSTEM_PROMPT, "system-prompt"),  # system prompt
        (Category.SYSTEM_PROMPT, "system-prompt"),  # output style
        (Category.SYSTEM_PROMPT, "system-prompt"),  # --append-system-prompt
        (Category.SYSTEM_PROMPT, "system-prompt"),  # git status
        (Category.SYSTEM_PROMPT, "environment"),
        (Category.SYSTEM_TOOLS, "tools"),
        (Category.MCP_TOOLS, "mcp-tools"),
        (Category.CUSTOM_AGENTS, "agents"),
        (Category.MEMORY_FILES, "memory-file"),
        (Category.MEMORY_FILES, "auto-memory"),
        (Category.SKILLS, "skill-listing"),
        (Category.MESSAGES, "hook-output"),
    ]
    git = P.git_status_header + 400 // 4 + 2 * P.git_status_commit_line
    listing = math.ceil((len("pdf") + P.skill_entry_overhead_chars + 100) / 4)
    assert [b.tokens for b in blocks] == [4_200, 100, 50, git, 280, 13_500, 4 * 15, 120, 33, 88, listing, 300]
    assert used_after_startup(tl) == 4_200 + 100 + 50 + git + 280 + 13_500 + 60 + 120 + 33 + 88 + listing + 300
    rows = tl.breakdown_at(tl.last)
    assert rows["System prompt"] == 4_200 + 100 + 50 + git + 280
    assert rows["MCP tools"] == 60
    assert rows["Custom agents"] == 120
    assert rows["Memory files"] == 33 + 88
    assert rows["Skills"] == listing
    assert rows["Messages"] == 300


# --- git status --------------------------------------------------------------------------------------
def test_git_status_cut_at_2000_chars_and_5_commits() -> None:
    tl = timeline("setup: {git_status: {status: {chars: 3000}, commits: 7}}\n")
    git = [b for b in startup_blocks(tl) if b.label == "Git status"]
    # the status text cut to 2,000 chars (500 tokens) + the cut note, and at most 5 commits
    expected = P.git_status_header + 2_000 // 4 + P.git_status_truncation_note + 5 * P.git_status_commit_line
    assert [b.tokens for b in git] == [expected]
    assert used_after_startup(tl) == STARTUP_200K + expected


def test_git_status_under_the_cut() -> None:
    tl = timeline("setup: {git_status: {status: {chars: 2000}, commits: 3}}\n")
    git = [b for b in startup_blocks(tl) if b.label == "Git status"]
    assert [b.tokens for b in git] == [P.git_status_header + 2_000 // 4 + 3 * P.git_status_commit_line]


# --- MCP ---------------------------------------------------------------------------------------------
def test_mcp_deferred_is_15_per_tool() -> None:
    tl = timeline("setup: {mcp: [{server: github, tools: 40}, {server: db, tools: 7}]}\n")
    assert [b.tokens for b in blocks_of_kind(tl, "mcp-tools")] == [40 * 15, 7 * 15]
    assert tl.breakdown_at(tl.last)["MCP tools"] == 47 * 15 == 705


def test_mcp_not_deferred_loads_full_schemas() -> None:
    tl = timeline(
        "setup: {mcp: [{server: a, tools: 3, deferred: false, schemas: 9k}, {server: b, tools: 10, deferred: false}]}\n"
    )
    # given schema sizes; without them, the profile's per-tool estimate
    assert [b.tokens for b in blocks_of_kind(tl, "mcp-tools")] == [9_000, 10 * P.mcp_schema_tokens_per_tool]


# --- agents ------------------------------------------------------------------------------------------
def test_custom_agents_per_agent() -> None:
    tl = timeline(
        'setup: {agents: [{name: reviewer, description: 120}, {name: tester, description: "Runs the tests"}]}\n'
    )
    assert [b.tokens for b in blocks_of_kind(tl, "agents")] == [120, math.ceil(len("Runs the tests") / 4)]
    assert tl.breakdown_at(tl.last)["Custom agents"] == 120 + 4


# --- memory files ------------------------------------------------------------------------------------
def test_memory_load_order() -> None:
    tl = timeline(
        """
        setup:
          memory:
            CLAUDE.local.md: 11
            .claude/CLAUDE.md: 22
            CLAUDE.md: 33
            ~/.claude/CLAUDE.md: 44
          rules:
            .claude/rules/a.md: 55
            .claude/rules/scoped.md: {tokens: 66, paths: ["src/**"]}
            .claude/rules/b.md: 77
        """
    )
    assert memory_labels(tl) == [
        "~/.claude/CLAUDE.md",
        "CLAUDE.md",
        ".claude/CLAUDE.md",
        ".claude/rules/a.md",
        ".claude/rules/b.md",
        "CLAUDE.local.md",
    ]
    # the scoped rule is not loaded at startup
    assert tl.breakdown_at(tl.last)["Memory files"] == 44 + 33 + 22 + 55 + 77 + 11


def _import_chain(depth: int) -> str:
    files = "\n".join(
        f"  docs/i{n}.md: {{tokens: {n * 100}" + (f", imports: [docs/i{n + 1}.md]" if n < depth else "") + "}"
        for n in range(1, depth + 1)
    )
    return f"setup:\n  memory:\n    CLAUDE.md: {{tokens: 10, imports: [docs/i1.md]}}\nfiles:\n{files}\n"


def test_imports_expand_four_levels_and_not_a_fifth() -> None:
    tl = timeline(_import_chain(5))
    labels = memory_labels(tl)
    # CLAUDE.md is depth 0; i1..i4 are levels 1–4; i5 (level 5) is not loaded
    assert sorted(labels) == sorted(["CLAUDE.md", "docs/i1.md", "docs/i2.md", "docs/i3.md", "docs/i4.md"])
    assert tl.breakdown_at(tl.last)["Memory files"] == 10 + 100 + 200 + 300 + 400
    assert any("docs/i5.md" in n for s in tl.steps for n in s.notes)


def test_imports_four_levels_all_loaded() -> None:
    tl = timeline(_import_chain(4))
    assert tl.breakdown_at(tl.last)["Memory files"] == 10 + 100 + 200 + 300 + 400


def test_imported_files_come_before_the_importer() -> None:
    # Claude Code lists imported files are listed before the importing file as separate entries
    tl = timeline(_import_chain(2))
    assert memory_labels(tl) == ["docs/i2.md", "docs/i1.md", "CLAUDE.md"]


def test_import_cycle_loads_each_file_once() -> None:
    tl = timeline(
        """
        setup:
          memory:
            CLAUDE.md: {tokens: 10, imports: [docs/a.md]}
        files:
          docs/a.md: {tokens: 20, imports: [docs/b.md]}
          docs/b.md: {tokens: 30, imports: [docs/a.md, CLAUDE.md]}
        """
    )
    assert sorted(memory_labels(tl)) == ["CLAUDE.md", "docs/a.md", "docs/b.md"]
    assert tl.breakdown_at(tl.last)["Memory files"] == 10 + 20 + 30


def test_file_imported_twice_loads_once() -> None:
    tl = timeline(
        """
        setup:
          memory:
            ~/.claude/CLAUDE.md: {tokens: 10, imports: [docs/shared.md]}
            CLAUDE.md: {tokens: 20, imports: [docs/shared.md]}
        files:
          docs/shared.md: 300
        """
    )
    assert tl.breakdown_at(tl.last)["Memory files"] == 10 + 20 + 300


def test_html_block_comments_stripped_from_memory() -> None:
    text = "<!-- maintainer note: not for Claude -->\nUse tabs.\n<!--\nmulti\nline\n-->\nRun make.\n"
    tl = timeline(f"setup:\n  memory:\n    CLAUDE.md: {{text: {yaml_text(text)}}}\n")
    kept = "Use tabs.\nRun make.\n"
    assert [b.tokens for b in blocks_of_kind(tl, "memory-file")] == [math.ceil(len(kept) / 4)]


def test_inline_html_comment_kept() -> None:
    text = "Use <!-- really --> tabs.\n"
    tl = timeline(f"setup:\n  memory:\n    CLAUDE.md: {{text: {yaml_text(text)}}}\n")
    assert [b.tokens for b in blocks_of_kind(tl, "memory-file")] == [math.ceil(len(text) / 4)]


def test_html_block_comments_stripped_from_imported_memory() -> None:
    # an @imported file is a memory file too (loaded at startup into Memory files)
    text = "<!-- a long comment that Claude never sees -->\nbody\n"
    tl = timeline(
        f"setup:\n  memory:\n    CLAUDE.md: {{tokens: 10, imports: [docs/guide.md]}}\n"
        f"files:\n  docs/guide.md: {{text: {yaml_text(text)}}}\n"
    )
    assert tl.breakdown_at(tl.last)["Memory files"] == 10 + math.ceil(len("body\n") / 4)


def test_html_block_comments_stripped_from_unscoped_rule() -> None:
    # unscoped .claude/rules/*.md load at startup as memory files
    text = "<!-- a long comment that Claude never sees -->\nbody\n"
    tl = timeline(f"setup:\n  rules:\n    .claude/rules/style.md: {{text: {yaml_text(text)}}}\n")
    assert tl.breakdown_at(tl.last)["Memory files"] == math.ceil(len("body\n") / 4)


# --- auto memory -------------------------------------------------------------------------------------
def test_auto_memory_under_limits_loaded_whole() -> None:
    tl = timeline("setup: {auto_memory: {lines: 200}}\n")
    assert [b.tokens for b in blocks_of_kind(tl, "auto-memory")] == [200 * 10]


def test_auto_memory_first_200_lines_plus_warning() -> None:
    text = "- a fact\n" * 300  # 9 chars a line
    tl = timeline(f"setup:\n  auto_memory: {{text: {yaml_text(text)}}}\n")
    assert [b.tokens for b in blocks_of_kind(tl, "auto-memory")] == [math.ceil(200 * 9 / 4) + P.auto_memory_warning]


def test_auto_memory_first_25000_bytes_plus_warning() -> None:
    text = ("x" * 499 + "\n") * 100  # 100 lines, 50,000 bytes: the byte cap comes first
    tl = timeline(f"setup:\n  auto_memory: {{text: {yaml_text(text)}}}\n")
    assert [b.tokens for b in blocks_of_kind(tl, "auto-memory")] == [25_000 // 4 + P.auto_memory_warning]


def test_auto_memory_lines_form() -> None:
    tl = timeline("setup: {auto_memory: {lines: 300}}\n")
    # {lines: N} is ≈10 tokens a line: the first 200 lines are 2,000 tokens
    assert [b.tokens for b in blocks_of_kind(tl, "auto-memory")] == [200 * 10 + P.auto_memory_warning]


# --- skill listing -----------------------------------------------------------------------------------
def listing_tokens(tl) -> list[int]:
    return [b.tokens for b in startup_blocks(tl) if b.kind == "skill-listing"]


def test_skill_listing_name_and_description() -> None:
    tl = timeline("setup: {skills: [{name: a, description: {chars: 100}}, {name: bb, description: {chars: 200}}]}\n")
    o = P.skill_entry_overhead_chars
    assert listing_tokens(tl) == [math.ceil(((1 + o + 100) + (2 + o + 200)) / 4)]


def test_skill_description_capped_at_1536_chars() -> None:
    tl = timeline("setup: {skills: [{name: big, description: {chars: 5000}}]}\n")
    assert listing_tokens(tl) == [math.ceil((3 + P.skill_entry_overhead_chars + 1_536) / 4)]


def test_disable_model_invocation_not_listed() -> None:
    tl = timeline(
        "setup: {skills: [{name: a, description: {chars: 100}}, "
        "{name: hidden, description: {chars: 400}, disable_model_invocation: true}]}\n"
    )
    assert listing_tokens(tl) == [math.ceil((1 + P.skill_entry_overhead_chars + 100) / 4)]


def test_only_unlisted_skills_give_no_listing() -> None:
    tl = timeline("setup: {skills: [{name: x, description: 100, disable_model_invocation: true}]}\n")
    assert listing_tokens(tl) == []
    assert used_after_startup(tl) == STARTUP_200K


def test_skill_listing_over_budget_drops_least_used_to_names() -> None:
    # budget = 1% of 200,000 tokens in chars = 200,000 × 4 × 0.01 = 8,000 chars
    o = P.skill_entry_overhead_chars
    skills = ", ".join(
        f"{{name: s{n}, description: {{chars: 1536}}, uses: {uses}}}" for n, uses in enumerate([5, 9, 3, 7, 4])
    )
    tl = timeline(f"setup: {{skills: [{skills}, {{name: rare, description: {{chars: 1000}}, uses: 1}}]}}\n")
    full = 5 * (2 + o + 1_536) + (4 + o + 1_000)
    assert full > 8_000
    # the least used ("rare", 1 use) loses its description first; then the total is within the budget
    after = full - 1_000
    assert after <= 8_000
    assert listing_tokens(tl) == [math.ceil(after / 4)]


def test_skill_listing_drops_several_least_used() -> None:
    o = P.skill_entry_overhead_chars
    # ten skills, 1,536-char descriptions: 10 × (2 + o + 1,536) chars; uses 0..9
    skills = ", ".join(f"{{name: s{n}, description: {{chars: 1536}}, uses: {n}}}" for n in range(10))
    tl = timeline(f"setup: {{skills: [{skills}]}}\n")
    total = 10 * (2 + o + 1_536)
    dropped = 0
    while total > 8_000:
        total -= 1_536
        dropped += 1
    assert dropped == 5  # 15,420 → 13,884 → 12,348 → 10,812 → 9,276 → 7,740
    assert listing_tokens(tl) == [math.ceil(total / 4)]


def test_skill_listing_budget_scales_with_1m_window() -> None:
    # 1% of 1,000,000 in chars = 40,000: ten 1,536-char descriptions fit whole
    o = P.skill_entry_overhead_chars
    skills = ", ".join(f"{{name: s{n}, description: {{chars: 1536}}}}" for n in range(10))
    tl = timeline(f"model: claude-sonnet-5\nsetup: {{skills: [{skills}]}}\n")
    assert listing_tokens(tl) == [math.ceil(10 * (2 + o + 1_536) / 4)]


# --- AGENTS.md -----------------------------------------------------------------------------------------
def test_agents_md_not_loaded_by_default() -> None:
    tl = timeline("setup: {memory: {CLAUDE.md: 100, AGENTS.md: 500}}\n")
    assert memory_labels(tl) == ["CLAUDE.md"]
    assert tl.breakdown_at(tl.last)["Memory files"] == 100


def test_agents_md_loaded_with_agents_md_true() -> None:
    tl = timeline("setup: {agents_md: true, memory: {CLAUDE.md: 100, AGENTS.md: 500}}\n")
    assert sorted(memory_labels(tl)) == ["AGENTS.md", "CLAUDE.md"]
    assert tl.breakdown_at(tl.last)["Memory files"] == 100 + 500


# --- SessionStart hooks ------------------------------------------------------------------------------
def test_session_start_startup_hooks_only() -> None:
    tl = timeline(
        """
        setup:
          hooks:
            - {event: SessionStart, matcher: startup, name: a, adds: 300}
            - {event: SessionStart, matcher: "startup|clear", name: b, adds: 200, via: stdout}
            - {event: SessionStart, matcher: compact, name: c, adds: 400}
            - {event: SessionStart, matcher: clear, name: d, adds: 500}
            - {event: SessionStart, name: e, adds: 50}
        """
    )
    hooks = [b for b in startup_blocks(tl) if b.kind == "hook-output"]
    # a, b (stdout counts for SessionStart) and e (no matcher = every source); not c nor d
    assert sorted(b.tokens for b in hooks) == [50, 200, 300]
    assert used_after_startup(tl) == STARTUP_200K + 300 + 200 + 50


def test_session_start_hook_output_capped_at_10000_chars() -> None:
    tl = timeline(hooks_at_and_over_the_cap("SessionStart", "startup"))
    hooks = {b.label: b.tokens for b in startup_blocks(tl) if b.kind == "hook-output"}
    whole = next(t for label, t in hooks.items() if "whole" in label)
    big = next(t for label, t in hooks.items() if "big" in label)
    assert whole == 10_000 // 4  # at the cap: enters whole
    assert big <= 10_000 // 4  # over it: at most 10,000 chars reach the context


def test_no_skill_step_without_skills() -> None:
    tl = timeline("events: []\n")
    assert steps_of_kind(tl, "startup")[-1].label == "Built-in tool definitions"
