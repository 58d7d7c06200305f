"""The headless view of a comparison, for ``ctxviz compare``: one row per scenario event and one column
per run (tokens added, total, and why), then each run's peak and compactions, and the final breakdowns.

Runs that do not fit the terminal's width go into another table with the same rows, so numbers are
never squeezed; every table's column headers name the run's agent, model and window.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from ctxviz.layout import humanize
from ctxviz.report.compare_runs import STARTUP, Comparison, Run, cell, compactions_of
from ctxviz.timeline import CATEGORIES, FREE_SPACE

RUN_WIDTH = 24
EVENT_WIDTH = 28


def _run_header(run: Run) -> Text:
    timeline = run.timeline
    limit = timeline.thresholds.autocompact
    compact = f"compacts at {humanize(limit)}" if limit is not None else "auto-compact off"
    text = Text(run.label, style="bold")
    if run.label != run.agent:
        text.append(f" ({run.agent})", style="bold")
    text.append(f"\n{timeline.model}\nwindow {timeline.window:,} · {compact}", style="dim")
    return text


def _cell_text(run: Run, event: int) -> Text:
    values = cell(run, event)
    text = Text()
    text.append(f"+{values.added:,}" if values.added else "·", style="green" if values.added else "dim")
    if values.removed:
        text.append(f" −{values.removed:,}", style="red")
    text.append(f" = {values.total:,}", style="bold magenta" if values.compacted else "")
    if values.why:
        text.append(f"\n{values.why}", style="magenta" if values.compacted else "dim")
    return text


def _chunks(runs: Sequence[Run], width: int) -> list[Sequence[Run]]:
    per_table = max(1, (width - EVENT_WIDTH) // (RUN_WIDTH + 1))
    return [runs[n : n + per_table] for n in range(0, len(runs), per_table)]


def events_tables(comparison: Comparison, width: int = 120) -> list[Table]:
    tables = []
    for runs in _chunks(comparison.runs, width):
        table = Table(box=None, pad_edge=False, header_style="", padding=(0, 1, 0, 0), show_edge=False)
        table.add_column("#", justify="right", style="dim", no_wrap=True)
        table.add_column(Text("event", style="bold"), width=EVENT_WIDTH - 5, overflow="ellipsis", no_wrap=True)
        for run in runs:
            table.add_column(_run_header(run), width=RUN_WIDTH, overflow="fold")
        table.add_row("", Text("start-up", style="italic"), *(_cell_text(run, STARTUP) for run in runs))
        for event in comparison.events:
            label = Text(event.kind, style="cyan").append(f" {event.label}", style="")
            table.add_row(str(event.index), label, *(_cell_text(run, event.index) for run in runs))
        tables.append(table)
    return tables


def runs_summary(comparison: Comparison) -> Text:
    """Per run: its model and window, the peak, the final total, and each compaction (at which event)."""
    text = Text("Runs", style="bold")
    for run in comparison.runs:
        timeline = run.timeline
        name = run.label if run.label == run.agent else f"{run.label} ({run.agent})"
        text.append(f"\n{name}", style="bold")
        text.append(f" · {timeline.model} · window {timeline.window:,}", style="dim")
        text.append(f" · peak {timeline.peak:,} · final {timeline.used_at(timeline.last):,}")
        found = compactions_of(run)
        if not found:
            text.append(" · no compaction", style="dim")
        for c in found:
            how = "auto-compacted" if c.kind == "auto-compact" else "compacted (manual)"
            text.append(f"\n    {how} at event {c.event}: {c.before:,} → {c.after:,}", style="magenta")
    return text


def breakdown_table(comparison: Comparison) -> Table:
    """The ``/context`` rows after the last event, one column per run."""
    table = Table(box=None, pad_edge=False, header_style="bold", padding=(0, 2, 0, 0))
    table.add_column("after the last event")
    for run in comparison.runs:
        header = f"{run.label}\n{run.timeline.model}\nwindow {humanize(run.timeline.window)}"
        table.add_column(header, justify="right", overflow="ellipsis")
    rows = [run.timeline.breakdown_at(run.timeline.last) for run in comparison.runs]
    names = [category.value for category in CATEGORIES] + [FREE_SPACE]
    labels = {run.timeline.thresholds.buffer_label for run in comparison.runs}
    for name in [*names, *sorted(labels)]:
        table.add_row(name, *(f"{row[name]:,}" if name in row else "–" for row in rows))
    return table


def settings_text(comparison: Comparison) -> Text | None:
    lines = [f"{run.label}: " + ", ".join(run.written) for run in comparison.runs if run.written]
    return Text("What-ifs  " + "  ·  ".join(lines), style="yellow") if lines else None


def comparison_renderable(comparison: Comparison, width: int = 120) -> RenderableType:
    title = Text.assemble(
        (comparison.name, "bold"), f" · {len(comparison.events)} events · {len(comparison.runs)} runs"
    )
    parts: list[RenderableType] = [title]
    if (what_ifs := settings_text(comparison)) is not None:
        parts.append(what_ifs)
    for run in comparison.runs:
        for notice in run.timeline.notices:
            parts.append(Text(f"! {run.label}: {notice}", style="yellow"))
    for table in events_tables(comparison, width):
        parts += [Text(""), table]
    parts += [Text(""), runs_summary(comparison), Text(""), breakdown_table(comparison)]
    return Group(*parts)
