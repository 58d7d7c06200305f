"""The usage chart: context used over every step, downsampled to the width, with threshold lines."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from itertools import groupby
from typing import Generic, TypeVar

from rich.console import Console, ConsoleOptions, RenderResult
from rich.segment import Segment
from rich.style import Style

from ctxviz.layout import humanize

_EIGHTHS = " ▁▂▃▄▅▆▇█"
T = TypeVar("T")


def column_shares(count: int, columns: int) -> Iterator[slice]:
    """Each column's share of ``count`` values, in order (a column repeats a value when there are fewer
    values than columns)."""
    for column in range(columns if count else 0):
        lo = column * count // columns
        yield slice(lo, max(lo + 1, (column + 1) * count // columns))


def downsample(values: Sequence[int], columns: int) -> list[int]:
    """The peak of each column's share of ``values``, so a spike is never averaged away."""
    return [max(values[share]) for share in column_shares(len(values), columns)]


class PerWidth(Generic[T]):
    """What ``compute`` gives for a width, kept until the width changes: downsampling walks every step,
    so it is done once per width, not once per redraw."""

    def __init__(self, compute: Callable[[int], T]) -> None:
        self._compute = compute
        self._kept: tuple[int, T] | None = None

    def at(self, width: int) -> T:
        if self._kept is None or self._kept[0] != width:
            self._kept = (width, self._compute(width))
        return self._kept[1]


def column_of(index: int, count: int, columns: int) -> range:
    """The chart columns that show step ``index`` under ``downsample``'s split: one column when
    steps outnumber columns, else every column that repeats this step."""
    last = -(-(index + 1) * columns // count)
    first = last - 1 if count >= columns else -(-index * columns // count)
    return range(max(0, first), min(last, columns))


def moves_column(previous: int, index: int, count: int, columns: int) -> bool:
    """Whether the chart must be drawn again when its current step goes from ``previous`` to ``index``:
    with more steps than columns most steps share a column."""
    return not columns or column_of(previous, count, columns) != column_of(index, count, columns)


def nice_top(peak: int, window: int) -> int:
    """The fit-to-data scale's top: the first round figure (1, 1.2, 1.4, … 8 × 10^k) at or above the
    peak plus a twentieth (so the highest step never touches the frame), never above the window."""
    want = max(1, peak + peak // 20)
    magnitude = 10 ** (len(str(want)) - 1)
    for factor in (1, 1.2, 1.4, 1.6, 1.8, 2, 2.5, 3, 4, 5, 6, 8, 10):
        top = int(factor * magnitude)
        if top >= want:
            return min(top, window) if window else top
    return window  # not reached: 10 × magnitude is always ≥ want


def axis_labels(height: int, top: int) -> dict[int, str]:
    """Row → label: the top of the scale on the first row, 0 on the last, the middle between when
    there is room (each row labelled by its upper edge, as the top is)."""
    labels = {0: humanize(top), height - 1: "0"}
    if height >= 4:
        middle = height // 2
        labels[middle] = humanize(top * (height - middle) // height)
    return labels


@dataclass(frozen=True, slots=True)
class Line:
    tokens: int
    style: str


@dataclass(frozen=True, slots=True)
class UsageChart:
    """``peaks`` are already one per column (see ``downsample``); the scale runs from 0 to ``top``.

    A y-axis of ``axis_width`` cells is drawn on the left. A threshold line is drawn in the row its
    value falls in, and the bars are drawn so that a column at or over a line always reaches past it
    (and is coloured as the line) while one under it never does: rounding to eighths of a row must not
    hide the moment usage crosses the auto-compact line. ``marks`` are columns of compaction steps,
    drawn as ▼ in the top row.
    """

    peaks: Sequence[int]
    top: int
    current: range
    lines: Sequence[Line]
    height: int
    bar_style: str
    current_style: str
    marks: frozenset[int] = frozenset()
    mark_style: str = "red"
    axis_width: int = 0
    axis_style: str = "dim"

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        height = max(1, self.height)
        levels = height * 8
        top = max(1, self.top)
        bar = Style.parse(self.bar_style)
        current = Style.parse(self.current_style)
        shown = [line for line in self.lines if line.tokens <= top]
        line_levels = [(min(levels - 1, line.tokens * levels // top), line) for line in shown]
        line_rows = {height - 1 - level // 8: Style.parse(line.style) for level, line in line_levels}
        filled = []
        over: list[Style | None] = []
        for peak in self.peaks:
            eighths = min(levels, peak * levels // top)
            crossed: Style | None = None
            for level, line in line_levels:
                if peak >= line.tokens:
                    eighths = max(eighths, level + 1)  # reaches into the line's eighth
                    crossed = Style.parse(line.style)  # the highest line crossed wins (lines go up)
                else:
                    eighths = min(eighths, level)  # stays under it
            filled.append(eighths)
            over.append(crossed)
        labels = axis_labels(height, top)
        axis = Style.parse(self.axis_style)
        for row in range(height):
            if self.axis_width:
                yield Segment(labels.get(row, "").rjust(self.axis_width - 1) + "┤", axis)
            floor = (height - 1 - row) * 8
            cells = []
            for column, eighths in enumerate(filled):
                part = max(0, min(8, eighths - floor))
                if row == 0 and column in self.marks and part < 8:
                    cells.append(("▼", Style.parse(self.mark_style)))
                elif part == 0 and row in line_rows:
                    cells.append(("╌", line_rows[row]))
                elif column in self.current:
                    cells.append((_EIGHTHS[part], current))
                else:
                    cells.append((_EIGHTHS[part], over[column] or bar))
            # one segment per run of a style: a segment per cell would be ~10× the work to render
            for style, run in groupby(cells, key=lambda cell: cell[1]):
                yield Segment("".join(glyph for glyph, _ in run), style)
            yield Segment.line()
