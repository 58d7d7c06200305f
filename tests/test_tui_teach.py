"""The TUI explains itself: the glossary, tooltips, startup notes, the compaction at a glance, and
``run --why``. Exact numbers from the default scenario."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from rich.console import Console
from textual.pilot import Pilot
from textual.widgets import DataTable, Label, OptionList
from tui_driving import drive

from ctxviz import glossary
from ctxviz.cli import main
from ctxviz.compaction_story import what_came_back
from ctxviz.kinds import BlockKind, StepKind
from ctxviz.sources import open_timeline
from ctxviz.timeline import Timeline
from ctxviz.tui.app import CtxvizApp
from ctxviz.tui.icons import STEP_ICONS
from ctxviz.tui.renderables.chart import Line, UsageChart, axis_labels, nice_top
from ctxviz.tui.renderables.detail import step_detail
from ctxviz.tui.screens.glossary_screen import GlossaryScreen
from ctxviz.tui.screens.open_screen import OpenScreen, first_sentence
from ctxviz.tui.screens.timeline_screen import TimelineScreen
from ctxviz.tui.segments import SEGMENTS
from ctxviz.tui.widgets.blocks_view import fit_columns, shorten
from ctxviz.tui.widgets.legend import LegendWidget
from ctxviz.tui.widgets.timeline_view import TimelineView
from ctxviz.tui.widgets.token_bar import TokenBarWidget
from ctxviz.tui.widgets.usage_chart import UsageChartWidget


@pytest.fixture(scope="module")
def default() -> Timeline:
    return open_timeline(None)


def plain(renderable: object, width: int) -> str:
    console = Console(width=width, record=True, color_system=None, file=open("/dev/null", "w"))  # noqa: SIM115
    console.print(renderable)
    return console.export_text()


def test_every_kind_of_block_and_step_has_an_explanation() -> None:
    assert set(glossary.BLOCK_KINDS) == set(BlockKind)
    assert set(glossary.STEP_KINDS) == set(StepKind)
    assert all(glossary.BLOCK_KINDS.values()) and all(glossary.STEP_KINDS.values())
    assert set(STEP_ICONS) == {str(kind) for kind in StepKind}  # every step kind has its glyph


def test_every_bar_segment_and_line_has_an_explanation() -> None:
    for segment in SEGMENTS:
        assert glossary.segment_meaning(segment.key), segment.key
    assert glossary.segment_meaning("free") and glossary.segment_meaning("reserve")
    assert set(glossary.THRESHOLDS) == {"warning", "auto-compact", "blocking", "buffer"}


def test_g_opens_the_glossary_with_this_timelines_numbers(default: Timeline) -> None:
    async def script(pilot: Pilot[None], app: CtxvizApp) -> None:
        await pilot.press("g")
        assert isinstance(app.screen, GlossaryScreen)
        text = plain(app.screen.body(), 110)
        assert "auto-compact 167,000" in text and "warning 147,000" in text
        assert "Autocompact buffer 33,000" in text
        assert "disable-model-invocation" in text and "spilled preview" in text
        await pilot.press("escape")
        assert isinstance(app.screen, TimelineScreen)

    drive(default, script)


def test_hovering_the_legend_and_the_markers_explains_them(default: Timeline) -> None:
    async def script(pilot: Pilot[None], app: CtxvizApp) -> None:
        legend = app.screen.query_one(LegendWidget)
        await pilot.hover(LegendWidget, offset=(4, 0))  # the first entry: System prompt
        assert legend.tooltip == f"System prompt: {glossary.SEGMENTS['system-prompt']}"
        bar = app.screen.query_one(TokenBarWidget)
        x = 167_000 * bar.content_size.width // 200_000
        await pilot.hover(TokenBarWidget, offset=(x + 1, bar.content_size.height - 1))
        assert bar.tooltip is not None and bar.tooltip.startswith("The auto-compact line, at 167,000 tokens")

    drive(default, script)


def test_startup_steps_say_what_they_load_with_their_numbers(default: Timeline) -> None:
    tools = next(s.index for s in default.steps if s.label == "Built-in tool definitions")
    text = plain(step_detail(default, tools), 100)
    assert "13,500 tokens (6.8% of the window): The built-in tool definitions" in text


def test_jargon_in_a_note_is_explained_under_it(default: Timeline) -> None:
    listing = next(s.index for s in default.steps if s.label == "Skill descriptions")
    text = plain(step_detail(default, listing), 100)
    assert "Words" in text and "disable-model-invocation: A skill setting" in text


def test_the_compaction_says_what_came_back_first(default: Timeline) -> None:
    (compaction,) = default.compaction_indices()
    rows = {row.what: (row.tokens, row.detail) for row in what_came_back(default, compaction)}
    assert rows["Summary"] == (1725, "replaces 14,375 tokens of conversation")
    assert rows["Recent files re-read"] == (6660, "4 of at most 5, each ≤ 5,000")
    assert rows["Rules back with their files"] == (670, "api-conventions.md, testing.md")
    assert rows["Invoked skills"][0] == 620
    assert rows["CLAUDE.md and memory"] == (2800, "3 files read again from disk")
    assert rows["Skill listing"] == (450, "rebuilt from the current skills")
    assert rows["Never left"][0] == 4200 + 280 + 13500 + 120
    text = plain(step_detail(default, compaction), 38)  # the detail pane's width at 80 columns
    assert text.index("What came back") < text.index("Piece by piece")
    assert "before 35,725" in text and "after 31,025" in text
    assert " new " in text and "restored     1,725" not in text  # the summary is new, not restored


def test_run_why_explains_startup_and_has_no_empty_heading(default: Timeline) -> None:
    result = CliRunner().invoke(main, ["run", "explore-context-window", "--why"], terminal_width=120)
    assert result.exit_code == 0
    assert "13,500 tokens (6.8% of the window): The built-in tool definitions" in result.output


def chart_rows(chart: UsageChart) -> list[list[tuple[str, str]]]:
    """(glyph, colour) of every cell, row by row, axis included."""
    console = Console(width=80, color_system="truecolor", file=open("/dev/null", "w"))  # noqa: SIM115
    rows: list[list[tuple[str, str]]] = [[]]
    for segment in console.render(chart, console.options.update_width(80)):
        if segment.text == "\n":
            rows.append([])
            continue
        colour = segment.style.color.name if segment.style and segment.style.color else ""
        rows[-1].extend((glyph, colour) for glyph in segment.text)
    return [row for row in rows if row]


def test_fit_to_data_scale_picks_a_round_top_just_above_the_peak() -> None:
    assert nice_top(170_770, 200_000) == 180_000
    assert nice_top(35_725, 200_000) == 40_000
    assert nice_top(473_758, 1_000_000) == 500_000
    assert nice_top(199_000, 200_000) == 200_000  # never above the window


def test_the_crossing_that_triggers_a_compaction_visibly_crosses_the_line() -> None:
    # 3 rows × 8 = 24 levels over 180,000: 167,000 and 170,770 share an eighth (level 22) once rounded
    peaks = [160_000, 166_999, 170_770, 60_000]
    chart = UsageChart(
        peaks=peaks,
        top=180_000,
        current=range(0),
        lines=[Line(167_000, "#ff0000")],
        height=3,
        bar_style="#0000ff",
        current_style="#00ff00",
        marks=frozenset({3}),
        axis_width=5,
    )
    rows = chart_rows(chart)
    assert [glyph for glyph, _ in rows[0][:5]] == list("180k┤")
    assert [glyph for glyph, _ in rows[2][:5]] == list("   0┤")
    top = rows[0][5:]
    # row 0 holds eighths 16–23 (7,500 tokens each); 167,000 falls in eighth 22 (165,000–172,500)
    assert top[0] == ("▅", "#0000ff")  # 160,000: 21 eighths
    assert top[1] == ("▆", "#0000ff")  # 166,999: 22 eighths, its top (165,000) stays under the line
    assert top[2] == ("▇", "#ff0000")  # 170,770 ≥ 167,000: into the line's eighth, in the line's colour
    assert top[3] == ("▼", "red")  # a compaction step
    assert rows[2][5 + 3] == ("█", "#0000ff")  # 60,000: the bottom row, full


def test_at_80x24_the_window_view_never_scrolls_sideways_and_keeps_whole_numbers(default: Timeline) -> None:
    async def script(pilot: Pilot[None], app: CtxvizApp) -> None:
        await pilot.press("end", "3")
        table = app.screen.query_one("#blocks-table", DataTable)
        keys = [column.key.value for column in table.columns.values()]
        assert keys == ["tokens", "pct", "label", "seen", "since"]  # the kind goes first
        assert sum(c.get_render_width(table) for c in table.columns.values()) <= table.size.width
        await pilot.press("right", "right", "right", "right")
        assert table.scroll_x == 0
        assert str(table.get_row_at(0)[0]) == "13,500"
        assert table.get_row_at(0)[2] == "Built-in tool definitions"

    drive(default, script, size=(80, 24))


def test_a_real_session_s_window_view_marks_every_block_size_as_an_estimate() -> None:
    from ctxviz.transcripts.claude_code.load import read_transcript

    spotter = Path(__file__).parent / "fixtures/claude-code/spotter-4d5611e5/4d5611e5-241a-462a-8d15-5122611a9569.jsonl"
    timeline = read_transcript(spotter).timeline
    titles: dict[int, str] = {}

    async def script(pilot: Pilot[None], app: CtxvizApp) -> None:
        await pilot.press("end", "3")
        table = app.screen.query_one("#blocks-table", DataTable)
        sizes = [str(table.get_row_at(n)[0]) for n in range(table.row_count)]
        assert sizes[:2] == ["~26,413", "~9,603"] and all(size.startswith("~") for size in sizes)
        titles[app.size.width] = str(app.screen.query_one("#blocks-title", Label).render())

    drive(timeline, script, size=(80, 24))
    drive(timeline, script, size=(160, 30))
    assert titles[80] == "In window after step 139: 218 blocks, 106k tokens · by size · ~ estimated"
    assert titles[160].endswith("sorted by size · ~ each block's estimated share of its call's measured growth")


def test_the_columns_shrink_by_priority() -> None:
    assert [key for key, _, _ in fit_columns(120)] == ["tokens", "pct", "label", "kind", "seen", "since"]
    assert [key for key, _, _ in fit_columns(50)] == ["tokens", "label", "seen", "since"]
    assert dict((k, w) for k, _, w in fit_columns(78))["label"] == 78 - (8 + 5 + 9 + 7) - 2 * 5
    assert shorten("src/api/middleware.ts", 12) == "…ddleware.ts"
    assert shorten("Built-in tool definitions", 12) == "Built-in to…"


def test_o_opens_a_picker_of_scenarios_and_recent_sessions(
    default: Timeline, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "claude" / "projects" / "-home-ada-shop"
    project.mkdir(parents=True)
    (project / "0123abcd-0000-4000-8000-000000000000.jsonl").write_text("{}\n", encoding="utf-8")
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    monkeypatch.setenv("HOME", str(tmp_path))

    async def script(pilot: Pilot[None], app: CtxvizApp) -> None:
        await pilot.press("o")
        assert isinstance(app.screen, OpenScreen)
        await app.workers.wait_for_complete()
        await pilot.pause()
        scenarios = app.screen.query_one("#open-scenarios", OptionList)
        names = [str(scenarios.get_option_at_index(i).prompt).split("  ")[0] for i in range(scenarios.option_count)]
        assert names[0] == "explore-context-window" and "compaction-deep-dive" in names
        sessions = app.screen.query_one("#open-sessions", OptionList)
        session = str(sessions.get_option_at_index(0).prompt)
        assert "shop  " in session and session.endswith(" KB · 0123abcd")
        scenarios.highlighted = names.index("compaction-deep-dive")
        await pilot.press("enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert isinstance(app.screen, TimelineScreen)
        assert app.screen.timeline.source.name == "Compaction deep dive"
        await pilot.press("o", "escape")  # closing the picker keeps what is playing
        assert isinstance(app.screen, TimelineScreen) and app.screen.timeline.source.name == "Compaction deep dive"

    drive(default, script)


def test_a_summary_gives_its_first_clause() -> None:
    assert first_sentence("A long session that reaches auto-compaction (167,000 on a 200k model).") == (
        "A long session that reaches auto-compaction"
    )
    assert first_sentence("What happens to big tool results: Bash output over …") == "What happens to big tool results"


def test_axis_labels_and_the_room_they_take(default: Timeline) -> None:
    assert axis_labels(6, 25_000) == {0: "25k", 3: "12.5k", 5: "0"}
    assert axis_labels(3, 180_000) == {0: "180k", 2: "0"}

    async def script(pilot: Pilot[None], app: CtxvizApp) -> None:
        chart = app.screen.query_one(UsageChartWidget)
        widest = max(len(label) for label in axis_labels(chart.content_size.height, chart.top).values())
        assert chart.axis_width == widest + 1
        assert chart.top == 40_000 and not chart.full_scale
        await pilot.press("f")
        assert chart.top == 200_000 and "whole window" in str(chart.border_title)

    drive(default, script)


def test_hovering_a_step_or_the_chart_says_what_it_is(default: Timeline) -> None:
    async def script(pilot: Pilot[None], app: CtxvizApp) -> None:
        steps = app.screen.query_one(TimelineView)
        await pilot.hover(TimelineView, offset=(6, 3))  # below the border row: step 2, a startup step
        assert steps.tooltip == f"◆ startup: {glossary.step_meaning('startup')}"
        chart = app.screen.query_one(UsageChartWidget)
        await pilot.hover(UsageChartWidget, offset=(chart.size.width - 1, 3))
        assert chart.tooltip is not None and chart.tooltip.startswith("step 24 · compact · /compact\n31,025 tokens")

    drive(default, script)


def test_a_transcript_is_titled_by_its_project_not_its_raw_id(default: Timeline) -> None:
    from dataclasses import replace

    from ctxviz.timeline import Source
    from ctxviz.tui.widgets.context_header import display_title

    session = "0123abcd-0000-4000-8000-000000000000"
    transcript = replace(default, source=Source("transcript", session, "/x.jsonl", "/home/ada/shop"))
    assert display_title(transcript) == "shop · session 0123abcd"
    assert display_title(replace(default, source=Source("transcript", session))) == "session 0123abcd"
    assert display_title(default) == "Explore the context window"


def test_at_80_columns_the_header_keeps_the_title_and_the_model(default: Timeline) -> None:
    async def script(pilot: Pilot[None], app: CtxvizApp) -> None:
        await pilot.press("end")
        name, model, usage = (app.screen.query_one(f"#header-{part}", Label) for part in ("name", "model", "usage"))
        assert name.region.width >= len("Explore the context window")
        assert model.display and model.region.width == len("claude-sonnet-4-6")
        assert str(usage.render()) == "31,025/200k 15.5% estimated"
        assert usage.region.right <= 80

    drive(default, script, size=(80, 24))


def test_hovering_a_line_of_the_chart_explains_it() -> None:
    deep_dive = open_timeline("compaction-deep-dive")

    async def script(pilot: Pilot[None], app: CtxvizApp) -> None:
        chart = app.screen.query_one(UsageChartWidget)
        assert chart.top == 180_000
        # 167,000 of 180,000 on a chart of h rows: the row the renderer draws it in
        height = chart.content_size.height
        row = height - 1 - min(height * 8 - 1, 167_000 * height * 8 // 180_000) // 8
        await pilot.hover(UsageChartWidget, offset=(chart.axis_width + 2, row + 1))  # +1: the border row
        assert chart.tooltip is not None
        assert f"╌ the auto-compact line, 167,000: {glossary.THRESHOLDS['auto-compact']}" in chart.tooltip

    drive(deep_dive, script)


def test_the_glossary_and_the_legend_agree_on_where_a_mention_counts() -> None:
    from ctxviz.tui.segments import segment_of

    for agent in ("claude-code", "grok-build", "gemini-cli", "cursor"):
        timeline = open_timeline("mention-myth", agent=agent)
        mentioned = [b for b in timeline.blocks if b.kind in ("mention", "file-read") and "@" in b.label]
        assert mentioned, agent
        assert {segment_of(b).key for b in mentioned} == {"file-reads"}, agent
    assert "@-mention" in glossary.SEGMENTS["file-reads"] and "counts under Files" in glossary.SEGMENTS["prompts"]
