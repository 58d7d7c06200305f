"""Work events (docs/numbers.md): work events, exact numbers from the rules and the claude-code profile's parameters.

With an empty setup the startup is 4,200 + 280 + 13,500 = 17,980 (STARTUP_200K).
"""

from __future__ import annotations

import json
import math

from engine_helpers import (
    STARTUP_200K,
    P,
    added,
    added_kinds,
    added_tokens,
    blocks_of_kind,
    hooks_at_and_over_the_cap,
    steps_of_kind,
    timeline,
)

from ctxviz.timeline import Category

CALL = 60  # tool call
PREVIEW = 50 + 2_000 // 4  # a spilled output: 50-token wrapper + 2,000-byte preview at 4 chars a token = 550


def step(tl, kind: str, n: int = 0):
    return steps_of_kind(tl, kind)[n]


# --- prompt -----------------------------------------------------------------------------------------
def test_prompt_text_counted() -> None:
    tl = timeline('events:\n  - prompt: "Add rate limiting to the login endpoint"\n')
    s = step(tl, "prompt")
    assert [(b.kind, b.category, b.tokens) for b in added(tl, s.index)] == [
        ("prompt", Category.MESSAGES, math.ceil(len("Add rate limiting to the login endpoint") / 4))
    ]
    assert s.used == STARTUP_200K + 10


def test_prompt_given_size() -> None:
    tl = timeline('events:\n  - prompt: {text: "hi", size: 45}\n')
    assert step(tl, "prompt").used == STARTUP_200K + 45


def test_user_prompt_submit_hooks_add_context_stdout_or_json() -> None:
    tl = timeline(
        """
        setup:
          hooks:
            - {event: UserPromptSubmit, name: a, adds: 70, via: stdout}
            - {event: UserPromptSubmit, name: b, adds: 30}
        events:
          - prompt: {text: "go", size: 5}
        """
    )
    s = step(tl, "prompt")
    assert sorted(b.tokens for b in added(tl, s.index, "hook-output")) == [30, 70]
    assert s.used == STARTUP_200K + 5 + 70 + 30


def test_mention_read_like_read_tool_and_triggers_rules() -> None:
    tl = timeline(
        """
        setup:
          rules:
            .claude/rules/api.md: {tokens: 380, paths: ["src/api/**"]}
        files:
          src/api/auth.ts: 2340
          src/api/CLAUDE.md: 700
        events:
          - prompt: {text: "Look at @src/api/auth.ts please", size: 9}
        """
    )
    s = step(tl, "prompt")
    kinds = added_kinds(tl, s.index)
    assert kinds[0] == "prompt"
    # content added with the prompt (no tool call), plus the rule and the nested CLAUDE.md it triggers
    assert "tool-call" not in kinds
    assert sorted(kinds) == sorted(["prompt", "file-read", "rule", "nested-memory"])
    assert added_tokens(tl, s.index, "file-read") == 2_340
    assert s.used == STARTUP_200K + 9 + 2_340 + 380 + 700


def test_mention_of_unknown_file_is_plain_text() -> None:
    tl = timeline('events:\n  - prompt: {text: "mail @someone", size: 4}\n')
    assert step(tl, "prompt").used == STARTUP_200K + 4


# --- reply ------------------------------------------------------------------------------------------
def test_reply_stays_in_history() -> None:
    tl = timeline("events:\n  - reply: 800\n  - reply: 1.2k\n")
    assert [b.tokens for b in blocks_of_kind(tl, "reply")] == [800, 1_200]
    assert tl.used_at(tl.last) == STARTUP_200K + 800 + 1_200
    assert all(b.left is None for b in blocks_of_kind(tl, "reply"))


# --- Read -------------------------------------------------------------------------------------------
def test_read_tool_call_plus_content() -> None:
    tl = timeline("files: {src/a.ts: 2340}\nevents:\n  - read: src/a.ts\n")
    s = step(tl, "read")
    assert [(b.kind, b.tokens) for b in added(tl, s.index)] == [("tool-call", 60), ("file-read", 2_340)]
    assert s.used == STARTUP_200K + 60 + 2_340


def test_read_first_2000_lines() -> None:
    tl = timeline("files: {big.py: {tokens: 30000, lines: 3000}}\nevents:\n  - read: big.py\n")
    # 2,000 of 3,000 lines: two thirds of 30,000 tokens = 20,000 (≤ 25,000, so it is read)
    assert added_tokens(tl, step(tl, "read").index, "file-read") == 30_000 * 2_000 // 3_000


