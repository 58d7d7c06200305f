"""The headless view of a comparison, for ``ctxviz compare``: one row per scenario event and one column
per run (tokens added, total, and why), then each run's peak and compactions, and the final breakdowns.

Runs that do not fit the terminal's width go into another table with the same rows, so numbers are
never squeezed; every table's column headers name the run's agent, model and window.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.segment import Segment
from rich.style import Style
from rich.table import Table
from rich.text import Text

from ctxviz.kinds import StepKind
from ctxviz.layout import humanize
from ctxviz.report.compare_runs import STARTUP, Comparison, Run, cell, compactions_of
from ctxviz.timeline import CATEGORIES, FREE_SPACE
from ctxviz.transcripts.protocol import counted

RUN_WIDTH = 24
MAX_RUN_WIDTH = 44
BREAKDOWN_NAME_WIDTH, BREAKDOWN_WIDTH = 20, 17
EVENT_WIDTH = 28  # the event number and label
MEASURED_WIDTH = 8  # a real session's measured context after the event, "164,831"


def _fit(text: str, width: int) -> str:
    return text.ljust(width) if len(text) <= width else text[: width - 1] + "…"


def _run_header(run: Run) -> list[str]:
    timeline = run.timeline
    limit = timeline.thresholds.autocompact
    compact = f"compacts at {humanize(limit)}" if limit is not None else "no auto-compact"
    name = run.label if run.label == run.agent else f"{run.label} ({run.agent})"
    return [name, timeline.model, f"window {timeline.window:,}", compact]


Piece = tuple[str, str]  # text and a style name
Line = list[Piece]


@dataclass(frozen=True, slots=True)
class FixedLines:
    """Lines already cut to width, written as they are: a Rich Table (or wrapped Text) measures every
    cell, which takes tens of seconds at 10,000 events × 8 runs; this takes a fraction of one."""

    lines: list[Line]

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        if console.color_system is None or console.no_color:  # a pipe: one plain segment a line
            for line in self.lines:
                yield Segment("".join(text for text, _ in line))
                yield Segment.line()
            return
        styles: dict[str, Style] = {}
        for line in self.lines:
            for text, name in line:
                style = styles.get(name)
                if style is None:
                    style = styles[name] = console.get_style(name) if name else Style.null()
                yield Segment(text, style)
            yield Segment.line()


def _cell_pieces(run: Run, event: int, width: int) -> tuple[Line, Piece]:
    """One run's column: the figures, and the reason for the second line (blank when there is none)."""
    values = cell(run, event)
    added = f"+{values.added:,}" if values.added else "·"
    removed = f" −{values.removed:,}" if values.removed else ""
    total = f" = {values.total:,}"
    if len(added) + len(removed) + len(total) > width:  # the total is never cut: the change is shortened
        added = f"+{humanize(values.added)}" if values.added else "·"
        removed = f" −{humanize(values.removed)}" if values.removed else ""
    total = _fit(total, width - len(added) - len(removed))
    figures = [(added, "green" if values.added else "dim"), (removed, "red")]
    figures.append((total, "bold magenta" if values.compacted else ""))
    return figures, (_fit(values.why, width), "magenta" if values.compacted else "dim")


