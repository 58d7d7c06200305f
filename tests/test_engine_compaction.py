"""Compaction and /clear (docs/numbers.md): exact numbers from the rules and the claude-code profile."""

from __future__ import annotations

import math

from engine_helpers import STARTUP_200K, P, added, added_tokens, blocks_of_kind, live, steps_of_kind, timeline

from ctxviz.timeline import Category

SUMMARY = 4_000


def compaction(tl, n: int = 0):
    return [s for s in tl.steps if s.kind in ("compact", "auto-compact")][n]


def fates(step) -> dict[str, tuple[str, int]]:
    return {f"{f.kind}:{f.label}": (f.fate, f.tokens) for f in step.fates}


# --- one step, history removed, summary -------------------------------------------------------------
def test_compaction_is_one_step_replacing_history_with_summary() -> None:
    tl = timeline("files: {a.py: 1000}\nevents:\n  - prompt: {text: x, size: 50}\n  - reply: 700\n  - compact:\n")
    c = compaction(tl)
    assert c.kind == "compact"
    assert c.index == tl.last
    # every message block before it left at the compaction step
    history = [b for b in tl.blocks if b.category is Category.MESSAGES and b.entered < c.index]
    assert sorted(b.tokens for b in history) == [50, 700]
    assert all(b.left == c.index for b in history)
    assert [(b.kind, b.tokens) for b in added(tl, c.index)] == [("summary", 4_000)]
    assert c.used == STARTUP_200K + 4_000
    assert tl.breakdown_at(c.index)["Messages"] == 4_000


def test_compact_focus_and_summary_size() -> None:
    tl = timeline("events:\n  - reply: 700\n  - compact: {focus: the rate limiter, summary: 6k}\n")
    assert compaction(tl).used == STARTUP_200K + 6_000


def test_summary_capped_at_20000() -> None:
    tl = timeline("events:\n  - reply: 700\n  - compact: {summary: 30k}\n")
    assert added_tokens(tl, compaction(tl).index, "summary") == 20_000
    assert compaction(tl).used == STARTUP_200K + 20_000


def test_system_tools_memory_unchanged_by_compaction() -> None:
    tl = timeline(
        """
        setup:
          git_status: {status: {chars: 400}, commits: 2}
          mcp: [{server: gh, tools: 10}]
          agents: [{name: rev, description: 120}]
          memory: {CLAUDE.md: 1.8k}
          rules: {.claude/rules/style.md: 290}
          auto_memory: 680
        events:
          - reply: 5000
          - compact:
        """
    )
    c = compaction(tl)
    git = P.git_status_header + 400 // 4 + 2 * P.git_status_commit_line
    startup = 4_200 + git + 280 + 13_500 + 10 * 15 + 120 + 1_800 + 290 + 680
    assert c.used == startup + SUMMARY
    rows = tl.breakdown_at(c.index)
    assert rows["System prompt"] == 4_200 + git + 280
    assert rows["MCP tools"] == 150
    assert rows["Custom agents"] == 120
    assert rows["Memory files"] == 1_800 + 290 + 680
    assert rows["Messages"] == SUMMARY


# --- restored files ---------------------------------------------------------------------------------
FILES = """
files:
  f1: 100
  f2: 200
  f3: 300
  f4: 6000
  f5: 500
  f6: 600
"""


def test_up_to_5_files_most_recent_first_big_ones_referenced() -> None:
    tl = timeline(
        FILES
        + "events:\n  - read: f1\n  - edit: f2\n  - read: f3\n  - read: f4\n  - read: f5\n  - read: f6\n  - compact:\n"
    )
    c = compaction(tl)
    restored = [
        (b.kind, b.label, b.tokens) for b in added(tl, c.index) if b.kind in ("restored-file", "file-reference")
    ]
    # most recent first: f6, f5, f4 (6,000 > 5,000 → a 40-token reference), f3, f2 (edited counts); f1 is 6th
    assert [(k, t) for k, _, t in restored] == [
        ("restored-file", 600),
        ("restored-file", 500),
        ("file-reference", 40),
        ("restored-file", 300),
        ("restored-file", 200),
    ]
    assert all(("f1" not in label) for _, label, _ in restored)
    assert c.used == STARTUP_200K + SUMMARY + 600 + 500 + 40 + 300 + 200


def test_file_exactly_5000_is_restored_whole() -> None:
    tl = timeline("files: {a: 5000, b: 5001}\nevents:\n  - read: a\n  - read: b\n  - compact:\n")
    c = compaction(tl)
    assert sorted((b.kind, b.tokens) for b in added(tl, c.index) if b.kind != "summary") == [
        ("file-reference", 40),
        ("restored-file", 5_000),
    ]


