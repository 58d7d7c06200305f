"""Every lane of the compare screen draws its curve on one scale, so heights compare: a lane whose window is
smaller than the peak of all the lanes was once capped at its own window (200k beside the others' 250k)."""

from __future__ import annotations

import asyncio

from rich.console import Console

from ctxviz.report.compare_runs import compare, parse_run_specs
from ctxviz.sources import open_replayable
from ctxviz.tui.app import DARK
from ctxviz.tui.compare_app import CompareApp
from ctxviz.tui.widgets.compare_lane import EventChart
from ctxviz.whatif import parse_settings


def test_lanes_of_different_windows_share_one_scale() -> None:
    loaded = open_replayable("compaction-deep-dive", "chars4")
    # claude-code's window is 200k, codex's 272k; codex's peak goes past 200k
    comparison = compare(loaded.scenario, parse_run_specs("claude-code,codex", []), parse_settings(()), loaded.display)
    assert max(run.timeline.peak for run in comparison.runs) > 200_000
    tops: list[str] = []

    async def run() -> None:
        app = CompareApp(comparison, theme=DARK)
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            for chart in app.screen.query(EventChart):
                console = Console(width=chart.content_size.width, record=True, color_system=None)
                console.print(chart.render())
                tops.append(console.export_text().split("┤", 1)[0].strip())

    asyncio.run(run())
    assert len(tops) == 2 and tops[0] == tops[1] != "200k"
