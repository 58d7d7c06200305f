"""The ``/context`` figures of any step as data: ``ctxviz context --json`` (``ctxviz.context/1``) and
the pieces the Rich view shares. No Rich here, so the JSON path does not import it."""

from __future__ import annotations

from ctxviz.kinds import StepKind
from ctxviz.timeline import Block, Timeline

CONTEXT_FORMAT = "ctxviz.context/1"


def api_call_indices(timeline: Timeline) -> list[int]:
    """Step indices of the API calls (``--at N`` counts these, from 1)."""
    return [s.index for s in timeline.steps if s.kind == StepKind.API_CALL]


def calls_before(timeline: Timeline, index: int) -> int:
    return sum(1 for s in timeline.steps[: index + 1] if s.kind == StepKind.API_CALL)


def largest_items(timeline: Timeline, index: int, count: int) -> list[Block]:
    blocks = timeline.state_at(index)
    return sorted(blocks, key=lambda b: (-b.tokens, b.entered, b.id))[:count]


def compactions_so_far(timeline: Timeline, index: int) -> list[dict[str, object]]:
    """Each compaction up to ``index``: trigger, the call it followed, the size before and after."""
    found: list[dict[str, object]] = []
    for i in timeline.compaction_indices():
        if i > index:
            break
        step = timeline.steps[i]
        found.append(
            {
                "trigger": "auto" if step.kind == StepKind.AUTO_COMPACT else "manual",
                "at_call": calls_before(timeline, i),
                "step": i,
                "before": timeline.used_at(i - 1) if i > 0 else 0,
                "after": step.used,
                "notes": list(step.notes),
            }
        )
    return found


def context_dict(timeline: Timeline, index: int, *, top_items: int = 10) -> dict[str, object]:
    """``ctxviz context --json``: the format DESIGN.md gives (``ctxviz.context/1``)."""
    step = timeline.steps[index]
    return {
        "format": CONTEXT_FORMAT,
        "session": timeline.source.name,
        "file": timeline.source.path,
        "model": timeline.model,
        "window": timeline.window,
        "used": step.used,
        "measured": step.measured,
        "at_call": calls_before(timeline, index),
        "calls": len(api_call_indices(timeline)),
        "step": index,
        "thresholds": {
            "autocompact": timeline.thresholds.autocompact,
            "warning": timeline.thresholds.warning,
            "blocking": timeline.thresholds.blocking,
            "buffer": timeline.thresholds.buffer,
        },
        "breakdown": timeline.breakdown_at(index),
        "items": [
            {"kind": b.kind, "label": b.label, "tokens": b.tokens, "category": b.category.value}
            for b in largest_items(timeline, index, top_items)
        ],
        "compactions": [{k: v for k, v in c.items() if k != "notes"} for c in compactions_so_far(timeline, index)],
        "notices": list(timeline.notices),
    }
