"""The ``/context`` view of the current step (see ``renderables.context``)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from ctxviz.timeline import CATEGORIES, FREE_SPACE, Category, Timeline
from ctxviz.tui.palette import color
from ctxviz.tui.renderables.context import context_view
from ctxviz.tui.segments import SEGMENTS, SegmentTotals

_NARROW = 80  # below this many columns the grid is 5 wide, as /context draws it in a narrow terminal


class ContextView(VerticalScroll, can_focus=False):
    def __init__(
        self, timeline: Timeline, totals: SegmentTotals, *, id: str | None = None, at: str | None = None
    ) -> None:
        super().__init__(id=id)
        self._timeline = timeline
        self._totals = totals
        self._at = at  # where the step is, in words, when its number in the session is not known

    def compose(self) -> ComposeResult:
        yield Static(id="context-body")

    def show(self, index: int) -> None:
        timeline, app = self._timeline, self.app
        colors = {category.value: color(app, f"seg-{_color_key(category)}") for category in CATEGORIES}
        colors[FREE_SPACE] = color(app, "foreground-darken-2")
        colors[timeline.thresholds.buffer_label] = color(app, "foreground-darken-3")
        body = context_view(
            timeline,
            index,
            timeline.state_at(index),
            self._totals.at(index),
            colors,
            narrow=self.screen.size.width < _NARROW,
            at=self._at,
        )
        self.query_one("#context-body", Static).update(body)


def _color_key(category: Category) -> str:
    if category is Category.MESSAGES:
        return "messages"
    return next(s.key for s in SEGMENTS if s.category is category)
