"""The open screen (``o``) opens the session chosen, also one of several that share a file: opencode keeps
every session in one SQLite database, and the database's path alone opens its latest session."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest
from agent_homes import empty_home

from benchmarks.agent_corpus import opencode_db
from ctxviz.kinds import StepKind


def test_choosing_one_of_a_databases_sessions_opens_that_session(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from textual.widgets import OptionList

    from ctxviz.sources import open_timeline
    from ctxviz.tui.app import CtxvizApp
    from ctxviz.tui.screens.open_screen import OpenScreen
    from ctxviz.tui.screens.timeline_screen import TimelineScreen

    database = opencode_db(empty_home(tmp_path, monkeypatch), 4)  # the fixture's sessions, and a copy of each
    chosen = "s_stage0_large_0001"
    with sqlite3.connect(database) as db:  # the copy's one call: 777 input tokens (the original's: 120)
        db.execute(
            "UPDATE part SET data = replace(data, '\"input\": 120', '\"input\": 777') WHERE session_id = ?", (chosen,)
        )

    async def run() -> None:
        app = CtxvizApp(open_timeline(None))
        async with app.run_test(size=(120, 36)) as pilot:
            await pilot.press("o")
            assert isinstance(app.screen, OpenScreen)
            await app.workers.wait_for_complete()
            await pilot.pause()
            sessions = app.screen.query_one("#open-sessions", OptionList)
            listed = [str(sessions.get_option_at_index(i).prompt) for i in range(sessions.option_count)]
            assert len(listed) == 4 and all(" opencode · " in row for row in listed)
            sessions.focus()
            sessions.highlighted = 1  # same file, same time: listed by id, the copy second
            await pilot.press("enter")
            await app.workers.wait_for_complete()
            await pilot.pause()
            assert isinstance(app.screen, TimelineScreen)
            timeline = app.screen.timeline
            calls = [step.used for step in timeline.steps if step.kind == StepKind.API_CALL]
            assert (timeline.source.name, calls) == (chosen, [777])

    asyncio.run(run())
