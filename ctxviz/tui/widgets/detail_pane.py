"""The current step in detail (see ``renderables.detail``), paged with PgUp/PgDn or the mouse wheel.

Drawn with the Line API from strips rendered once per (step, width, theme), and scrolled by its own
offset instead of as a scroll container: a container re-lays out the whole screen whenever its
content's height changes, which is on nearly every step (~40 ms with this screen, measured with
benchmarks/tui.py), while redrawing this pane in place costs a few.
"""

from __future__ import annotations

from rich.segment import Segment
from textual import events
from textual.cache import LRUCache
from textual.strip import Strip
from textual.widget import Widget

from ctxviz.timeline import Timeline
from ctxviz.tui.renderables.detail import step_detail

_WHEEL_LINES = 3


def more_lines(count: int, width: int) -> str:
    """The pane's last line when more is below: the longest wording that fits, never cut mid-word."""
    for text in (f"▼ {count} more lines (PgDn or the mouse wheel)", f"▼ {count} more lines (PgDn)", f"▼ {count} more"):
        if len(text) <= width:
            return text
    return "▼"


class DetailPane(Widget, can_focus=False):
    COMPONENT_CLASSES = {"detail--more"}

    def __init__(self, timeline: Timeline, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._timeline = timeline
        self.index = 0
        self.top = 0  # the first line in view
        self._rendered: LRUCache[tuple[int, int, str], list[Strip]] = LRUCache(64)

    def show(self, index: int) -> None:
        self.index, self.top = index, 0
        self.refresh()

    def page(self, direction: int) -> None:
        self._scroll_lines_to(self.top + direction * max(1, self.content_size.height - 2))

    def on_mouse_scroll_down(self, event: events.MouseScrollDown) -> None:
        self._scroll_lines_to(self.top + _WHEEL_LINES)
        event.stop()

    def on_mouse_scroll_up(self, event: events.MouseScrollUp) -> None:
        self._scroll_lines_to(self.top - _WHEEL_LINES)
        event.stop()

    def _scroll_lines_to(self, top: int) -> None:
        top = max(0, min(top, len(self._lines()) - self.content_size.height + 1))
        if top != self.top:
            self.top = top
            self.refresh()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._rendered.clear()

    def _lines(self) -> list[Strip]:
        width = self.content_size.width
        key = (self.index, width, self.app.theme)
        lines = self._rendered.get(key)
        if lines is None:
            console = self.app.console
            options = console.options.update_width(max(1, width))
            rendered = console.render_lines(step_detail(self._timeline, self.index), options, pad=False)
            lines = self._rendered[key] = [Strip(line) for line in rendered]
        return lines

    def render_line(self, y: int) -> Strip:
        lines = self._lines()
        width, height = self.content_size
        hidden = len(lines) - self.top - height
        if y == height - 1 and hidden > 0:
            line = Strip([Segment(more_lines(hidden + 1, width), self.get_component_rich_style("detail--more"))])
        else:
            row = self.top + y
            line = lines[row] if row < len(lines) else Strip.blank(0)
        return line.extend_cell_length(width).crop(0, width).apply_style(self.rich_style)