def test_read_lines_form_cut() -> None:
    tl = timeline("files: {log.txt: {lines: 2500}}\nevents:\n  - read: log.txt\n")
    assert added_tokens(tl, step(tl, "read").index, "file-read") == 2_000 * 10


def test_read_over_25000_tokens_is_an_error() -> None:
    tl = timeline("files: {big.json: {tokens: 25001, lines: 100}}\nevents:\n  - read: big.json\n")
    s = step(tl, "read")
    assert [b.tokens for b in added(tl, s.index)] == [60, 100]
    assert blocks_of_kind(tl, "file-read") == []
    assert s.used == STARTUP_200K + 60 + 100


def test_read_exactly_25000_tokens_is_read() -> None:
    tl = timeline("files: {big.json: {tokens: 25000, lines: 100}}\nevents:\n  - read: big.json\n")
    assert added_tokens(tl, step(tl, "read").index, "file-read") == 25_000


def test_read_over_256kb_is_an_error() -> None:
    # 70,000 four-byte characters: 280,000 bytes > 262,144 (256 KB), yet only 17,500 tokens (chars/4)
    text = "\U0001f600" * 70_000
    tl = timeline(
        f"files:\n  emoji.txt: {{text: {json.dumps(text, ensure_ascii=False)}}}\nevents:\n  - read: emoji.txt\n"
    )
    s = step(tl, "read")
    assert [b.tokens for b in added(tl, s.index)] == [60, 100]
    assert s.used == STARTUP_200K + 60 + 100


def test_unchanged_reread_is_a_40_token_stub() -> None:
    tl = timeline("files: {a.py: 1000}\nevents:\n  - read: a.py\n  - read: a.py\n")
    second = step(tl, "read", 1)
    assert [b.tokens for b in added(tl, second.index)] == [60, 40]
    assert second.used == STARTUP_200K + (60 + 1_000) + (60 + 40)


def test_reread_after_edit_returns_content() -> None:
    tl = timeline("files: {a.py: 1000}\nevents:\n  - read: a.py\n  - edit: a.py\n  - read: a.py\n")
    second = step(tl, "read", 1)
    assert [b.tokens for b in added(tl, second.index)] == [60, 1_000]


def test_reread_after_write_returns_content() -> None:
    tl = timeline("files: {a.py: 1000}\nevents:\n  - read: a.py\n  - write: a.py\n  - read: a.py\n")
    assert [b.tokens for b in added(tl, step(tl, "read", 1).index)] == [60, 1_000]


def test_read_is_never_spilled() -> None:
    # 24,000 tokens = 96,000 chars: far over every tool's spill limit, but Read is exempt
    tl = timeline("files: {a.py: {tokens: 24000, lines: 1000}}\nevents:\n  - read: a.py\n")
    assert added_tokens(tl, step(tl, "read").index, "file-read") == 24_000
    assert blocks_of_kind(tl, "spilled-output") == []


# --- path-scoped rules and nested CLAUDE.md ---------------------------------------------------------
RULES = """
setup:
  rules:
    .claude/rules/api.md: {tokens: 380, paths: ["src/api/**"]}
    .claude/rules/tests.md: {tokens: 290, paths: ["*.test.ts"]}
files:
  src/api/a.ts: 1000
  src/api/b.ts: 500
  src/api/a.test.ts: 700
  src/lib/c.ts: 300
"""


def test_rule_loads_on_first_matching_read_only() -> None:
    tl = timeline(RULES + "events:\n  - read: src/lib/c.ts\n  - read: src/api/a.ts\n  - read: src/api/b.ts\n")
    reads = steps_of_kind(tl, "read")
    assert added(tl, reads[0].index, "rule") == []
    assert [(b.label, b.tokens) for b in added(tl, reads[1].index, "rule")] == [(".claude/rules/api.md", 380)]
    assert added(tl, reads[2].index, "rule") == []
    assert tl.used_at(tl.last) == STARTUP_200K + (60 + 300) + (60 + 1_000 + 380) + (60 + 500)
    assert tl.breakdown_at(tl.last)["Messages"] == (60 + 300) + (60 + 1_000 + 380) + (60 + 500)


