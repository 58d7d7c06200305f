"""The codex profile, mechanic by mechanic, with numbers worked out by hand from the research on Codex
(openai/codex at the commits named in ctxviz/profiles/codex.py)."""

from __future__ import annotations

from functools import partial

from agent_helpers import added, added_tokens, compactions, notes, run, startup_used, step_of

from ctxviz.profiles import get_profile

run_codex = partial(run, "codex")

# system prompt (prompt.md, 22,329 chars / 4) + <environment_context> (assumed) + tools (assumed)
STARTUP = 5_583 + 120 + 1_500


def test_window_and_thresholds():
    tl = run("codex", "events: []")
    assert (tl.model, tl.window) == ("gpt-5.4", 272_000)
    t = tl.thresholds
    assert t.autocompact == 272_000 * 9 // 10 == 244_800
    assert t.blocking == 272_000 * 95 // 100 == 258_400  # effective_context_window_percent
    assert t.buffer == 272_000 - 244_800
    assert get_profile("codex").thresholds.formula() == "90% of the window"


def test_the_windows_real_rollouts_record_95_percent_of():
    # rollouts record model_context_window 121,600 (spark) and 258,400 (gpt-5.5): 95% of 128,000 and 272,000
    spark = run("codex", "model: gpt-5.3-codex-spark\nevents: []")
    assert (spark.window, spark.thresholds.autocompact) == (128_000, 115_200)  # 90% of 128,000
    assert not spark.notices  # a known window, not a guess
    assert run("codex", "model: gpt-5.5\nevents: []").window == 272_000


def test_a_claude_model_is_not_run_by_codex():
    tl = run("codex", "model: claude-opus-4-6\nevents: []")
    assert (tl.model, tl.window) == ("gpt-5.4", 272_000)
    assert any("does not run claude-opus-4-6" in n for n in tl.notices)


def test_startup_agents_md_capped_at_32_kib_and_claude_md_not_read():
    tl = run_codex("""
        setup:
          memory:
            ~/.codex/AGENTS.md: 300
            AGENTS.md: 10000
            CLAUDE.md: 500
        events: []
        """)
    memory = [(b.label, b.tokens) for b in tl.state_at(tl.last) if b.kind == "memory-file"]
    # AGENTS.md: 10,000 tokens = 40,000 bytes; 32,768 of them fit: 10,000 × 32,768 / 40,000 = 8,192
    assert memory == [("~/.codex/AGENTS.md", 300), ("AGENTS.md", 8_192)]
    assert startup_used(tl) == STARTUP + 300 + 8_192
    assert tl.steps[0].notes == (
        "assumed (nobody published them): environment 120, tools 1,500, tool call 60, edit result 40",
    )
    everything = "\n".join(n for s in tl.steps for n in s.notes)
    assert "cut to 32,768 of 40,000 bytes" in everything
    assert "CLAUDE.md not loaded" in everything


def test_the_override_file_wins_in_its_folder():
    tl = run_codex("""
        setup:
          memory: {AGENTS.override.md: 400, AGENTS.md: 900}
        events: []
        """)
    assert [b.label for b in tl.state_at(tl.last) if b.kind == "memory-file"] == ["AGENTS.override.md"]


def test_a_mention_is_the_path_only():
    tl = run_codex("""
        files: {src/app.py: {lines: 300}}
        events:
          - prompt: "fix @src/app.py"
        """)
    assert [b.kind for b in added(tl, 0)] == ["prompt"]
    assert added_tokens(tl, 0) == 4  # "fix @src/app.py": 15 chars
    assert "the path only" in notes(tl, 0)


def test_read_first_2000_lines_then_10000_tokens_head_and_tail():
    tl = run_codex("""
        files: {src/big.py: {lines: 4000}}
        events:
          - read: src/big.py
        """)
    # 4,000 lines (40,000 tokens) → the first 2,000 (20,000) → over 10,000: 10,000 + a 10-token marker (assumed)
    assert added_tokens(tl, 0) == 60 + 10_000 + 10
    assert "(assumed)" in notes(tl, 0)


def test_big_output_is_cut_in_the_middle_and_never_saved():
    tl = run_codex("""
        events:
          - bash: {command: make, output: {chars: 61204}}
          - bash: {command: ls, output: {chars: 4000}}
        """)
    assert added_tokens(tl, 0) == 60 + 10_000 + 10  # 15,301 tokens > 10,000
    assert not added(tl, 0, "spilled-output")
    assert added_tokens(tl, 1) == 60 + 1_000


def test_compaction_keeps_recent_user_messages_up_to_20000_and_the_summary():
    tl = run_codex("""
        events:
          - prompt: {text: first, size: 12000}
          - reply: 500
          - prompt: {text: second, size: 6000}
          - bash: {command: ls, output: 3000}
          - prompt: {text: third, size: 5000}
          - compact: null
        """)
    step = step_of(tl, 5)
    assert tl.used_at(step.index - 1) == STARTUP + 12_000 + 500 + 6_000 + 3_060 + 5_000
    # newest first: 5,000 + 6,000 kept; 9,000 of the budget left for the oldest, cut to it; summary 4,000
    assert step.used == STARTUP + 5_000 + 6_000 + 9_000 + 4_000
    fates = {(f.label, f.fate): f.tokens for f in step.fates}
    assert fates[("first", "truncated")] == 9_000
    assert fates[("second", "kept")] == 6_000
    assert fates[("Summary", "new")] == 4_000
    live = [b.kind for b in tl.state_at(step.index) if b.category == "Messages"]
    assert "reply" not in live and "tool-output" not in live and "tool-call" not in live


def test_auto_compaction_at_90_percent():
    tl = run_codex("""
        events:
          - prompt: {text: huge, size: 240000}
          - reply: 4000
        """)
    # 7,203 + 240,000 = 247,203 ≥ 244,800 after the prompt: compaction before the reply
    (auto,) = compactions(tl)
    assert auto.kind == "auto-compact"
    assert tl.used_at(auto.index - 1) == STARTUP + 240_000
    assert auto.used == STARTUP + 20_000 + 4_000  # the prompt cut to 20,000, the summary
    assert "90% of the window" in "\n".join(auto.notes)


def test_mcp_schemas_load_up_front_in_codex_and_not_at_all_in_pi():
    text = "setup: {mcp: [{server: github, tools: 40}]}\nevents: []"
    codex = run("codex", text)
    assert [b.tokens for b in codex.state_at(codex.last) if b.kind == "mcp-tools"] == [40 * 400]  # assumed size
    assert any("defers no MCP tool" in n for s in codex.steps for n in s.notes)
    pi = run("pi", text)
    assert [b for b in pi.state_at(pi.last) if b.kind == "mcp-tools"] == []
    assert any("pi has no MCP client" in n for s in pi.steps for n in s.notes)
    grok = run("grok-build", text)  # behind search_tool: names only, a schema on first use
    assert [b.tokens for b in grok.state_at(grok.last) if b.kind == "mcp-tools"] == [40 * 15]


def test_requests_fail_above_95_percent_of_each_models_window() -> None:
    # Codex reports 95% of a model's window as usable: 258,400 of 272,000 and 121,600 of 128,000 (the
    # model_context_window real rollouts record); the trigger, 90%, stays below it on both.
    for window, usable, trigger in ((272_000, 258_400, 244_800), (128_000, 121_600, 115_200)):
        thresholds = get_profile("codex").thresholds.thresholds(window, 0)
        assert (thresholds.blocking, thresholds.autocompact) == (usable, trigger)
