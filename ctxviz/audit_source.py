"""Opening an audit: a session or scenario read, its carried cost, its findings replayed, and the
``ctxviz.audit/1`` document. The I/O edge that ``ctxviz audit`` and the TUI's audit screen share."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ctxviz.report.audit import CarriedCost
    from ctxviz.report.audit_findings import Finding
    from ctxviz.report.compare_runs import Comparison
    from ctxviz.report.prices import Price
    from ctxviz.scenario.model import Scenario
    from ctxviz.timeline import Timeline
    from ctxviz.transcripts.protocol import SessionRef


@dataclass(frozen=True)
class Audited:
    """What an audit shows, and what a finding's comparison replays (no scenario: none can be)."""

    timeline: Timeline
    cost: CarriedCost
    findings: list[Finding] | None
    not_replayed: str | None = None
    scenario: Scenario | None = None
    measured: tuple[int | None, ...] | None = None

    def comparison(self, finding: Finding) -> Comparison:
        from ctxviz.report.audit_findings import finding_comparison

        assert self.scenario is not None  # a finding exists only where the session was replayed
        display = self.timeline.source.path or self.timeline.source.name
        return finding_comparison(self.scenario, finding, display, self.measured)

    def document(self, prices: dict[str, Price], prices_from: str | None = None) -> dict[str, Any]:
        """The ``ctxviz.audit/1`` document, its input priced with ``prices``."""
        from ctxviz.report.audit_json import audit_dict, cost_json
        from ctxviz.report.prices import input_cost

        timeline, cost = self.timeline, self.cost
        sizes = [timeline.steps[step].used for step in cost.call_steps]
        money = cost_json(input_cost(timeline.model, sizes, prices), timeline.model, prices_from)
        return audit_dict(timeline, cost, self.findings, money, self.not_replayed)


def audit_scenario(file: Path | str | None, tokenizer: str = "cl100k", shown: Timeline | None = None) -> Audited:
    """A scenario's audit: its replay's carried cost (``shown``: the replay already made, under the agent
    it names) and findings."""
    from ctxviz.engine import simulate
    from ctxviz.report.audit import carried_cost
    from ctxviz.report.audit_findings import findings
    from ctxviz.sources import open_replayable

    loaded = open_replayable(None if file is None else str(file), tokenizer)
    timeline = shown or loaded.finish(simulate(loaded.scenario, source_path=loaded.display))
    cost = carried_cost(timeline)
    return Audited(timeline, cost, findings(loaded.scenario, cost, agent=timeline.agent), scenario=loaded.scenario)


def audit_session(target: Path | SessionRef, shown: Timeline | None = None) -> Audited:
    """A recorded session's audit (``shown``: its timeline already read). Raises ``InputError``."""
    from ctxviz.errors import InputError
    from ctxviz.importer.imported import measured_per_event
    from ctxviz.report.audit import carried_cost
    from ctxviz.report.audit_findings import findings
    from ctxviz.sources import imported_session
    from ctxviz.transcripts.registry import read_target

    timeline = shown or read_target(target).timeline
    cost = carried_cost(timeline)
    if not cost.calls:
        raise InputError(f"{timeline.source.path or timeline.source.name}: no API call records its usage; "
                         "there is nothing measured to audit")  # fmt: skip
    try:
        scenario, calls = imported_session(target if isinstance(target, Path) else target.path, timeline)
    except InputError as error:
        return Audited(timeline, cost, None, f"the findings replay an imported session: {error.message}")
    call_events = [call.after_event for call in calls]
    found = findings(scenario, cost, call_events=call_events, window=timeline.window)
    return Audited(timeline, cost, found, None, scenario, tuple(measured_per_event(calls, len(scenario.events))))


def audit_of(timeline: Timeline) -> Audited:
    """The audit of what the TUI plays: the session it was read from, or the scenario it replays.
    Raises ``InputError``."""
    from ctxviz.errors import InputError

    source = timeline.source
    if source.kind == "transcript":
        if source.path is None:
            raise InputError(f"{source.name}: no file to import; the audit needs the session's file")
        return audit_session(Path(source.path), timeline)
    return audit_scenario(source.path, shown=timeline)
