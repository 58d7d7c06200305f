"""The usage chart: a thin widget around ``renderables.chart.UsageChart``; click to go to a step."""

from __future__ import annotations

from dataclasses import dataclass

from rich.console import RenderableType
from textual import events
from textual.message import Message
from textual.widget import Widget

from ctxviz.timeline import Timeline
from ctxviz.tui.palette import color
from ctxviz.tui.renderables.chart import Line, UsageChart, column_of, downsample


class UsageChartWidget(Widget):
    @dataclass
    class StepClicked(Message):
        index: int

    def __init__(self, timeline: Timeline, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._timeline = timeline
        self._used = [step.used for step in timeline.steps]
        self._current = 0
        # Downsampling walks every step, so it is done once per width, not once per step.
        self._peaks: tuple[int, list[int]] = (-1, [])

    def show(self, index: int) -> None:
        previous, self._current = self._current, index
        width = self.content_size.width
        # With more steps than columns most steps share a column: nothing to redraw.
        if not width or column_of(previous, len(self._used), width) != column_of(index, len(self._used), width):
            self.refresh()

    def _peaks_for(self, width: int) -> list[int]:
        if self._peaks[0] != width:
            self._peaks = (width, downsample(self._used, width))
        return self._peaks[1]

    def render(self) -> RenderableType:
        width, height = self.content_size
        limits = self._timeline.thresholds
        lines = [Line(limits.warning, color(self.app, "warning"))]
        lines.append(Line(limits.autocompact or limits.blocking, color(self.app, "error")))
        return UsageChart(
            peaks=self._peaks_for(width),
            window=self._timeline.window,
            current=column_of(self._current, len(self._used), width) if width else range(0),
            lines=lines,
            height=height,
            bar_style=color(self.app, "primary"),
            current_style=color(self.app, "accent"),
        )

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        width = self.content_size.width
        if offset is not None and width:
            self.post_message(self.StepClicked(min(self._timeline.last, offset.x * len(self._used) // width)))
