"""The usage chart: context used over every step, downsampled to the width, with threshold lines."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import groupby

from rich.console import Console, ConsoleOptions, RenderResult
from rich.segment import Segment
from rich.style import Style

_EIGHTHS = " ▁▂▃▄▅▆▇█"


def downsample(values: Sequence[int], columns: int) -> list[int]:
    """The peak of each column's share of ``values`` (a column repeats a value when there are fewer
    values than columns), so a spike is never averaged away."""
    count = len(values)
    if not count or columns <= 0:
        return []
    peaks = []
    for column in range(columns):
        lo = column * count // columns
        hi = max(lo + 1, (column + 1) * count // columns)
        peaks.append(max(values[lo:hi]))
    return peaks


def column_of(index: int, count: int, columns: int) -> range:
    """The chart columns that show step ``index`` under ``downsample``'s split: one column when
    steps outnumber columns, else every column that repeats this step."""
    last = -(-(index + 1) * columns // count)
    first = last - 1 if count >= columns else -(-index * columns // count)
    return range(max(0, first), min(last, columns))


@dataclass(frozen=True, slots=True)
class Line:
    tokens: int
    style: str


@dataclass(frozen=True, slots=True)
class UsageChart:
    """``peaks`` are already one per column (see ``downsample``); the scale is the window."""

    peaks: Sequence[int]
    window: int
    current: range
    lines: Sequence[Line]
    height: int
    bar_style: str
    current_style: str

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        height = max(1, self.height)
        levels = height * 8
        bar = Style.parse(self.bar_style)
        current = Style.parse(self.current_style)
        line_rows = {
            height - 1 - min(levels - 1, line.tokens * levels // self.window) // 8: Style.parse(line.style)
            for line in self.lines
            if self.window
        }
        filled = [min(levels, peak * levels // self.window) if self.window else 0 for peak in self.peaks]
        for row in range(height):
            floor = (height - 1 - row) * 8
            cells = []
            for column, eighths in enumerate(filled):
                part = max(0, min(8, eighths - floor))
                if part == 0 and row in line_rows:
                    cells.append(("╌", line_rows[row]))
                else:
                    cells.append((_EIGHTHS[part], current if column in self.current else bar))
            # one segment per run of a style: a segment per cell would be ~10× the work to render
            for style, run in groupby(cells, key=lambda cell: cell[1]):
                yield Segment("".join(glyph for glyph, _ in run), style)
            yield Segment.line()