def test_recency_is_the_last_read_or_edit() -> None:
    tl = timeline(
        FILES + "events:\n  - read: f1\n  - read: f2\n  - read: f3\n  - read: f5\n  - read: f6\n"
        "  - read: f4\n  - edit: f1\n  - compact:\n"
    )
    c = compaction(tl)
    restored = [b.tokens for b in added(tl, c.index) if b.kind in ("restored-file", "file-reference")]
    # order by last touch: f1 (edited last), f4 (ref), f6, f5, f3; f2 is 6th
    assert restored == [100, 40, 600, 500, 300]


def test_a_file_read_in_part_is_re_read_whole_in_its_turn() -> None:
    # Claude Code keeps a file read by line range among the files read lately; the compaction re-reads it
    # whole (its 2,000 tokens, not the 100 of the part that was sent)
    tl = timeline(
        "files: {a.py: 1000, b.py: 2000}\nevents:\n  - read: a.py\n"
        "  - tool: {name: Read, output: 100, reads: b.py}\n  - tool: {name: Read, output: 100, reads: c.py}\n"
        "  - compact:\n"
    )
    c = compaction(tl)
    restored = [(b.label, b.tokens) for b in added(tl, c.index) if b.kind == "restored-file"]
    # b.py most recent, then a.py; c.py is no project file: nothing to re-read
    assert restored == [("Restored b.py", 2_000), ("Restored a.py", 1_000)]
    assert c.used == STARTUP_200K + SUMMARY + 2_000 + 1_000


def test_restored_total_capped() -> None:
    # the 50,000 total cannot bind with 5 × 5,000; lower it to see the rule: a file that would exceed it is
    # dropped, a later smaller one may still fit
    tl = timeline(
        "profile: {restore_total_tokens: 8000}\n"
        "files: {a: 3000, b: 1000, c: 3000, d: 3000}\n"
        "events:\n  - read: a\n  - read: b\n  - read: c\n  - read: d\n  - compact:\n"
    )
    c = compaction(tl)
    # d 3,000 → 3,000; c → 6,000; b → 7,000; a would make 10,000 > 8,000
    assert [b.tokens for b in added(tl, c.index, "restored-file")] == [3_000, 3_000, 1_000]
    assert c.used == STARTUP_200K + SUMMARY + 7_000


def test_memory_files_not_restored_as_files() -> None:
    tl = timeline("setup: {memory: {CLAUDE.md: 500}}\nfiles: {a: 100}\nevents:\n  - read: a\n  - compact:\n")
    c = compaction(tl)
    assert [b.tokens for b in added(tl, c.index, "restored-file")] == [100]
    assert c.used == STARTUP_200K + 500 + SUMMARY + 100


# --- rules and nested memory ------------------------------------------------------------------------
RULES = """
setup:
  rules:
    .claude/rules/api.md: {tokens: 380, paths: ["src/api/**"]}
    .claude/rules/lib.md: {tokens: 250, paths: ["src/lib/**"]}
files:
  src/api/a.ts: 1000
  src/api/CLAUDE.md: 700
  src/lib/l.ts: 300
  src/lib/CLAUDE.md: 450
"""


def test_rules_and_nested_memory_dropped_and_retriggered_by_restored_files() -> None:
    tl = timeline(
        RULES + "profile: {restore_max_files: 1}\n"
        "events:\n  - read: src/lib/l.ts\n  - read: src/api/a.ts\n  - compact:\n"
    )
    c = compaction(tl)
    gone = {b.label for b in tl.blocks_of(c.removed) if b.kind in ("rule", "nested-memory")}
    assert gone == {".claude/rules/api.md", "src/api/CLAUDE.md", ".claude/rules/lib.md", "src/lib/CLAUDE.md"}
    # only src/api/a.ts is restored (1 file): it brings its rule and nested CLAUDE.md back at once
    back = sorted((b.kind, b.tokens) for b in added(tl, c.index) if b.kind != "summary")
    assert back == [("nested-memory", 700), ("restored-file", 1_000), ("rule", 380)]
    assert c.used == STARTUP_200K + SUMMARY + 1_000 + 380 + 700
    f = fates(c)
    assert f["rule:.claude/rules/lib.md"] == ("dropped", 250)
    assert f["nested-memory:src/lib/CLAUDE.md"] == ("dropped", 450)


