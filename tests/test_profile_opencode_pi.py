"""The opencode and pi profiles, mechanic by mechanic, with numbers worked out by hand from the research
(anomalyco|sst/opencode and badlogic/pi-mono at the commits named in their profile modules). Both run
Claude models; their windows come from the claude-code profile's model table."""

from __future__ import annotations

from functools import partial

from agent_helpers import added, added_tokens, chars4, notes, run, startup_used, step_of

run_opencode = partial(run, "opencode")
run_pi = partial(run, "pi")

OPENCODE = 2_053 + 60 + 8_000  # anthropic.txt (8,209 chars / 4) + <env> (assumed) + tools (assumed)
PI = 625 + 1_200  # the small prompt (~2,500 chars / 4) + four tool definitions (assumed)


# --- opencode ----------------------------------------------------------------------------------------
def test_opencode_trigger_is_context_minus_max_output_minus_reserve():
    tl = run("opencode", "events: []")
    assert tl.thresholds.autocompact == 200_000 - 32_000 - 20_000 == 148_000
    # opus 4.6 can write 64,000 tokens, but opencode asks for at most OUTPUT_TOKEN_MAX = 32,000
    opus = run("opencode", "model: claude-opus-4-6\nevents: []")
    assert opus.thresholds.autocompact == 200_000 - 32_000 - 20_000 == 148_000
    assert opus.thresholds.blocking == 200_000 - 32_000
    haiku_3 = run("opencode", "model: claude-3-5-haiku\nevents: []")  # 8,192 output: below both caps
    assert haiku_3.thresholds.autocompact == 200_000 - 8_192 - 8_192 == 183_616


def test_opencode_reads_the_first_of_agents_md_claude_md_with_a_header():
    tl = run_opencode("""
        setup:
          memory: {~/.claude/CLAUDE.md: 300, AGENTS.md: 700, CLAUDE.md: 500}
        events: []
        """)
    memory = [(b.label, b.tokens) for b in tl.state_at(tl.last) if b.kind == "memory-file"]
    assert memory == [
        ("~/.claude/CLAUDE.md", 300 + chars4("Instructions from: ~/.claude/CLAUDE.md\n")),
        ("AGENTS.md", 700 + chars4("Instructions from: AGENTS.md\n")),
    ]
    only_claude = run("opencode", "setup: {memory: {CLAUDE.md: 500}}\nevents: []")
    assert startup_used(only_claude) == OPENCODE + 500 + chars4("Instructions from: CLAUDE.md\n")


def test_opencode_mention_is_a_synthetic_read_call_and_a_range_reads_those_lines():
    tl = run_opencode("""
        files: {src/app.py: {lines: 256}}
        events:
          - prompt: "why @src/app.py#12-19"
          - prompt: "and @src/app.py"
        """)
    call = 'Called the Read tool with the following input: {"filePath":"src/app.py","offset":11,"limit":8}'
    assert added_tokens(tl, 0) == chars4("why @src/app.py#12-19") + chars4(call) + 80  # 8 of 256 lines
    whole = 'Called the Read tool with the following input: {"filePath":"src/app.py"}'
    assert added_tokens(tl, 1) == chars4("and @src/app.py") + chars4(whole) + 2_560
    assert "synthetic Read call" in notes(tl, 0)


def test_opencode_folder_mention_is_a_list_call():
    tl = run_opencode("""
        files: {src/a.py: 100, src/b.py: 100, src/lib/c.py: 100}
        events:
          - prompt: "look @src/"
        """)
    call = 'Called the list tool with the following input: {"path":"src/"}'
    assert added_tokens(tl, 0) == chars4("look @src/") + chars4(call) + 3 * 6  # a.py, b.py, lib/ (6 assumed)


def test_opencode_attaches_a_nested_agents_md_when_a_file_below_is_read_and_no_claude_rule():
    tl = run_opencode("""
        files: {src/api/AGENTS.md: 300, src/api/auth.ts: 1000}
        setup:
          rules: {.claude/rules/api.md: {tokens: 200, paths: ["src/api/**"]}}
        events:
          - read: src/api/auth.ts
        """)
    assert [b.label for b in added(tl, 0, "nested-memory")] == ["src/api/AGENTS.md"]
    assert added_tokens(tl, 0) == 60 + 1_000 + 300


