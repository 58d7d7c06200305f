"""Whatever a transcript holds becomes a valid scenario: an event the scenario format cannot take (a
reference it cannot resolve, a value out of its range) is kept as hidden input of the same size, and a
note says what it was and why."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from ctxviz.importer.draft import Draft, EventDraft
from ctxviz.importer.render import scenario_document
from ctxviz.importer.replay import build_scenario
from ctxviz.kinds import EventKind
from ctxviz.profiles.scenario_fit import agent_problems
from ctxviz.scenario.check import problems

ATTEMPTS = 3  # a replaced event cannot itself be a problem: one more pass only confirms


def _event_problems(document: dict[str, Any]) -> dict[int, str]:
    """The top-level events the format refuses, by index, with the first reason for each."""
    found, subagent_types = agent_problems(document)
    found += problems(document, subagent_types)
    try:
        build_scenario(document)
    except ValidationError as error:
        found += [(tuple(e["loc"]), str(e["msg"])) for e in error.errors(include_url=False)]
    refused: dict[int, str] = {}
    for path, message in found:
        if len(path) > 1 and path[0] == "events" and isinstance(path[1], int):
            refused.setdefault(path[1], message)
    return refused


def _stand_in(event: EventDraft, why: str) -> EventDraft:
    members = event.flat()
    size = sum(sum(e.sizes.values()) for e in members)
    what = ", ".join(dict.fromkeys(e.kind for e in members))
    stand_in = EventDraft(
        EventKind.PROMPT, {"text": f"{what} the scenario format cannot hold", "visibility": "hidden"},
        {"size": size}, ("size",), sum(e.target for e in members), event.segment, event.measured,
        f"a {what} kept as hidden input of its size: {why}",
    )  # fmt: skip
    # where it stands, the count and the check are the event's own
    stand_in.count_gap, stand_in.cleared, stand_in.call_follows = event.count_gap, event.cleared, event.call_follows
    return stand_in


def make_representable(draft: Draft, name: str) -> list[str]:
    """Replace in ``draft`` every event the scenario format refuses; returns a note for each."""
    notes: list[str] = []
    for _ in range(ATTEMPTS):
        refused = _event_problems(scenario_document(draft, name, {"system_prompt": 0}))
        if not refused:
            break
        for index, why in refused.items():
            notes.append(f"event {index} ({draft.events[index].kind}): {why}")
            draft.events[index] = _stand_in(draft.events[index], why)
    return notes
