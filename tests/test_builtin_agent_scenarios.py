"""The two comparison scenarios, agent by agent: what each scenario event adds in each agent's window,
worked out by hand from each agent's rules (their profile tests check the same rules one at a time)."""

from __future__ import annotations

from functools import cache

import pytest
from agent_helpers import chars4

from ctxviz.engine import simulate
from ctxviz.scenario_file import load_scenario
from ctxviz.sources import builtin_scenario
from ctxviz.timeline import Timeline
from ctxviz.tokens import CharsPerToken

HASH = "0" * 64
ATTACHED = chars4(
    "\n\n<system-reminder>\nBelow are some potentially helpful/relevant pieces of information for figuring out "
    "how to respond\n\n<attached_files>\n\n\n\n</attached_files>\n\n</system-reminder>"
)
MARKERS = chars4("\n--- Content from referenced files ---\n" + "\n--- End of content ---")


@cache
def run(name: str, agent: str) -> Timeline:
    return simulate(load_scenario(builtin_scenario(name), counter=CharsPerToken()), agent=agent)


def delta(name: str, agent: str, event: int) -> int:
    """What scenario event ``event`` added in ``agent``'s window (net of anything it removed)."""
    tl = run(name, agent)
    steps = [s for s in tl.steps if s.event == event]
    return sum(tl.block(b).tokens for s in steps for b in s.added) - sum(
        tl.block(b).tokens for s in steps for b in s.removed
    )


def paimon(path: str, content: str, lines: str, total: int, unchanged: bool = False) -> int:
    tags = f'path="{path}" sha256="{HASH}" content="{content}" lines="{lines}" total-lines="{total}"'
    return chars4(f'<file {tags} status="unchanged"/>' if unchanged else f"<file {tags}>\n\n</file>")


def grok_tags(path: str, where: str = ' isFullFile="true"') -> int:
    return chars4(f'<file_contents path="{path}"{where}>\n' + "\n</file_contents>")


def opencode_call(arguments: str) -> int:
    return chars4(f"Called the Read tool with the following input: {arguments}")


# --- mention-myth: src/config.py 80 lines (800 tokens), src/parser.py 1,240 lines (12,400 tokens) -----------
P0, P2, P4, P6, P9, P12 = 8, 11, 12, 12, 11, 8  # the six prompts' own text, chars / 4


@pytest.mark.parametrize(
    ("agent", "expected"),
    [
        ("codex", P0),  # the path only
        ("pi", P0),
        ("gemini-cli", P0 + MARKERS + chars4("--- src/config.py ---\n") + 800),
        ("opencode", P0 + opencode_call('{"filePath":"src/config.py"}') + 800),
        # 3,200 bytes + "N→" prefixes (9 × 4 + 71 × 5 = 391): ~897 ≤ 5,000, inlined with its numbers
        ("grok-build", P0 + 800 + chars4("x" * 391) + grok_tags("src/config.py") + ATTACHED),
        ("cursor", P0 + 800),
        ("paimon", P0 + 800 + paimon("src/config.py", "full", "1-80", 80)),
    ],
)
def test_a_small_file(agent: str, expected: int) -> None:
    assert delta("mention-myth", agent, 0) == expected


@pytest.mark.parametrize(
    ("agent", "expected"),
    [
        ("codex", P2),
        ("gemini-cli", P2 + MARKERS + chars4("--- src/parser.py ---\n") + 12_400),
        ("opencode", P2 + opencode_call('{"filePath":"src/parser.py"}') + 12_400),
        (
            "grok-build",
            P2
            + chars4(
                '<file_contents path="src/parser.py" isFullFile="true" skipped="true" reason="file too large '
                '(~14293 estimated tokens, limit 5000). Use read_file tool to read specific sections."/>'
            )
            + ATTACHED,
        ),
        ("cursor", P2 + 1_240),  # condensed to 10% (assumed)
        ("paimon", P2 + 2_000 + paimon("src/parser.py", "partial", "1-200", 1240)),  # the head
    ],
)
def test_a_large_file(agent: str, expected: int) -> None:
    assert delta("mention-myth", agent, 2) == expected


