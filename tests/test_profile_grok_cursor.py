"""The grok-build and cursor profiles, mechanic by mechanic. grok-build's numbers are worked out by hand
from xai-org/grok-build @19d42e35 (its estimate: bytes / 4); Cursor's from its documented behaviour, with
every number an assumption that the why-notes must call one."""

from __future__ import annotations

from functools import partial

import pytest
from agent_helpers import added, added_tokens, chars4, notes, run, startup_used, step_of

from ctxviz.profiles.limits import numbering_bytes

run_grok_build = partial(run, "grok-build")
run_cursor = partial(run, "cursor")

GROK = 1_296 + 60 + 5_000  # prompt.md rendered (5,183 chars / 4) + <user_info> (assumed) + tools (assumed)
ATTACHED = chars4(
    "\n\n<system-reminder>\nBelow are some potentially helpful/relevant pieces of information for figuring out "
    "how to respond\n\n<attached_files>\n\n\n\n</attached_files>\n\n</system-reminder>"
)
CURSOR = 6_000 + 200 + 8_000  # all assumed: prompt, workspace context, tools


def file_tags(path: str, where: str = ' isFullFile="true"') -> int:
    return chars4(f'<file_contents path="{path}"{where}>\n' + "\n</file_contents>")


# --- grok-build ------------------------------------------------------------------------------------------
def test_line_numbers_cost_their_digits_and_an_arrow():
    assert numbering_bytes(1, 80, 3) == 9 * 4 + 71 * 5 == 391
    assert numbering_bytes(95, 105, 3) == 5 * 5 + 6 * 6
    assert numbering_bytes(1, 1240, 3) == 9 * 4 + 90 * 5 + 900 * 6 + 241 * 7 == 7_573


