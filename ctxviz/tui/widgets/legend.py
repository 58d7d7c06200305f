"""The bar's legend: a thin widget around ``renderables.bar.Legend``; hover an entry for what it is."""

from __future__ import annotations

from rich.console import RenderableType
from textual import events
from textual.widget import Widget

from ctxviz.glossary import segment_meaning
from ctxviz.tui.renderables.bar import Legend, Slice


class LegendWidget(Widget):
    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._slices: list[Slice] = []
        self._window = 1
        self._max_lines = 3

    def show(self, slices: list[Slice], window: int, max_lines: int) -> None:
        # The height can only change when entries come or go; a layout pass costs far more than a repaint.
        entries = [(s.key, s.note) for s in slices]
        relayout = entries != [(s.key, s.note) for s in self._slices] or max_lines != self._max_lines
        self._slices, self._window, self._max_lines = slices, window, max_lines
        self.refresh(layout=relayout)

    def on_mouse_move(self, event: events.MouseMove) -> None:
        legend = Legend(self._slices, self._window, self._max_lines)
        piece = legend.slice_at(event.x, event.y, self.content_size.width)
        self.tooltip = f"{piece.label}: {segment_meaning(piece.key)}" if piece else None

    def render(self) -> RenderableType:
        return Legend(self._slices, self._window, self._max_lines)