def test_one_file_matching_two_rules_loads_both() -> None:
    tl = timeline(RULES + "events:\n  - read: src/api/a.test.ts\n")
    assert sorted(b.tokens for b in added(tl, step(tl, "read").index, "rule")) == [290, 380]


def test_rules_trigger_on_edit_and_write_by_default() -> None:
    tl = timeline(
        RULES + "events:\n  - edit: src/api/a.ts\n  - write: {path: src/api/a.test.ts, content: 50}\n"
        "  - read: src/api/b.ts\n"
    )
    # the edit loads api.md; the write matches both, but only tests.md is new
    edit, write = step(tl, "edit"), step(tl, "write")
    assert [b.tokens for b in added(tl, edit.index, "rule")] == [380]
    assert [b.tokens for b in added(tl, write.index, "rule")] == [290]
    assert added(tl, step(tl, "read").index, "rule") == []


def test_rule_triggers_read_only_override() -> None:
    tl = timeline(
        "profile: {rule_triggers: [read]}\n" + RULES + "events:\n  - edit: src/api/a.ts\n  - read: src/api/b.ts\n"
    )
    assert added(tl, step(tl, "edit").index, "rule") == []
    assert [b.tokens for b in added(tl, step(tl, "read").index, "rule")] == [380]


def test_nested_claude_md_loads_on_touching_its_folder() -> None:
    tl = timeline(
        """
        files:
          src/api/CLAUDE.md: 700
          src/api/v2/h.ts: 100
          src/api/a.ts: 200
          src/apiary/z.ts: 50
        events:
          - read: src/apiary/z.ts
          - read: src/api/v2/h.ts
          - read: src/api/a.ts
        """
    )
    reads = steps_of_kind(tl, "read")
    assert added(tl, reads[0].index, "nested-memory") == []  # src/apiary is not src/api
    assert [(b.label, b.tokens) for b in added(tl, reads[1].index, "nested-memory")] == [("src/api/CLAUDE.md", 700)]
    assert added(tl, reads[2].index, "nested-memory") == []  # once until compaction
    assert tl.used_at(tl.last) == STARTUP_200K + (60 + 50) + (60 + 100 + 700) + (60 + 200)


def test_nested_claude_md_and_local_in_one_folder_both_load() -> None:
    tl = timeline(
        """
        files:
          src/CLAUDE.md: 100
          src/api/CLAUDE.md: 700
          src/api/CLAUDE.local.md: 200
          src/api/a.ts: 1000
        events:
          - read: src/api/a.ts
        """
    )
    # every CLAUDE.md-family file from src/ down to src/api/ loads with the first touch
    nested = added(tl, step(tl, "read").index, "nested-memory")
    assert sorted((b.label, b.tokens) for b in nested) == [
        ("src/CLAUDE.md", 100),
        ("src/api/CLAUDE.local.md", 200),
        ("src/api/CLAUDE.md", 700),
    ]
    assert step(tl, "read").used == STARTUP_200K + 60 + 1_000 + 100 + 700 + 200


def test_nested_claude_md_on_edit() -> None:
    tl = timeline("files: {src/api/CLAUDE.md: 700, src/api/a.ts: 200}\nevents:\n  - edit: src/api/a.ts\n")
    assert [b.tokens for b in added(tl, step(tl, "edit").index, "nested-memory")] == [700]


def test_root_claude_md_in_files_is_not_nested() -> None:
    tl = timeline("setup: {memory: {CLAUDE.md: 100}}\nfiles: {a.py: 10}\nevents:\n  - read: a.py\n")
    assert blocks_of_kind(tl, "nested-memory") == []


# --- Edit / Write -----------------------------------------------------------------------------------
def test_edit_sizes() -> None:
    tl = timeline("files: {a.py: 1000}\nevents:\n  - edit: {path: a.py, change: 300}\n  - edit: a.py\n")
    first, second = steps_of_kind(tl, "edit")
    # tool call with the change + a short result (~40)
    assert [b.tokens for b in added(tl, first.index)] == [60 + 300, 40]
    assert [b.tokens for b in added(tl, second.index)] == [60 + 200, 40]  # the format's default change: 200
    assert second.used == STARTUP_200K + 400 + 300


def test_write_sizes() -> None:
    tl = timeline("files: {a.py: 1000}\nevents:\n  - write: a.py\n  - write: {path: a.py, content: 250}\n")
    first, second = steps_of_kind(tl, "write")
    assert [b.tokens for b in added(tl, first.index)] == [60 + 1_000, 40]  # whole content
    assert [b.tokens for b in added(tl, second.index)] == [60 + 250, 40]


