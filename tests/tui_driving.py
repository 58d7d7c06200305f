"""Driving the TUI in the Pilot tests: run a script against the app on a timeline, and press a key whose
work runs in a worker (opening, comparing) then wait until its screen is up."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from textual.app import App
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import OptionList

from ctxviz.timeline import Timeline
from ctxviz.tui.app import CtxvizApp

Script = Callable[[Pilot[None], CtxvizApp], Awaitable[None]]


def drive(timeline: Timeline, script: Script, size: tuple[int, int] = (120, 36)) -> None:
    async def run() -> None:
        app = CtxvizApp(timeline)
        async with app.run_test(size=size) as pilot:
            await script(pilot, app)

    asyncio.run(run())


async def press_and_settle(pilot: Pilot[None], app: App[None], key: str) -> Screen[object]:
    """Press ``key``, wait for the workers it starts, and return the screen then shown."""
    await pilot.press(key)
    await app.workers.wait_for_complete()
    await pilot.pause()
    return app.screen


async def recent_sessions_listed(pilot: Pilot[None], app: App[None]) -> OptionList:
    """Open the picker (``o``) and return its list of recent sessions once they are found."""
    from ctxviz.tui.screens.open_screen import OpenScreen

    screen = await press_and_settle(pilot, app, "o")
    assert isinstance(screen, OpenScreen)
    return screen.query_one("#open-sessions", OptionList)
