"""``fidelity`` for agents whose reader makes a timeline (Codex, pi): the scenario ``ctxviz import`` writes,
replayed by the engine under the agent's profile (the path every what-if and ``compare`` takes), call by
call against what the session measured, scored as Claude Code's (``importer.fidelity``).

The scenario sizes every event from two measured calls, so the calls up to the first compaction are
fitted; the calls after it, each automatic compaction's place and the first call after each are what the
profile predicts. A compaction the log marks as typed (or the agent's rules say must have been) is an
event of the scenario and is replayed where it was typed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ctxviz.importer.fidelity import (
    CallFit,
    FidelityReport,
    SessionCompaction,
    paired_compactions,
    predicted_and_fitted,
)
from ctxviz.importer.from_timeline import TimelineImport
from ctxviz.importer.imported import MeasuredCall
from ctxviz.importer.replay import Replay, replay
from ctxviz.importer.replay_recorded import RecordedReport
from ctxviz.kinds import COMPACTION_STEP_KINDS, StepKind
from ctxviz.timeline import Timeline

NEXT_CALL_WIDE_TOLERANCE = 10.0  # % : the Codex target for the first call after a compaction


@dataclass(frozen=True)
class AgentFidelity:
    """The engine's replay of an imported session of ``agent``, scored; beside it the check of the agent's
    compaction rules alone on the session's recorded calls (``recorded``)."""

    agent: str
    report: FidelityReport
    recorded: RecordedReport
    problems: tuple[str, ...]

    def next_within(self, percent: float) -> int:
        return sum(1 for c in self.report.next_calls if (c.next_error or 0) <= percent)

    def to_json(self) -> dict[str, Any]:
        document = self.report.to_json()
        document["agent"] = self.agent
        document["predicted"]["next_within_10pct"] = self.next_within(NEXT_CALL_WIDE_TOLERANCE)
        rules_only = self.recorded.to_json()
        document["recorded_calls"] = {key: rules_only[key] for key in ("median_error", "p90_error", "predicted")}
        return document


def _after_call(event: int, calls: Sequence[MeasuredCall]) -> int:
    """The call (from 1) an event came after: the last whose events end before it (0: none)."""
    return max((c.call for c in calls if c.after_event is not None and c.after_event < event), default=0)


def _measured_compactions(timeline: Timeline) -> list[tuple[int, int | None]]:
    """Each compaction of the log: (the measured call it came after, its size before as recorded)."""
    found = []
    calls = 0
    for step in timeline.steps:
        if step.kind == StepKind.API_CALL and step.used > 0:
            calls += 1
        elif step.kind in COMPACTION_STEP_KINDS:
            found.append((calls, step.pre_tokens))
    return found


def score(
    timeline: Timeline, imported: TimelineImport, name: str, typed: frozenset[int], version: str | None
) -> FidelityReport:
    """Pure but for the engine: the imported scenario replayed and set against the measured calls.
    ``typed``: the calls after which the session's typed compactions came (replayed as events)."""
    run: Replay = replay(imported.scenario, len(imported.scenario.events))
    calls = [
        CallFit(c.call, c.measured, run.startup_used if c.after_event is None else run.used_after(c.after_event))
        for c in imported.measured
    ]
    by_call = {c.call: c for c in calls}
    simulated = [_after_call(event, imported.measured) for event, _ in run.compactions()]
    recorded = [
        SessionCompaction("manual" if after in typed else "auto", after, pre, after + 1)
        for after, pre in _measured_compactions(timeline)
    ]
    fits = paired_compactions(recorded, simulated, by_call)
    predicted, fitted = predicted_and_fitted(calls, fits)
    return FidelityReport(name, version, tuple(calls), tuple(fits), predicted, fitted, (),
                          run.timeline.thresholds.autocompact)  # fmt: skip


def timeline_fidelity(path: Path) -> AgentFidelity:
    """``ctxviz fidelity`` on another agent's session: import it as ``ctxviz import`` does, replay the
    scenario under the agent's profile, score; ``InputError`` for an agent whose recorded calls cannot be
    read (naming it)."""
    from ctxviz.importer import replay_recorded as recorded_calls
    from ctxviz.importer.from_timeline import timeline_to_scenario
    from ctxviz.transcripts.registry import read_target

    reading = read_target(path)
    agent = str(reading.timeline.agent)
    session = recorded_calls.read_recorded(agent, path)
    rules = recorded_calls.rules_for(agent)
    counts = recorded_calls.counts_of(session, rules)
    name = session.session
    imported = timeline_to_scenario(reading.timeline, name, counts)
    report = score(reading.timeline, imported, name, counts.typed, session.version)
    return AgentFidelity(agent, report, recorded_calls.replay(session, rules), tuple(reading.problems))
