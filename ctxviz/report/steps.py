"""The headless view of a timeline: one row per step, for ``ctxviz run``."""

from __future__ import annotations

from rich.console import Group, JustifyMethod, RenderableType
from rich.table import Table
from rich.text import Text

from ctxviz.compaction_story import Row, what_came_back, what_left
from ctxviz.glossary import explain_block
from ctxviz.kinds import StepKind
from ctxviz.timeline import COMPACTION_STEP_KINDS, Timeline


def header_text(timeline: Timeline) -> Text:
    t = timeline.thresholds
    compact = f"auto-compact at {t.autocompact:,}" if t.autocompact is not None else "auto-compact off"
    text = Text.assemble(
        (timeline.source.name, "bold"),
        f" · {timeline.agent} · {timeline.model} · window {timeline.window:,} · {compact}"
        f" · warning at {t.warning:,} · tokens: {timeline.tokenizer}",
    )
    for notice in timeline.notices:
        text.append(f"\n! {notice}", style="yellow")
    return text


def steps_table(timeline: Timeline, width: int = 120) -> Table:
    """Numbers never shrink; on a narrow terminal (``width`` columns) only the label is shortened."""
    rows = []
    for step in timeline.steps:
        added = sum(timeline.block(i).tokens for i in step.added)
        removed = sum(timeline.block(i).tokens for i in step.removed)
        style = "bold magenta" if step.kind in COMPACTION_STEP_KINDS else "cyan" if step.child else ""
        rows.append((
            str(step.index),
            Text(step.kind, style=style),
            step.label,
            f"+{added:,}" if added else "",
            f"−{removed:,}" if removed else "",
            f"{step.used:,}",
            f"{100 * step.used / timeline.window:.1f}%",
        ))  # fmt: skip
    headers = ("#", "event", "label", "+tokens", "−tokens", "total", "%")
    widths = [max([len(header), *(len(str(row[n])) for row in rows)]) for n, header in enumerate(headers)]
    label = headers.index("label")
    widths[label] = max(8, min(48, widths[label], width - (sum(widths) - widths[label]) - 2 * (len(headers) - 1)))
    table = Table(box=None, pad_edge=False, header_style="bold", padding=(0, 1, 0, 1))
    for header, column_width in zip(headers, widths, strict=True):
        color = {"+tokens": "green", "−tokens": "red"}.get(header)
        justify: JustifyMethod = "left" if header in ("event", "label") else "right"
        table.add_column(header, justify=justify, style=color, no_wrap=True, overflow="ellipsis", width=column_width)
    for row in rows:
        table.add_row(*row)
    return table


def _glance(timeline: Timeline, index: int) -> list[Row]:
    if not timeline.steps[index].fates:
        return []
    return [*what_came_back(timeline, index), *what_left(timeline, index)]


def why_notes(timeline: Timeline) -> RenderableType:
    """Every step's reasons, numbered like the table (for ``ctxviz run --why``); a startup step, which
    has no event behind it, says what the piece it loaded is. Long notes wrap under themselves."""
    grid = Table.grid(padding=(0, 2))
    grid.add_column(justify="right", style="dim", no_wrap=True)
    grid.add_column()
    for step in timeline.steps:
        explained = [explain_block(b, timeline.window) for b in timeline.blocks_of(step.added)]
        # a compaction's rows, in its agent's words: what came back and stayed, what left
        glance = [f"{row.what} {row.tokens:,}: {row.detail}" for row in _glance(timeline, step.index)]
        for note in [*(explained if step.kind == StepKind.STARTUP else []), *step.notes, *glance]:
            grid.add_row(str(step.index), note)
    if not grid.row_count:
        return Text("Why: no step of this timeline carries a note.", style="bold")
    return Group(Text("Why", style="bold"), grid)
