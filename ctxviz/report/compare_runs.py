"""One scenario under several agents or settings, aligned event by event. Pure: no I/O, no Rich.

A run's steps are grouped by the scenario event they came from (``Step.event``); the automatic steps that
follow an event (an auto-compaction, a background notification) belong to that event, because it is what
set them off. The start-up steps form a group of their own, before event 0.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from ctxviz.allocation import without_cycle_collection
from ctxviz.errors import InputError
from ctxviz.kinds import EventKind, StepKind
from ctxviz.profiles import AGENT_NAMES, UnknownAgent
from ctxviz.scenario.event_model import event_kind
from ctxviz.scenario.model import Scenario
from ctxviz.timeline import COMPACTION_STEP_KINDS, Step, Timeline
from ctxviz.whatif import Setting, Settings, apply

if TYPE_CHECKING:
    from ctxviz.sources import Replayable

STARTUP = -1  # the group of start-up steps, before the first event
# a note about an @-mention names it first ("@src/a.py in the prompt: the path only"); the row already does
_MENTION_PREFIX = re.compile(r"^@\S+(?: in the prompt)?: ")
_WHY_WIDTH = 44


@dataclass(frozen=True, slots=True)
class RunSpec:
    label: str
    agent: str


def agent_names() -> tuple[str, ...]:
    return AGENT_NAMES


def parse_run_specs(text: str | None, default: Sequence[str]) -> tuple[RunSpec, ...]:
    """``"claude-code,big=claude-code"`` → runs; a bare agent is its own label. Labels are unique."""
    parts = [part.strip() for part in text.split(",")] if text is not None else list(default)
    specs: list[RunSpec] = []
    for part in parts:
        label, equals, agent = part.partition("=")
        label, agent = (label.strip(), agent.strip()) if equals else (part, part)
        if not label or not agent:
            raise InputError(f"expected AGENT or LABEL=AGENT in --agents, got {part!r}")
        if agent not in AGENT_NAMES:
            raise InputError(UnknownAgent(agent).message)
        if any(spec.label == label for spec in specs):
            raise InputError(f"the run label {label!r} appears twice in --agents; name one LABEL={agent}")
        specs.append(RunSpec(label, agent))
    if not specs:
        raise InputError("--agents names no run")
    return tuple(specs)


@dataclass(frozen=True, slots=True)
class EventInfo:
    index: int
    kind: str
    label: str


@dataclass(frozen=True, eq=False)
class Run:
    label: str
    agent: str
    settings: dict[str, Any]  # parsed, for JSON
    written: tuple[str, ...]  # the --set values as the user wrote them
    timeline: Timeline
    groups: tuple[tuple[int, ...], ...]  # step indices per event; groups[0] is the start-up
    dropped: frozenset[int] = frozenset()

    def steps_of(self, event: int) -> tuple[int, ...]:
        return self.groups[event + 1]

    def step_after(self, event: int) -> int:
        """The last step of ``event`` (or of an earlier one, if this run gave it no step)."""
        for position in range(event + 1, -1, -1):
            if group := self.groups[position]:
                return group[-1]
        return 0


@dataclass(frozen=True, eq=False)
class Comparison:
    name: str
    path: str | None
    summary: str
    events: tuple[EventInfo, ...]
    runs: tuple[Run, ...]
    measured: tuple[int | None, ...] | None = None  # a real session's context after each event (imported)


def _group_steps(steps: Sequence[Step], event_count: int) -> tuple[tuple[int, ...], ...]:
    groups: list[list[int]] = [[] for _ in range(event_count + 1)]
    current = STARTUP
    for step in steps:
        if step.event is not None:
            current = step.event
        groups[current + 1].append(step.index)
    return tuple(tuple(group) for group in groups)


AS_WRITTEN, WHAT_IF = "as-written", "what-if"


def what_if_pair(agent: str, settings: Settings) -> tuple[tuple[RunSpec, ...], Settings]:
    """Two runs of ``agent``: the scenario as written, and with every setting (rescoped to that run)."""
    rescoped = Settings(tuple(replace(s, scope=WHAT_IF) for s in settings.items))
    return (RunSpec(AS_WRITTEN, agent), RunSpec(WHAT_IF, agent)), rescoped


def check_scopes(settings: Settings, specs: Iterable[RunSpec]) -> None:
    """Every scope names a run label or an agent in the comparison (a typo must not pass silently)."""
    specs = tuple(specs)
    known = {spec.label for spec in specs} | {spec.agent for spec in specs}
    for scope in sorted(settings.scopes - known):
        raise InputError(
            f"--set {scope}.…: {scope!r} is neither a run label nor an agent of this comparison "
            f"({', '.join(sorted(known))})"
        )


def run_one(scenario: Scenario, spec: RunSpec, settings: Settings, source_path: str | None = None) -> Run:
    """One run: ``spec``'s agent over ``scenario`` with the settings that apply to it."""
    from ctxviz.engine import simulate

    changed, profile = apply(settings, scenario, spec.agent, spec.label)
    timeline = simulate(changed, profile=profile, source_path=source_path)
    if idle := _idle_settings(settings.for_run(spec.agent, spec.label), timeline.window):
        timeline = replace(timeline, notices=(*timeline.notices, *idle))
    used = settings.as_json(spec.agent, spec.label)
    return Run(
        label=spec.label,
        agent=spec.agent,
        settings=used,
        written=tuple(s.text for s in settings.for_run(spec.agent, spec.label)),
        timeline=timeline,
        groups=_group_steps(timeline.steps, len(scenario.events)),
        dropped=frozenset(used.get("drop", ())),
    )


