"""The compare screen through Pilot: lanes step together by event, ⏎ opens a run, esc comes back."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from textual.pilot import Pilot

from ctxviz.cli.compare_commands import load_input
from ctxviz.report.compare_runs import Comparison, compare, parse_run_specs
from ctxviz.tui.app import DARK
from ctxviz.tui.compare_app import CompareApp
from ctxviz.tui.screens.compare_screen import CompareScreen
from ctxviz.tui.screens.timeline_screen import TimelineScreen
from ctxviz.tui.widgets.compare_lane import EventChart, Lane, event_peaks
from ctxviz.whatif import parse_settings

SnapCompare = Callable[..., bool]
Script = Callable[[Pilot[None], CompareApp, CompareScreen], Awaitable[None]]


def comparison_of(scenario: str, agents: str, *settings: str) -> Comparison:
    loaded = load_input(scenario, "chars4")
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
