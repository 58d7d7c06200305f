"""The TUI through Pilot: press keys (and click), then assert on the screen's state."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from textual.geometry import Region
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import ContentSwitcher, DataTable, Static
from tui_driving import drive
from tui_timelines import demo_timeline, long_timeline

from ctxviz.sources import open_timeline
from ctxviz.timeline import USER_STEP_KINDS, Timeline
from ctxviz.tui.app import DARK, LIGHT, CtxvizApp
from ctxviz.tui.screens.help_screen import HelpScreen
from ctxviz.tui.screens.timeline_screen import SPEEDS, TimelineScreen
from ctxviz.tui.widgets.detail_pane import DetailPane
from ctxviz.tui.widgets.timeline_view import TimelineView
from ctxviz.tui.widgets.token_bar import TokenBarWidget


def screen_of(app: CtxvizApp) -> TimelineScreen:
    screen = app.screen
    assert isinstance(screen, TimelineScreen)
    return screen


def rendered_text(widget: Widget) -> str:
    """What the widget draws, as plain text (all of it, even the rows scrolled out of view)."""
    width, height = widget.size
    return "\n".join(strip.text for strip in widget.render_lines(Region(0, 0, width, height)))


def detail_text(app: CtxvizApp) -> str:
    return rendered_text(app.screen.query_one(DetailPane))


@pytest.fixture(scope="module")
def default() -> Timeline:
    return open_timeline(None)


def test_opens_at_the_first_step_paused_on_the_main_view(default: Timeline) -> None:
    async def script(pilot: Pilot[None], app: CtxvizApp) -> None:
        screen = screen_of(app)
        assert (screen.index, screen.playing, screen.view) == (0, False, "main")
        assert app.screen.query_one(ContentSwitcher).current == "main"
        header = str(app.screen.query_one("#header-usage", Static).render())
        assert f"{default.used_at(0):,} / 200k" in header and "estimated" in header

    drive(default, script)


def test_arrows_home_and_end_move_the_current_step(default: Timeline) -> None:
    async def script(pilot: Pilot[None], app: CtxvizApp) -> None:
        screen = screen_of(app)
        await pilot.press("left")
        assert screen.index == 0 and screen.check_action("step", (-1,)) is None  # shown, disabled
        await pilot.press("right", "right", "right")
        assert screen.index == 3
        await pilot.press("end")
        assert screen.index == default.last and screen.check_action("step", (1,)) is None
        await pilot.press("left", "home")
        assert screen.index == 0

    drive(default, script)


def test_the_detail_pane_follows_the_step_with_why_notes_and_what_you_see(default: Timeline) -> None:
    rule_step = next(s for s in default.steps if s.kind == "read" and s.notes)

    async def script(pilot: Pilot[None], app: CtxvizApp) -> None:
        for _ in range(rule_step.index):
            await pilot.press("right")
        text = detail_text(app)
        assert f"Step {rule_step.index}" in text and rule_step.label in text
        assert "Why" in text and "Entered" in text and "you see" in text

    drive(default, script)


def test_n_and_p_jump_between_compactions_and_show_the_fates(default: Timeline) -> None:
    (compaction,) = default.compaction_indices()

    async def script(pilot: Pilot[None], app: CtxvizApp) -> None:
        screen = screen_of(app)
        await pilot.press("n")
        assert screen.index == compaction
        assert f"Step {compaction} · compact" in detail_text(app)
        assert "What came back" in detail_text(app)  # at a glance, on the first page
        while "Piece by piece" not in detail_text(app):
            before = app.screen.query_one(DetailPane).top
            await pilot.press("pagedown")
            assert app.screen.query_one(DetailPane).top > before
        assert screen.check_action("compaction", (1,)) is None
        await pilot.press("p")
        assert screen.index == compaction  # no earlier compaction: p is disabled
        await pilot.press("home", "n")
        assert screen.index == compaction

    drive(default, script)


def test_space_plays_and_stops_at_the_next_prompt(default: Timeline) -> None:
    first_prompt = next(s.index for s in default.steps if s.kind in USER_STEP_KINDS)

    async def script(pilot: Pilot[None], app: CtxvizApp) -> None:
        screen = screen_of(app)
        await pilot.press("space")
        assert screen.playing
        screen.speed = len(SPEEDS) - 1
        # wall-clock bound, not a count of pauses: a loaded CI machine may pause longer than asked
        deadline = time.monotonic() + 20
        while screen.playing and time.monotonic() < deadline:
            await pilot.pause(0.02)
        assert not screen.playing and screen.index == first_prompt

    drive(default, script)


def test_with_stops_off_playback_runs_to_the_end_and_space_pauses() -> None:
    timeline = demo_timeline()

    async def script(pilot: Pilot[None], app: CtxvizApp) -> None:
        screen = screen_of(app)
        await pilot.press("u", "plus", "plus", "minus")
        assert not screen.pause_at_user and SPEEDS[screen.speed] == 4
        screen.speed = len(SPEEDS) - 1
        await pilot.press("space")
        await pilot.press("space")
        assert not screen.playing
        paused_at = screen.index
        await pilot.pause(0.1)
        assert screen.index == paused_at
        await pilot.press("space")
        deadline = time.monotonic() + 20
        while screen.playing and time.monotonic() < deadline:
            await pilot.pause(0.02)
        assert screen.index == timeline.last and not screen.playing
        assert screen.check_action("play", ()) is None  # at the end: nothing left to play

    drive(timeline, script)


def test_views_switch_and_escape_returns_to_main(default: Timeline) -> None:
    async def script(pilot: Pilot[None], app: CtxvizApp) -> None:
        screen = screen_of(app)
        switcher = app.screen.query_one(ContentSwitcher)
        await pilot.press("end", "2")
        assert screen.view == "context" and switcher.current == "context"
        context = rendered_text(app.screen.query_one("#context-body", Static))
        assert "Context Usage" in context and "Memory files · /memory" in context
        await pilot.press("3")
        assert screen.view == "blocks" and switcher.current == "blocks"
        table = app.screen.query_one(DataTable)
        assert table.row_count == len(default.state_at(default.last))
        sizes = [int(str(table.get_row_at(r)[0]).replace(",", "")) for r in range(table.row_count)]
        assert sizes == sorted(sizes, reverse=True)
        await pilot.press("s")
        assert screen.sort == "age"
        entered = [int(str(table.get_row_at(r)[-1])) for r in range(table.row_count)]
        assert entered == sorted(entered)
        await pilot.press("escape")
        assert screen.view == "main" and switcher.current == "main"

    drive(default, script)


def test_enter_opens_the_subagent_and_escape_comes_back(default: Timeline) -> None:
    step = next(s for s in default.steps if s.child is not None)

    async def script(pilot: Pilot[None], app: CtxvizApp) -> None:
        parent = screen_of(app)
        await pilot.press("enter")
        assert app.screen is parent  # step 0 has no subagent
        parent.index = step.index
        await pilot.pause()
        await pilot.press("enter")
        child = screen_of(app)
        assert child is not parent and child.timeline is step.child and child.is_child
        assert step.label in str(app.screen.query_one("#header-name", Static).render())
        await pilot.press("end")
        assert child.index == step.child.last and parent.index == step.index
        await pilot.press("escape")
        assert app.screen is parent and parent.index == step.index

    drive(default, script)


def test_clicking_a_row_and_a_bar_segment(default: Timeline) -> None:
    async def script(pilot: Pilot[None], app: CtxvizApp) -> None:
        screen = screen_of(app)
        # the step list has a one-row border on top, so widget row 3 is step 2
        await pilot.click(TimelineView, offset=(6, 3))
        assert screen.index == 2
        await pilot.press("end")
        await pilot.click(TokenBarWidget, offset=(2, 0))  # the first cells are the system prompt
        assert screen.view == "blocks" and screen.segment == "system-prompt"
        await pilot.pause()  # the table sizes its columns once the view has its width
        table = app.screen.query_one(DataTable)
        assert {str(table.get_cell(row, "kind")) for row in table.rows} == {"System prompt"}
        await pilot.press("b")
        assert screen.segment is None

    drive(default, script)


def test_help_lists_every_binding_of_the_screen_and_the_app(default: Timeline) -> None:
    async def script(pilot: Pilot[None], app: CtxvizApp) -> None:
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        text = rendered_text(app.screen.query_one("#help-keys", Static))
        for binding in [*TimelineScreen.BINDINGS, *CtxvizApp.BINDINGS]:
            assert (binding.tooltip or binding.description) in text  # type: ignore[union-attr]
        await pilot.press("escape")
        assert isinstance(app.screen, TimelineScreen)

    drive(default, script)


def test_the_command_palette_runs_actions_and_goes_to_a_step(default: Timeline) -> None:
    (compaction,) = default.compaction_indices()

    async def script(pilot: Pilot[None], app: CtxvizApp) -> None:
        screen = screen_of(app)
        await pilot.press("ctrl+p", *"compaction")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await pilot.pause(0.1)
        assert screen.index == compaction
        await pilot.press("ctrl+p", *"step 5")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await pilot.pause(0.1)
        assert screen.index == 5

    drive(default, script)


def test_t_switches_between_dark_and_light(default: Timeline) -> None:
    async def script(pilot: Pilot[None], app: CtxvizApp) -> None:
        assert app.theme == DARK
        await pilot.press("t")
        assert app.theme == LIGHT
        await pilot.press("right")  # still renders with the light theme's colours
        await pilot.press("t")
        assert app.theme == DARK

    drive(default, script)


def test_a_terminal_below_80x24_gets_a_message_instead_of_the_layout(default: Timeline) -> None:
    async def script(pilot: Pilot[None], app: CtxvizApp) -> None:
        screen = screen_of(app)
        assert screen.has_class("-too-small")
        message = app.screen.query_one("#too-small", Static)
        assert message.display and "80×24" in str(message.render())
        assert not app.screen.query_one("#body").display

    drive(default, script, size=(70, 20))


def test_at_80x24_the_layout_shows(default: Timeline) -> None:
    async def script(pilot: Pilot[None], app: CtxvizApp) -> None:
        assert not screen_of(app).has_class("-too-small")
        assert app.screen.query_one(TimelineView).size.height >= 5

    drive(default, script, size=(80, 24))


def test_a_long_timeline_keeps_the_current_step_in_view() -> None:
    timeline = long_timeline(10_000)

    async def script(pilot: Pilot[None], app: CtxvizApp) -> None:
        screen = screen_of(app)
        view = app.screen.query_one(TimelineView)
        await pilot.press("end")
        assert screen.index == 9_999
        top = round(view.scroll_y)
        assert top <= 9_999 < top + view.scrollable_content_region.height
        await pilot.press("home", "n")
        assert screen.index == timeline.compaction_indices()[0]

    drive(timeline, script)


def test_screenshot_command_writes_the_views(tmp_path: Path) -> None:
    from ctxviz.cli import main

    result = CliRunner().invoke(main, ["screenshot", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    names = sorted(p.name for p in tmp_path.iterdir())
    views = ("main", "compaction", "context", "window", "subagent", "help", "glossary")
    assert names == sorted(f"{n}.svg" for n in views)
    assert all((tmp_path / n).read_text().startswith("<svg") for n in names)


def test_screenshot_names_files_after_what_they_show(tmp_path: Path) -> None:
    from ctxviz.cli import main

    # mcp-heavy-startup has neither a compaction nor a subagent: no file claims to show one
    result = CliRunner().invoke(main, ["screenshot", "mcp-heavy-startup", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == sorted(f"{n}.svg" for n in ("main", "context", "window", "help", "glossary"))
    assert "not written (nothing to show in MCP-heavy startup): compaction, subagent" in result.stderr
