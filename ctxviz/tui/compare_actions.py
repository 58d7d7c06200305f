"""The compare key (c) from a scenario's timeline: replay the scenario that is playing under every
agent — or, when the app was opened with what-ifs (``play --set``), as written against the what-if — and
open the compare screen over it. Simulating takes a moment at 10,000 events, so it runs in a thread."""

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
    """The timeline of a scenario's main screen (not a subagent's, not a transcript's), or None."""
    if not isinstance(screen, TimelineScreen) or screen.is_child:
        return None
    timeline = screen.timeline
    return timeline if timeline.source.kind == "scenario" and timeline.source.path else None


def open_compare(app: App[Any]) -> None:
    timeline = comparable(app.screen)
    if timeline is None:
        return
    # a what-if's screen (play --set) compares the scenario as written with its what-ifs
    what_ifs = tuple(app.screen.what_ifs) if isinstance(app.screen, WhatIfScreen) else ()
    path = timeline.source.path
    assert path is not None
    app.notify("Replaying under every agent…" if not what_ifs else "Replaying as written and with the what-ifs…")

    def build() -> None:
        from ctxviz.errors import InputError
        from ctxviz.report.compare_runs import agent_names, compare, parse_run_specs, what_if_pair
        from ctxviz.sources import open_replayable
        from ctxviz.whatif import parse_settings

        try:
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
        app.call_from_thread(app.push_screen, CompareScreen(comparison, is_child=True))

    app.run_worker(build, thread=True, exclusive=True, group="compare")
