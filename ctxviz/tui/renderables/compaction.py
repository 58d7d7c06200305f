"""A compaction at a glance: the window before and after as two bars, and a short table of what came
back and what stayed, in the agent's own words (``ctxviz.compaction_story``), before the long per-piece
table."""

from __future__ import annotations

from dataclasses import dataclass

from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from ctxviz.compaction_story import Row, what_came_back, what_left
from ctxviz.timeline import Category, Timeline


@dataclass(frozen=True, slots=True)
class CompactionGlance:
    timeline: Timeline
    index: int
    history_style: str = "magenta"
    fixed_style: str = "blue"

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        timeline, index = self.timeline, self.index
        width = options.max_width
        before = timeline.used_at(index - 1) if index else 0
        after = timeline.used_at(index)
        label_width = len(f"before {max(before, after):,}") + 1
        bar_width = max(10, width - label_width)
        # scaled to the larger of the two, so even a small session's bars show the change
        scale = max(before, after, 1)
        bars = Text()
        for name, at, used in (("before", index - 1, before), ("after", index, after)):
            history = timeline.category_totals_at(at)[Category.MESSAGES] if at >= 0 else 0
            fixed = max(0, used - history)
            fixed_cells = fixed * bar_width // scale
            history_cells = max(0, used * bar_width // scale - fixed_cells)
            bars.append(f"{name} {used:,}".ljust(label_width), style="bold")
            bars.append("█" * fixed_cells, style=self.fixed_style)
            bars.append("█" * history_cells, style=self.history_style)
            if name == "before":
                bars.append("\n")
        legend = Text.assemble(
            ("█", self.fixed_style),
            (" loaded at startup  ", "dim"),
            ("█", self.history_style),
            (" conversation", "dim"),
        )
        parts: list[RenderableType] = [bars]
        for title, rows in (
            ("What came back", what_came_back(timeline, index)),
            ("What left", what_left(timeline, index)),
        ):
            if rows:
                parts += [Text(title, style="bold"), _rows(rows, width)]
        parts.append(legend)
        yield Group(*parts)


def _rows(rows: list[Row], width: int) -> RenderableType:
    if width >= 60:
        table = Table(box=None, padding=(0, 1), expand=True, show_header=False)
        table.add_column("what", no_wrap=True)
        table.add_column("tokens", justify="right", no_wrap=True)
        table.add_column("detail", style="dim", ratio=1)
        for row in rows:
            table.add_row(row.what, f"{row.tokens:,}", row.detail)
        return table
    # narrow: the name and its figure on one line, the detail wrapped under it, indented
    lines: list[RenderableType] = []
    figures = max(len(f"{row.tokens:,}") for row in rows)
    for row in rows:
        room = max(1, width - figures - 2)
        name = row.what if len(row.what) <= room else row.what[: room - 1] + "…"
        lines.append(Text(f" {name.ljust(room)}{row.tokens:>{figures},}", no_wrap=True))
        lines.append(Padding(Text(row.detail, style="dim"), (0, 0, 0, 3)))
    return Group(*lines)
