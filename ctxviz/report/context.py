"""The ``/context`` look for any step of any Timeline (scenario or transcript), as a Rich renderable.

Relies only on the Timeline type: header ``model · used/window tokens (pct%)``, the glyph grid beside
the category rows (above them when narrow), the largest items in the window, the compactions so far.
The same figures as data (``ctxviz context --json``) are in ``context_data``, which needs no Rich.
"""

from __future__ import annotations

import bisect

from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.table import Table
from rich.text import Text

from ctxviz.glossary import UNRECORDED_SPLIT
from ctxviz.kinds import StepKind
from ctxviz.layout import FREE, FULL, PARTIAL, RESERVE, context_grid, humanize, percent
from ctxviz.report.context_data import (
    api_call_indices,
    calls_before,
    compactions_so_far,
    largest_items,
    shown_breakdown,
    unrecorded_overhead,
)
from ctxviz.timeline import FREE_SPACE, Category, Timeline

_NARROW_COLUMNS = 70
NOT_READ = "not read"  # a figure that needs the part of the session before its last compaction
# A transcript's System prompt row also holds what its rows would show (UNRECORDED_ROWS): said, not zeroed.
UNRECORDED_NOTE = f"└ {UNRECORDED_SPLIT}"
_ROW_STYLES = {
    Category.SYSTEM_PROMPT: "grey62",
    Category.SYSTEM_TOOLS: "cyan",
    Category.MCP_TOOLS: "bright_cyan",
    Category.CUSTOM_AGENTS: "blue",
    Category.MEMORY_FILES: "yellow",
    Category.SKILLS: "bright_yellow",
    Category.MESSAGES: "magenta",
    FREE_SPACE: "grey50",
}
_LEVEL_STYLES = {"ok": "green", "warning": "yellow", "over": "red"}


def _measured_label(timeline: Timeline, index: int) -> str:
    return "measured" if timeline.steps[index].measured else "estimated"


def _header(timeline: Timeline, index: int, history: bool) -> Text:
    step = timeline.steps[index]
    used = step.used
    style = _LEVEL_STYLES[timeline.level_at(index)]
    guessed = any("guess" in notice for notice in timeline.notices)
    text = Text()
    text.append(timeline.model, style="bold")
    text.append(" · ")
    approx = "" if step.measured or timeline.source.kind != "transcript" else "~"
    text.append(f"{approx}{humanize(used)}/{humanize(timeline.window)}{'?' if guessed else ''} tokens", style=style)
    text.append(f" ({percent(used, timeline.window):.0f}%)", style=style)
    text.append(f"  {_measured_label(timeline, index)}", style="dim")
    where = f"step {index} of 0–{timeline.last}"
    if not history:
        where = f"last {'call' if step.kind == StepKind.API_CALL else 'step'}, calls: {NOT_READ}"
    elif step.kind == StepKind.API_CALL:
        where = f"call {calls_before(timeline, index)} of {len(api_call_indices(timeline))}"
    text.append(f"  ·  {where}", style="dim")
    return text


def _rows(timeline: Timeline, index: int) -> Table:
    breakdown = shown_breakdown(timeline, index)
    transcript = timeline.source.kind == "transcript"
    table = Table.grid(padding=(0, 1))
    table.add_column(no_wrap=True)
    table.add_column()  # the names wrap before a figure is cut ("13.…" at 80 columns)
    table.add_column(justify="right", no_wrap=True)
    table.add_column(justify="right", no_wrap=True)
    unrecorded = unrecorded_overhead(timeline, index) is not None
    for row, tokens in breakdown.items():
        if tokens is None or (tokens <= 0 and row not in (FREE_SPACE, timeline.thresholds.buffer_label)):
            continue
        glyph = RESERVE if row == timeline.thresholds.buffer_label else FREE if row == FREE_SPACE else FULL
        approx = "~" if transcript and row not in (FREE_SPACE, timeline.thresholds.buffer_label) else ""
        table.add_row(
            Text(glyph, style=_ROW_STYLES.get(row, "grey35")),
            row,
            f"{approx}{humanize(tokens)} token{'s' * (tokens != 1)}",
            f"{percent(tokens, timeline.window):.1f}%",
        )
        if row == Category.SYSTEM_PROMPT and unrecorded:
            table.add_row("", Text(UNRECORDED_NOTE, style="dim"), "", "")
    return table


def _grid(timeline: Timeline, index: int, narrow: bool) -> Text:
    shown = {row: tokens or 0 for row, tokens in shown_breakdown(timeline, index).items()}
    squares = context_grid(shown, timeline.window, timeline.thresholds.buffer_label, narrow)
    text = Text()
    for r, line in enumerate(squares):
        if r:
            text.append("\n")
        for c, square in enumerate(line):
            if c:
                text.append(" ")
            style = "grey35" if square.glyph == RESERVE else _ROW_STYLES.get(square.row, "grey50")
            text.append(square.glyph, style=style)
    return text