@pytest.mark.parametrize(
    ("agent", "window", "trigger"),
    [("grok-build", 256_000, 256_000 * 85 // 100), ("cursor", 200_000, 200_000 * 90 // 100)],  # cursor's: assumed
)
def test_the_trigger_is_a_share_of_the_window(agent: str, window: int, trigger: int) -> None:
    tl = run(agent, "events: []")
    assert (tl.window, tl.thresholds.autocompact) == (window, trigger)


def test_grok_startup_git_status_and_every_instruction_file_and_rule():
    tl = run_grok_build("""
        setup:
          git_status: {status: {chars: 14000}, commits: 5}
          memory: {~/.claude/CLAUDE.md: 200, AGENTS.md: 700, CLAUDE.md: 500, GEMINI.md: 300}
          rules:
            .claude/rules/style.md: 100
            .claude/rules/tests.md: {tokens: 80, paths: ["tests/**"]}
        events: []
        """)
    # git status cut at 10,000 chars: 2,500 tokens, no commit lines
    assert [b.tokens for b in tl.state_at(tl.last) if b.label == "Git status"] == [2_500]
    opening = chars4(
        "<system-reminder>\nAs you answer the user's questions, you can use the following context (ordered from "
        "repo root to current directory - deeper files take precedence on conflicts):\n"
    )
    files = {b.label: b.tokens for b in tl.state_at(tl.last) if b.kind == "memory-file"}
    assert files == {
        "~/.claude/CLAUDE.md": 200 + opening + 30 + chars4("## From: ~/.claude/CLAUDE.md\n"),
        "AGENTS.md": 700 + chars4("## From: AGENTS.md\n"),
        "CLAUDE.md": 500 + chars4("## From: CLAUDE.md\n"),
        ".claude/rules/style.md": 100 + chars4("## From: .claude/rules/style.md\n"),
        ".claude/rules/tests.md": 80 + chars4("## From: .claude/rules/tests.md\n"),
    }
    assert startup_used(tl) == GROK + 2_500 + sum(files.values())
    everything = "\n".join(n for s in tl.steps for n in s.notes)
    assert "GEMINI.md not loaded" in everything and "paths: are ignored" in everything


def test_grok_mention_inlines_numbered_lines_under_the_5000_gate():
    tl = run(
        "grok-build",
        'files: {src/config.py: {lines: 80}}\nevents:\n  - prompt: "read @src/config.py"',
    )
    # 80 lines, 3,200 bytes; "N→" adds 9 × 4 + 71 × 5 = 391 bytes: estimate 3,591 // 4 = 897 ≤ 5,000
    body = 800 + chars4("x" * 391) + file_tags("src/config.py")
    assert added_tokens(tl, 0) == chars4("read @src/config.py") + body + ATTACHED
    assert "~897 ≤ 5,000" in notes(tl, 0)


def test_grok_mention_over_the_gate_is_a_stub_and_a_range_is_gated_alone():
    tl = run_grok_build("""
        files: {src/parser.py: {lines: 1240}}
        events:
          - prompt: "explain @src/parser.py"
          - prompt: "why @src/parser.py:410-460"
        """)
    # 49,600 bytes + numbers (9×4 + 90×5 + 900×6 + 241×7 = 7,573): 57,173 // 4 = 14,293 > 5,000
    stub = (
        '<file_contents path="src/parser.py" isFullFile="true" skipped="true" reason="file too large '
        '(~14293 estimated tokens, limit 5000). Use read_file tool to read specific sections."/>'
    )
    assert added_tokens(tl, 0) == chars4("explain @src/parser.py") + chars4(stub) + ATTACHED
    assert "stub: ~14,293 > 5,000" in notes(tl, 0)
    # lines 410–460: 51 lines, 510 tokens, 2,040 bytes; numbers 51 × 6 = 306 bytes; 2,346 // 4 = 586
    tags = file_tags("src/parser.py", ' startLine="410" endLine="460"')
    assert added_tokens(tl, 1) == chars4("why @src/parser.py:410-460") + 510 + chars4("x" * 306) + tags + ATTACHED


def test_grok_a_message_over_25000_bytes_is_saved_to_a_file():
    tl = run_grok_build("""
        files:
          src/a.py: {tokens: 4000, lines: 400}
          src/b.py: {tokens: 4000, lines: 400}
        events:
          - prompt: "compare @src/a.py @src/b.py"
        """)
    # each file alone passes the gate: (16,000 + 2,292 bytes of numbers) // 4 = 4,573 ≤ 5,000; together
    # with the prompt they pass 25,000 bytes, so the model gets 25,000 bytes (6,250 tokens) of the message
    # and a note (30, assumed)
    first = 4_000 + chars4("x" * 2_292) + file_tags("src/a.py") + ATTACHED
    assert first < 6_250 < first + 4_000
    assert added_tokens(tl, 0) == 6_250 + 30
    assert "passes 25,000 bytes" in notes(tl, 0)


def test_grok_drops_a_folder_mention():
    tl = run("grok-build", 'files: {src/a.py: 100}\nevents:\n  - prompt: "look @src/"')
    assert [b.kind for b in added(tl, 0)] == ["prompt"]
    assert "dropped silently" in notes(tl, 0)


def test_grok_read_file_1000_lines_and_an_error_over_25000_estimated():
    tl = run_grok_build("""
        files:
          src/long.py: {lines: 4000}
          src/wide.py: {tokens: 30000, lines: 900}
        events:
          - read: src/long.py
          - read: src/wide.py
        """)
    assert added_tokens(tl, 0) == 60 + 10_000  # the first 1,000 of 4,000 lines
    assert added_tokens(tl, 1) == 60 + 50  # 120,000 bytes // 4 = 30,000 > 25,000: an error (assumed size)


def test_grok_outputs_bash_head_and_tail_others_to_a_file():
    tl = run_grok_build("""
        events:
          - bash: {command: make, output: {chars: 61204}}
          - tool: {name: WebFetch, output: {chars: 45000}}
          - tool: {name: mcp__github__search, output: {chars: 25000}}
          - tool: {name: WebFetch, output: {chars: 39000}}
        """)
    assert added_tokens(tl, 0, "tool-output") == 5_000 + 25  # 20,000 chars kept + header (assumed)
    (web,) = added(tl, 1, "spilled-output")
    assert web.tokens == 500 + chars4("\n[Output truncated - 45000 bytes total]")  # 2,000-byte preview
    (mcp,) = added(tl, 2, "spilled-output")
    assert mcp.tokens == 500 + chars4("\n[Output truncated - 25000 bytes total]")  # MCP cap 20,000 bytes
    assert added_tokens(tl, 3, "tool-output") == 9_750


def test_grok_compaction_keeps_the_last_query_the_anchor_and_edited_paths():
    tl = run_grok_build("""
        files: {src/a.py: 1000}
        events:
          - prompt: {text: first, size: 1000}
          - reply: 500
          - edit: {path: src/a.py, change: 200}
          - bash: {command: ls, output: 2000}
          - prompt: {text: second, size: 800}
          - reply: 700
          - compact: null
        """)
    step = step_of(tl, 6)
    # kept: the last query (800) and the latest reply (700); summary 4,000 and a state reminder with the
    # edited path (40 assumed + "src/a.py")
    assert step.used == GROK + 800 + 700 + 4_000 + 40 + chars4("src/a.py")
    kept = {f.label for f in step.fates if f.fate == "kept" and f.kind in ("prompt", "reply")}
    assert kept == {"second", "Grok's reply"}


def test_grok_subagent_has_its_own_prompt():
    tl = run("grok-build", "files: {src/a.py: 900}\nevents:\n  - subagent: {type: Explore, reads: [src/a.py]}")
    child = step_of(tl, 0).child
    assert child is not None and child.used_at(0) == 1_376  # subagent_prompt.md, 5,502 bytes / 4


# --- cursor --------------------------------------------------------------------------------------------
def test_cursor_startup_index_agents_md_and_always_rules():
    tl = run_cursor("""
        files: {src/a.py: 100, src/lib/b.py: 100}
        setup:
          memory: {AGENTS.md: 700, CLAUDE.md: 500}
          rules:
            .cursor/rules/style.mdc: 150
            .cursor/rules/api.mdc: {tokens: 300, paths: ["src/api/**"]}
            .claude/rules/x.md: 90
        events: []
        """)
    index = [b.tokens for b in tl.state_at(tl.last) if b.kind == "directory-tree"]
    assert index == [4 * 8]  # 2 files + 2 folders, 8 tokens each (assumed)
    memory = [(b.label, b.tokens) for b in tl.state_at(tl.last) if b.kind == "memory-file"]
    assert memory == [("AGENTS.md", 700), (".cursor/rules/style.mdc", 150)]
    assert startup_used(tl) == CURSOR + 32 + 850


def test_cursor_mention_whole_or_condensed_with_assumed_sizes():
    tl = run_cursor("""
        files: {src/small.py: {lines: 300}, src/big.py: {lines: 1240}}
        events:
          - prompt: "see @src/small.py"
          - prompt: "see @src/big.py"
        """)
    assert added_tokens(tl, 0) == chars4("see @src/small.py") + 3_000
    assert added_tokens(tl, 1) == chars4("see @src/big.py") + 1_240  # 10% of 12,400 (assumed)
    assert "(assumed)" in notes(tl, 1)


def test_cursor_attaches_a_globbed_rule_when_a_matching_file_is_read():
    tl = run_cursor("""
        files: {src/api/auth.ts: 1000}
        setup:
          rules:
            .cursor/rules/api.mdc: {tokens: 300, paths: ["src/api/**"]}
            .claude/rules/api.md: {tokens: 200, paths: ["src/api/**"]}
        events:
          - read: src/api/auth.ts
        """)
    assert [(b.label, b.tokens) for b in added(tl, 0, "rule")] == [(".cursor/rules/api.mdc", 300)]
    assert added_tokens(tl, 0) == 60 + 1_000 + 300


def test_cursor_reads_250_lines_and_summarises_everything():
    tl = run_cursor("""
        files: {src/big.py: {lines: 1000}}
        events:
          - read: src/big.py
          - reply: 3000
          - compact: null
        """)
    assert added_tokens(tl, 0) == 60 + 2_500  # 250 of 1,000 lines (assumed third-party figure)
    assert "(assumed: 250 lines a call" in notes(tl, 0)
    step = step_of(tl, 2)
    assert step.used == startup_used(tl) + 1_000  # everything summarised into ~1,000 (assumed)
    assert "(assumed)" in "\n".join(step.notes)
