"""What is in the window now: every live block, sortable by size or by age, optionally one segment's.

The columns are sized to the view's width so the table never scrolls sideways (a sideways-scrolled
table once showed "13,500" as "3,500"): the figures keep their full width, the label takes what is
left (a path shortened from the left, so it keeps its file name), and on a narrow terminal the kind goes
first, then the percentage."""

from __future__ import annotations

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import DataTable, Label

from ctxviz.layout import humanize, percent
from ctxviz.timeline import Timeline
from ctxviz.tui.icons import YOU_SEE
from ctxviz.tui.segments import SEGMENT_BY_KEY, SEGMENTS, segment_of

SORTS = ("size", "age")
_CELL_PADDING = 2  # DataTable pads each cell by one on either side
_MIN_LABEL = 24
# (key, header, width) in display order; the label's width is whatever the others leave
_COLUMNS = (
    ("tokens", "tokens", 8),
    ("pct", "%", 5),
    ("label", "what", 0),
    ("kind", "kind", max(len(segment.label) for segment in SEGMENTS)),
    ("seen", "you see", 9),
    ("since", "since", 7),  # the step it entered at (up to 999,999)
)
_DROP_ORDER = ("kind", "pct")  # what goes first when the width is short


_APPROX_NOTES = (" · ~ each block's estimated share of its call's measured growth", " · ~ estimated")


def fit_columns(width: int) -> list[tuple[str, str, int]]:
    """The columns that fit ``width`` cells, each with its width; the label gets the rest."""
    columns = list(_COLUMNS)
    for dropped in (None, *_DROP_ORDER):
        columns = [c for c in columns if c[0] != dropped]
        fixed = sum(w for key, _, w in columns if key != "label") + _CELL_PADDING * len(columns)
        if width - fixed >= _MIN_LABEL:
            break
    label = max(_MIN_LABEL, width - fixed)
    return [(key, header, label if key == "label" else w) for key, header, w in columns]


def shorten(text: str, width: int) -> str:
    """A path loses its start (the file name matters most), anything else its end."""
    if len(text) <= width:
        return text
    return "…" + text[len(text) - width + 1 :] if "/" in text else text[: width - 1] + "…"


class BlocksView(Vertical):
    def __init__(self, timeline: Timeline, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._timeline = timeline
        self._columns: list[tuple[str, str, int]] = []
        self._shown: tuple[int, str, str | None] = (0, "size", None)

    def compose(self) -> ComposeResult:
        yield Label(id="blocks-title")
        yield DataTable(id="blocks-table", cursor_type="row", zebra_stripes=True)

    def on_resize(self, event: events.Resize) -> None:
        self.show(*self._shown)

    def _table(self) -> DataTable[str | Text]:
        table: DataTable[str | Text] = self.query_one(DataTable)
        # the vertical scrollbar takes its cells from the same width
        columns = fit_columns(max(0, self.size.width - table.styles.scrollbar_size_vertical))
        if columns != self._columns:
            self._columns = columns
            table.clear(columns=True)
            for key, header, width in columns:
                table.add_column(header, key=key, width=width)
        return table

    def show(self, index: int, sort: str, segment: str | None) -> None:
        self._shown = (index, sort, segment)
        live = self._timeline.state_at(index)
        if segment is not None:
            live = [b for b in live if segment_of(b).key == segment]
        if sort == "size":
            live.sort(key=lambda b: (-b.tokens, b.entered, b.id))
        # state_at already lists blocks oldest first, which is the "age" order
        window = self._timeline.window
        table = self._table()
        table.clear()
        widths = {key: width for key, _, width in self._columns}
        # a transcript measures each call's total only: a block's share of it is an estimate (chars/4)
        approx = "~" if self._timeline.source.kind == "transcript" else ""
        for block in live:
            cells: dict[str, str | Text] = {
                "tokens": Text(f"{approx}{block.tokens:,}", justify="right"),
                "pct": Text(f"{percent(block.tokens, window):.1f}", justify="right"),
                "label": shorten(block.label, widths["label"]),
                "kind": segment_of(block).label,
                "seen": YOU_SEE[block.visibility],
                "since": Text(str(block.entered), justify="right"),
            }
            table.add_row(*(cells[key] for key in widths))
        total = sum(b.tokens for b in live)
        scope = f"{SEGMENT_BY_KEY[segment].label} in the window" if segment else "In the window"
        blocks = f"{len(live)} block{'s' * (len(live) != 1)}, {humanize(total)} tokens"
        title = f"{scope} after step {index}: {blocks} · sorted by {sort}"
        if approx:  # said as fully as the width allows (the glossary, g, says it all)
            short = (
                f"{scope.replace('In the window', 'In window')} after step {index}: {blocks} · by {sort} · ~ estimated"
            )
            candidates = [title + note for note in _APPROX_NOTES] + [short]
            title = next((t for t in candidates if len(t) <= self.size.width - 2), title)
        self.query_one("#blocks-title", Label).update(title)