def test_later_reads_reload_rules() -> None:
    tl = timeline(
        RULES + "profile: {restore_max_files: 1}\n"
        "events:\n  - read: src/lib/l.ts\n  - read: src/api/a.ts\n  - compact:\n  - read: src/lib/l.ts\n"
    )
    read = steps_of_kind(tl, "read")[-1]
    # not restored, so not "unchanged": content again, and its rule and nested CLAUDE.md load again
    assert sorted((b.kind, b.tokens) for b in added(tl, read.index)) == [
        ("file-read", 300),
        ("nested-memory", 450),
        ("rule", 250),
        ("tool-call", 60),
    ]


# --- skills -----------------------------------------------------------------------------------------
def test_skill_bodies_truncated_to_5000_keeping_most_recent_within_25000() -> None:
    skills = ", ".join(f"{{name: s{n}, body: {b}}}" for n, b in enumerate([4000, 9000, 4000, 4000, 4000, 4000, 3000]))
    events = "\n".join(f"  - skill: s{n}" for n in range(7))
    tl = timeline(f"setup: {{skills: [{skills}]}}\nevents:\n{events}\n  - compact:\n")
    c = compaction(tl)
    bodies = [b.tokens for b in added(tl, c.index, "skill-body")]
    # most recent first: s6 3,000 → 3,000; s5 4,000 → 7,000; s4 → 11,000; s3 → 15,000; s2 → 19,000;
    # s1 9,000 truncated to 5,000 → 24,000; s0 4,000 → 28,000 > 25,000: dropped
    assert bodies == [3_000, 4_000, 4_000, 4_000, 4_000, 5_000]
    f = fates(c)
    assert f["skill-body:Skill: s1"] == ("truncated", 5_000)
    assert f["skill-body:Skill: s0"] == ("not-restored", 0)
    # the listing is rebuilt: seven names with empty descriptions
    assert added_tokens(tl, c.index, "skill-listing") == math.ceil(7 * (2 + P.skill_entry_overhead_chars) / 4)


def test_skill_listing_rebuilt_after_compaction() -> None:
    tl = timeline(
        "setup: {skills: [{name: pdf, description: {chars: 100}, body: 7.2k}]}\nevents:\n  - skill: pdf\n  - compact:\n"
    )
    c = compaction(tl)
    listing = math.ceil((3 + P.skill_entry_overhead_chars + 100) / 4)
    assert added_tokens(tl, c.index, "skill-listing") == listing
    assert added_tokens(tl, c.index, "skill-body") == 5_000
    assert c.used == STARTUP_200K + listing + SUMMARY + 5_000
    assert tl.breakdown_at(c.index)["Skills"] == listing


# --- hooks, plan, background ------------------------------------------------------------------------
def test_session_start_compact_hooks_run_and_earlier_hook_context_goes() -> None:
    tl = timeline(
        """
        setup:
          hooks:
            - {event: SessionStart, matcher: startup, name: s, adds: 100}
            - {event: SessionStart, matcher: compact, name: c, adds: 400}
            - {event: PostToolUse, matcher: Bash, name: p, adds: 110}
        events:
          - bash: {command: ls, output: 10}
          - compact:
        """
    )
    c = compaction(tl)
    assert sorted(b.tokens for b in tl.blocks_of(c.removed) if b.kind == "hook-output") == [100, 110]
    assert [b.tokens for b in added(tl, c.index, "hook-output")] == [400]
    assert c.used == STARTUP_200K + SUMMARY + 400


def test_plan_reinjected() -> None:
    tl = timeline("events:\n  - plan: 800\n  - reply: 100\n  - compact:\n")
    c = compaction(tl)
    assert added_tokens(tl, c.index, "plan") == 800
    assert c.used == STARTUP_200K + SUMMARY + 800


def test_background_tasks_told_after_compaction() -> None:
    tl = timeline("events:\n  - bash: {command: dev, background: true, finishes_after: 5}\n  - compact:\n")
    c = compaction(tl)
    assert [b.tokens for b in added(tl, c.index, "notification")] == [P.task_status]
    assert c.used == STARTUP_200K + SUMMARY + P.task_status


def test_spilled_output_stays_spilled() -> None:
    tl = timeline("events:\n  - bash: {command: t, output: {chars: 61000}}\n  - compact:\n")
    c = compaction(tl)
    assert [b.kind for b in added(tl, c.index)] == ["summary"]
    assert blocks_of_kind(tl, "tool-output") == []