def _idle_settings(settings: Iterable[Setting], window: int) -> list[str]:
    """Notices for what-ifs that cannot change this run: an autocompact size at or above the window
    (it caps the window the trigger is computed from, so a larger cap leaves the trigger where it was)."""
    return [
        f"{setting.text} changes nothing: autocompact=SIZE caps the window the trigger is computed from, "
        f"and this run's window is {window:,}; try window={setting.text.partition('=')[2]} as well"
        for setting in settings
        if setting.key == "autocompact" and not isinstance(setting.value, bool) and setting.value >= window
    ]


def compare(
    scenario: Scenario, specs: Sequence[RunSpec], settings: Settings, source_path: str | None = None
) -> Comparison:
    """Every run of ``specs`` over ``scenario``; raises InputError when a setting does not fit."""
    check_scopes(settings, specs)
    with without_cycle_collection():
        runs = tuple(run_one(scenario, spec, settings, source_path) for spec in specs)
    kinds: dict[type, str] = {}  # event_kind reads a model's fields: once per event type, not per event
    events = tuple(
        EventInfo(n, kind, _event_label(runs[0], n, kind))
        for n, event in enumerate(scenario.events)
        for kind in (kinds.get(type(event)) or kinds.setdefault(type(event), event_kind(event) or "event"),)
    )
    return Comparison(scenario.name, source_path, scenario.summary, events, runs)


def _event_label(run: Run, event: int, kind: str) -> str:
    """The first run's label for the event, except a reply's: each agent names its own ("Claude's
    reply", "Codex's reply") and the event column, shared by every run, already says "reply"."""
    if kind == EventKind.REPLY:
        return ""
    group = run.steps_of(event)
    return run.timeline.steps[group[0]].label if group else ""


def widest_event(comparison: Comparison) -> int:
    """The event whose added tokens differ most between the runs (the first such): where the agents'
    rules disagree most."""
    spreads = [
        max(cells) - min(cells)
        for cells in ([cell(run, e.index).added for run in comparison.runs] for e in comparison.events)
    ]
    return spreads.index(max(spreads)) if spreads else STARTUP


def per_step(timeline: Timeline, per_event: Sequence[int | None]) -> list[int | None]:
    """A value per scenario event spread over a timeline's steps: each step takes its event's value
    (an automatic step, the event's before it); the start-up has none."""
    values: list[int | None] = []
    current: int | None = None
    for step in timeline.steps:
        if step.event is not None:
            current = step.event
        values.append(None if current is None else per_event[current])
    return values


def used_per_event(run: Run) -> list[int]:
    """What the window held after each event (and what it set off) in ``run``."""
    return [run.timeline.used_at(run.step_after(event)) for event in range(len(run.groups) - 1)]


