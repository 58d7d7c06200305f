"""The step detail's words say only what the log recorded: a compaction whose log does not say whether it
was automatic (a Codex rollout) reads "compaction", not "auto-compact"."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console

from ctxviz.sources import open_timeline
from ctxviz.transcripts import open_transcript
from ctxviz.tui.renderables.detail import step_detail

FIXTURES = Path(__file__).parent / "fixtures"


def _first_line(renderable: object) -> str:
    console = Console(width=100, record=True, color_system=None)
    console.print(renderable)
    return console.export_text().splitlines()[0]


def test_a_compaction_of_unknown_trigger_is_not_called_automatic() -> None:
    timeline = open_transcript(FIXTURES / "other-agents" / "codex" / "agent-sessions_stage0_small.jsonl")
    index = timeline.compaction_indices()[-1]
    title = _first_line(step_detail(timeline, index))
    assert "auto-compact" not in title and "compaction" in title
    assert title.count("compaction") == 1  # the label is "compaction" too: said once


def test_a_scenarios_compaction_keeps_its_kind() -> None:
    timeline = open_timeline(None)
    index = timeline.compaction_indices()[0]
    assert " · compact · /compact" in _first_line(step_detail(timeline, index))