@pytest.mark.parametrize(
    ("agent", "expected"),
    [
        ("gemini-cli", P4 + MARKERS + chars4("--- src/parser.py ---\n") + 12_400),  # the range stripped
        ("opencode", P4 + opencode_call('{"filePath":"src/parser.py","offset":409,"limit":51}') + 510),
        # 51 lines: 2,040 bytes + 51 × "NNN→" (306): ~586, inlined
        (
            "grok-build",
            P4 + 510 + chars4("x" * 306) + grok_tags("src/parser.py", ' startLine="410" endLine="460"') + ATTACHED,
        ),
        ("cursor", P4 + 510),
        ("paimon", P4 + 510 + paimon("src/parser.py", "partial", "410-460", 1240)),
    ],
)
def test_a_line_range(agent: str, expected: int) -> None:
    assert delta("mention-myth", agent, 4) == expected


def test_a_re_mention_of_an_unchanged_file_is_sent_again_except_by_paimon() -> None:
    assert delta("mention-myth", "paimon", 6) == P6 + paimon("src/config.py", "full", "1-80", 80, unchanged=True)
    assert delta("mention-myth", "opencode", 6) == P6 + opencode_call('{"filePath":"src/config.py"}') + 800
    assert delta("mention-myth", "cursor", 6) == P6 + 800


def test_after_an_edit_and_after_a_compaction_paimon_sends_the_content_again() -> None:
    full = paimon("src/config.py", "full", "1-80", 80)
    assert delta("mention-myth", "paimon", 9) == P9 + 800 + full
    assert delta("mention-myth", "paimon", 12) == P12 + 800 + full


def test_compaction_in_the_mention_myth() -> None:
    # Codex keeps every user prompt (54 tokens) and drops the replies and the edit (2,320): + a 4,000 summary
    assert delta("mention-myth", "codex", 11) == 4_000 - 2_320
    # pi: the whole history is under 20,000 tokens, so there is nothing to summarise
    assert delta("mention-myth", "pi", 11) == 0
    assert run("mention-myth", "pi").peak == 625 + 1_200 + (8 + 11 + 12 + 12 + 11 + 8) + 2_300 + 220


# --- map-or-search: 1,400 files in 210 folders; a 96,000-char test output ---------------------------------
def test_who_sends_a_map_up_front() -> None:
    def tree(agent: str) -> list[int]:
        tl = run("map-or-search", agent)
        return [b.tokens for b in tl.state_at(tl.last) if b.kind == "directory-tree"]

    assert tree("gemini-cli") == [200 * 8]  # 1,610 entries, the first 200
    assert tree("cursor") == [500 * 8]  # a project map (assumed size)
    for agent in ("claude-code", "codex", "opencode", "pi", "grok-build"):
        assert tree(agent) == []


def test_grep_caps() -> None:
    assert delta("map-or-search", "claude-code", 2) == 60 + 250 * 15  # 380 matches, Grep returns 250
    assert delta("map-or-search", "codex", 2) == 60 + 380 * 15  # no published cap: all 380


@pytest.mark.parametrize(
    ("agent", "expected"),
    [
        ("claude-code", 60 + 50 + 500),  # 96,000 > 30,000 chars: a 2,000-byte preview and its wrapper
        ("codex", 60 + 10_000 + 10),  # head and tail within 10,000 tokens
        ("gemini-cli", 60 + 10_000 + 25),  # 40,000 chars of head and tail, and the file's path
        ("opencode", 60 + 12_800 + 50),  # the head, 50 KB
        ("pi", 60 + 12_800 + 30),  # the tail, 50 KB
        ("grok-build", 60 + 5_000 + 25),  # 20,000 chars, half head half tail
    ],
)
def test_a_large_test_output(agent: str, expected: int) -> None:
    assert delta("map-or-search", agent, 7) == expected


def test_the_write_creates_a_new_file() -> None:
    assert delta("map-or-search", "codex", 9) == 60 + 700 + 40
    assert any("new file" in n for s in run("map-or-search", "codex").steps if s.event == 9 for n in s.notes)
