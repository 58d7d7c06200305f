"""A scenario's note can name the agents it is about, and shows only under them."""

from __future__ import annotations

from agent_helpers import run

from ctxviz.sources import open_timeline

SCENARIO = """
notes_about: [claude-code]
events:
  - prompt: {text: a, size: 10}
    note: about Claude Code, as the scenario says
  - reply: 10
    note: {text: about pi only, agents: [pi]}
  - note: {text: a narration about gemini-cli, agents: [gemini-cli]}
"""


def notes_under(agent: str) -> list[str | None]:
    timeline = run(agent, SCENARIO)
    return [step.note for step in timeline.steps if step.event is not None]


def test_a_note_shows_only_under_the_agents_it_names() -> None:
    assert notes_under("claude-code") == ["about Claude Code, as the scenario says", None, None]
    assert notes_under("pi") == [None, "about pi only", None]
    assert notes_under("gemini-cli") == [None, None, "a narration about gemini-cli"]


def test_a_note_about_other_agents_keeps_its_step_so_runs_line_up() -> None:
    timeline = run("codex", SCENARIO)
    labels = [step.label for step in timeline.steps if step.event is not None]
    assert labels[-1] == "(a note about gemini-cli)"


def test_mention_myth_tells_grok_build_and_paimon_stories_only_under_them() -> None:
    def note_at_parser(agent: str) -> str | None:
        timeline = open_timeline("mention-myth", agent=agent)
        return next(s.note for s in timeline.steps if "@src/parser.py" in s.label)

    assert note_at_parser("claude-code") is None
    assert "grok-build's estimate" in (note_at_parser("grok-build") or "")


def test_compaction_deep_dive_notes_are_claude_codes() -> None:
    pi = open_timeline("compaction-deep-dive", agent="pi")
    assert not any(step.note and "stub" in step.note for step in pi.steps)
    claude = open_timeline("compaction-deep-dive")
    assert any(step.note and "40-token stub" in step.note for step in claude.steps)
