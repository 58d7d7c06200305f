"""The compaction screen's at-a-glance rows, for every profile, on compaction-deep-dive (its window set to
150,000 so every agent compacts at least once): each row is something that agent's compaction does, with
its own limits, and the rows add up to the window after the compaction."""

from __future__ import annotations

import pytest

from ctxviz.compaction_story import what_came_back
from ctxviz.engine import simulate
from ctxviz.profiles import AGENT_NAMES, get_profile
from ctxviz.sources import open_replayable
from ctxviz.timeline import Timeline

# what only Claude Code's compaction (and paimon, which inherits it) does after the summary
RESTORING = ("Recent files re-read", "Invoked skills", "CLAUDE.md and memory", "Skill listing", "SessionStart hooks")


def deep_dive(agent: str) -> Timeline:
    scenario = open_replayable("compaction-deep-dive").scenario
    return simulate(scenario.model_copy(update={"window": 150_000}), agent=agent)


@pytest.mark.parametrize("agent", AGENT_NAMES)
def test_every_compaction_glance_adds_up_to_the_window_after_it(agent: str) -> None:
    timeline = deep_dive(agent)
    assert timeline.compaction_indices(), f"{agent} does not compact at 150,000"
    for index in timeline.compaction_indices():
        rows = what_came_back(timeline, index)
        assert sum(row.tokens for row in rows) == timeline.used_at(index)


@pytest.mark.parametrize("agent", AGENT_NAMES)
def test_the_glance_names_only_what_the_agent_does_with_its_own_limits(agent: str) -> None:
    words = get_profile(agent).teaching.compaction
    timeline = deep_dive(agent)
    for index in timeline.compaction_indices():
        rows = {row.what: row.detail for row in what_came_back(timeline, index)}
        assert words.summary in rows
        if words.restored_files is None:
            assert not set(RESTORING) & set(rows), rows
        if words.keeps is None:
            assert "Kept verbatim" not in rows
        else:
            assert words.keeps in rows["Kept verbatim"]


def test_pi_keeps_its_recent_history_apart_from_what_never_left() -> None:
    timeline = deep_dive("pi")
    (index,) = timeline.compaction_indices()
    rows = {row.what: (row.tokens, row.detail) for row in what_came_back(timeline, index)}
    # the system prompt (~2,500 chars / 4), four tool definitions (assumed 1,200), the scenario's CLAUDE.md
    assert rows["Never left"][0] == 625 + 1_200 + 2_000
    assert "the newest 20,000 tokens" in rows["Kept verbatim"][1]
    assert "Recent files re-read" not in rows and "5,000" not in " ".join(d for _, d in rows.values())


def test_claude_code_names_its_restore_limits() -> None:
    timeline = deep_dive("claude-code")
    rows = {row.what: row.detail for row in what_came_back(timeline, timeline.compaction_indices()[-1])}
    assert rows["Recent files re-read"].startswith("5 of at most 5, each ≤ 5,000")
    assert "≤ 5,000 each, ≤ 25,000 in all" in rows["Invoked skills"]


def words_box(agent: str, scenario: str, index: int) -> str:
    from rich.console import Console

    from ctxviz.sources import open_timeline
    from ctxviz.tui.renderables.detail import step_detail

    console = Console(width=120, record=True, color_system=None, file=open("/dev/null", "w"))  # noqa: SIM115
    console.print(step_detail(open_timeline(scenario, agent=agent), index))
    text = console.export_text()
    return text[text.index("Words") :]


def test_the_words_box_defines_a_stub_as_the_agent_in_use_means_it() -> None:
    # grok-build's step 5 of mention-myth: a mention over its 5,000-token gate goes as a one-line stub
    assert "stub: What an @-mention sends for a file estimated over 5,000 tokens" in words_box(
        "grok-build", "mention-myth", 5
    )
    assert "the short answer read gives" not in words_box("grok-build", "mention-myth", 5).lower()


def test_run_why_tells_each_agents_compaction_in_its_words() -> None:
    from click.testing import CliRunner

    from ctxviz.cli import main

    def why(agent: str) -> str:
        args = ["run", "compaction-deep-dive", "--agent", agent, "--why"]
        result = CliRunner().invoke(main, args, terminal_width=200)
        assert result.exit_code == 0, result.output
        return result.output

    pi = why("pi")
    # pi's system prompt, four tools (assumed), the scenario's CLAUDE.md: what never left
    assert f"Never left {625 + 1_200 + 2_000:,}:" in pi and "Kept verbatim" in pi
    assert "Recent files re-read" not in pi
    assert "Recent files re-read" in why("claude-code")
