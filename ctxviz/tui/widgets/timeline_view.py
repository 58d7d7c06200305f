"""The list of steps, virtualised: only the visible rows are rendered, so 10,000 steps cost what 30 do."""

from __future__ import annotations

from rich.segment import Segment
from textual import events
from textual.cache import LRUCache
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

from ctxviz.glossary import step_meaning
from ctxviz.layout import humanize
from ctxviz.timeline import COMPACTION_STEP_KINDS, USER_STEP_KINDS, Timeline
from ctxviz.tui.icons import icon
from ctxviz.tui.segments import step_delta
from ctxviz.tui.step_clicked import StepClicked

_FIGURES = 14  # " −113k  45.3k": the step's net change, then the running total


class TimelineView(ScrollView, can_focus=False):
    """Click a row to go to that step; hover it for what its kind of step is."""

    COMPONENT_CLASSES = {
        "timeline--current",
        "timeline--compaction",
        "timeline--subagent",
        "timeline--user",
        "timeline--index",
        "timeline--removed",
    }

    def __init__(self, timeline: Timeline, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._timeline = timeline
        self._current = 0
        self._index_width = len(str(timeline.last))
        # A row depends on its step, whether it is current, the width and the theme (styles).
        self._rows: LRUCache[tuple[int, bool, int, str], Strip] = LRUCache(1024)
        self.virtual_size = Size(0, len(timeline.steps))

    @property
    def current(self) -> int:
        return self._current

    def show(self, index: int) -> None:
        previous, self._current = self._current, index
        self._refresh_row(previous)
        self._refresh_row(index)
        self.scroll_to_current()

    def scroll_to_current(self) -> None:
        height = self.scrollable_content_region.height
        top = round(self.scroll_y)
        if height and not top <= self._current < top + height:
            # Keep the current step a few rows from the edge it moved past, as a list cursor does.
            margin = min(3, height // 4)
            target = self._current - margin if self._current < top else self._current - height + 1 + margin
            self.scroll_to(y=max(0, target), animate=False, immediate=True)

    def _refresh_row(self, index: int) -> None:
        row = index - round(self.scroll_y)
        self.refresh_line(row)

    def on_resize(self, event: events.Resize) -> None:
        self.virtual_size = Size(event.size.width, len(self._timeline.steps))
        self.scroll_to_current()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._rows.clear()

    def render_line(self, y: int) -> Strip:
        index = round(self.scroll_y) + y
        width = self.scrollable_content_region.width
        if not 0 <= index < len(self._timeline.steps) or width <= 0:
            return Strip.blank(width, self.rich_style)
        key = (index, index == self._current, width, self.app.theme)
        row = self._rows.get(key)
        if row is None:
            row = self._rows[key] = self._render_row(index, width)
        return row

    def _render_row(self, index: int, width: int) -> Strip:
        step = self._timeline.steps[index]
        base = self.rich_style
        if step.kind in COMPACTION_STEP_KINDS:
            base += self.get_component_rich_style("timeline--compaction")
        elif step.child is not None:
            base += self.get_component_rich_style("timeline--subagent")
        elif step.kind in USER_STEP_KINDS:
            base += self.get_component_rich_style("timeline--user")
        if index == self._current:
            base += self.get_component_rich_style("timeline--current")
        added, removed = step_delta(self._timeline, index)
        figures = f"{_net(added - removed):>7} {humanize(step.used):>6}"
        prefix = f" {index:>{self._index_width}} "
        label_width = max(0, width - len(prefix) - 2 - _FIGURES - 1)
        label = step.label if len(step.label) <= label_width else step.label[: max(0, label_width - 1)] + "…"
        dim = self.get_component_rich_style("timeline--index")
        segments = [
            Segment(prefix, base + dim),
            Segment(f"{icon(step.kind)} ", base),
            Segment(f"{label:<{label_width}}", base),
            Segment(f"{figures:>{_FIGURES}} ", base),
        ]
        strip = Strip(segments)
        return strip.adjust_cell_length(width, base).simplify()

    def on_mouse_move(self, event: events.MouseMove) -> None:
        offset = event.get_content_offset(self)
        index = round(self.scroll_y) + offset.y if offset is not None else -1
        if 0 <= index < len(self._timeline.steps):
            kind = self._timeline.steps[index].kind
            self.tooltip = f"{icon(kind)} {kind}: {step_meaning(kind)}"
        else:
            self.tooltip = None

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        index = round(self.scroll_y) + offset.y
        if 0 <= index < len(self._timeline.steps):
            self.post_message(StepClicked(index))


def _net(tokens: int) -> str:
    return f"+{humanize(tokens)}" if tokens > 0 else f"−{humanize(-tokens)}" if tokens else ""
