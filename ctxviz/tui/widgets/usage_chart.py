"""The usage chart: a thin widget around ``renderables.chart.UsageChart``; click to go to a step.

By default the scale fits the data (a session that peaks at 18% of the window still fills the chart);
``full_scale`` shows the whole window instead. Lines above the fitted scale are named in the title."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich.console import RenderableType
from textual import events
from textual.widget import Widget

from ctxviz.glossary import THRESHOLDS
from ctxviz.layout import humanize
from ctxviz.timeline import Thresholds, Timeline
from ctxviz.tui.palette import color
from ctxviz.tui.renderables.chart import (
    Line,
    PerWidth,
    UsageChart,
    axis_labels,
    column_of,
    downsample,
    moves_column,
    nice_top,
)
from ctxviz.tui.step_clicked import StepClicked

if TYPE_CHECKING:
    from textual.app import App


class UsageChartWidget(Widget):
    def __init__(self, timeline: Timeline, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._timeline = timeline
        self._used = [step.used for step in timeline.steps]
        self._compactions = timeline.compaction_indices()
        self._current = 0
        self.full_scale = False
        self._peaks = PerWidth(lambda width: downsample(self._used, width))

    @property
    def top(self) -> int:
        """The value at the top of the chart: the window, or a round figure just above the peak."""
        window = self._timeline.window
        return window if self.full_scale else nice_top(self._timeline.peak, window)

    @property
    def axis_width(self) -> int:
        """Room for the widest label and the axis line (the labels depend on the height)."""
        labels = axis_labels(max(1, self.content_size.height), self.top).values()
        return max(len(label) for label in labels) + 1

    def toggle_scale(self) -> None:
        self.full_scale = not self.full_scale
        self.border_title = self.title_text()
        self.refresh()

    def title_text(self) -> str:
        """What the chart shows, the most telling first (at 80 columns the end is cut)."""
        names = self._lines()
        drawn = " · ".join(f"╌ {name} {humanize(value)}" for name, value in names if value <= self.top)
        above = ", ".join(f"{name} {humanize(value)}" for name, value in names if value > self.top)
        parts = [f"Usage, {len(self._used):,} steps"]
        if above:
            parts.append(f"above the top: {above}")
        if drawn:
            parts.append(drawn)
        if self._compactions:
            parts.append("▼ compaction")
        parts.append("whole window (f)" if self.full_scale else "fitted to the peak (f)")
        return " · ".join(parts)

    def _lines(self) -> list[tuple[str, int]]:
        """The threshold lines the chart draws, by name: the warning, then auto-compact (or blocking)."""
        limits = self._timeline.thresholds
        last = ("auto-compact", limits.autocompact) if limits.autocompact else ("blocking", limits.blocking)
        return [("warning", limits.warning), last]

    def _data_width(self) -> int:
        return max(0, self.content_size.width - self.axis_width)

    def show(self, index: int) -> None:
        previous, self._current = self._current, index
        if moves_column(previous, index, len(self._used), self._data_width()):
            self.refresh()

    def render(self) -> RenderableType:
        width, height = self._data_width(), self.content_size.height
        count = len(self._used)
        return themed_chart(
            self.app,
            self._timeline.thresholds,
            self._peaks.at(width),
            top=self.top,
            position=self._current,
            count=count,
            compactions=self._compactions,
            width=width,
            height=height,
            axis_width=self.axis_width,
        )

    def _step_at(self, event: events.MouseEvent) -> int | None:
        offset = event.get_content_offset(self)
        width = self._data_width()
        if offset is None or not width or offset.x < self.axis_width:
            return None
        return min(self._timeline.last, (offset.x - self.axis_width) * len(self._used) // width)

    def on_mouse_move(self, event: events.MouseMove) -> None:
        index = self._step_at(event)
        if index is None:
            self.tooltip = None
            return
        step = self._timeline.steps[index]
        tip = f"step {index} · {step.kind} · {step.label}\n{step.used:,} tokens after it (click to go there)"
        offset = event.get_content_offset(self)
        line = self._line_in_row(offset.y) if offset is not None else None
        if line is not None:
            name, tokens = line
            tip += f"\n╌ the {name} line, {tokens:,}: {THRESHOLDS.get(name, '')}"
        self.tooltip = tip

    def _line_in_row(self, row: int) -> tuple[str, int] | None:
        """The threshold line drawn in ``row`` (as ``UsageChart`` places it), if any; the higher wins."""
        height, top = max(1, self.content_size.height), max(1, self.top)
        levels = height * 8
        found = None
        for name, tokens in self._lines():
            if tokens <= top and height - 1 - min(levels - 1, tokens * levels // top) // 8 == row:
                found = (name, tokens)
        return found

    def on_click(self, event: events.Click) -> None:
        index = self._step_at(event)
        if index is not None:
            self.post_message(StepClicked(index))


def themed_chart(
    app: App[object],
    limits: Thresholds,
    peaks: list[int],
    *,
    top: int,
    position: int,
    count: int,
    compactions: Sequence[int],
    width: int,
    height: int,
    axis_width: int,
) -> UsageChart:
    """The usage chart in the app's colours: ``peaks`` one a column of ``width`` over ``count`` steps or
    events, the warning and compaction lines, a mark at each of ``compactions``, the column of ``position``."""
    return UsageChart(
        peaks=peaks,
        top=top,
        current=column_of(position, count, width) if width else range(0),
        lines=[
            Line(limits.warning, color(app, "warning")),
            Line(limits.autocompact or limits.blocking, color(app, "error")),
        ],
        height=height,
        bar_style=color(app, "primary"),
        current_style=color(app, "accent"),
        marks=frozenset(c for i in compactions for c in column_of(i, count, width)) if width else frozenset(),
        mark_style=color(app, "error"),
        axis_width=axis_width,
        axis_style=color(app, "foreground-darken-2"),
    )
