"""The usage chart with a second curve over it: the simulated run as bars, and a reference as dots —
the session's measured context (a real session replayed with what-ifs) or the scenario as written.

The reference is given per step of the simulated timeline (None where it has no value, such as the
start-up), so it downsamples to the same columns as the bars.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import groupby

from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
from rich.segment import Segment
from rich.style import Style

from ctxviz.timeline import Timeline
from ctxviz.tui.palette import color
from ctxviz.tui.renderables.chart import PerWidth, column_shares, nice_top
from ctxviz.tui.widgets.usage_chart import UsageChartWidget

DOT = "•"


def downsample_reference(values: Sequence[int | None], columns: int) -> list[int | None]:
    """The highest known value in each column's share of the steps (as the bars' own downsampling)."""
    shares = column_shares(len(values), columns)
    return [max((v for v in values[share] if v is not None), default=None) for share in shares]


@dataclass(frozen=True, slots=True)
class WithReference:
    """``chart`` with a dot in each column at the reference's level (the scale is the chart's)."""

    chart: RenderableType
    reference: Sequence[int | None]  # one per data column
    top: int
    height: int
    axis_width: int
    style: str

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        lines = console.render_lines(self.chart, options.update(height=self.height), pad=False)
        levels = self.height * 8
        rows = {
            self.axis_width + column: self.height - 1 - min(levels - 1, value * levels // max(1, self.top)) // 8
            for column, value in enumerate(self.reference)
            if value is not None
        }
        dot = Style.parse(self.style)
        for row, line in enumerate(lines):
            cells = [(char, segment.style) for segment in line for char in segment.text]
            for x, dot_row in rows.items():
                if dot_row == row and x < len(cells):
                    cells[x] = (DOT, dot)
            for style, run in groupby(cells, key=lambda cell: cell[1]):
                yield Segment("".join(char for char, _ in run), style)
            yield Segment.line()


class ReferenceChartWidget(UsageChartWidget):
    def __init__(
        self, timeline: Timeline, reference: Sequence[int | None], name: str, *, id: str | None = None
    ) -> None:
        super().__init__(timeline, id=id)
        self._reference = reference
        self._reference_name = name  # "measured", "as written"
        self._columns = PerWidth(lambda width: downsample_reference(reference, width))

    @property
    def top(self) -> int:
        if self.full_scale:
            return self._timeline.window
        highest = max((v for v in self._reference if v is not None), default=0)
        return nice_top(max(self._timeline.peak, highest), self._timeline.window)

    def title_text(self) -> str:
        return f"▇ simulated · {DOT} {self._reference_name} · " + super().title_text()

    def render(self) -> RenderableType:
        return WithReference(
            super().render(),
            self._columns.at(self._data_width()),
            self.top,
            self.content_size.height,
            self.axis_width,
            color(self.app, "foreground"),
        )
