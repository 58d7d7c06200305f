"""A compaction at a glance: the window before and after as two bars, and a short table of what came
back (the summary, the recent files, the rules they bring, the skills, memory and the skill listing),
before the long per-piece table. ``survival`` is pure arithmetic over the step's fates and blocks."""

from __future__ import annotations

from dataclasses import dataclass

from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from ctxviz.timeline import Category, Timeline

_FILE_KINDS = ("restored-file", "file-reference")
_RULE_KINDS = ("rule", "nested-memory")


@dataclass(frozen=True, slots=True)
class Row:
    what: str
    tokens: int
    detail: str


def survival(timeline: Timeline, index: int) -> list[Row]:
    """What came back after the compaction at step ``index`` (and what never left), biggest story first."""
    step = timeline.steps[index]
    fates = step.fates
    added = timeline.blocks_of(step.added)
    rows: list[Row] = []

    def tokens_of(*, fate: str | None = None, kinds: tuple[str, ...]) -> tuple[int, int]:
        chosen = [f for f in fates if f.kind in kinds and (fate is None or f.fate == fate)]
        return len(chosen), sum(f.tokens for f in chosen)

    summary = next((b for b in added if b.kind == "summary"), None)
    # the history the summary stands for: what was summarised and what was dropped with it
    summarised = sum(f.tokens for f in fates if f.fate in ("summarised", "dropped"))
    if summary is not None:
        rows.append(Row("Summary", summary.tokens, f"replaces {summarised:,} tokens of conversation"))
    files = [b for b in added if b.kind in _FILE_KINDS]
    if files or any(f.kind in ("file-read", "edit") for f in fates):
        referenced = sum(1 for b in files if b.kind == "file-reference")
        detail = f"{len(files)} of at most 5, each ≤ 5,000"
        if referenced:
            detail += f"; {referenced} too big, a one-line reference only"
        rows.append(Row("Recent files re-read", sum(b.tokens for b in files), detail))
    rules = [b for b in added if b.kind in _RULE_KINDS]
    _, dropped_rules = tokens_of(fate="dropped", kinds=_RULE_KINDS)
    if rules or dropped_rules:
        names = ", ".join(b.label.rsplit("/", 1)[-1] for b in rules) or "none"
        rows.append(Row("Rules back with their files", sum(b.tokens for b in rules), names))
    skills = [f for f in fates if f.kind == "skill-body" and f.fate in ("reinjected", "truncated")]
    skills_dropped, _ = tokens_of(fate="not-restored", kinds=("skill-body",))
    if skills or skills_dropped:
        cut = sum(1 for f in skills if f.fate == "truncated")
        detail = f"{len(skills)} back, ≤ 5,000 each, ≤ 25,000 in all"
        if cut:
            detail += f"; {cut} cut to its start"
        if skills_dropped:
            detail += f"; {skills_dropped} not restored (oldest)"
        rows.append(Row("Invoked skills", sum(f.tokens for f in skills), detail))
    count, memory = tokens_of(fate="reinjected", kinds=("memory-file", "auto-memory"))
    if count:
        rows.append(Row("CLAUDE.md and memory", memory, f"{count} file{'s' * (count != 1)} read again from disk"))
    count, listing = tokens_of(fate="reinjected", kinds=("skill-listing",))
    if count:
        rows.append(Row("Skill listing", listing, "rebuilt from the current skills"))
    hooks = [b for b in added if b.kind == "hook-output"]
    if hooks:
        rows.append(Row("SessionStart hooks", sum(b.tokens for b in hooks), "hooks matching compact ran again"))
    count, kept = tokens_of(fate="kept", kinds=tuple({f.kind for f in fates if f.fate == "kept"}))
    if count:
        rows.append(Row("Never left", kept, "system prompt, tools, MCP: not part of the history"))
    return rows


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
        rows = survival(timeline, index)
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