def _items(timeline: Timeline, index: int, count: int, history: bool) -> Table:
    approx = timeline.source.kind == "transcript" or timeline.steps[index].measured
    table = Table(title="Largest items in the window", title_justify="left", box=None, padding=(0, 1))
    table.add_column("tokens", justify="right", no_wrap=True, min_width=7)
    table.add_column("kind", no_wrap=True, min_width=11)
    table.add_column("item", max_width=64)  # the one column a narrow terminal shortens
    table.add_column("since", justify="right", no_wrap=True, min_width=8)
    calls = api_call_indices(timeline)
    for block in largest_items(timeline, index, count):
        # one unit per column: a session's items by the first API call that carried them, a scenario's by step
        if not history:
            when = NOT_READ
        elif calls:
            first = bisect.bisect_left(calls, block.entered)
            when = f"call {first + 1}" if first < len(calls) else f"after call {len(calls)}"
        else:
            when = f"step {block.entered}"
        label = Text(block.label, no_wrap=True, overflow="ellipsis")
        table.add_row(f"{'~' if approx else ''}{block.tokens:,}", block.kind, label, when)
    return table


def _compactions(timeline: Timeline, index: int, history: bool) -> RenderableType:
    if not history:
        return Text(f"Compactions so far: {NOT_READ} (only the part after the last one was read).", style="dim")
    found = compactions_so_far(timeline, index)
    if not found:
        return Text("No compactions so far.", style="dim")
    lines = Text("Compactions so far", style="bold")
    if any(c["trigger"] == "unknown" for c in found):  # said once: the lines must fit 80 columns
        lines.append(" (automatic or not: not recorded)", style="dim")
    transcript = timeline.source.kind == "transcript"
    calls = bool(api_call_indices(timeline))
    for c in found:
        where = f"at step {c['step']}"
        if transcript and calls:
            where = f"after call {c['at_call']}" if c["at_call"] else "before the first call"
        # a transcript that does not say (Codex, pi): "auto" would be a guess, and the header says so once
        lines.append(f"\n  {'compaction' if c['trigger'] == 'unknown' else c['trigger']} {where}: ")
        before = "~" if transcript and not c["before_measured"] else ""
        estimated = "" if c["after_measured"] else "~"
        lines.append(f"{before}{c['before']:,} → {estimated}{c['after']:,} tokens")
        said = ["before: as the agent recorded it"] if c["pre_tokens"] is not None else []
        if isinstance(c["next_call_used"], int):
            said.append(f"after: estimated, the next call measured {c['next_call_used']:,}")
        elif not c["after_measured"]:
            said.append("after: estimated")
        if said:
            lines.append(f"  ({'; '.join(said)})", style="dim")
    return lines


class _Breakdown:
    """Grid beside the rows when the terminal is wide enough, above them when narrow."""

    def __init__(self, timeline: Timeline, index: int) -> None:
        self.timeline = timeline
        self.index = index

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        narrow = options.max_width < _NARROW_COLUMNS
        grid = _grid(self.timeline, self.index, narrow and self.timeline.window < 1_000_000)
        rows = _rows(self.timeline, self.index)
        # side by side only when both fit whole (a 1M grid beside the rows is ~85 columns)
        beside = console.measure(grid).maximum + 3 + console.measure(rows).maximum
        if narrow or beside > options.max_width:
            yield Group(grid, Text(""), rows)
            return
        side = Table.grid(padding=(0, 3))
        side.add_column(no_wrap=True)
        side.add_column()
        side.add_row(grid, rows)
        yield side


def context_renderable(timeline: Timeline, index: int, *, top_items: int = 10, history: bool = True) -> RenderableType:
    """The ``/context`` view of ``timeline`` after step ``index``. Not ``history``: the timeline holds
    only the last step, read from the last compaction on; what counts from the session's start is shown
    as not read."""
    parts: list[RenderableType] = [_header(timeline, index, history), Text(""), _Breakdown(timeline, index), Text("")]
    if top_items > 0:
        parts += [_items(timeline, index, top_items, history), Text("")]
    parts.append(_compactions(timeline, index, history))
    if not history and top_items > 0:
        parts.append(Text(f"Items carried most over the session: {NOT_READ}.", style="dim"))
    legend = f"{FULL} {PARTIAL} used  {FREE} free  {RESERVE} reserve"
    if timeline.steps[index].measured:
        legend += "  ·  total measured by the API; ~ = split estimated (chars/4)"
    elif timeline.source.kind == "transcript":
        legend += "  ·  total estimated (no API call measured this step); ~ = estimated (chars/4)"
    parts.append(Text(legend, style="dim"))
    parts += [Text(f"note: {notice}", style="yellow") for notice in timeline.notices]
    return Group(*parts)
