"""The current step in detail (see ``renderables.detail``), scrollable when it is long."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from ctxviz.timeline import Timeline
from ctxviz.tui.renderables.detail import step_detail


class DetailPane(VerticalScroll, can_focus=False):
    def __init__(self, timeline: Timeline, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._timeline = timeline
        self.index = 0

    def compose(self) -> ComposeResult:
        yield Static(id="detail-body")

    def show(self, index: int) -> None:
        self.index = index
        self.query_one("#detail-body", Static).update(step_detail(self._timeline, index))
        self.scroll_home(animate=False)