def test_opencode_read_cut_at_2000_lines_then_50_kb():
    tl = run("opencode", "files: {src/big.py: {lines: 4000}}\nevents:\n  - read: src/big.py")
    # 2,000 of 4,000 lines = 20,000 tokens = 80,000 bytes > 51,200: 20,000 × 51,200 / 80,000 = 12,800
    assert added_tokens(tl, 0) == 60 + 12_800


def test_opencode_big_output_saved_with_its_head_and_a_hint():
    tl = run("opencode", "events:\n  - bash: {command: make, output: {chars: 61204}}")
    (spilled,) = added(tl, 0, "spilled-output")
    assert spilled.tokens == 12_800 + 50  # 51,200 of 61,204 bytes; hint assumed
    assert "saved to a file" in notes(tl, 0)


# three turns of 11,000, 7,000 and 5,000 tokens, then a /compact (its summary's size follows)
THREE_TURNS = """
events:
  - prompt: {text: a, size: 2000}
  - reply: 9000
  - prompt: {text: b, size: 1000}
  - reply: 6000
  - prompt: {text: c, size: 1000}
  - reply: 4000
  - compact: """


def test_opencode_compaction_keeps_the_recent_turns_within_15000():
    tl = run("opencode", THREE_TURNS + "null")
    step = step_of(tl, 6)
    # budget clamp(25% of 148,000, 2,000, 15,000) = 15,000: turns c (5,000) and b (7,000) fit, a (11,000) not
    assert step.used == OPENCODE + 12_000 + 4_000 + 10  # + anchored summary, auto-continue (both assumed)
    assert "2 recent turn(s) kept (12,000 of at most 15,000 tokens" in "\n".join(step.notes)


# a turn of five 48,000-char (12,000-token) bash outputs, then two short turns
_BASHES = "\n".join(f"  - bash: {{command: run{n}, output: {{chars: 48000}}}}" for n in range(5))
BIG_OUTPUTS_THEN_TWO_TURNS = (
    f"events:\n  - prompt: {{text: a, size: 100}}\n{_BASHES}\n"
    "  - prompt: {text: b, size: 100}\n  - reply: 100\n  - prompt: {text: c, size: 100}\n  - reply: 100\n"
)


def test_opencode_prune_clears_old_tool_output_beyond_the_newest_40000():
    tl = run("opencode", BIG_OUTPUTS_THEN_TWO_TURNS + "  - compact: null\n")
    step = step_of(tl, 10)
    marker = chars4("[Old tool result content cleared]")  # 33 chars → 9
    # newest first 12,000 each: the fourth passes 40,000 → the two oldest go: 24,000 − 2 × 9 freed
    assert f"{24_000 - 2 * marker:,} tokens freed" in "\n".join(step.notes)
    # then turns c and b (200 each) fit the 15,000 tail; turn a (36,418 after the prune) is summarised
    assert step.used == OPENCODE + 400 + 4_000 + 10


def test_opencode_prunes_when_a_turn_ends():
    tl = run("opencode", BIG_OUTPUTS_THEN_TWO_TURNS + "  - prompt: {text: d, size: 100}\n")
    # at prompt c turn a is not yet two turns back; at prompt d it is: its two oldest outputs go
    assert step_of(tl, 8).removed == ()
    step = step_of(tl, 10)
    assert sorted(tl.block(b).tokens for b in step.removed) == [12_000, 12_000]
    assert added_tokens(tl, 10) == 2 * chars4("[Old tool result content cleared]") + 100


# --- pi ------------------------------------------------------------------------------------------------
def test_pi_trigger_is_window_minus_16384():
    tl = run("pi", "events: []")
    assert (tl.model, tl.window, tl.thresholds.autocompact) == ("claude-sonnet-4-6", 200_000, 183_616)


