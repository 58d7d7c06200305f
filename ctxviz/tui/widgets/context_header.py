"""The top line: what is playing, where, and how full the window is (coloured by level)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import Label

from ctxviz.layout import humanize, percent
from ctxviz.timeline import Timeline

_LEVELS = ("-ok", "-warning", "-over")


class ContextHeader(Horizontal):
    def __init__(self, timeline: Timeline, title: str, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._timeline = timeline
        self._title = title

    def compose(self) -> ComposeResult:
        timeline = self._timeline
        yield Label(self._title, id="header-name")
        yield Label(timeline.model, id="header-model")
        yield Label(id="header-usage")

    def show(self, index: int) -> None:
        timeline = self._timeline
        used = timeline.used_at(index)
        measured = "measured" if timeline.steps[index].measured else "estimated"
        usage = self.query_one("#header-usage", Label)
        usage.update(f"{used:,} / {humanize(timeline.window)} · {percent(used, timeline.window):.1f}% · {measured}")
        usage.remove_class(*_LEVELS).add_class(f"-{timeline.level_at(index)}")
