"""The Timeline as JSON (``"format": "ctxviz.timeline/1"``): a public, versioned interface. Deterministic:
the same timeline always gives byte-identical text (fixed key order, no clock, no floats).

Blocks, steps and fates are msgspec Structs whose field order *is* the documented key order, so msgspec
encodes them directly (in C); only a step that owns a subagent's timeline is turned into a dict first.
Writing a 10,000-event timeline this way takes about 0.05 s, against 2.4 s for dicts through
``json.dumps`` (benchmarks/engine.py).
"""

from __future__ import annotations

from typing import Any

import msgspec

from ctxviz.timeline import Step, Timeline
from ctxviz.transcripts.safe import safe_json

FORMAT = "ctxviz.timeline/1"


def timeline_to_dict(timeline: Timeline, at: int | None = None) -> dict[str, Any]:
    """The top level of the document; steps and blocks stay dataclasses until encoded."""
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
        "steps": [step if step.child is None else _with_child(step, step.child) for step in timeline.steps],
        "blocks": timeline.blocks,
        "at": index,
        "breakdown": timeline.breakdown_at(index) if timeline.steps else {},
    }


def _with_child(step: Step, child: Timeline) -> dict[str, Any]:
    """A step that owns a subagent's timeline: the child is written as a timeline document of its own."""
    return {**msgspec.structs.asdict(step), "child": timeline_to_dict(child)}


_ENCODER = msgspec.json.Encoder()


def dump_bytes(timeline: Timeline, at: int | None = None) -> bytes:
    """Compact UTF-8 JSON and a newline (pipe it through ``jq`` to read it)."""
    return safe_json(_ENCODER.encode(timeline_to_dict(timeline, at))) + b"\n"


def dumps(timeline: Timeline, at: int | None = None) -> str:
    return dump_bytes(timeline, at).decode("utf-8")
