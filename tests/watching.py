"""``ctxviz watch`` under test: its app under Pilot, left the way a person's q leaves it, and its source
polled until it switches to a newer session.

``run_test`` shuts the app down at once when its block ends. A newer picture switched in a moment
before is then torn down in the middle of mounting, and its own mount handlers fail on widgets already
gone. ``q`` waits for that screen (``WatchApp.action_quit``); a test leaves through ``watching``, which
stops the polling and waits for it too."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from textual.pilot import Pilot

from ctxviz.live.watch import Seen, Watch
from ctxviz.live.watch_app import WatchApp


@asynccontextmanager
async def watching(app: WatchApp, size: tuple[int, int]) -> AsyncIterator[Pilot[None]]:
    async with app.run_test(size=size) as pilot:
        yield pilot
        app.watch_source.poll = lambda: None  # type: ignore[method-assign]  # nothing newer from here on
        while app.newest_screen is not None and not app.newest_screen.ready:
            await pilot.pause(0.02)


def poll_until_switched(watch: Watch, polls: int = 25) -> Seen:
    """What ``watch`` shows once it has switched to a newer session (within ``polls`` polls)."""
    switched = None
    for _ in range(polls):
        switched = watch.poll() or switched
        if switched is not None and switched.switched:
            return switched
    raise AssertionError(f"no switch in {polls} polls (last seen: {switched})")
