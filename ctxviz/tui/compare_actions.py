"""The compare key (c) from a timeline: replay the scenario that is playing (or the session, turned into
a scenario by the importer) under every agent — or, when the app was opened with what-ifs (``play
--set``), as written against the what-if — and open the compare screen over it at the event of the
current step. Simulating takes a moment at 10,000 events, so it runs in a thread."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from textual.app import App
from textual.screen import Screen

from ctxviz.timeline import Timeline
from ctxviz.tui.screens.compare_screen import CompareScreen
from ctxviz.tui.screens.timeline_screen import TimelineScreen
from ctxviz.tui.screens.what_if_screen import WhatIfScreen


def comparable(screen: Screen[object]) -> Timeline | None:
    """The timeline of a main screen read from a file (a scenario, or a session the importer can turn
    into one), or None: a subagent's window, or a timeline with no file behind it."""
    if not isinstance(screen, TimelineScreen) or screen.is_child:
        return None
    timeline = screen.timeline
    return timeline if timeline.source.path else None


def why_not_comparable(screen: Screen[object]) -> str:
    if isinstance(screen, CompareScreen):
        return "This is the comparison already: ⏎ opens the selected run, escape goes back."
    if isinstance(screen, TimelineScreen) and screen.is_child:
        return "Compare works on the whole scenario or session: press escape to leave the subagent, then c."
    return "Compare replays a scenario or a session file under every agent: open one first (o)."


def event_at(timeline: Timeline, index: int, measured: tuple[int | None, ...] | None) -> int:
    """The compare screen's position (0: start-up, n + 1: event n) for step ``index``: for a scenario,
    the last event at or before it; for a session, the event after which the session measured the size
    of the last API call at or before it (the importer records one measured size per event)."""
    steps = timeline.steps[: index + 1]
    if measured is None:
        return next((step.event + 1 for step in reversed(steps) if step.event is not None), 0)
    events_by_size = {size: event for event, size in enumerate(measured) if size is not None}
    for step in reversed(steps):
        if step.measured and step.used in events_by_size:
            return events_by_size[step.used] + 1
    return 0


def open_compare(app: App[Any]) -> None:
    timeline = comparable(app.screen)
    if timeline is None:
        app.notify(why_not_comparable(app.screen), timeout=4)
        return
    # a what-if's screen (play --set) compares the scenario as written with its what-ifs
    what_ifs = tuple(app.screen.what_ifs) if isinstance(app.screen, WhatIfScreen) else ()
    index = app.screen.index if isinstance(app.screen, TimelineScreen) else 0
    path = timeline.source.path
    assert path is not None
    app.notify("Replaying under every agent…" if not what_ifs else "Replaying as written and with the what-ifs…")

    def build() -> None:
        from ctxviz.errors import InputError
        from ctxviz.report.compare_runs import agent_names, compare, parse_run_specs, what_if_pair
        from ctxviz.sources import open_replayable
        from ctxviz.whatif import parse_settings

        try:
            # a session goes through the importer, as `ctxviz compare SESSION` does
            loaded = open_replayable(path, "chars4" if timeline.tokenizer.startswith("chars/4") else "cl100k")
            settings = parse_settings(what_ifs)
            if what_ifs:
                specs, settings = what_if_pair(timeline.agent, settings)
            else:
                specs = parse_run_specs(None, agent_names())
            # a real session's measurements go along, as the dots beside every lane
            comparison = replace(compare(loaded.scenario, specs, settings, loaded.display), measured=loaded.measured)
        except InputError as error:
            app.call_from_thread(app.notify, error.message, title="Cannot compare", severity="error", timeout=10)
            return
        position = event_at(timeline, index, loaded.measured)
        app.call_from_thread(app.push_screen, CompareScreen(comparison, is_child=True, position=position))

    app.run_worker(build, thread=True, exclusive=True, group="compare")
