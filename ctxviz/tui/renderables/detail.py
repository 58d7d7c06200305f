"""What the detail pane says about one step: what entered and left, why, the author's note, what the
person sees, and for a compaction the fate of everything that was in the window."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from ctxviz.glossary import display_fate, explain_block, fate_meaning, terms_in
from ctxviz.kinds import CompactionTrigger
from ctxviz.layout import humanize, percent
from ctxviz.profiles import teaching_of
from ctxviz.timeline import Block, Step, Timeline
from ctxviz.tui.icons import YOU_SEE, icon
from ctxviz.tui.renderables.compaction import CompactionGlance
from ctxviz.tui.segments import SEGMENTS, segment_of, step_delta

# in the order the table lists them: what changed first, what merely stayed last
_FATE_STYLES = {
    "summarised": "magenta",
    "new": "bold cyan",
    "dropped": "red",
    "not-restored": "dim",
    "restored": "cyan",
    "truncated": "yellow",
    "referenced": "yellow",
    "reinjected": "cyan",
    "kept": "green",
}
_KIND_WIDTH = max(len(segment.label) for segment in SEGMENTS)
_SEEN = "The model sees every block whole; “you see” is what your terminal shows of it."
# At most this many rows per block table: a compaction can remove thousands of blocks.
_MAX_ROWS = 40


_NARROW = 60  # below this many columns the tables drop or fold their wordy columns, never the numbers


def step_detail(timeline: Timeline, index: int) -> RenderableType:
    return StepDetail(timeline, index)


@dataclass(frozen=True, slots=True)
class StepDetail:
    """Laid out for the width it is given: narrow panes keep the figures whole and fold the words."""

    timeline: Timeline
    index: int

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield Group(*_parts(self.timeline, self.index, narrow=options.max_width < _NARROW))


def _parts(timeline: Timeline, index: int, *, narrow: bool) -> list[RenderableType]:
    step = timeline.steps[index]
    added, removed = step_delta(timeline, index)
    used = timeline.used_at(index)
    # a log that does not say what started a compaction (Codex, pi) must not read as "auto-compact"
    kind = "compaction" if step.trigger == CompactionTrigger.UNKNOWN else step.kind
    title = Text.assemble(
        (f"{icon(step.kind)} Step {index}", "bold"),
        (f" · {kind} · " if kind != step.label else " · ", "dim"),
        (step.label, "bold"),
    )
    total = "measured" if step.measured else "estimated"
    figures = Text.assemble(
        (f"+{added:,}", "green" if added else "dim"),
        "  ",
        (f"−{removed:,}", "red" if removed else "dim"),
        f"  → {used:,} tokens ({percent(used, timeline.window):.1f}% of {humanize(timeline.window)}, ",
        (total, "bold"),
        ")",
    )
    # a compaction's before and after bars say its figures: a narrow pane keeps its rows for them
    parts: list[RenderableType] = [title] if step.fates and narrow else [title, figures]
    if step.kind == "startup":
        # startup steps carry no event of their own: say what the piece is, with its numbers
        for block in timeline.blocks_of(step.added):
            parts.append(Padding(Text(explain_block(block, timeline.window)), (1, 0, 0, 2)))
    if step.fates:
        # a compaction's story is its fates: at a glance first, the reasons, then piece by piece
        parts.append(Padding(CompactionGlance(timeline, index), (0 if narrow else 1, 0, 0, 0)))
    if step.note:
        parts.append(Padding(Text(step.note, style="italic"), (1, 0, 0, 2)))
    if step.notes:
        parts.append(Text("\nWhy", style="bold underline"))
        parts.append(_bullets([Text(note) for note in step.notes]))
    texts = [*step.notes, step.note or "", *(f"{f.label} {f.why}" for f in step.fates)]
    words = terms_in(texts, teaching_of(timeline.agent).words)
    if words:
        parts.append(Text("\nWords", style="bold underline"))
        parts.append(_bullets([Text.assemble((entry.term, "bold"), ": ", entry.meaning) for entry in words]))
    if step.child is not None:
        child = step.child
        parts.append(
            Text.assemble(
                ("\nSubagent", "bold underline"),
                f"\n {child.source.name}: its own window, {len(child.steps)} steps, peak {child.peak:,} tokens. ",
                ("Only what it returns enters this window. ", ""),
                ("Press enter to open it.", "bold"),
            )
        )
    if step.fates:
        parts.append(_fates_table(step, narrow))
        shown = dict.fromkeys(display_fate(f.fate, f.kind, f.tokens) for f in step.fates)
        meanings = [Text.assemble((fate, _FATE_STYLES.get(fate, "")), ": ", fate_meaning(fate)) for fate in shown]
        parts.append(_bullets(meanings))
    if step.added:
        entered = timeline.blocks_of(step.added)
        parts.append(_blocks_table(f"Entered ({len(step.added)})", entered, narrow, _SEEN))
    if step.removed:
        parts.append(_blocks_table(f"Left ({len(step.removed)})", timeline.blocks_of(step.removed), narrow))
    return parts


def _bullets(items: Sequence[Text]) -> Table:
    """A bulleted list whose items wrap under their own first word, not under the bullet."""
    grid = Table.grid(padding=(0, 1))
    grid.add_column(no_wrap=True)
    grid.add_column(ratio=1)
    for item in items:
        grid.add_row(" •", item)
    return grid


def _blocks_table(title: str, blocks: Sequence[Block], narrow: bool, caption: str | None = None) -> RenderableType:
    table = Table(
        title=title,
        title_justify="left",
        title_style="bold",
        caption=caption,
        caption_justify="left",
        caption_style="dim",
        box=None,
        padding=(0, 1),
        expand=True,
    )
    table.add_column("tokens", justify="right", no_wrap=True)
    # the label wraps rather than vanish; the kind goes when the pane is narrow (its colour is on the bar)
    table.add_column("what", ratio=1, overflow="fold")
    if not narrow:
        table.add_column("kind", style="dim", max_width=_KIND_WIDTH, overflow="ellipsis", no_wrap=True)
    table.add_column("you see", no_wrap=True)
    ordered = sorted(blocks, key=lambda b: -b.tokens)
    for block in ordered[:_MAX_ROWS]:
        seen = Text(YOU_SEE[block.visibility], style="dim" if block.visibility == "hidden" else "")
        kind = [] if narrow else [segment_of(block).label]
        table.add_row(f"{block.tokens:,}", block.label, *kind, seen)
    if len(ordered) > _MAX_ROWS:
        rest = ordered[_MAX_ROWS:]
        table.add_row(f"{sum(b.tokens for b in rest):,}", f"… and {len(rest)} more", *([""] * (2 - narrow)))
    return Padding(table, (1, 0, 0, 0))


def _fates_table(step: Step, narrow: bool) -> RenderableType:
    order = list(_FATE_STYLES)
    fates = sorted(step.fates, key=lambda f: (order.index(f.fate) if f.fate in order else len(order), -f.tokens))
    title = Text("Piece by piece", style="bold")
    if narrow:  # one line for the fate, figure and name; the reason under it, the pane's full width
        lines: list[RenderableType] = [title]
        for fate in fates[:_MAX_ROWS]:
            shown = display_fate(fate.fate, fate.kind, fate.tokens)
            tokens = f"{fate.tokens:,}" if fate.tokens else "—"  # counted in its group's row already
            head = Text.assemble((f"{shown:<12}", _FATE_STYLES.get(shown, "")), f" {tokens:>7}  ", fate.label)
            lines += [head, Padding(Text(fate.why, style="dim"), (0, 0, 0, 2))]
        if len(fates) > _MAX_ROWS:
            lines.append(Text(f"… and {len(fates) - _MAX_ROWS} more"))
        return Padding(Group(*lines), (1, 0, 0, 0))
    table = Table(title=title, title_justify="left", box=None, padding=(0, 1), expand=True)
    table.add_column("fate", no_wrap=True)
    table.add_column("tokens", justify="right", no_wrap=True)
    table.add_column("what", ratio=1, overflow="fold")
    table.add_column("why", ratio=1)
    for fate in fates[:_MAX_ROWS]:
        shown = display_fate(fate.fate, fate.kind, fate.tokens)
        tokens = f"{fate.tokens:,}" if fate.tokens else "—"
        table.add_row(Text(shown, style=_FATE_STYLES.get(shown, "")), tokens, fate.label, Text(fate.why, style="dim"))
    if len(fates) > _MAX_ROWS:
        table.add_row("", "", f"… and {len(fates) - _MAX_ROWS} more", "")
    return Padding(table, (1, 0, 0, 0))
