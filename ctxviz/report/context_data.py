"""The ``/context`` figures of any step as data: ``ctxviz context --json`` (``ctxviz.context/1``) and
the pieces the Rich view shares. No Rich here, so the JSON path does not import it."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ctxviz.kinds import BlockKind, CompactionTrigger, StepKind
from ctxviz.timeline import Block, Category, Step, Timeline

if TYPE_CHECKING:
    from ctxviz.report.audit import Item
    from ctxviz.transcripts.protocol import CallWindow

CONTEXT_FORMAT = "ctxviz.context/1"


def api_call_indices(timeline: Timeline) -> list[int]:
    """Step indices of the API calls (``--at N`` counts these, from 1)."""
    return [s.index for s in timeline.steps if s.kind == StepKind.API_CALL]


def calls_before(timeline: Timeline, index: int) -> int:
    return sum(1 for s in timeline.steps[: index + 1] if s.kind == StepKind.API_CALL)


def largest_items(timeline: Timeline, index: int, count: int) -> list[Block]:
    blocks = timeline.state_at(index)
    return sorted(blocks, key=lambda b: (-b.tokens, b.entered, b.id))[:count]


# What a transcript's unrecorded overhead (one block in System prompt) also holds: rows that would
# otherwise read as measured zeros.
UNRECORDED_ROWS = (
    Category.SYSTEM_TOOLS,
    Category.MCP_TOOLS,
    Category.CUSTOM_AGENTS,
    Category.MEMORY_FILES,
    Category.SKILLS,
)


def unrecorded_overhead(timeline: Timeline, index: int) -> int | None:
    """The tokens of a transcript's unrecorded overhead block in System prompt at ``index`` (None if none)."""
    found = [
        b for b in timeline.state_at(index) if b.kind == BlockKind.OVERHEAD and b.category == Category.SYSTEM_PROMPT
    ]
    return sum(b.tokens for b in found) if found else None


def shown_breakdown(timeline: Timeline, index: int) -> dict[str, int | None]:
    """The ``/context`` rows as shown: the reserve shrinks so the rows never add up to more than the
    window (a call above the auto-compact threshold eats into it), and when a transcript's overhead is
    unrecorded, the rows it holds are None (not known), not measured zeros."""
    rows: dict[str, int | None] = dict(timeline.breakdown_at(index))
    buffer = timeline.thresholds.buffer_label
    over = sum(v or 0 for v in rows.values()) - timeline.window
    if over > 0 and rows.get(buffer):
        rows[buffer] = max(0, (rows[buffer] or 0) - over)
    if unrecorded_overhead(timeline, index) is not None:
        for row in UNRECORDED_ROWS:
            if not rows.get(row):
                rows[row] = None
    return rows


def _next_call(timeline: Timeline, calls: list[int], index: int) -> Step | None:
    """The first API call after step ``index`` (``calls``: the timeline's call steps)."""
    after = bisect_right(calls, index)
    return timeline.steps[calls[after]] if after < len(calls) else None


def compactions_so_far(timeline: Timeline, index: int) -> list[dict[str, object]]:
    """Each compaction up to ``index``: trigger, the call it followed, the size before (the boundary's
    own preTokens for a transcript, else the size at the step before) and after. A size after that is
    estimated says so, with the next call's measured size when there is one."""
    found: list[dict[str, object]] = []
    calls = api_call_indices(timeline)  # counted once: a long session has hundreds of compactions
    for i in timeline.compaction_indices():
        if i > index:
            break
        step = timeline.steps[i]
        pre_tokens = step.pre_tokens
        following = _next_call(timeline, calls, i)
        found.append(
            {
                "trigger": (step.trigger or CompactionTrigger.UNKNOWN).value,
                "at_call": bisect_right(calls, i),
                "step": i,
                "pre_tokens": pre_tokens,
                "before": pre_tokens if pre_tokens is not None else timeline.used_at(i - 1) if i > 0 else 0,
                "before_measured": pre_tokens is not None or (i > 0 and timeline.steps[i - 1].measured),
                "after": step.used,
                "after_measured": step.measured,
                "next_call_used": following.used if following is not None and not step.measured else None,
                "notes": list(step.notes),
            }
        )
    return found


def context_dict(timeline: Timeline, index: int, *, top_items: int = 10) -> dict[str, object]:
    """``ctxviz context --json``: the format docs/json.md documents (``ctxviz.context/1``)."""
    calls = api_call_indices(timeline)
    return _document(timeline, index, index, bisect_right(calls, index), len(calls),
                     compactions_so_far(timeline, index), top_items)  # fmt: skip


def call_window_dict(window: CallWindow, *, top_items: int = 10) -> dict[str, object]:
    """``context_dict`` of a reader's one-step window (``Reader.call_window``), with its ``carried`` rows.
    A window read from the last compaction on has what counts from the session's start as None (not
    read), and says from which byte it was read (``read_from``)."""
    compactions = None if window.compactions is None else list(window.compactions)
    document = _document(window.timeline, 0, window.step, window.at_call, window.calls, compactions, top_items)
    document["carried"] = None if window.carried is None else carried_rows(carried_items(window), top_items)
    if window.read_from is not None:
        document["read_from"] = window.read_from
    return document


def carried_items(window: CallWindow) -> list[Item]:
    """The window's blocks carried most, as the carried cost of the whole timeline lists them (none when
    they were not read)."""
    from ctxviz.report.audit import Item, cost_kind

    return [
        Item(b.id, b.label, cost_kind(b), b.category.value, b.tokens, first + 1, stop, stop - first)
        for b, first, stop in window.carried or ()
    ]


def carried_rows(items: Sequence[Item], top_items: int) -> list[dict[str, object]]:
    """The ``carried`` rows of ``context --json``: the items carried most, largest first."""
    return [
        {"label": i.label, "kind": str(i.kind), "tokens": i.tokens, "first_call": i.first_call,
         "last_call": i.last_call, "calls": i.calls, "carried": i.carried}
        for i in items[:top_items]
    ]  # fmt: skip


def _without_notes(compaction: dict[str, object]) -> dict[str, object]:
    return {k: v for k, v in compaction.items() if k != "notes"}


def _document(
    timeline: Timeline,
    index: int,
    step_index: int | None,
    at_call: int | None,
    calls: int | None,
    compactions: list[dict[str, object]] | None,
    top_items: int,
) -> dict[str, object]:
    step = timeline.steps[index]
    return {
        "format": CONTEXT_FORMAT,
        "session": timeline.source.name,
        "file": timeline.source.path,
        "model": timeline.model,
        "window": timeline.window,
        "used": step.used,
        "measured": step.measured,
        "at_call": at_call,
        "calls": calls,
        "step": step_index,
        "thresholds": {
            "autocompact": timeline.thresholds.autocompact,
            "warning": timeline.thresholds.warning,
            "blocking": timeline.thresholds.blocking,
            "buffer": timeline.thresholds.buffer,
        },
        "breakdown": shown_breakdown(timeline, index),
        "unrecorded_overhead": unrecorded_overhead(timeline, index),
        "items": [
            {"kind": b.kind, "label": b.label, "tokens": b.tokens, "category": b.category.value}
            for b in largest_items(timeline, index, top_items)
        ],
        "compactions": None if compactions is None else [_without_notes(c) for c in compactions],
        "notices": list(timeline.notices),
    }
