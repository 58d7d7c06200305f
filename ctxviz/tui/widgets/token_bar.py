"""The stacked token bar: a thin widget around ``renderables.bar.TokenBar``."""

from __future__ import annotations

from dataclasses import dataclass

from rich.console import RenderableType
from textual import events
from textual.message import Message
from textual.widget import Widget

from ctxviz.glossary import THRESHOLDS, UNRECORDED_SPLIT, segment_meaning
from ctxviz.layout import humanize, percent
from ctxviz.timeline import FREE_SPACE, Category, Timeline
from ctxviz.tui.palette import color
from ctxviz.tui.renderables.bar import FREE_KEY, RESERVE_KEY, Marker, Slice, TokenBar, bar_spans
from ctxviz.tui.segments import SEGMENTS, SegmentTotals


def slices_at(widget: Widget, timeline: Timeline, totals: SegmentTotals, index: int) -> list[Slice]:
    """Every segment the timeline ever uses (0 when empty now, so the legend keeps its places), then
    free space and what is left of the reserve."""
    app = widget.app
    estimated = timeline.source.kind == "transcript"
    unrecorded = totals.startup_unrecorded_at(index)
    pieces = [
        Slice(
            segment.key,
            segment.label,
            tokens,
            color(app, f"seg-{segment.key}"),
            estimated,
            UNRECORDED_SPLIT if unrecorded and segment.category is Category.SYSTEM_PROMPT else "",
        )
        for segment, tokens, present in zip(SEGMENTS, totals.at(index), totals.present, strict=True)
        if present
    ]
    breakdown = timeline.breakdown_at(index)
    reserve = min(timeline.thresholds.buffer, max(0, timeline.window - timeline.used_at(index)))
    pieces.append(Slice(FREE_KEY, FREE_SPACE, breakdown[FREE_SPACE], color(app, "panel-lighten-2")))
    pieces.append(Slice(RESERVE_KEY, timeline.thresholds.buffer_label, reserve, color(app, "foreground-darken-3")))
    return pieces


def markers_of(timeline: Timeline) -> list[Marker]:
    limits = timeline.thresholds
    warning = Marker(limits.warning, f"warning {humanize(limits.warning)}", "warn")
    if limits.autocompact is None:
        return [warning, Marker(limits.blocking, f"blocking {humanize(limits.blocking)}", "block")]
    compact = Marker(limits.autocompact, f"auto-compact {humanize(limits.autocompact)}", "compact")
    # agents with no separate warning (Codex, pi, …) warn where they compact: one marker, named for what happens
    return [compact] if limits.warning == limits.autocompact else [warning, compact]


class TokenBarWidget(Widget):
    """Click a segment to list its blocks; hover for its figures."""

    @dataclass
    class SegmentClicked(Message):
        key: str

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._slices: list[Slice] = []
        self._window = 1
        self._markers: list[Marker] = []

    def show(self, slices: list[Slice], window: int, markers: list[Marker]) -> None:
        width = self.content_size.width
        before = [(s.key, s.color, a, b) for s, a, b in bar_spans(self._slices, width)]
        after = [(s.key, s.color, a, b) for s, a, b in bar_spans(slices, width)]
        self._slices, self._window, self._markers = slices, window, markers
        # Most steps move no cell boundary (a cell is ~1,700 tokens of a 200k window at 120 columns).
        if before != after or not width:
            self.refresh()

    def render(self) -> RenderableType:
        # the bottom row is the markers' labels; the bar takes the rest (two rows, one when short)
        height = max(1, self.content_size.height - 1)
        return TokenBar(self._slices, self._window, self._markers, color(self.app, "warning"), height=height)

    def _slice_at(self, x: int) -> Slice | None:
        for piece, start, end in bar_spans(self._slices, self.content_size.width):
            if start <= x < end:
                return piece
        return None

    def on_mouse_move(self, event: events.MouseMove) -> None:
        if event.y == self.content_size.height - 1:  # the markers' row: what the nearest line means
            self.tooltip = self._marker_tip(event.x)
            return
        piece = self._slice_at(event.x)
        self.tooltip = (
            f"{piece.label}: {'~' if piece.estimated else ''}{piece.tokens:,} tokens "
            f"({percent(piece.tokens, self._window):.1f}%){f' {piece.note}' if piece.note else ''}\n"
            f"{segment_meaning(piece.key)}"
            if piece
            else None
        )

    def _marker_tip(self, x: int) -> str | None:
        width = self.content_size.width
        if not self._markers or not width:
            return None
        nearest = min(self._markers, key=lambda m: abs(m.tokens * width // self._window - x))
        name = nearest.label.split()[0]
        return f"The {name} line, at {nearest.tokens:,} tokens: {THRESHOLDS.get(name, '')}"

    def on_click(self, event: events.Click) -> None:
        piece = self._slice_at(event.x)
        if piece is not None and piece.key not in (FREE_KEY, RESERVE_KEY):
            self.post_message(self.SegmentClicked(piece.key))
