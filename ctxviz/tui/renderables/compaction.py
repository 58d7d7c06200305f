"""A compaction at a glance: the window before and after as two bars, and a short table of what came
back and what stayed, in the agent's own words (``ctxviz.compaction_story``), before the long per-piece
table."""

from __future__ import annotations

from dataclasses import dataclass

from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from ctxviz.compaction_story import what_came_back
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
            bars.append("\n")
        bars.append("█", style=self.fixed_style)
        bars.append(" loaded at startup  ", style="dim")
        bars.append("█", style=self.history_style)
        bars.append(" conversation", style="dim")
        rows = what_came_back(timeline, index)
        title = Text("What came back", style="bold")
        if width >= 60:
            table = Table(box=None, padding=(0, 1), expand=True, show_header=False)
            table.add_column("what", no_wrap=True)
            table.add_column("tokens", justify="right", no_wrap=True)
            table.add_column("detail", style="dim", ratio=1)
            for row in rows:
                table.add_row(row.what, f"{row.tokens:,}", row.detail)
            yield Group(bars, Text(""), title, table)
            return
        # narrow: the name and its figure on one line, the detail wrapped under it, indented
        lines: list[RenderableType] = [bars, title]
        figures = max(len(f"{row.tokens:,}") for row in rows) if rows else 0
        for row in rows:
            name = row.what[: max(1, width - figures - 2)]
            lines.append(Text(f" {name.ljust(width - figures - 2)}{row.tokens:>{figures},}", no_wrap=True))
            lines.append(Padding(Text(row.detail, style="dim"), (0, 0, 0, 3)))
        yield Group(*lines)