def test_order_after_compaction() -> None:
    # The order Claude Code builds the post-compact messages in (2.1.88 compact.ts buildPostCompactMessages):
    # summary, recent files, background tasks, plan, invoked skills, re-announced listings, then
    # SessionStart compact hooks. The docs list the same mechanisms in another order; the totals are the
    # same either way.
    tl = timeline(
        """
        setup:
          skills: [{name: pdf, description: {chars: 100}, body: 1000}]
          hooks: [{event: SessionStart, matcher: compact, name: c, adds: 400}]
        files: {a.py: 100}
        events:
          - read: a.py
          - skill: pdf
          - plan: 800
          - bash: {command: dev, background: true, finishes_after: 5}
          - compact:
        """
    )
    c = compaction(tl)
    assert [b.kind for b in added(tl, c.index)] == [
        "summary",
        "restored-file",
        "notification",
        "plan",
        "skill-body",
        "skill-listing",
        "hook-output",
    ]


def test_fates_on_the_compaction_step() -> None:
    tl = timeline(
        """
        setup:
          memory: {CLAUDE.md: 500}
          rules: {.claude/rules/api.md: {tokens: 380, paths: ["src/**"]}}
        files: {src/a.py: 1000}
        events:
          - read: src/a.py
          - reply: 300
          - compact:
        """
    )
    c = compaction(tl)
    f = fates(c)
    assert f["system-prompt:System prompt"] == ("kept", 4_200)
    assert f["tools:Built-in tool definitions"] == ("kept", 13_500)
    assert f["memory-file:CLAUDE.md"] == ("reinjected", 500)
    assert f["reply:1 reply"] == ("summarised", 300)  # history is summarised as one row per kind
    assert f["tool-call:1 tool call"] == ("summarised", 60)
    assert f["file-read:1 file read"] == ("summarised", 1_000)
    assert f["restored-file:src/a.py"] == ("restored", 1_000)
    # the rule is dropped from history, then the restored file brings it back
    assert f["rule:.claude/rules/api.md"] == ("dropped", 380)
    assert c.used == STARTUP_200K + 500 + SUMMARY + 1_000 + 380


# --- auto-compaction step ---------------------------------------------------------------------------
def test_auto_compaction_restores_and_reports() -> None:
    tl = timeline("files: {a.py: 1000}\nevents:\n  - read: a.py\n  - reply: 148000\n  - reply: 5\n")
    # 17,980 + 1,060 + 148,000 = 167,040 ≥ 167,000
    c = compaction(tl)
    assert c.kind == "auto-compact"
    assert c.used == STARTUP_200K + SUMMARY + 1_000
    assert tl.used_at(tl.last) == STARTUP_200K + SUMMARY + 1_000 + 5


# --- /clear -----------------------------------------------------------------------------------------
def test_clear_empties_history_and_runs_clear_hooks() -> None:
    tl = timeline(
        """
        setup:
          memory: {CLAUDE.md: 500}
          skills: [{name: pdf, description: {chars: 100}, body: 1000}]
          hooks:
            - {event: SessionStart, matcher: startup, name: s, adds: 100}
            - {event: SessionStart, matcher: clear, name: c, adds: 250}
            - {event: SessionStart, matcher: compact, name: k, adds: 999}
          rules: {.claude/rules/api.md: {tokens: 380, paths: ["src/**"]}}
        files: {src/a.py: 1000}
        events:
          - read: src/a.py
          - skill: pdf
          - plan: 800
          - clear:
          - read: src/a.py
        """
    )
    (c,) = steps_of_kind(tl, "clear")
    listing = math.ceil((3 + P.skill_entry_overhead_chars + 100) / 4)
    assert c.used == STARTUP_200K + 500 + listing + 250
    assert [b.kind for b in live(tl, c.index) if b.category is Category.MESSAGES] == ["hook-output"]
    # the read memory starts over: content again (no stub), and the rule loads again
    read = steps_of_kind(tl, "read")[-1]
    assert sorted((b.kind, b.tokens) for b in added(tl, read.index)) == [
        ("file-read", 1_000),
        ("rule", 380),
        ("tool-call", 60),
    ]
    # nothing from before /clear is restored later
    tl2 = timeline("files: {a: 100}\nevents:\n  - read: a\n  - clear:\n  - compact:\n")
    assert compaction(tl2).used == STARTUP_200K + SUMMARY


# --- the auto-compaction check after a compaction -------------------------------------------------
def test_manual_compaction_landing_over_threshold_is_checked() -> None:
    # §1: "after any event that adds content, if the context is ≥ threshold, an automatic compaction step
    # happens before the next event" — a /compact adds its summary. Threshold: floor(180,000 × 15%) = 27,000;
    # 17,980 + a 10,000 summary = 27,980 ≥ 27,000.
    tl = timeline("autocompact_pct: 15\nevents:\n  - reply: 100\n  - compact: {summary: 10k}\n  - reply: 5\n")
    assert compaction(tl).used == STARTUP_200K + 10_000
    kinds = [s.kind for s in tl.steps if s.kind != "startup"]
    assert kinds == ["reply", "compact", "auto-compact", "reply"]