# --- Grep / Glob ------------------------------------------------------------------------------------
def test_glob_at_most_100_paths() -> None:
    tl = timeline("events:\n  - glob: {pattern: '**/*.ts', matches: 300}\n  - glob: {pattern: x, matches: 40}\n")
    first, second = steps_of_kind(tl, "glob")
    assert [b.tokens for b in added(tl, first.index)] == [60, 100 * P.glob_tokens_per_path]
    assert [b.tokens for b in added(tl, second.index)] == [60, 40 * P.glob_tokens_per_path]


def test_grep_at_most_250_results() -> None:
    tl = timeline("events:\n  - grep: {pattern: x, matches: 1000}\n  - grep: {pattern: y, matches: 250}\n")
    first, second = steps_of_kind(tl, "grep")
    assert [b.tokens for b in added(tl, first.index)] == [60, 250 * P.grep_tokens_per_result]
    assert [b.tokens for b in added(tl, second.index)] == [60, 250 * P.grep_tokens_per_result]


# --- Bash and large outputs -------------------------------------------------------------------------
def test_bash_inline_up_to_30000_chars() -> None:
    tl = timeline("events:\n  - bash: {command: a, output: {chars: 30000}}\n")
    assert [(b.kind, b.tokens) for b in added(tl, step(tl, "bash").index)] == [
        ("tool-call", 60),
        ("tool-output", 7_500),
    ]


def test_bash_over_30000_chars_spills_to_preview() -> None:
    tl = timeline("events:\n  - bash: {command: a, output: {chars: 61204}}\n")
    s = step(tl, "bash")
    assert [(b.kind, b.tokens) for b in added(tl, s.index)] == [("tool-call", 60), ("spilled-output", 550)]
    assert PREVIEW == 550
    assert s.used == STARTUP_200K + 60 + 550


def test_grep_output_limit_20000_chars() -> None:
    tl = timeline(
        "events:\n  - grep: {pattern: a, output: {chars: 20000}}\n  - grep: {pattern: b, output: {chars: 20001}}\n"
    )
    first, second = steps_of_kind(tl, "grep")
    assert [b.tokens for b in added(tl, first.index)] == [60, 5_000]
    assert [(b.kind, b.tokens) for b in added(tl, second.index)] == [("tool-call", 60), ("spilled-output", 550)]


def test_other_tools_limit_50000_chars() -> None:
    tl = timeline(
        """
        events:
          - tool: {name: WebFetch, output: {chars: 50000}}
          - tool: {name: WebFetch, output: {chars: 50001}}
          - glob: {pattern: a, output: {chars: 40000}}
          - glob: {pattern: b, output: {chars: 50001}}
        """
    )
    t1, t2 = steps_of_kind(tl, "tool")
    g1, g2 = steps_of_kind(tl, "glob")
    assert [b.tokens for b in added(tl, t1.index)] == [60, 12_500]
    assert [b.tokens for b in added(tl, t2.index)] == [60, 550]
    assert [b.tokens for b in added(tl, g1.index)] == [60, 10_000]
    assert [b.tokens for b in added(tl, g2.index)] == [60, 550]


def test_tool_call_arguments_add_to_the_call() -> None:
    tl = timeline("events:\n  - tool: {name: WebSearch, call: 25, output: 400}\n")
    assert [b.tokens for b in added(tl, step(tl, "tool").index)] == [60 + 25, 400]


