"""A comparison as JSON (``"format": "ctxviz.compare/1"``): the scenario, then each run with its label,
agent, settings and its full ``ctxviz.timeline/1`` document. Deterministic, like the timeline format."""

from __future__ import annotations

from typing import Any

import msgspec

from ctxviz.report.compare_runs import Comparison, EventInfo
from ctxviz.report.json import timeline_to_dict

FORMAT = "ctxviz.compare/1"
_ENCODER = msgspec.json.Encoder()


def comparison_to_dict(comparison: Comparison) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "scenario": {
            "name": comparison.name,
            "path": comparison.path,
            "summary": comparison.summary,
            "events": [_event(comparison, e) for e in comparison.events],
        },
        "runs": [
            {
                "label": run.label,
                "agent": run.agent,
                "settings": run.settings,
                "timeline": timeline_to_dict(run.timeline),
            }
            for run in comparison.runs
        ],
    }


def _event(comparison: Comparison, event: EventInfo) -> dict[str, Any]:
    """An event; for a real session, with the context it measured after the event (null when no API call
    came before the next one)."""
    entry: dict[str, Any] = {"index": event.index, "kind": event.kind, "label": event.label}
    if comparison.measured is not None:
        entry["measured"] = comparison.measured[event.index]
    return entry


def dump_bytes(comparison: Comparison) -> bytes:
    """Compact UTF-8 JSON and a newline."""
    from ctxviz.transcripts.safe import safe_json

    return safe_json(_ENCODER.encode(comparison_to_dict(comparison))) + b"\n"