def _chunks(runs: Sequence[Run], width: int) -> tuple[list[Sequence[Run]], int]:
    """The runs in tables that fit ``width``, and the width of a run's column (at least RUN_WIDTH;
    wider when there is room, so the reasons are cut less)."""
    fits = max(1, (width - EVENT_WIDTH) // (RUN_WIDTH + 1))
    tables = -(-len(runs) // fits)
    per_table = -(-len(runs) // tables)  # as even as the tables can be: 8 runs in 4 + 4, not 5 + 3
    column = max(RUN_WIDTH, min(MAX_RUN_WIDTH, (width - EVENT_WIDTH) // per_table - 1))
    return [runs[n : n + per_table] for n in range(0, len(runs), per_table)], column


def events_tables(comparison: Comparison, width: int = 120) -> list[FixedLines]:
    """One line per event (and a second for the reasons, when any run has one), one column per run;
    runs beyond the width go to another table with the same rows."""
    digits = max(1, len(str(len(comparison.events) - 1)))
    label_width = EVENT_WIDTH - digits - 2
    positions = [(STARTUP, "", "start-up", "")]
    positions += [(e.index, str(e.index), e.kind, e.label) for e in comparison.events]
    tables = []
    measured = comparison.measured
    # a real session: a column of what it measured after each event, before the runs that replay it
    spare = MEASURED_WIDTH + 1 if measured is not None else 0
    chunks, column = _chunks(comparison.runs, width - spare)
    if spare and len(chunks) > len(_chunks(comparison.runs, width)[0]):
        # the column would push a run into another table: the event labels give up its width instead
        chunks, column = _chunks(comparison.runs, width)
        label_width -= spare
    for runs in chunks:
        lines: list[Line] = []
        headers = [_run_header(run) for run in runs]
        for row in range(len(headers[0])):
            last = row == len(headers[0]) - 1
            line: Line = [(" " * (digits + 1) + _fit("event" if last else "", label_width + 1), "bold")]
            if measured is not None:
                heading = ("session", "measured")[row] if row < 2 else ""
                line.append((heading.rjust(MEASURED_WIDTH) + " ", "bold"))
            line += [(" " + _fit(header[row], column), "bold" if row == 0 else "dim") for header in headers]
            lines.append(line)
        for event, number, kind, label in positions:
            line = [(number.rjust(digits) + " ", "dim"), (kind, "cyan")]
            line.append((_fit(f" {label}" if label else "", label_width - len(kind)) + " ", ""))
            if measured is not None:
                value = measured[event] if event != STARTUP else None
                line.append(((f"{value:,}" if value is not None else "·").rjust(MEASURED_WIDTH) + " ", ""))
            reasons: Line = [(" " * (digits + 1 + label_width + 1 + spare), "")]
            for run in runs:
                figures, reason = _cell_pieces(run, event, column)
                line += [(" ", ""), *figures]
                reasons += [(" ", ""), reason]
            lines.append(line)
            if any(text.strip() for text, _ in reasons):
                lines.append(reasons)
        tables.append(FixedLines(lines))
    return tables


def runs_summary(comparison: Comparison) -> Text:
    """Per run: its model and window, the peak, the final total, and each compaction (at which event)."""
    text = Text("Runs", style="bold")
    if comparison.measured is not None and (known := [v for v in comparison.measured if v is not None]):
        text.append("\nsession", style="bold")
        text.append(" · measured", style="dim")
        text.append(f" · peak {max(known):,} · final {known[-1]:,}")
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
            how = "auto-compacted" if c.kind == StepKind.AUTO_COMPACT else "compacted (manual)"
            text.append(f"\n    {how} at event {c.event}: {c.before:,} → {c.after:,}", style="magenta")
    return text


def breakdown_tables(comparison: Comparison, width: int = 120) -> list[Table]:
    """The ``/context`` rows after the last event, one column per run (as many tables as the width needs)."""
    names = [category.value for category in CATEGORIES] + [FREE_SPACE]
    labels = sorted({run.timeline.thresholds.buffer_label for run in comparison.runs})
    fits = max(1, (width - BREAKDOWN_NAME_WIDTH) // (BREAKDOWN_WIDTH + 2))
    tables = []
    for start in range(0, len(comparison.runs), fits):
        runs = comparison.runs[start : start + fits]
        table = Table(box=None, pad_edge=False, header_style="bold", padding=(0, 2, 0, 0))
        table.add_column("after the last event", width=BREAKDOWN_NAME_WIDTH, no_wrap=True)
        for run in runs:
            header = f"{run.label}\n{run.timeline.model}\nwindow {humanize(run.timeline.window)}"
            table.add_column(header, justify="right", width=BREAKDOWN_WIDTH, no_wrap=True, overflow="ellipsis")
        rows = [run.timeline.breakdown_at(run.timeline.last) for run in runs]
        for name in [*names, *labels]:
            table.add_row(name, *(f"{row[name]:,}" if name in row else "–" for row in rows))
        tables.append(table)
    return tables


def settings_text(comparison: Comparison) -> Text | None:
    lines = [f"{run.label}: " + ", ".join(run.written) for run in comparison.runs if run.written]
    return Text("What-ifs  " + "  ·  ".join(lines), style="yellow") if lines else None


def comparison_renderable(comparison: Comparison, width: int = 120) -> RenderableType:
    title = Text.assemble(
        (comparison.name, "bold"),
        f" · {counted(len(comparison.events), 'event', 'events')} · {counted(len(comparison.runs), 'run', 'runs')}",
    )
    parts: list[RenderableType] = [title]
    if (what_ifs := settings_text(comparison)) is not None:
        parts.append(what_ifs)
    for run in comparison.runs:
        for notice in run.timeline.notices:
            parts.append(Text(f"! {run.label}: {notice}", style="yellow"))
    for lines in events_tables(comparison, width):
        parts += [Text(""), lines]
    parts += [Text(""), runs_summary(comparison)]
    for table in breakdown_tables(comparison, width):
        parts += [Text(""), table]
    return Group(*parts)
