"""The paimon design (a mention policy that sends nothing twice), worked by hand from the article's rules:
an envelope with path, sha256, content, lines and total-lines; the head only over 200 lines (assumed); an
unchanged re-mention or a covered range sends the envelope alone; an edit or a compaction resets that."""

from __future__ import annotations

from agent_helpers import added, added_tokens, chars4, notes, run, startup_used, step_of

from ctxviz.profiles.paimon import RULES_TEXT

HASH = "0" * 64
CLAUDE_STARTUP = 4_200 + 280 + 13_500  # everything but mentions is claude-code's


def envelope(path: str, content: str, lines: str, total: int, unchanged: bool = False) -> int:
    tags = f'path="{path}" sha256="{HASH}" content="{content}" lines="{lines}" total-lines="{total}"'
    return chars4(f'<file {tags} status="unchanged"/>' if unchanged else f"<file {tags}>\n\n</file>")


FILES = "files: {src/config.py: {lines: 80}, src/parser.py: {lines: 1240}}\n"


def test_the_rules_cost_tokens_in_the_system_prompt():
    tl = run("paimon", "events: []")
    rules = [b for b in tl.state_at(tl.last) if b.label == "Mention rules (paimon)"]
    assert [(b.category, b.tokens) for b in rules] == [("System prompt", chars4(RULES_TEXT))]
    assert startup_used(tl) == CLAUDE_STARTUP + chars4(RULES_TEXT)
    assert tl.thresholds.autocompact == 167_000  # claude-code's


def test_full_file_then_unchanged_re_mention_sends_the_envelope_only():
    tl = run(
        "paimon",
        FILES + 'events:\n  - prompt: "a @src/config.py"\n  - prompt: "b @src/config.py"\n',
    )
    assert added_tokens(tl, 0) == chars4("a @src/config.py") + 800 + envelope("src/config.py", "full", "1-80", 80)
    assert added_tokens(tl, 1) == chars4("b @src/config.py") + envelope(
        "src/config.py", "full", "1-80", 80, unchanged=True
    )
    assert "already sent, same sha256" in notes(tl, 1)


def test_a_large_file_sends_its_head_with_the_true_length():
    tl = run("paimon", FILES + 'events:\n  - prompt: "x @src/parser.py"\n  - prompt: "y @src/parser.py"\n')
    head = envelope("src/parser.py", "partial", "1-200", 1240)
    assert added_tokens(tl, 0) == chars4("x @src/parser.py") + 2_000 + head  # 200 of 1,240 lines
    # the whole file again: its head is all that would be sent, and it was: the envelope alone
    again = envelope("src/parser.py", "partial", "1-200", 1240, unchanged=True)
    assert added_tokens(tl, 1) == chars4("y @src/parser.py") + again


def test_ranges_are_recorded_and_a_covered_one_is_not_resent():
    tl = run(
        "paimon",
        FILES
        + "events:\n"
        + '  - prompt: "a @src/parser.py:410-460"\n'
        + '  - prompt: "b @src/parser.py:420-430"\n'
        + '  - prompt: "c @src/parser.py:401-420"\n',
    )
    first = envelope("src/parser.py", "partial", "410-460", 1240)
    assert added_tokens(tl, 0) == chars4("a @src/parser.py:410-460") + 510 + first
    covered = envelope("src/parser.py", "partial", "420-430", 1240, unchanged=True)
    assert added_tokens(tl, 1) == chars4("b @src/parser.py:420-430") + covered
    # 401–420 overlaps but is not inside one range sent: sent whole (merging overlaps is left open)
    overlap = envelope("src/parser.py", "partial", "401-420", 1240)
    assert added_tokens(tl, 2) == chars4("c @src/parser.py:401-420") + 200 + overlap


def test_an_edit_and_a_compaction_each_make_it_send_the_content_again():
    tl = run(
        "paimon",
        FILES
        + "events:\n"
        + '  - prompt: "a @src/config.py"\n'
        + "  - edit: {path: src/config.py, change: 100}\n"
        + '  - prompt: "b @src/config.py"\n'
        + '  - prompt: "c @src/config.py"\n'
        + "  - compact: null\n"
        + '  - prompt: "d @src/config.py"\n',
    )
    full = envelope("src/config.py", "full", "1-80", 80)
    assert added_tokens(tl, 2) == chars4("b @src/config.py") + 800 + full  # new sha256 after the edit
    assert added_tokens(tl, 3) == chars4("c @src/config.py") + envelope(
        "src/config.py", "full", "1-80", 80, unchanged=True
    )
    assert "table of 1 sent file(s) is reset" in "\n".join(step_of(tl, 4).notes)
    assert added_tokens(tl, 5) == chars4("d @src/config.py") + 800 + full


def test_a_folder_is_listed_as_claude_code_lists_it():
    tl = run("paimon", 'files: {src/a.py: 100, src/b.py: 100}\nevents:\n  - prompt: "see @src/"')
    assert [b.kind for b in added(tl, 0)] == ["prompt", "tool-output"]
