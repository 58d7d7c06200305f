"""One run of a comparison, as a lane: its title (agent, model, window), its stacked token bar with its
own thresholds, its usage curve over the scenario's events, and what the current event did in it.

The curve's x axis is the scenario's events (start-up first), not the run's steps, so every lane's
columns line up: the same column is the same event in every run. Each point is the peak within the
event, so a compaction's spike still shows. When the runs replay a real session, what the session measured
after each event is drawn over the curve as dots, on the same columns.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import RenderableType
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widget import Widget
from textual.widgets import Label, Static

from ctxviz.layout import humanize, percent
from ctxviz.report.compare_runs import STARTUP, Run, cell, compactions_of, shorten
from ctxviz.tui.palette import color
from ctxviz.tui.renderables.chart import PerWidth, downsample, moves_column, nice_top
from ctxviz.tui.segments import SegmentTotals
from ctxviz.tui.widgets.reference_chart import WithReference, downsample_reference
from ctxviz.tui.widgets.token_bar import TokenBarWidget, markers_of, slices_at
from ctxviz.tui.widgets.usage_chart import themed_chart


def event_peaks(run: Run) -> list[int]:
    """The highest total within each position (start-up, then every event)."""
    steps = run.timeline.steps
    peaks: list[int] = []
    for group in run.groups:
        peaks.append(max((steps[i].used for i in group), default=peaks[-1] if peaks else 0))
    return peaks


WHY_WIDTH = 150  # the reason gets the lane's two last rows; the widget cuts what does not fit


class EventChart(Widget):
    """The run's usage per scenario event, with its warning and compaction lines where they fall within
    the scale. ``peak`` is the highest of all the lanes: one scale for every lane, so heights compare."""

    def __init__(
        self, run: Run, peak: int, measured: Sequence[int | None] | None = None, *, id: str | None = None
    ) -> None:
        super().__init__(id=id)
        self._run = run
        self._peaks = event_peaks(run)
        # a real session's measurements as dots, one per position like the peaks (none at the start-up)
        dots = None if measured is None else [None, *measured]
        self._dots = None if dots is None else PerWidth(lambda width: downsample_reference(dots, width))
        # not capped at this run's window: a lane with a smaller window had its own top, and heights did not compare
        self._top = nice_top(peak, 0)
        self._axis = len(humanize(self._top)) + 1
        self._compactions = [c.event + 1 for c in compactions_of(run)]
        self._position = 0
        self._columns = PerWidth(lambda width: downsample(self._peaks, width))

    def _width(self) -> int:
        return max(0, self.content_size.width - self._axis)

    def show(self, position: int) -> None:
        previous, self._position = self._position, position
        if moves_column(previous, position, len(self._peaks), self._width()):
            self.refresh()

    def render(self) -> RenderableType:
        width, height = self._width(), self.content_size.height
        count = len(self._peaks)
        chart = themed_chart(
            self.app,
            self._run.timeline.thresholds,
            self._columns.at(width),
            top=self._top,
            position=self._position,
            count=count,
            compactions=self._compactions,
            width=width,
            height=height,
            axis_width=self._axis,
        )
        if self._dots is None:
            return chart
        return WithReference(chart, self._dots.at(width), self._top, height, self._axis, color(self.app, "foreground"))


class Lane(Vertical):
    """``position`` counts the start-up as 0 and event ``n`` as ``n + 1``."""

    def __init__(self, run: Run, number: int, peak: int, measured: Sequence[int | None] | None = None) -> None:
        super().__init__(classes="lane")
        self.run = run
        self.number = number
        self._peak = peak  # the highest of all the lanes (the charts' common scale)
        self._measured = measured
        self._totals = SegmentTotals(run.timeline)

    def compose(self) -> ComposeResult:
        timeline = self.run.timeline
        limits = timeline.thresholds
        compact = f"compacts at {humanize(limits.autocompact)}" if limits.autocompact else "no auto-compact"
        name = self.run.label if self.run.label == self.run.agent else f"{self.run.label} ({self.run.agent})"
        with Horizontal(classes="lane-title"):
            yield Label(f"{self.number}. {name}", classes="lane-name")
            yield Label(f"{timeline.model} · {humanize(timeline.window)} · {compact}", classes="lane-model")
            yield Label(classes="lane-usage")
        yield TokenBarWidget()
        yield EventChart(self.run, self._peak, self._measured)
        yield Static(classes="lane-did")

    def show(self, position: int) -> None:
        run, timeline = self.run, self.run.timeline
        event = position - 1
        index = run.step_after(event)
        used = timeline.used_at(index)
        usage = self.query_one(".lane-usage", Label)
        usage.update(f"{used:,} · {percent(used, timeline.window):.1f}%", layout=False)
        level = timeline.level_at(index)
        for name in ("ok", "warning", "over"):
            usage.set_class(name == level, f"-{name}")
        slices = slices_at(self, timeline, self._totals, index)
        self.query_one(TokenBarWidget).show(slices, timeline.window, markers_of(timeline))
        self.query_one(EventChart).show(position)
        did = self.query_one(".lane-did", Static)
        did.update(self._did(event, did.content_size.width), layout=False)

    def _did(self, event: int, width: int) -> Text:
        """What the event did and why, fitted to the lane's two last rows: a reason too long for them is
        shortened at a word with "…" (⏎ opens the run, whose detail pane says it whole)."""
        values = cell(self.run, event, WHY_WIDTH)
        text = Text()
        if event == STARTUP:
            text.append("start-up ", style="italic")
        text.append(f"+{values.added:,}" if values.added else "+0", style="green" if values.added else "dim")
        if values.removed:
            text.append(f" −{values.removed:,}", style="red")
        text.append(f" → {values.total:,}", style="bold")
        if values.why:
            # two rows, less what a wrap at a word may leave empty at the end of the first
            room = 2 * width - len(text.plain) - 2 - width // 4 if width else WHY_WIDTH
            text.append(f"  {shorten(values.why, max(8, room))}", style="bold magenta" if values.compacted else "")
        return text
