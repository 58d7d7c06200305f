"""The stacked token bar and its legend, as Rich renderables."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import groupby

from rich.console import Console, ConsoleOptions, RenderResult
from rich.segment import Segment as RichSegment
from rich.style import Style
from rich.text import Text

from ctxviz.layout import humanize, percent, share_cells

FREE_KEY, RESERVE_KEY = "free", "reserve"


@dataclass(frozen=True, slots=True)
class Slice:
    key: str
    label: str
    tokens: int
    color: str
    estimated: bool = False  # a transcript's split: the total is measured, the parts estimated (chars/4)
    note: str = ""  # said after the figures, e.g. that the figure holds rows the log does not tell apart


@dataclass(frozen=True, slots=True)
class Marker:
    tokens: int
    label: str
    short: str


def bar_spans(slices: Sequence[Slice], width: int) -> list[tuple[Slice, int, int]]:
    """Each slice with its [start, end) cells; the cells are shared exactly, so the spans tile ``width``."""
    cells = share_cells([s.tokens for s in slices], width)
    spans, start = [], 0
    for piece, count in zip(slices, cells, strict=True):
        if count:
            spans.append((piece, start, start + count))
        start += count
    return spans


@dataclass(frozen=True, slots=True)
class TokenBar:
    """``slices`` end with free space and the reserve, so together they fill the window."""

    slices: Sequence[Slice]
    window: int
    markers: Sequence[Marker]
    marker_style: str
    highlight: str | None = None
    height: int = 2

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = options.max_width
        cells: list[tuple[str, Style]] = []
        for piece, start, end in bar_spans(self.slices, width):
            glyph = "░" if piece.key == RESERVE_KEY else " "
            if piece.key == RESERVE_KEY:
                style = Style(color=piece.color)
            elif piece.key == FREE_KEY:
                style = Style(bgcolor=piece.color)
            else:
                style = Style(bgcolor=piece.color, underline=piece.key == self.highlight)
            cells += [(glyph, style)] * (end - start)
        marker_style = Style.parse(self.marker_style)
        columns = [min(width - 1, m.tokens * width // self.window) for m in self.markers if self.window]
        row = list(cells)
        for column in columns:
            glyph, style = row[column]
            row[column] = ("┃", style + Style(color=marker_style.color, bold=True))
        runs = [
            RichSegment("".join(glyph for glyph, _ in run), style)
            for style, run in groupby(row, key=lambda cell: cell[1])
        ]
        for _ in range(self.height):
            yield from runs
            yield RichSegment.line()
        yield self._marker_row(width, columns, marker_style)

    def _marker_row(self, width: int, columns: list[int], style: Style) -> Text:
        """``▲`` under each marker with its label beside it (left of the first, right of the last),
        shortened or left out when it would not fit; two markers too close for a label each share one,
        left of both ("warning 947k · auto-compact 967k ▲ ▲")."""
        choices = [_label_choices(marker) for marker in self.markers]
        line, unlabelled = self._placed(width, columns, choices)
        if unlabelled and len(columns) == 2:
            joined = tuple(f"{first} · {last}" for first, last in zip(*choices, strict=True))
            both, unlabelled = self._placed(width, columns, [joined, ()])
            line = line if unlabelled else both
        return Text("".join(line), style=style, no_wrap=True, overflow="crop")

    @staticmethod
    def _placed(width: int, columns: list[int], choices: Sequence[tuple[str, ...]]) -> tuple[list[str], bool]:
        """The marker row with each marker's first label that fits (left of the first marker, right of the
        last), and whether one with labels to choose from got none."""
        line = [" "] * width
        for column in columns:
            line[column] = "▲"
        unlabelled = False
        for n, (labels, column) in enumerate(zip(choices, columns, strict=True)):
            rightwards = n == len(columns) - 1 and len(columns) > 1
            for label in labels:
                text = f" {label} "
                start = column + 1 if rightwards else column - len(text)
                end = start + len(text)
                if start >= 0 and end <= width and all(c == " " for c in line[start:end]):
                    line[start:end] = list(text)
                    break
            else:
                unlabelled = unlabelled or bool(labels)
        return line, unlabelled


def _label_choices(marker: Marker) -> tuple[str, str, str]:
    """A marker's labels, longest first: "auto-compact 167k", "compact 167k", "compact"."""
    return (marker.label, f"{marker.short} {humanize(marker.tokens)}", marker.short)


@dataclass(frozen=True, slots=True)
class Legend:
    """One entry per slice (a swatch, the name, tokens and % of the window), packed into as few lines
    as the width allows, an entry never split; when that takes more than ``max_lines`` the % are left
    out (the bar's tooltips and the ``/context`` view still give them). The figures have a fixed
    width, so for the same slices the lines never change with the numbers: no layout per step."""

    slices: Sequence[Slice]
    window: int
    max_lines: int = 3
    gap: int = 3

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = options.max_width
        lines = self._pack([self._entry(piece, True) for piece in self.slices], width)
        if len(lines) > self.max_lines:
            lines = self._pack([self._entry(piece, False) for piece in self.slices], width)
        yield from lines

    def slice_at(self, x: int, y: int, width: int) -> Slice | None:
        """The slice whose legend entry is drawn at (x, y) when rendered ``width`` wide (for tooltips)."""
        for with_percent in (True, False):
            entries = [self._entry(piece, with_percent) for piece in self.slices]
            placed = self._places(entries, width)
            if max((line for line, _, _ in placed), default=0) < self.max_lines or not with_percent:
                for (line, start, end), piece in zip(placed, self.slices, strict=True):
                    if line == y and start <= x < end:
                        return piece
                return None
        return None

    def _places(self, entries: list[Text], width: int) -> list[tuple[int, int, int]]:
        """(line, start, end) of each entry as ``_pack`` lays them out."""
        places, line, used = [], 0, 0
        for entry in entries:
            if used and used + self.gap + entry.cell_len > width:
                line, used = line + 1, 0
            start = used + self.gap if used else 0
            places.append((line, start, start + entry.cell_len))
            used = start + entry.cell_len
        return places

    def _pack(self, entries: list[Text], width: int) -> list[Text]:
        lines = [Text(no_wrap=True, overflow="ellipsis")]
        for entry in entries:
            line = lines[-1]
            if line and line.cell_len + self.gap + entry.cell_len > width:
                line = Text(no_wrap=True, overflow="ellipsis")
                lines.append(line)
            if line:
                line.append(" " * self.gap)
            line.append_text(entry)
        return lines

    def _entry(self, piece: Slice, with_percent: bool) -> Text:
        swatch = "░░" if piece.key == RESERVE_KEY else "██"
        # "~" on an estimated figure, not on a zero: nothing of that kind is in the window
        figures = f"{'~' if piece.estimated and piece.tokens else ''}{humanize(piece.tokens)}"
        figures = f"{figures:>{6 if piece.estimated else 5}}"
        if with_percent:
            figures += f" {percent(piece.tokens, self.window):>4.1f}%"
        style = "dim" if piece.tokens else "dim italic"
        entry = Text.assemble((swatch, Style(color=piece.color)), f" {piece.label} ", (figures, style))
        if piece.note:
            entry.append(f" {piece.note}", style="dim")
        return entry
