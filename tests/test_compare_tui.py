"""The compare screen through Pilot: lanes step together by event, ⏎ opens a run, esc comes back."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import click
import pytest
from textual.pilot import Pilot
from tui_driving import press_and_settle

from ctxviz.cli import main
from ctxviz.cli.compare_commands import open_what_if
from ctxviz.profiles import AGENT_NAMES
from ctxviz.report.compare_runs import Comparison, compare, parse_run_specs
from ctxviz.sources import open_replayable, open_timeline
from ctxviz.timeline import Source
from ctxviz.tui.app import DARK, CtxvizApp
from ctxviz.tui.compare_actions import comparable, why_not_comparable
from ctxviz.tui.compare_app import CompareApp, WhatIfApp
from ctxviz.tui.screens.compare_screen import CompareScreen
from ctxviz.tui.screens.timeline_screen import TimelineScreen
from ctxviz.tui.widgets.compare_lane import EventChart, Lane, event_peaks
from ctxviz.tui.widgets.reference_chart import ReferenceChartWidget, downsample_reference
from ctxviz.whatif import parse_settings

SnapCompare = Callable[..., bool]
SESSION = Path(__file__).parent / "fixtures/claude-code/spotter-4d5611e5/4d5611e5-241a-462a-8d15-5122611a9569.jsonl"
Script = Callable[[Pilot[None], CompareApp, CompareScreen], Awaitable[None]]


def comparison_of(scenario: str, agents: str, *settings: str) -> Comparison:
    loaded = open_replayable(scenario, "chars4")
    return compare(loaded.scenario, parse_run_specs(agents, []), parse_settings(settings), loaded.display)


@pytest.fixture(scope="module")
def four() -> Comparison:
    return comparison_of(
        "compaction-deep-dive",
        "claude-code,1m=claude-code,off=claude-code,pct=claude-code",
        "1m.window=1m",
        "off.autocompact=off",
        "pct.autocompact_pct=60",
    )


def drive(comparison: Comparison, script: Script, size: tuple[int, int] = (80, 24)) -> None:
    async def run() -> None:
        app = CompareApp(comparison)
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, CompareScreen)
            await script(pilot, app, screen)

    asyncio.run(run())


def test_lanes_step_together_by_event(four: Comparison) -> None:
    async def script(pilot: Pilot[None], app: CompareApp, screen: CompareScreen) -> None:
        assert screen.position == 0
        await pilot.press("right", "right")
        assert screen.position == 2
        lanes = list(screen.query(Lane))
        assert len(lanes) == 4
        for lane in lanes:
            usage = lane.query_one(".lane-usage").render()
            used = lane.run.timeline.used_at(lane.run.step_after(1))
            assert str(usage).startswith(f"{used:,} · ")
        await pilot.press("end")
        assert screen.position == len(four.events)
        await pilot.press("home", "left")
        assert screen.position == 0

    drive(four, script)


def test_n_jumps_to_the_next_event_where_any_run_compacts(four: Comparison) -> None:
    async def script(pilot: Pilot[None], app: CompareApp, screen: CompareScreen) -> None:
        await pilot.press("n")
        pct_first = min(c.event for c in _compactions(four.runs[3]))
        assert screen.position == pct_first + 1
        assert screen.lane == 3  # the run that compacts there is shown
        did = str(screen.query(Lane)[3].query_one(".lane-did").render())
        assert "compacted: 54% of 200,000" in did  # 60% of the usable 180,000 = 108,000 = 54% of the window

    drive(four, script)


def _compactions(run: Any) -> list[Any]:
    from ctxviz.report.compare_runs import compactions_of

    return compactions_of(run)


def test_80x24_shows_two_lanes_and_scrolls_to_the_selected_one(four: Comparison) -> None:
    async def script(pilot: Pilot[None], app: CompareApp, screen: CompareScreen) -> None:
        lanes = list(screen.query(Lane))
        visible = [lane for lane in lanes if screen.region.contains_region(lane.region)]
        assert len(visible) == 2
        await pilot.press("down", "down", "down")
        assert screen.lane == 3
        await pilot.pause()
        assert screen.region.contains_region(lanes[3].region)
        assert lanes[3].has_class("-selected") and not lanes[0].has_class("-selected")

    drive(four, script)


def test_160x50_shows_four_lanes_two_abreast(four: Comparison) -> None:
    async def script(pilot: Pilot[None], app: CompareApp, screen: CompareScreen) -> None:
        lanes = list(screen.query(Lane))
        assert all(screen.region.contains_region(lane.region) for lane in lanes)
        assert lanes[0].region.y == lanes[1].region.y and lanes[0].region.x < lanes[1].region.x
        assert all(lane.query_one(EventChart).size.height >= 4 for lane in lanes)

    drive(four, script, size=(160, 50))


def test_enter_opens_the_run_at_this_event_and_escape_returns(four: Comparison) -> None:
    async def script(pilot: Pilot[None], app: CompareApp, screen: CompareScreen) -> None:
        await pilot.press("right", "right", "right", "down", "enter")
        opened = app.screen
        assert isinstance(opened, TimelineScreen)
        assert opened.timeline is four.runs[1].timeline
        assert opened.index == four.runs[1].step_after(2)
        await pilot.press("escape")
        assert app.screen is screen and screen.position == 3

    drive(four, script)


def test_escape_on_the_first_screen_does_nothing(four: Comparison) -> None:
    async def script(pilot: Pilot[None], app: CompareApp, screen: CompareScreen) -> None:
        await pilot.press("escape")
        assert app.screen is screen

    drive(four, script)


def test_the_curve_is_per_event_so_lanes_share_columns(four: Comparison) -> None:
    for run in four.runs:
        peaks = event_peaks(run)
        assert len(peaks) == len(four.events) + 1
        assert max(peaks) == run.timeline.peak


SIZE_SMALL, SIZE_LARGE = (80, 24), (160, 50)


def test_snapshot_80x24_at_the_compaction(snap_compare: SnapCompare, four: Comparison) -> None:
    assert snap_compare(CompareApp(four, theme=DARK), press=["n"], terminal_size=SIZE_SMALL)


def test_snapshot_160x50(snap_compare: SnapCompare, four: Comparison) -> None:
    assert snap_compare(CompareApp(four, theme=DARK), press=["n", "n"], terminal_size=SIZE_LARGE)


def test_c_from_a_scenario_opens_every_agent_and_escape_returns() -> None:
    timeline = open_timeline("explore-context-window", tokenizer="chars4")

    async def run() -> None:
        app = CtxvizApp(timeline)
        async with app.run_test(size=(120, 36)) as pilot:
            first = app.screen
            screen = await press_and_settle(pilot, app, "c")
            assert isinstance(screen, CompareScreen) and screen.is_child
            assert [run.agent for run in screen.comparison.runs] == list(AGENT_NAMES)
            assert screen.comparison.runs[0].timeline.used_at(
                screen.comparison.runs[0].timeline.last
            ) == timeline.used_at(timeline.last)
            await pilot.press("escape")
            assert app.screen is first

    asyncio.run(run())


def test_c_is_offered_on_a_file_and_says_why_not_on_a_subagent() -> None:
    scenario = open_timeline("explore-context-window", tokenizer="chars4")
    transcript = replace(scenario, source=Source(kind="transcript", name="a session", path="s.jsonl"))
    assert comparable(TimelineScreen(scenario)) is scenario
    assert comparable(TimelineScreen(transcript)) is transcript
    assert comparable(TimelineScreen(scenario, is_child=True)) is None
    assert "escape" in why_not_comparable(TimelineScreen(scenario, is_child=True))


def test_c_opens_compare_at_the_event_of_the_current_step() -> None:
    timeline = open_timeline("explore-context-window", tokenizer="chars4")
    # the step of the scenario's event 5 (hand count: the steps carry the event index they came from)
    step = next(s.index for s in timeline.steps if s.event == 5)

    async def run() -> None:
        app = CtxvizApp(timeline)
        async with app.run_test(size=(120, 36)) as pilot:
            app.screen.index = step  # type: ignore[attr-defined]
            screen = await press_and_settle(pilot, app, "c")
            assert isinstance(screen, CompareScreen) and screen.position == 5 + 1

    asyncio.run(run())


def test_c_on_a_claude_code_session_replays_it_through_the_importer_at_the_current_call() -> None:
    timeline = open_timeline(SESSION)
    call = [s.index for s in timeline.steps if s.measured][3]  # the session's 4th API call

    async def run() -> None:
        app = CtxvizApp(timeline)
        async with app.run_test(size=(120, 36)) as pilot:
            app.screen.index = call  # type: ignore[attr-defined]
            screen = await press_and_settle(pilot, app, "c")
            assert isinstance(screen, CompareScreen) and screen.comparison.measured is not None
            # the event it opens at is the one after which the session measured that call's size
            measured = screen.comparison.measured
            assert measured[screen.position - 1] == timeline.used_at(call)

    asyncio.run(run())


def test_n_p_and_c_say_why_when_they_cannot_act() -> None:
    timeline = open_timeline("mcp-heavy-startup", tokenizer="chars4")  # no compaction in it
    assert not timeline.compaction_indices()

    async def run() -> None:
        app = CtxvizApp(timeline)
        async with app.run_test(size=(120, 36)) as pilot:
            await pilot.press("n")
            await pilot.pause()
            assert any("No compaction" in n.message for n in app._notifications)
            screen = app.screen
            await pilot.press("enter")  # not a subagent step: nothing opens
            assert app.screen is screen

    asyncio.run(run())


def test_play_set_shows_the_what_if_over_the_scenario_as_written() -> None:
    ctx = click.Context(main, obj={"tokenizer": "chars4"})
    what_if = open_what_if(ctx, "compaction-deep-dive", parse_settings(["window=1m"]), False)
    as_written = open_timeline("compaction-deep-dive", tokenizer="chars4")
    assert what_if.timeline.window == 1_000_000 and what_if.reference_name == "as written"
    # the reference is the scenario as written, after each event (and what it set off, such as a
    # compaction), laid over the what-if's steps
    after: dict[int, int] = {}
    current = None
    for step in as_written.steps:
        current = step.event if step.event is not None else current
        if current is not None:
            after[current] = step.used
    expected, current = [], None
    for step in what_if.timeline.steps:
        current = step.event if step.event is not None else current
        expected.append(None if current is None else after[current])
    assert what_if.reference == expected
    assert after[27] == 60_671  # as written, event 27 set off the compaction (170,772 → 60,671)

    async def run() -> None:
        app = WhatIfApp(what_if, ("window=1m",))
        async with app.run_test(size=(120, 36)) as pilot:
            await pilot.pause()
            chart = app.screen.query_one(ReferenceChartWidget)
            assert chart.border_title is not None and chart.border_title.startswith("▇ simulated · • as written")
            assert "what-if window=1m" in str(app.screen.title)
            screen = await press_and_settle(pilot, app, "c")
            assert isinstance(screen, CompareScreen)
            runs = [(r.label, r.settings) for r in screen.comparison.runs]
            assert runs == [("as-written", {}), ("what-if", {"window": 1_000_000})]

    asyncio.run(run())


def test_reference_downsampling_keeps_the_highest_known_value() -> None:
    assert downsample_reference([None, 5, 9, None, 4, None], 3) == [5, 9, 4]
    assert downsample_reference([None, None, 7], 6) == [None, None, None, None, 7, 7]
    assert downsample_reference([], 4) == []


def test_a_click_selects_the_lane(four: Comparison) -> None:
    async def script(pilot: Pilot[None], app: CompareApp, screen: CompareScreen) -> None:
        second = screen.query(Lane)[1]
        await pilot.click(second.query_one(EventChart))
        assert screen.lane == 1 and second.has_class("-selected")

    drive(four, script, size=(160, 50))