def test_per_message_budget_spills_largest_first() -> None:
    # each result under its own limit; together 50,000 + 49,000 + 29,000 + 48,000 + 47,000 = 223,000 chars
    # > 200,000: the largest (50,000) is spilled → 173,000 ≤ 200,000, the rest stay inline
    tl = timeline(
        """
        events:
          - parallel:
              - tool: {name: WebFetch, output: {chars: 49000}}
              - tool: {name: WebFetch, output: {chars: 50000}}
              - bash: {command: t, output: {chars: 29000}}
              - tool: {name: WebFetch, output: {chars: 48000}}
              - tool: {name: WebFetch, output: {chars: 47000}}
        """
    )
    outputs = [b for b in tl.blocks if b.kind in ("tool-output", "spilled-output")]
    assert [(b.kind, b.tokens) for b in outputs] == [
        ("tool-output", 49_000 // 4),
        ("spilled-output", 550),
        ("tool-output", 29_000 // 4),
        ("tool-output", 48_000 // 4),
        ("tool-output", 47_000 // 4),
    ]
    assert tl.used_at(tl.last) == STARTUP_200K + 5 * 60 + 12_250 + 550 + 7_250 + 12_000 + 11_750


def test_per_message_budget_spills_several() -> None:
    # 6 × 45,000 = 270,000 chars: spilling two leaves 180,000 ≤ 200,000 (one would leave 225,000)
    events = "\n".join("      - tool: {name: WebFetch, output: {chars: 45000}}" for _ in range(6))
    tl = timeline(f"events:\n  - parallel:\n{events}\n")
    spilled = blocks_of_kind(tl, "spilled-output")
    assert len(spilled) == 2
    assert tl.used_at(tl.last) == STARTUP_200K + 6 * 60 + 2 * 550 + 4 * 11_250


def test_per_message_budget_counts_search_results_given_as_matches() -> None:
    # 4 × 48,000 chars + a Grep of 250 results (250 × 15 tokens = 3,750 tokens = 15,000 chars) = 207,000 chars
    # > 200,000: the largest result (the first 48,000) is spilled → 159,000
    tl = timeline(
        "events:\n  - parallel:\n"
        + "".join("      - tool: {name: WebFetch, output: {chars: 48000}}\n" for _ in range(4))
        + "      - grep: {pattern: x, matches: 300}\n"
    )
    assert P.grep_tokens_per_result == 15
    assert len(blocks_of_kind(tl, "spilled-output")) == 1
    assert tl.used_at(tl.last) == STARTUP_200K + 5 * 60 + 550 + 3 * 12_000 + 3_750


def test_per_message_budget_not_exceeded_nothing_spills() -> None:
    tl = timeline(
        "events:\n  - parallel:\n      - tool: {name: WebFetch, output: {chars: 50000}}\n"
        "      - tool: {name: WebFetch, output: {chars: 50000}}\n"
        "      - tool: {name: WebFetch, output: {chars: 50000}}\n"
        "      - tool: {name: WebFetch, output: {chars: 50000}}\n"
    )
    # exactly 200,000 chars: not over the budget
    assert blocks_of_kind(tl, "spilled-output") == []


# --- hooks ------------------------------------------------------------------------------------------
def test_post_tool_use_additional_context_enters() -> None:
    tl = timeline(
        """
        setup:
          hooks:
            - {event: PostToolUse, matcher: "Edit|Write", name: prettier, adds: 110}
        files: {a.py: 100}
        events:
          - edit: a.py
          - write: a.py
          - read: a.py
        """
    )
    assert added_tokens(tl, step(tl, "edit").index, "hook-output") == 110
    assert added_tokens(tl, step(tl, "write").index, "hook-output") == 110
    assert added_tokens(tl, step(tl, "read").index, "hook-output") == 0
    assert tl.used_at(tl.last) == STARTUP_200K + (260 + 40 + 110) + (60 + 100 + 40 + 110) + (60 + 100)


def test_tool_hook_stdout_does_not_enter() -> None:
    tl = timeline(
        """
        setup:
          hooks:
            - {event: PostToolUse, matcher: "Edit", name: fmt, adds: 110, via: stdout}
            - {event: PreToolUse, matcher: "Edit", name: pre, adds: 90, via: stdout}
        files: {a.py: 100}
        events:
          - edit: a.py
        """
    )
    assert blocks_of_kind(tl, "hook-output") == []
    assert tl.used_at(tl.last) == STARTUP_200K + 260 + 40


def test_pre_tool_use_additional_context_enters() -> None:
    tl = timeline(
        "setup:\n  hooks:\n    - {event: PreToolUse, matcher: Bash, name: guard, adds: 90}\n"
        "events:\n  - bash: {command: ls, output: 10}\n"
    )
    assert tl.used_at(tl.last) == STARTUP_200K + 60 + 90 + 10


def test_hooks_of_events_without_context_add_nothing() -> None:
    tl = timeline(
        "setup:\n  hooks:\n    - {event: Stop, name: s, adds: 500}\n    - {event: Notification, name: n, adds: 500}\n"
        "events:\n  - reply: 10\n"
    )
    assert tl.used_at(tl.last) == STARTUP_200K + 10


def test_tool_hook_output_capped_at_10000_chars() -> None:
    tl = timeline(hooks_at_and_over_the_cap("PostToolUse", "Bash") + "events:\n  - bash: {command: ls, output: 10}\n")
    hooks = {b.label.split(" ")[1]: b.tokens for b in blocks_of_kind(tl, "hook-output")}
    assert hooks["whole"] == 10_000 // 4
    assert hooks["big"] <= 10_000 // 4


# --- skills -----------------------------------------------------------------------------------------
SKILLS = "setup:\n  skills: [{name: pdf, description: {chars: 100}, body: 7.2k}]\n"


def test_skill_invoked_by_claude_loads_whole_body() -> None:
    tl = timeline(SKILLS + "events:\n  - skill: pdf\n")
    s = step(tl, "skill")
    assert [(b.kind, b.tokens) for b in added(tl, s.index)] == [("tool-call", 60), ("skill-body", 7_200)]
    listing = math.ceil((3 + P.skill_entry_overhead_chars + 100) / 4)
    assert s.used == STARTUP_200K + listing + 60 + 7_200


def test_skill_invoked_by_user_loads_whole_body() -> None:
    tl = timeline(SKILLS + "events:\n  - skill: {name: pdf, by: user}\n")
    (body,) = blocks_of_kind(tl, "skill-body")
    assert body.tokens == 7_200
    assert blocks_of_kind(tl, "tool-call") == []


def test_unlisted_skill_can_still_be_invoked_by_user() -> None:
    tl = timeline(
        "setup:\n  skills: [{name: commit, body: 620, disable_model_invocation: true}]\n"
        "events:\n  - skill: {name: commit, by: user}\n"
    )
    assert tl.used_at(tl.last) == STARTUP_200K + 620


# --- subagents --------------------------------------------------------------------------------------
SUB = """
setup:
  git_status: {status: {chars: 400}, commits: 0}
  memory: {CLAUDE.md: 500}
  auto_memory: 300
  mcp: [{server: gh, tools: 4}]
  skills: [{name: pdf, description: {chars: 100}}]
files:
  src/a.py: 2000
  src/b.py: 1000
"""
GIT = P.git_status_header + 400 // 4  # 0 commits
LISTING = math.ceil((3 + P.skill_entry_overhead_chars + 100) / 4)
PARENT_STARTUP = 4_200 + GIT + 280 + 13_500 + 4 * 15 + 500 + 300 + LISTING


def test_subagent_parent_gets_call_result_and_trailer() -> None:
    tl = timeline(SUB + "events:\n  - subagent: {prompt: 120, reads: [src/a.py, src/b.py], returns: 420}\n")
    s = step(tl, "subagent")
    assert [b.tokens for b in added(tl, s.index)] == [60 + 120, 420 + 60]
    assert s.used == PARENT_STARTUP + 180 + 480
    assert blocks_of_kind(tl, "file-read") == []  # the reads stay in the child


def test_subagent_child_window_general_purpose() -> None:
    tl = timeline(SUB + "events:\n  - subagent: {prompt: 120, reads: [src/a.py, src/b.py], returns: 420}\n")
    child = step(tl, "subagent").child
    assert child is not None
    assert child.window == 200_000
    # own system prompt (~900), tools, git status, CLAUDE.md copy, MCP names, skills; no environment, no
    # auto memory; then the task prompt, its reads and its final text
    startup = 900 + GIT + 13_500 + 4 * 15 + 500 + LISTING
    work = 120 + (60 + 2_000) + (60 + 1_000) + 420
    assert child.used_at(child.last) == startup + work
    rows = child.breakdown_at(child.last)
    assert rows["Memory files"] == 500
    assert rows["Messages"] == work


def test_subagent_explore_skips_claude_md_and_git_status_and_trailer() -> None:
    tl = timeline(SUB + "events:\n  - subagent: {type: Explore, prompt: 120, reads: [src/a.py], returns: 420}\n")
    s = step(tl, "subagent")
    assert [b.tokens for b in added(tl, s.index)] == [60 + 120, 420]  # no trailer
    child = s.child
    assert child.used_at(child.last) == 900 + 13_500 + 4 * 15 + LISTING + 120 + (60 + 2_000) + 420
    assert child.breakdown_at(child.last)["Memory files"] == 0


def test_subagent_plan_no_trailer() -> None:
    tl = timeline(SUB + "events:\n  - subagent: {type: Plan, prompt: 50, returns: 200}\n")
    s = step(tl, "subagent")
    assert [b.tokens for b in added(tl, s.index)] == [60 + 50, 200]
    assert s.child.breakdown_at(s.child.last)["Memory files"] == 0


def test_subagent_own_model_window() -> None:
    tl = timeline("events:\n  - subagent: {model: claude-sonnet-5, returns: 100}\n")
    child = step(tl, "subagent").child
    assert child.window == 1_000_000
    assert child.thresholds.autocompact == 967_000
    assert tl.window == 200_000


def test_subagent_reads_do_not_load_rules_in_parent() -> None:
    tl = timeline(
        """
        setup:
          rules:
            .claude/rules/api.md: {tokens: 380, paths: ["src/**"]}
        files: {src/a.py: 2000}
        events:
          - subagent: {reads: [src/a.py], returns: 100}
          - read: src/a.py
        """
    )
    s = step(tl, "subagent")
    assert added(tl, s.index, "rule") == []
    assert [b.tokens for b in s.child.blocks if b.kind == "rule"] == [380]
    # the parent's first read of the file loads the rule and gets the content (not a stub)
    read = step(tl, "read")
    assert [b.tokens for b in added(tl, read.index)] == [60, 2_000, 380]


def test_subagent_has_its_own_system_prompt_only() -> None:
    # "its own system prompt (~900)": the main session's output style and --append-system-prompt are not in it
    tl = timeline(
        "setup: {output_style: 500, append_system_prompt: 300}\nevents:\n  - subagent: {type: Explore, returns: 10}\n"
    )
    child = step(tl, "subagent").child
    assert child.breakdown_at(child.last)["System prompt"] == 900
    assert child.used_at(child.last) == 900 + 13_500 + 100 + 10


def test_subagent_task_prompt_does_not_fire_user_prompt_submit() -> None:
    # the task prompt is Claude's, not the user's: UserPromptSubmit hooks are for user prompts
    tl = timeline(
        "setup:\n  hooks:\n    - {event: UserPromptSubmit, name: ups, adds: 70}\n"
        "events:\n  - subagent: {prompt: 100, returns: 100}\n"
    )
    child = step(tl, "subagent").child
    assert [b for b in child.blocks if b.kind == "hook-output"] == []
    assert child.used_at(child.last) == 900 + 13_500 + 100 + 100


def test_subagent_result_over_50000_chars_spills() -> None:
    tl = timeline("events:\n  - subagent: {type: Explore, returns: 13000}\n")
    # 13,000 tokens = 52,000 chars > 50,000 (the Agent tool's limit)
    assert [b.tokens for b in added(tl, step(tl, "subagent").index)] == [60 + 100, 550]


# --- plan -------------------------------------------------------------------------------------------
def test_plan_content_in_context() -> None:
    tl = timeline("events:\n  - plan: 800\n")
    (plan,) = blocks_of_kind(tl, "plan")
    assert (plan.category, plan.tokens) == (Category.MESSAGES, 800)
    assert tl.used_at(tl.last) == STARTUP_200K + 800


# --- background -------------------------------------------------------------------------------------
def test_background_bash_notice_then_notification() -> None:
    tl = timeline(
        "events:\n  - bash: {command: npm run dev, background: true, finishes_after: 2}\n"
        "  - reply: 10\n  - reply: 20\n  - reply: 30\n"
    )
    s = step(tl, "bash")
    assert [b.tokens for b in added(tl, s.index)] == [60, P.background_launch]
    (note,) = steps_of_kind(tl, "notification")
    assert [b.tokens for b in added(tl, note.index)] == [P.notification]
    kinds = [x.kind for x in tl.steps if x.kind != "startup"]
    assert kinds == ["bash", "reply", "reply", "notification", "reply"]
    assert tl.used_at(tl.last) == STARTUP_200K + 60 + P.background_launch + 10 + 20 + P.notification + 30


def test_background_subagent_notice_then_result() -> None:
    tl = timeline("events:\n  - subagent: {prompt: 100, returns: 400, background: true}\n  - reply: 10\n")
    s = step(tl, "subagent")
    assert [b.tokens for b in added(tl, s.index)] == [60 + 100, P.background_launch]
    (note,) = steps_of_kind(tl, "notification")
    # the completion notification carries the result and its trailer
    assert added_tokens(tl, note.index) == P.notification + 400 + 60
