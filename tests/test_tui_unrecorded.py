"""A real session's first call sends more than its log records (system prompt, tool schemas, memory, skills):
the TUI shows that remainder in System prompt and says, in ``ctxviz context``'s own words, that the log does
not tell those apart. It once read "System prompt 26.4k" beside "Unrecorded 0", a split and a zero that
nothing measured."""

from __future__ import annotations

import re
from pathlib import Path

from rich.console import Console
from textual.pilot import Pilot

from ctxviz.compaction_story import what_came_back
from ctxviz.glossary import UNRECORDED_SPLIT
from ctxviz.report.context import UNRECORDED_NOTE
from ctxviz.sources import open_timeline
from ctxviz.transcripts import open_transcript
from ctxviz.tui.app import CtxvizApp
from ctxviz.tui.segments import SEGMENTS
from ctxviz.tui.widgets.blocks_view import fit_columns
from ctxviz.tui.widgets.legend import LegendWidget
from tests.tui_driving import drive

SESSION = Path(__file__).parent / "fixtures" / "claude-code" / "spotter-4d5611e5"
TRANSCRIPT = SESSION / "4d5611e5-241a-462a-8d15-5122611a9569.jsonl"


def _legend_text(app: CtxvizApp) -> str:
    legend = app.screen.query_one(LegendWidget)
    console = Console(width=legend.content_size.width, record=True, color_system=None)
    console.print(legend.render())
    return console.export_text()


def test_the_legend_says_the_first_calls_remainder_is_not_told_apart_at_80_and_120_columns() -> None:
    timeline = open_transcript(TRANSCRIPT)
    seen: list[str] = []

    async def script(pilot: Pilot[None], app: CtxvizApp) -> None:
        await pilot.pause()
        seen.append(_legend_text(app))
        await pilot.press("end")
        await pilot.pause()
        seen.append(_legend_text(app))

    for size in ((80, 24), (120, 40)):
        drive(timeline, script, size)
    assert len(seen) == 4
    for text in seen:
        # call 1 measured 26,450 tokens; its one recorded prompt is a few dozen: the rest is ~26.4k
        assert re.search(rf"System prompt +~26\.4k .*{re.escape(UNRECORDED_SPLIT)}", text), text
        assert "Unrecorded" not in text
        assert "~    0" not in text and "~0" not in text  # nothing of a kind is a zero, not an estimate


def test_the_note_is_the_context_commands_own_words() -> None:
    assert UNRECORDED_NOTE.endswith(UNRECORDED_SPLIT)


def test_a_scenarios_legend_has_no_note_and_no_estimate_marks() -> None:
    seen: list[str] = []

    async def script(pilot: Pilot[None], app: CtxvizApp) -> None:
        await pilot.press("end")
        await pilot.pause()
        seen.append(_legend_text(app))

    drive(open_timeline(None), script)
    assert "System prompt" in seen[0]
    assert UNRECORDED_SPLIT not in seen[0] and "~" not in seen[0]


def test_the_compaction_story_names_the_remainder_the_same_way() -> None:
    timeline = open_transcript(TRANSCRIPT)
    compaction = timeline.compaction_indices()[0]
    never_left = [row for row in what_came_back(timeline, compaction) if row.what == "Never left"]
    assert len(never_left) == 1
    assert never_left[0].detail.startswith(f"system prompt {UNRECORDED_SPLIT};")


def test_no_segment_is_called_unrecorded() -> None:
    # the first call's remainder is unrecorded too: a segment of that name read as "nothing unrecorded" at 0
    assert all("nrecorded" not in segment.label for segment in SEGMENTS)


def test_what_the_log_does_not_record_is_not_on_your_screen_either() -> None:
    # "you see" once said "a notice" for the system prompt and the unexplained growth of a real session
    timeline = open_transcript(TRANSCRIPT)
    overhead = [b for b in timeline.blocks if b.kind == "overhead"]
    assert len(overhead) >= 2 and {b.visibility for b in overhead} == {"hidden"}


def test_the_window_views_kind_column_holds_every_segment_name_whole() -> None:
    widths = {key: width for key, _, width in fit_columns(118)}
    assert widths["kind"] >= len("Unexplained growth") == 18  # once cut to "Unexplained grow"


def test_re_reads_a_log_does_not_record_are_not_shown_as_zero() -> None:
    # this session's Claude Code records no re-read after its compaction: "Recent files re-read 0" was a guess
    timeline = open_transcript(TRANSCRIPT)
    rows = what_came_back(timeline, timeline.compaction_indices()[0])
    assert "Recent files re-read" not in [row.what for row in rows]


def test_a_scenario_still_says_how_many_files_came_back() -> None:
    timeline = open_timeline(None)
    rows = {row.what: row for row in what_came_back(timeline, timeline.compaction_indices()[0])}
    assert rows["Recent files re-read"].detail.startswith("4 of at most 5")
