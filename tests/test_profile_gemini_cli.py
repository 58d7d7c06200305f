"""The gemini-cli profile, mechanic by mechanic, with numbers worked out by hand from the research on
gemini-cli (google-gemini/gemini-cli @5411f113)."""

from __future__ import annotations

from functools import partial

from agent_helpers import added, added_tokens, chars4, notes, run, startup_used, step_of

run_gemini_cli = partial(run, "gemini-cli")

# system prompt (18,710 chars / 4) + <session_context> (assumed) + tool declarations (assumed)
PROMPT, ENV, TOOLS = 4_678, 80, 4_000
MARKERS = chars4("\n--- Content from referenced files ---\n" + "\n--- End of content ---")  # 62 chars → 16


def test_window_and_threshold_half_of_1m():
    tl = run("gemini-cli", "events: []")
    assert (tl.model, tl.window) == ("gemini-2.5-pro", 1_048_576)
    assert tl.thresholds.autocompact == 524_288  # 0.5 × 1,048,576


def test_startup_sends_a_200_item_tree_and_gemini_md_only():
    tl = run_gemini_cli("""
        tree: {files: 1400, dirs: 210}
        setup:
          memory:
            ~/.gemini/GEMINI.md: 200
            GEMINI.md: 1200
            CLAUDE.md: 500
        events: []
        """)
    tree = [b for b in tl.state_at(tl.last) if b.kind == "directory-tree"]
    assert [b.tokens for b in tree] == [200 * 8]  # 1,610 entries, cut at 200; 8 tokens each (assumed)
    memory = [(b.label, b.tokens) for b in tl.state_at(tl.last) if b.kind == "memory-file"]
    assert memory == [("~/.gemini/GEMINI.md", 200), ("GEMINI.md", 1_200)]
    assert startup_used(tl) == PROMPT + ENV + 1_600 + TOOLS + 200 + 1_200


def test_tree_from_files_when_small():
    tl = run("gemini-cli", "files: {src/a.py: 100, src/lib/b.py: 100, README.md: 50}\nevents: []")
    # 3 files + 2 folders (src, src/lib) = 5 entries × 8
    assert [b.tokens for b in tl.state_at(tl.last) if b.kind == "directory-tree"] == [40]


def test_mentions_are_inlined_between_markers_and_ranges_are_stripped():
    tl = run_gemini_cli("""
        files:
          src/util.py: {lines: 100}
          src/huge.py: {lines: 4000}
        events:
          - prompt: "see @src/util.py and @src/huge.py:10-20"
        """)
    header_util = chars4("--- src/util.py ---\n")  # 20 chars → 5
    header_huge = chars4("--- src/huge.py ---\n")
    prompt = chars4("see @src/util.py and @src/huge.py:10-20")  # 39 chars → 10
    # util: 1,000 tokens whole; huge: the range is stripped, the whole file read: first 2,000 of 4,000 lines
    # (20,000 tokens) and a note to read on (30, assumed); the markers are paid once
    assert added_tokens(tl, 0) == prompt + MARKERS + header_util + 1_000 + header_huge + 20_000 + 30
    text = notes(tl, 0)
    assert "no line ranges" in text
    assert "first 2,000 of 4,000 lines" in text


def test_a_folder_mention_sends_every_file_below_it():
    tl = run_gemini_cli("""
        files: {src/a.py: 100, src/b.py: 200, docs/c.md: 50}
        events:
          - prompt: "read @src/"
        """)
    headers = chars4("--- src/a.py ---\n") + chars4("--- src/b.py ---\n")
    assert added_tokens(tl, 0) == chars4("read @src/") + MARKERS + headers + 100 + 200


def test_shell_output_over_40000_chars_saved_with_head_and_tail():
    tl = run_gemini_cli("""
        events:
          - bash: {command: npm test, output: {chars: 61204}}
          - grep: {pattern: x, output: {chars: 61204}}
        """)
    # 40,000 chars kept (8,000 head + 32,000 tail) = 10,000 tokens + the pointer line (25, assumed)
    (spilled,) = added(tl, 0, "spilled-output")
    assert spilled.tokens == 10_000 + 25
    assert "first 8,000 and last 32,000 chars" in notes(tl, 0)
    assert added_tokens(tl, 1) == 60 + 15_301  # search output is not cut


def test_compression_keeps_the_newest_30_percent_from_a_user_prompt():
    tl = run_gemini_cli("""
        events:
          - prompt: {text: a, size: 1000}
          - reply: 6000
          - prompt: {text: b, size: 1000}
          - reply: 1000
          - prompt: {text: c, size: 500}
          - reply: 500
          - compact: null
        """)
    base = PROMPT + ENV + TOOLS  # an empty project: a tree of 0 entries
    step = step_of(tl, 6)
    assert tl.used_at(step.index - 1) == base + 10_000
    # 7,000 tokens (70%) lie before prompt "b": from there 3,000 stay; snapshot 4,000 (assumed) + the answer
    ack = chars4("Got it. Thanks for the additional context!")  # 42 chars → 11
    assert step.used == base + 3_000 + 4_000 + ack
    kept = [f.label for f in step.fates if f.fate == "kept" and f.kind in ("prompt", "reply")]
    assert kept == ["b", "Gemini's reply", "c", "Gemini's reply"]


def test_nested_gemini_md_loads_when_a_file_below_is_read():
    tl = run_gemini_cli("""
        files:
          src/api/GEMINI.md: 400
          src/api/routes.py: 1000
        events:
          - read: src/api/routes.py
        """)
    assert added_tokens(tl, 0) == 60 + 1_000 + 400
    assert [b.label for b in added(tl, 0, "nested-memory")] == ["src/api/GEMINI.md"]


def test_old_tool_output_is_masked_before_a_new_turn():
    outputs = "\n".join(f"  - bash: {{command: step{n}, output: {{chars: 39996}}}}" for n in range(9))
    tl = run(
        "gemini-cli",
        "files: {src/x.py: 500}\n"
        f"events:\n  - prompt: {{text: a @src/x.py, size: 100}}\n{outputs}\n  - prompt: {{text: b, size: 100}}\n",
    )
    # nine outputs of 9,999 tokens: the newest five (49,995) are protected; the four older (39,996 ≥
    # 30,000) become 250-char previews of 63 tokens; the mentioned file is the prompt's text, not a result
    step = step_of(tl, 10)
    assert sorted(tl.block(b).tokens for b in step.removed) == [9_999] * 4
    assert added_tokens(tl, 10) == 4 * 63 + 100
    mention = MARKERS + chars4("--- src/x.py ---\n") + 500
    assert step.used == PROMPT + ENV + 16 + TOOLS + 100 + mention + 9 * 60 + 5 * 9_999 + 4 * 63 + 100
    assert "masking: 4 old tool output(s), 39,996 tokens" in notes(tl, 10)
