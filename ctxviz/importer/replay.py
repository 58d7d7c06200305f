"""Replaying a drafted scenario and lining its steps up with the scenario's events and the session's calls.

The engine closes one step per event (a ``parallel`` group: one per call in it); start-up steps, automatic
compactions and background notifications are the engine's own. ``Step.event`` names the event where the
engine records it; otherwise the steps are counted.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ctxviz.engine import simulate
from ctxviz.kinds import StepKind
from ctxviz.scenario.model import Scenario
from ctxviz.timeline import Timeline
from ctxviz.tokens import CharsPerToken

ENGINE_STEPS = frozenset({StepKind.STARTUP, StepKind.AUTO_COMPACT, StepKind.NOTIFICATION})


def build_scenario(document: dict[str, Any]) -> Scenario:
    """The document as a Scenario (sizes are all tokens, so nothing needs counting)."""
    return Scenario.model_validate(document, context={"counter": CharsPerToken()})


@dataclass(frozen=True)
class Replay:
    timeline: Timeline
    event_steps: tuple[int, ...]  # the step of each flat event
    startup_used: int  # the window after start-up

    def used_after(self, flat_event: int) -> int:
        """The window once ``flat_event`` and any compaction right after it are done: what the next call
        would send."""
        steps = self.timeline.steps
        step = self.event_steps[flat_event]
        while step + 1 < len(steps) and steps[step + 1].kind == StepKind.AUTO_COMPACT:
            step += 1
        return steps[step].used

    def compactions(self) -> list[tuple[int, int]]:
        """``(flat event it follows, used after)`` of each automatic compaction."""
        found: list[tuple[int, int]] = []
        owner = -1
        position = {step: n for n, step in enumerate(self.event_steps)}
        for step in self.timeline.steps:
            if step.index in position:
                owner = position[step.index]
            elif step.kind == StepKind.AUTO_COMPACT:
                found.append((owner, step.used))
        return found


def replay(scenario: Scenario, flat_count: int) -> Replay:
    timeline = simulate(scenario)
    steps = timeline.steps
    startup = [s for s in steps if s.kind == StepKind.STARTUP]
    startup_used = startup[-1].used if startup else 0
    by_event: dict[int, list[int]] = {}
    if any(getattr(s, "event", None) is not None for s in steps):
        for step in steps:
            event = getattr(step, "event", None)
            if event is not None and step.kind not in ENGINE_STEPS:
                by_event.setdefault(event, []).append(step.index)
        ordered = _flatten_events(scenario.events)
        event_steps = [by_event.get(top, [0] * (m + 1))[m] for top, m in ordered]
    else:
        event_steps = [s.index for s in steps if s.kind not in ENGINE_STEPS]
    if len(event_steps) != flat_count:
        raise AssertionError(f"replay: {len(event_steps)} event steps for {flat_count} events")
    return Replay(timeline, tuple(event_steps), startup_used)


def _flatten_events(events: Sequence[object]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for n, event in enumerate(events):
        inner = getattr(event, "parallel", None)
        if inner is not None:
            out.extend((n, m) for m in range(len(inner)))
        else:
            out.append((n, 0))
    return out
