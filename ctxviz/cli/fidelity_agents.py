"""``ctxviz import`` and ``ctxviz fidelity`` on a session another agent wrote: which agent; for ``import``
the scenario its reader's timeline makes, for ``fidelity`` that scenario replayed under the agent's profile
(Codex, pi); and the fidelity tables every agent's report is printed with, or its JSON."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

import click

from ctxviz.cli.common import fail

if TYPE_CHECKING:
    from ctxviz.importer.fidelity import FidelityReport
    from ctxviz.importer.fidelity_timeline import AgentFidelity
    from ctxviz.transcripts.protocol import SessionRef


class Reported(Protocol):
    """A report that can be written as JSON."""

    def to_json(self) -> dict[str, Any]: ...


AnyReport = TypeVar("AnyReport", bound=Reported)


def other_agent(path: Path) -> str | None:
    """The agent that wrote ``path`` when it is not Claude Code (None: Claude Code's, or nobody's known)."""
    from ctxviz.importer import IMPORTED_AGENT
    from ctxviz.transcripts.registry import reader_for

    reader = reader_for(path) if path.is_file() else None
    return None if reader is None or reader.name == IMPORTED_AGENT else str(reader.name)


def import_other(target: Path | SessionRef, output: Path | None) -> None:
    """``ctxviz import`` on another agent's session: its reader's timeline as a scenario, with what the
    agent's own log says of its count and typed compactions where its recorded calls can be read."""
    from ctxviz.errors import InputError
    from ctxviz.importer.from_timeline import timeline_to_scenario
    from ctxviz.importer.replay_recorded import agent_counts
    from ctxviz.transcripts.registry import read_target

    path, name = (target, target.name.split(".")[0]) if isinstance(target, Path) else (target.path, target.session)
    try:
        reading = read_target(target)
        counts = agent_counts(str(reading.timeline.agent), path)
        result = timeline_to_scenario(reading.timeline, name, counts)
    except InputError as error:
        fail(error.message)
    emit_scenario(result.yaml, len(result.scenario.events), reading.problems, output)


def emit_scenario(yaml: str, events: int, problems: Sequence[str], output: Path | None) -> None:
    """An imported scenario to ``output`` (stdout when None), after the first problems met reading it."""
    for problem in problems[:5]:
        click.echo(f"warning: {problem}", err=True)
    if output is None:
        click.echo(yaml, nl=False)
        return
    try:
        output.write_text(yaml, encoding="utf-8")
    except OSError as error:
        fail(f"{output}: cannot write: {error.strerror or error}")
    click.echo(f"wrote {output}: {events} events", err=True)


def print_fidelity(agent: str, path: Path, as_json: bool) -> None:
    from ctxviz.errors import InputError
    from ctxviz.importer.fidelity_timeline import timeline_fidelity
    from ctxviz.importer.replay_recorded import read_recorded

    try:
        read_recorded(agent, path)  # refused here, naming the agent, when its calls cannot be replayed
        report = timeline_fidelity(path)
    except InputError as error:
        fail(error.message)
    for problem in report.problems[:5]:
        click.echo(f"warning: {problem}", err=True)
    show_report(report, as_json, _print)


def show_report(report: AnyReport, as_json: bool, print_tables: Callable[[AnyReport], None]) -> None:
    """A fidelity report as JSON, or as the tables ``print_tables`` draws."""
    if as_json:
        click.echo(json.dumps(report.to_json(), indent=1))
        return
    print_tables(report)


def _print(fit: AgentFidelity) -> None:
    from rich.console import Console

    from ctxviz.importer.fidelity_timeline import NEXT_CALL_WIDE_TOLERANCE

    print_tables(fit.report, fit.agent, wide_tolerance=fit.next_within(NEXT_CALL_WIDE_TOLERANCE))
    rules = fit.recorded.to_json()
    predicted = rules["predicted"]
    median = "—" if rules["median_error"] is None else f"{rules['median_error']:.2f}%"
    Console().print(
        f"the recorded calls replayed under {fit.agent}'s compaction rules alone (no scenario): automatic "
        f"compactions at the same call {predicted['same_call']} of {predicted['automatic_compactions']}, within "
        f"one {predicted['within_one_call']}; first call after within 10% {predicted['next_within_10pct']} of "
        f"{predicted['next_calls']}; predicted calls' median error {median}"
    )


def print_tables(report: FidelityReport, agent: str, wide_tolerance: int | None = None) -> None:
    """A fidelity report's tables (calls, compactions, where the error comes from) and its headline;
    ``wide_tolerance``: how many first calls after a compaction are within 10%, where that is a target."""
    from rich.console import Console
    from rich.table import Table

    console = Console()
    calls = Table("call", "measured", "simulated", "error", "scored as")
    first = report.fitted.calls if report.predicted.calls else None
    for call in report.calls:
        scored = "predicted" if first is not None and call.call > first else "fitted"
        calls.add_row(str(call.call), f"{call.measured:,}", f"{call.simulated:,}", f"{call.error:.2f}%", scored)
    console.print(calls)
    if report.compactions:
        table = Table("trigger", "after call (measured)", "after call (replay)", "off by", "next call measured",
                      "replay there", "error")  # fmt: skip
        for fit in report.compactions:
            cells = (fit.measured_after_call, fit.simulated_after_call, fit.offset, fit.measured_next,
                     fit.simulated_next)  # fmt: skip
            error = f"{fit.next_error:.1f}%" if fit.next_error is not None else "—"
            table.add_row(fit.trigger, *(f"{v:,}" if v is not None else "—" for v in cells), error)
        console.print(table)
    if report.sources:
        sources = Table("where the error comes from", "calls", "mean error", "worst call")
        for source in report.sources:
            sources.add_row(source.label, str(source.calls), f"{source.mean_error:.2f}%",
                            f"{source.worst_call} ({source.worst_error:.1f}%)")  # fmt: skip
        console.print(sources)
    console.print(headline(report, agent, wide_tolerance))


def headline(report: FidelityReport, agent: str, wide_tolerance: int | None = None) -> str:
    """What the replay predicted and how well; the calls fitted by the importer are named apart."""
    from ctxviz.transcripts.protocol import counted

    name = f"[bold]{report.session}[/]: {counted(len(report.calls), 'call', 'calls')} replayed under {agent}"
    version = f" {report.version}" if report.version else ""
    if not report.predicted.calls:
        return (
            f"{name}{version}; no compaction with a call after it, so nothing was predicted: "
            f"{'the' if report.fitted.calls == 1 else 'all'} {counted(report.fitted.calls, 'call is', 'calls are')} "
            "fitted from the session's own measurements"
        )
    autos = report.automatic
    timing = (
        f"; automatic compactions at the same call {report.same_call} of {len(autos)}, within one "
        f"{report.within_one_call}"
        if autos
        else ""
    )
    nexts = report.next_calls
    after = f"; first call after within 5% {report.next_within_tolerance} of {len(nexts)}" if nexts else ""
    if nexts and wide_tolerance is not None:
        after += f", within 10% {wide_tolerance}"
    return (
        f"{name}{version}: {counted(report.predicted.calls, 'call', 'calls')} predicted (after the first "
        f"compaction), median error {report.median_error:.2f}%, 90th percentile {report.p90_error:.2f}%{timing}"
        f"{after}; {counted(report.fitted.calls, 'call', 'calls')} before it fitted"
    )
