"""The ``/context`` view: the glyph grid beside the category rows, then the items of each category."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from ctxviz.layout import FREE, FULL, RESERVE, context_grid, humanize, percent
from ctxviz.report.context import UNRECORDED_NOTE
from ctxviz.report.context_data import shown_breakdown, unrecorded_overhead
from ctxviz.timeline import FREE_SPACE, Block, Category, Timeline
from ctxviz.tui.segments import SEGMENTS

# The per-item lists /context prints under the grid, with the command that manages each.
_ITEM_SECTIONS = (
    (Category.MEMORY_FILES, "Memory files · /memory"),
    (Category.SKILLS, "Skills · /skills"),
    (Category.CUSTOM_AGENTS, "Custom agents · /agents"),
    (Category.MCP_TOOLS, "MCP tools · /mcp"),
)
_LARGEST_MESSAGES = 12


def context_view(
    timeline: Timeline,
    index: int,
    live: Sequence[Block],
    segment_tokens: Sequence[int],
    colors: Mapping[str, str],
    narrow: bool = False,
    at: str | None = None,
) -> RenderableType:
    """``live`` is ``timeline.state_at(index)``, ``segment_tokens`` the tokens per segment there, and
    ``colors`` maps each breakdown row (a category, Free space, the buffer) to a colour. ``at``: where
    the window is, in words, when its step's number in the session is not known (default "at step N")."""
    # the rows as ``ctxviz context`` shows them: a row a transcript cannot tell apart is None, not 0
    breakdown = shown_breakdown(timeline, index)
    used = timeline.used_at(index)
    window = timeline.window
    shown = {row: tokens or 0 for row, tokens in breakdown.items()}
    grid = context_grid(shown, window, timeline.thresholds.buffer_label, narrow)
    glyphs = [Text(" ").join(Text(square.glyph, style=colors.get(square.row, "")) for square in row) for row in grid]
    measured = "measured" if timeline.steps[index].measured else "estimated"
    # a transcript measures the total only: how it splits among categories and items is estimated
    approx = "~" if timeline.source.kind == "transcript" else ""
    rows: list[Text] = [
        Text.assemble((timeline.model, "bold"), f" ({timeline.agent}) · {used:,}/{humanize(window)} tokens"),
        Text(f"({percent(used, window):.0f}%, {measured}) {at or f'at step {index}'}", style="dim"),
        Text(""),
    ]
    unrecorded = unrecorded_overhead(timeline, index) is not None
    for row, tokens in breakdown.items():
        if tokens is None or (tokens <= 0 and row != FREE_SPACE):
            continue
        glyph = FREE if row == FREE_SPACE else RESERVE if row == timeline.thresholds.buffer_label else FULL
        split = approx if glyph == FULL else ""
        rows.append(
            Text.assemble(
                (glyph, colors.get(row, "")),
                f" {row}: ",
                (f"{split}{humanize(tokens)} tokens ({percent(tokens, window):.1f}%)", "dim"),
            )
        )
        if row == Category.SYSTEM_PROMPT and unrecorded:
            rows.append(Text(f"  {UNRECORDED_NOTE}", style="dim"))
    side = Table.grid(padding=(0, 3))
    side.add_column(no_wrap=True)
    side.add_column()
    for n in range(max(len(glyphs), len(rows))):
        side.add_row(glyphs[n] if n < len(glyphs) else "", rows[n] if n < len(rows) else "")
    parts: list[RenderableType] = [Text("Context Usage", style="bold"), side]
    for category, title in _ITEM_SECTIONS:
        items = [b for b in live if b.category is category]
        if items:
            parts.append(_items(title, items, approx))
    messages = [b for b in live if b.category is Category.MESSAGES]
    if messages:
        parts.append(_message_kinds(segment_tokens, approx))
        largest = sorted(messages, key=lambda b: (-b.tokens, b.id))[:_LARGEST_MESSAGES]
        parts.append(_items(f"Largest messages (of {len(messages)})", largest, approx))
    return Group(*parts)


def _items(title: str, blocks: Sequence[Block], approx: str) -> RenderableType:
    lines = [Text(f"\n{title}", style="bold")]
    for n, block in enumerate(blocks):
        branch = "└" if n == len(blocks) - 1 else "├"
        lines.append(Text.assemble(f"{branch} {block.label}: ", (f"{approx}{humanize(block.tokens)} tokens", "dim")))
    return Group(*lines)


def _message_kinds(segment_tokens: Sequence[int], approx: str) -> RenderableType:
    shown = [
        (segment.label, tokens)
        for segment, tokens in zip(SEGMENTS, segment_tokens, strict=True)
        if segment.category is Category.MESSAGES and tokens
    ]
    lines = [Text("\nMessages by kind", style="bold")]
    for n, (label, tokens) in enumerate(shown):
        branch = "└" if n == len(shown) - 1 else "├"
        lines.append(Text.assemble(f"{branch} {label}: ", (f"{approx}{humanize(tokens)} tokens", "dim")))
    return Group(*lines)