def test_pi_reads_agents_md_before_claude_md_and_the_user_file():
    tl = run_pi("""
        setup:
          memory: {~/.pi/agent/AGENTS.md: 100, AGENTS.md: 700, CLAUDE.md: 500}
        events: []
        """)
    memory = [(b.label, b.tokens) for b in tl.state_at(tl.last) if b.kind == "memory-file"]
    assert memory == [("~/.pi/agent/AGENTS.md", 100), ("AGENTS.md", 700)]
    assert startup_used(tl) == PI + 800


def test_pi_mention_in_the_editor_is_the_path_only():
    tl = run("pi", 'files: {src/a.py: 900}\nevents:\n  - prompt: "fix @src/a.py"')
    assert [b.kind for b in added(tl, 0)] == ["prompt"]


def test_pi_bash_keeps_the_tail_and_writes_a_temp_file_over_50_kb():
    tl = run_pi("""
        events:
          - bash: {command: make, output: {chars: 61204}}
          - bash: {command: seq, output: {tokens: 5000, lines: 2500}}
        """)
    (spilled,) = added(tl, 0, "spilled-output")
    assert spilled.tokens == 12_800 + 30  # the last 51,200 bytes; notice assumed
    # 2,500 lines but 20,000 bytes: the last 2,000 lines (4,000 tokens) and the notice, no temp file
    assert added_tokens(tl, 1, "tool-output") == 4_000 + 30
    assert "temp file" in notes(tl, 0) and "temp file" not in notes(tl, 1)


def test_pi_has_no_subagents_the_work_happens_in_the_main_window():
    tl = run_pi("""
        files: {src/a.py: 900}
        events:
          - subagent: {type: Explore, reads: [src/a.py], returns: 400}
        """)
    step = step_of(tl, 0)
    assert step.child is None
    assert 900 in [b.tokens for b in tl.blocks_of(step.added)]


def test_pi_compaction_keeps_the_newest_20000_cut_where_a_message_starts():
    tl = run_pi("""
        files:
          src/a.py: {tokens: 12000, lines: 1200}
          src/b.py: {tokens: 6000, lines: 600}
        events:
          - prompt: {text: a, size: 5000}
          - read: src/a.py
          - read: src/b.py
          - reply: 3000
          - compact: null
        """)
    step = step_of(tl, 4)
    assert tl.used_at(step.index - 1) == PI + 5_000 + 60 + 12_000 + 60 + 6_000 + 3_000
    # back from the newest: 3,000, 9,000, 9,060, then a.py's read reaches 21,060 — a tool result, so the
    # cut moves forward to the next message: b.py's call. Kept 9,060; summary 4,000 (assumed) + file lists
    lists = chars4("\n".join(["<read-files>", "src/a.py", "</read-files>", "<modified-files>", "</modified-files>"]))
    assert step.used == PI + 9_060 + 4_000 + lists


def test_opencode_compaction_with_every_turn_in_its_tail_summarises_nothing_and_says_why():
    tl = run_opencode("""
        events:
          - prompt: {text: a, size: 1000}
          - reply: 2000
          - compact: {summary: 1725}
        """)
    step = step_of(tl, 2)
    # one turn of 3,000 fits the 15,000 tail: no summary of nothing, no auto-continue, the window as it was
    assert step.used == OPENCODE + 3_000 and step.added == () and step.removed == ()
    text = "\n".join(step.notes)
    assert "nothing older to summarise" in text
    assert "nothing was freed: no piece of the history was older than what this compaction keeps" in text


def test_opencode_summary_note_names_the_size_the_scenario_gave():
    tl = run("opencode", THREE_TURNS + "{summary: 1725}")
    step = step_of(tl, 6)
    # turn a (11,000) is older than the 15,000 tail (c 5,000 + b 7,000): it alone is summarised, in 1,725
    assert step.used == OPENCODE + 12_000 + 1_725 + 10
    assert "the 1 older turn(s), 11,000 tokens, summarised in 1,725 tokens" in "\n".join(step.notes)
    assert "(assumed)" not in next(f.why for f in step.fates if f.kind == "summary")
