"""The open screen (``o``) opens the session chosen, also one of several that share a file: opencode keeps
every session in one SQLite database, and the database's path alone opens its latest session."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from agent_homes import empty_home
from textual.pilot import Pilot
from tui_driving import drive, press_and_settle, recent_sessions_listed

from benchmarks.agent_corpus import opencode_db
from ctxviz.kinds import StepKind
from ctxviz.sources import open_timeline
from ctxviz.tui.app import CtxvizApp
from ctxviz.tui.screens.timeline_screen import TimelineScreen


def test_choosing_one_of_a_databases_sessions_opens_that_session(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    database = opencode_db(empty_home(tmp_path, monkeypatch), 4)  # the fixture's sessions, and a copy of each
    chosen = "s_stage0_large_0001"
    with sqlite3.connect(database) as db:  # the copy's one call: 777 input tokens (the original's: 120)
        db.execute(
            "UPDATE part SET data = replace(data, '\"input\": 120', '\"input\": 777') WHERE session_id = ?", (chosen,)
        )

    async def script(pilot: Pilot[None], app: CtxvizApp) -> None:
        sessions = await recent_sessions_listed(pilot, app)
        listed = [str(sessions.get_option_at_index(i).prompt) for i in range(sessions.option_count)]
        assert len(listed) == 4 and all(" opencode · " in row for row in listed)
        sessions.focus()
        sessions.highlighted = 1  # same file, same time: listed by id, the copy second
        screen = await press_and_settle(pilot, app, "enter")
        assert isinstance(screen, TimelineScreen)
        calls = [step.used for step in screen.timeline.steps if step.kind == StepKind.API_CALL]
        assert (screen.timeline.source.name, calls) == (chosen, [777])

    drive(open_timeline(None), script)
