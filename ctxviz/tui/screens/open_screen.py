"""A way in: the built-in scenarios with their one-line summaries, then the user's recent sessions of
every agent (found in a worker thread, so a large projects folder never freezes the picker). Dismisses
with the chosen scenario's path or the chosen session as found (one of a database's sessions is not its
file), or None."""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

import yaml
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList
from textual.widgets.option_list import Option

from ctxviz.sources import DEFAULT_SCENARIO, builtin_scenarios

if TYPE_CHECKING:
    from ctxviz.transcripts.protocol import SessionRef

RECENT_SESSIONS = 12
_SENTENCE = re.compile(r"(?<=[.!?:;])\s|\s—\s|\s\(")


def first_sentence(summary: str) -> str:
    """The summary's first clause (up to a full stop, colon, semicolon, dash or bracket), on one line."""
    text = " ".join(summary.split())
    return _SENTENCE.split(text, maxsplit=1)[0].rstrip(".:;")


def scenario_choices() -> list[tuple[str, str, Path]]:
    """(name, one-line summary, path) of every built-in scenario, the default first."""
    found = []
    for path in builtin_scenarios():
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        found.append((path.stem, first_sentence(str(data.get("summary", ""))), path))
    return sorted(found, key=lambda row: (row[0] != DEFAULT_SCENARIO, row[0]))


def recent_sessions(limit: int = RECENT_SESSIONS) -> list[tuple[str, str, SessionRef]]:
    """(project, agent · when · size · id, path) of the newest sessions of any agent on this machine (the
    agent stands for the project when it cannot be told without reading the session)."""
    import os

    from ctxviz.transcripts.find import recent_sessions as newest_sessions

    rows = []
    for ref, project in newest_sessions(os.environ, Path.home(), limit):
        name = project.rstrip("/").rsplit("/", 1)[-1] or ref.agent
        when = datetime.fromtimestamp(ref.mtime).strftime("%Y-%m-%d %H:%M")
        rows.append((name, f"{ref.agent} · {when} · {ref.size / 1024:,.0f} KB · {ref.session[:8]}", ref))
    return rows


class OpenScreen(ModalScreen["Path | SessionRef | None"]):
    BINDINGS = [Binding("escape,o,q", "dismiss_none", "Close", show=False)]

    def __init__(self) -> None:
        super().__init__()
        self._choices: list[Path | SessionRef] = []  # what each option opens, by the index its id names

    def compose(self) -> ComposeResult:
        with Vertical(id="open"):
            yield Label("Built-in scenarios", classes="open-heading")
            yield OptionList(
                *(self._option(name, summary, path) for name, summary, path in scenario_choices()), id="open-scenarios"
            )
            yield Label("Your recent sessions", classes="open-heading")
            yield OptionList(Option("looking for sessions…", disabled=True), id="open-sessions")

    def on_mount(self) -> None:
        self.query_one("#open").border_title = "Open (enter to open, tab to switch lists, escape to close)"
        self.query_one("#open-scenarios", OptionList).focus()
        self._find_sessions()

    @work(thread=True, exclusive=True)
    def _find_sessions(self) -> None:
        try:
            rows = recent_sessions()
        except OSError as error:  # an unreadable folder: say so in the list, never crash the picker
            self.app.call_from_thread(self._show_sessions, [], f"could not read the sessions: {error}")
            return
        self.app.call_from_thread(self._show_sessions, rows, "no sessions found on this machine")

    def _show_sessions(self, rows: list[tuple[str, str, SessionRef]], empty: str) -> None:
        sessions = self.query_one("#open-sessions", OptionList)
        sessions.clear_options()
        if not rows:
            sessions.add_option(Option(empty, disabled=True))
        for project, detail, ref in rows:
            sessions.add_option(self._option(project, detail, ref))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        if event.option.id is not None:
            self.dismiss(self._choices[int(event.option.id.removeprefix("choice-"))])

    def action_dismiss_none(self) -> None:
        self.dismiss(None)

    def _option(self, name: str, detail: str, target: Path | SessionRef) -> Option:
        """An option that opens ``target``: its id is the target's index, as a database's sessions share
        one path."""
        self._choices.append(target)
        line = Text.assemble((name, "bold"), "  ", (detail, "dim"), no_wrap=True, overflow="ellipsis")
        return Option(line, id=f"choice-{len(self._choices) - 1}")