# --- what one event did in one run ---------------------------------------------------------------
@dataclass(frozen=True)
class WhatIf:
    """A what-if's timeline and the curve to set against it: measured (a session) or as written."""

    timeline: Timeline
    reference: list[int | None]
    reference_name: str
    name: str  # what was replayed, short enough for a narrow header: a scenario's name, "session 4d5611e5"


def replay_what_if(replayable: Replayable, settings: Settings, agent: str | None = None) -> WhatIf:
    """``replayable`` replayed under ``settings`` by ``agent`` (default: the scenario's), for ``run --set``
    and ``play --set``, with the curve to compare it to: what the session measured, or the scenario as
    written. Raises ``InputError``."""
    specs, rescoped = what_if_pair(agent or replayable.scenario.agent, settings)
    check_scopes(settings, specs[:1])
    if replayable.measured is not None:
        comparison = compare(replayable.scenario, specs[1:], rescoped, replayable.display)
        per_event, name = list(replayable.measured), "measured"
    else:
        comparison = compare(replayable.scenario, specs, rescoped, replayable.display)
        per_event, name = list(used_per_event(comparison.runs[0])), "as written"
    timeline = replayable.finish(comparison.runs[-1].timeline)
    # an imported session is named by its 36-character id: its first 8 say which, as for a transcript
    scenario = replayable.scenario.name
    shown = f"session {scenario[:8]}" if replayable.measured is not None else scenario
    return WhatIf(timeline, per_step(timeline, per_event), name, shown)


@dataclass(frozen=True, slots=True)
class Cell:
    added: int
    removed: int
    total: int  # after the event and what it set off
    why: str
    compacted: bool


def _percent(part: int, whole: int) -> str:
    value = 100 * part / whole if whole else 0.0
    return f"{value:.0f}%" if abs(value - round(value)) < 0.05 else f"{value:.1f}%"


def why_of(run: Run, event: int, width: int = _WHY_WIDTH) -> str:
    """A short reason for what ``event`` did in ``run``, from its steps' notes."""
    timeline = run.timeline
    steps = [timeline.steps[i] for i in run.steps_of(event)]
    if event in run.dropped:
        return "left out (what-if drop)"
    for step in steps:
        if step.kind == StepKind.AUTO_COMPACT:
            limit = timeline.thresholds.autocompact or step.used
            return f"compacted: {_percent(limit, timeline.window)} of {timeline.window:,}"
        if step.kind in COMPACTION_STEP_KINDS:
            before = timeline.used_at(step.index - 1) if step.index else 0
            return f"/compact: {before:,} → {step.used:,}"
    for step in steps:
        if step.notes:
            # the row already names the subject: "pytest: kept as a preview" says "kept as a preview"
            note = _MENTION_PREFIX.sub("", step.notes[0], count=1)
            for prefix in (f"{step.label}: ", f"{step.label} "):
                note = note.removeprefix(prefix)
            return shorten(note, width)
    return ""


def shorten(text: str, width: int) -> str:
    text = " ".join(text.split())
    if len(text) <= width:
        return text
    cut = text[: width - 1].rsplit(" ", 1)[0]
    return cut.rstrip(",;:") + "…"


def cell(run: Run, event: int, why_width: int = _WHY_WIDTH) -> Cell:
    timeline = run.timeline
    group = run.steps_of(event)
    added = sum(timeline.block(b).tokens for i in group for b in timeline.steps[i].added)
    removed = sum(timeline.block(b).tokens for i in group for b in timeline.steps[i].removed)
    compacted = any(timeline.steps[i].kind in COMPACTION_STEP_KINDS for i in group)
    return Cell(added, removed, timeline.used_at(run.step_after(event)), why_of(run, event, why_width), compacted)


@dataclass(frozen=True, slots=True)
class Compaction:
    event: int  # the scenario event that set it off (STARTUP never)
    kind: str
    before: int
    after: int


def compactions_of(run: Run) -> list[Compaction]:
    found = []
    steps = run.timeline.steps
    for event in range(len(run.groups) - 1):
        for i in run.steps_of(event):
            if steps[i].kind in COMPACTION_STEP_KINDS:
                before = steps[i - 1].used if i else 0
                found.append(Compaction(event, steps[i].kind, before, steps[i].used))
    return found
