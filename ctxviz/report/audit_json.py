"""``ctxviz audit --json``: the ``ctxviz.audit/1`` format that docs/json.md documents. Pure."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ctxviz.report.audit import CarriedCost
from ctxviz.report.audit_findings import Finding
from ctxviz.report.prices import PRICES_DATE, PRICES_SOURCE, InputCost
from ctxviz.timeline import Timeline

AUDIT_FORMAT = "ctxviz.audit/1"


def cost_json(cost: InputCost | None, model: str, prices_from: str | None) -> dict[str, Any]:
    source = prices_from or f"{PRICES_SOURCE} ({PRICES_DATE})"
    if cost is None:
        return {"model": model, "known": False, "note": "no price known", "prices": source}
    return {
        "model": model,
        "known": True,
        "input_dollars": round(cost.dollars, 4),
        "cache_write_tokens": cost.written,
        "cache_read_tokens": cost.read,
        "note": "estimate: each call's growth written to the cache, the rest read from it; output not priced",
        "prices": source,
    }


def audit_dict(
    timeline: Timeline,
    cost: CarriedCost,
    findings: Sequence[Finding] | None,
    money: dict[str, Any],
    not_replayed: str | None = None,
) -> dict[str, Any]:
    """``findings`` None: the session could not be replayed (``not_replayed`` says why)."""
    return {
        "format": AUDIT_FORMAT,
        "session": timeline.source.name,
        "file": timeline.source.path,
        "agent": timeline.agent,
        "model": timeline.model,
        "measured": cost.measured,
        "calls": cost.calls,
        "input_tokens": cost.input_tokens,
        "carried": cost.carried,
        "unaccounted": cost.unaccounted,
        "items": [
            {
                "label": item.label,
                "kind": str(item.kind),
                "category": item.category,
                "tokens": item.tokens,
                "first_call": item.first_call,
                "last_call": item.last_call,
                "calls": item.calls,
                "carried": item.carried,
            }
            for item in cost.items
        ],
        "categories": cost.categories(),
        "findings": None
        if findings is None
        else [
            {
                "kind": str(f.kind),
                "title": f.title,
                "items": list(f.items),
                "tokens": f.tokens,
                "what_if": list(f.what_if),
                "input_tokens_saved": f.input_tokens_saved,
                "compactions_saved": f.compactions_saved,
                "compaction_calls": dict(zip(("as_recorded", "what_if"), map(list, f.compaction_calls), strict=True)),
            }
            for f in findings
        ],
        "not_replayed": not_replayed,
        "cost": money,
    }
