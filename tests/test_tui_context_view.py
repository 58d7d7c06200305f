"""The TUI's ``/context`` view (``2``) shows a real session's rows as ``ctxviz context`` prints them: the
same rows and figures, and the note that a transcript's System prompt row also holds the tools, memory
and skills it cannot tell apart (the TUI once showed "System prompt" alone)."""

from __future__ import annotations

import re
from pathlib import Path

from rich.console import Console

from ctxviz.report.context import UNRECORDED_NOTE, context_renderable
from ctxviz.transcripts import open_transcript
from ctxviz.tui.renderables.context import context_view
from ctxviz.tui.segments import SegmentTotals

SESSION = Path(__file__).parent / "fixtures" / "claude-code" / "spotter-4d5611e5"
ROW = re.compile(r"[⛁⛀⛶⛝] ([A-Z][A-Za-z ]+?):? +~?([\d.]+k?) tokens")


def _text(renderable: object) -> str:
    console = Console(width=120, record=True, color_system=None)
    console.print(renderable)
    return console.export_text()


def test_the_tui_context_rows_are_the_context_commands() -> None:
    timeline = open_transcript(SESSION / "4d5611e5-241a-462a-8d15-5122611a9569.jsonl")
    index = timeline.last
    tui = _text(context_view(timeline, index, timeline.state_at(index), SegmentTotals(timeline).at(index), {}))
    cli = _text(context_renderable(timeline, index))
    rows = ROW.findall(tui)
    assert rows and {name for name, _ in rows} >= {"System prompt", "Messages", "Free space", "Autocompact buffer"}
    assert sorted(rows) == sorted(ROW.findall(cli))
    assert UNRECORDED_NOTE in tui and UNRECORDED_NOTE in cli