def test_auto_compaction_restores_without_landing_over_threshold() -> None:
    # Threshold 27,000. Startup: 17,980 + CLAUDE.md 500 = 18,480. The reply takes it to 27,100 → auto-compact:
    # 18,480 + 4,000 summary = 22,480 < 27,000, so the compaction must land below the threshold (otherwise the
    # next event compacts again at once). Restoring t.test.ts (1,540) alone would give 24,020, but it brings
    # its rule (2,000) and its folder's CLAUDE.md (1,500): 27,520 ≥ 27,000.
    tl = timeline(
        """
        autocompact_pct: 15
        setup:
          memory: {CLAUDE.md: 500}
          rules: {.claude/rules/tests.md: {tokens: 2000, paths: ["*.test.ts"]}}
        files:
          src/t.test.ts: 1540
          src/CLAUDE.md: 1500
        events:
          - read: src/t.test.ts
          - reply: 3520
          - reply: 5
        """
    )
    # 18,480 + (60 + 1,540 + 2,000 + 1,500) + 3,520 = 27,100
    assert steps_of_kind(tl, "reply")[0].used == 27_100
    c = compaction(tl)
    assert c.kind == "auto-compact"
    assert c.used < 27_000
    assert [s.kind for s in tl.steps if s.kind != "startup"] == ["read", "reply", "auto-compact", "reply"]


def test_each_automatic_compaction_takes_its_own_summary_then_the_default() -> None:
    # 17,980 + 150,000 ≥ 167,000 compacts; each reply of 150,000 after it compacts again
    tl = timeline(
        "profile: {summary_tokens_each: [3000, 7000]}\nevents:\n"
        "  - reply: 150000\n  - reply: 5\n  - reply: 150000\n  - reply: 5\n  - reply: 150000\n  - reply: 5\n"
    )
    autos = steps_of_kind(tl, "auto-compact")
    assert [added_tokens(tl, s.index, "summary") for s in autos] == [3_000, 7_000, SUMMARY]
    assert [s.used for s in autos] == [STARTUP_200K + 3_000, STARTUP_200K + 7_000, STARTUP_200K + SUMMARY]


def test_a_typed_compact_keeps_its_own_summary_and_does_not_take_an_automatic_ones_turn() -> None:
    tl = timeline(
        "profile: {summary_tokens_each: [3000]}\nevents:\n"
        "  - reply: 700\n  - compact: {summary: 6k}\n  - reply: 150000\n  - reply: 5\n"
    )
    assert added_tokens(tl, compaction(tl, 0).index, "summary") == 6_000
    assert added_tokens(tl, compaction(tl, 1).index, "summary") == 3_000


def test_the_per_file_limit_counts_content_not_the_line_numbers_a_read_adds() -> None:
    # 5,600 tokens as read over 300 lines: with 3 tokens of line numbers a line, 5,600 - 900 = 4,700 of
    # content ≤ 5,000, so it is re-read whole (5,600); 5,600 over 100 lines is 5,300 of content: a reference
    tl = timeline(
        "profile: {restore_line_number_tokens: 3}\nfiles: {a: {tokens: 5600, lines: 300}, b: {tokens: 5600, "
        "lines: 100}}\nevents:\n  - read: a\n  - read: b\n  - compact:\n"
    )
    c = compaction(tl)
    assert sorted((b.kind, b.tokens) for b in added(tl, c.index) if b.kind != "summary") == [
        ("file-reference", 40),
        ("restored-file", 5_600),
    ]


def test_memory_files_and_the_plan_read_as_files_are_not_re_read() -> None:
    # Claude Code leaves its memory files' own paths and the plan file out of the files it re-reads (they
    # come back their own way); a CLAUDE.md in a subfolder is an ordinary file there
    tl = timeline(
        "files: {CLAUDE.md: 700, CLAUDE.local.md: 300, ~/.claude/plans/p.md: 900, docs/CLAUDE.md: 250, a.py: 400}\n"
        "events:\n  - read: a.py\n  - read: docs/CLAUDE.md\n  - read: CLAUDE.md\n  - read: CLAUDE.local.md\n"
        "  - read: ~/.claude/plans/p.md\n  - compact:\n"
    )
    c = compaction(tl)
    restored = [(b.label, b.tokens) for b in added(tl, c.index) if b.kind in ("restored-file", "file-reference")]
    assert restored == [("Restored docs/CLAUDE.md", 250), ("Restored a.py", 400)]
