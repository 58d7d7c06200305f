"""The Timeline as JSON (``"format": "ctxviz.timeline/1"``): a public, versioned interface. Deterministic:
the same timeline always gives byte-identical text (fixed key order, no clock, no floats)."""

from __future__ import annotations

import json
from typing import Any

from ctxviz.timeline import Block, Step, Timeline

FORMAT = "ctxviz.timeline/1"


def timeline_to_dict(timeline: Timeline, at: int | None = None) -> dict[str, Any]:
    index = timeline.last if at is None else at
    t = timeline.thresholds
    return {
        "format": FORMAT,
        "source": {
            "kind": timeline.source.kind,
            "path": timeline.source.path,
            "name": timeline.source.name,
            "summary": timeline.source.summary,
        },
        "agent": timeline.agent,
        "model": timeline.model,
        "window": timeline.window,
        "tokenizer": timeline.tokenizer,
        "notices": list(timeline.notices),
        "thresholds": {
            "autocompact": t.autocompact,
            "warning": t.warning,
            "blocking": t.blocking,
            "buffer": t.buffer,
            "buffer_label": t.buffer_label,
        },
        "steps": [_step(step) for step in timeline.steps],
        "blocks": [_block(block) for block in timeline.blocks],
        "at": index,
        "breakdown": timeline.breakdown_at(index) if timeline.steps else {},
    }


def _step(step: Step) -> dict[str, Any]:
    return {
        "index": step.index,
        "kind": step.kind,
        "label": step.label,
        "added": list(step.added),
        "removed": list(step.removed),
        "used": step.used,
        "measured": step.measured,
        "notes": list(step.notes),
        "note": step.note,
        "fates": [
            {"label": f.label, "kind": f.kind, "fate": f.fate, "tokens": f.tokens, "why": f.why} for f in step.fates
        ],
        "child": timeline_to_dict(step.child) if step.child is not None else None,
    }


def _block(block: Block) -> dict[str, Any]:
    return {
        "id": block.id,
        "category": block.category.value,
        "kind": block.kind,
        "label": block.label,
        "tokens": block.tokens,
        "entered": block.entered,
        "left": block.left,
        "visibility": block.visibility,
    }


def dumps(timeline: Timeline, at: int | None = None) -> str:
    return json.dumps(timeline_to_dict(timeline, at), ensure_ascii=False, indent=1) + "\n"
