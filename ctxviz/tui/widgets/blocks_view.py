"""What is in the window now: every live block, sortable by size or by age, optionally one segment's."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import DataTable, Label

from ctxviz.layout import humanize, percent
from ctxviz.timeline import Timeline
from ctxviz.tui.icons import YOU_SEE
from ctxviz.tui.segments import SEGMENT_BY_KEY, segment_of

SORTS = ("size", "age")


class BlocksView(Vertical):
    def __init__(self, timeline: Timeline, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._timeline = timeline

    def compose(self) -> ComposeResult:
        yield Label(id="blocks-title")
        table: DataTable[str | Text] = DataTable(id="blocks-table", cursor_type="row", zebra_stripes=True)
        table.add_column("tokens", key="tokens")
        table.add_column("%", key="pct")
        table.add_column("what", key="label")
        table.add_column("kind", key="kind")
        table.add_column("you see", key="seen")
        table.add_column("since step", key="since")
        yield table

    def show(self, index: int, sort: str, segment: str | None) -> None:
        live = self._timeline.state_at(index)
        if segment is not None:
            live = [b for b in live if segment_of(b).key == segment]
        if sort == "size":
            live.sort(key=lambda b: (-b.tokens, b.entered, b.id))
        # state_at already lists blocks oldest first, which is the "age" order
        window = self._timeline.window
        table = self.query_one(DataTable)
        table.clear()
        for block in live:
            table.add_row(
                Text(f"{block.tokens:,}", justify="right"),
                Text(f"{percent(block.tokens, window):.1f}", justify="right"),
                block.label,
                segment_of(block).label,
                YOU_SEE[block.visibility],
                Text(str(block.entered), justify="right"),
            )
        total = sum(b.tokens for b in live)
        scope = f"{SEGMENT_BY_KEY[segment].label} in the window" if segment else "In the window"
        self.query_one("#blocks-title", Label).update(
            f"{scope} after step {index}: {len(live)} blocks, {humanize(total)} tokens · sorted by {sort}"
        )
