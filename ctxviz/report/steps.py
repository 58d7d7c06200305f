"""The headless view of a timeline: one row per step, for ``ctxviz run``."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text

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


def steps_table(timeline: Timeline, *, notes: bool = False) -> Table:
    table = Table(box=None, pad_edge=False, header_style="bold")
    table.add_column("#", justify="right")
    table.add_column("event")
    table.add_column("label", overflow="ellipsis", no_wrap=True, max_width=48)
    table.add_column("+tokens", justify="right", style="green")
    table.add_column("−tokens", justify="right", style="red")
    table.add_column("total", justify="right")
    table.add_column("%", justify="right")
    if notes:
        table.add_column("why", overflow="fold")
    for step in timeline.steps:
        added = sum(timeline.block(i).tokens for i in step.added)
        removed = sum(timeline.block(i).tokens for i in step.removed)
        style = "bold magenta" if step.kind in COMPACTION_STEP_KINDS else "cyan" if step.child else ""
        row = [
            str(step.index),
            Text(step.kind, style=style),
            step.label,
            f"+{added:,}" if added else "",
            f"−{removed:,}" if removed else "",
            f"{step.used:,}",
            f"{100 * step.used / timeline.window:.1f}%",
        ]
        if notes:
            row.append("\n".join(step.notes))
        table.add_row(*row)
    return table
