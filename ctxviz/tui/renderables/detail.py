"""What the detail pane says about one step: what entered and left, why, the author's note, what the
person sees, and for a compaction the fate of everything that was in the window."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Group, RenderableType
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from ctxviz.layout import humanize, percent
from ctxviz.timeline import Block, Step, Timeline
from ctxviz.tui.icons import YOU_SEE, icon
from ctxviz.tui.segments import segment_of, step_delta

# in the order the table lists them: what changed first, what merely stayed last
_FATE_STYLES = {
    "summarised": "magenta",
    "dropped": "red",
    "restored": "cyan",
    "truncated": "yellow",
    "referenced": "yellow",
    "reinjected": "cyan",
    "kept": "green",
}
_SEEN = "Claude sees every block whole; “you see” is what your terminal shows of it."
# At most this many rows per block table: a compaction can remove thousands of blocks.
_MAX_ROWS = 40


def step_detail(timeline: Timeline, index: int) -> RenderableType:
    step = timeline.steps[index]
    added, removed = step_delta(timeline, index)
    used = timeline.used_at(index)
    title = Text.assemble(
        (f"{icon(step.kind)} Step {index}", "bold"),
        (f" · {step.kind} · ", "dim"),
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
    parts: list[RenderableType] = [title, figures]
    if step.fates:
        # a compaction's story is its fates: they come first; the reasons and the blocks follow
        parts.append(_fates_table(step))
    if step.note:
        parts.append(Padding(Text(step.note, style="italic"), (1, 0, 0, 2)))
    if step.notes:
        parts.append(Text("\nWhy", style="bold underline"))
        parts.extend(Text.assemble(" • ", note) for note in step.notes)
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
    if step.added:
        entered = timeline.blocks_of(step.added)
        parts.append(_blocks_table(f"Entered ({len(step.added)})", entered, _SEEN))
    if step.removed:
        parts.append(_blocks_table(f"Left ({len(step.removed)})", timeline.blocks_of(step.removed)))
    return Group(*parts)


def _blocks_table(title: str, blocks: Sequence[Block], caption: str | None = None) -> RenderableType:
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
    table.add_column("what", ratio=1, min_width=10, overflow="ellipsis", no_wrap=True)
    table.add_column("kind", style="dim", max_width=12, overflow="ellipsis", no_wrap=True)
    table.add_column("you see", no_wrap=True)
    ordered = sorted(blocks, key=lambda b: -b.tokens)
    for block in ordered[:_MAX_ROWS]:
        table.add_row(
            f"{block.tokens:,}",
            block.label,
            segment_of(block).label,
            Text(YOU_SEE[block.visibility], style="dim" if block.visibility == "hidden" else ""),
        )
    if len(ordered) > _MAX_ROWS:
        rest = ordered[_MAX_ROWS:]
        table.add_row(f"{sum(b.tokens for b in rest):,}", f"… and {len(rest)} more", "", "")
    return Padding(table, (1, 0, 0, 0))


def _fates_table(step: Step) -> RenderableType:
    table = Table(
        title="What the compaction did with each piece",
        title_justify="left",
        title_style="bold",
        box=None,
        padding=(0, 1),
        expand=True,
    )
    table.add_column("fate", no_wrap=True)
    table.add_column("tokens", justify="right", no_wrap=True)
    table.add_column("what", ratio=1, min_width=12, overflow="ellipsis", no_wrap=True)
    table.add_column("why", ratio=1, overflow="fold")
    order = list(_FATE_STYLES)
    fates = sorted(step.fates, key=lambda f: (order.index(f.fate) if f.fate in order else len(order), -f.tokens))
    for fate in fates[:_MAX_ROWS]:
        table.add_row(Text(fate.fate, style=_FATE_STYLES.get(fate.fate, "")), f"{fate.tokens:,}", fate.label, fate.why)
    if len(fates) > _MAX_ROWS:
        table.add_row("", "", f"… and {len(fates) - _MAX_ROWS} more", "")
    return Padding(table, (1, 0, 0, 0))
