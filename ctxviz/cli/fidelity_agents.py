"""``ctxviz import`` and ``ctxviz fidelity`` on a session another agent wrote: which agent; for ``import``
the scenario its reader's timeline makes, for ``fidelity`` the replay under that agent's rules (Codex,
pi), printed or as JSON."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

import click

from ctxviz.cli.common import fail

if TYPE_CHECKING:
    from ctxviz.importer.replay_recorded import RecordedReport


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


def import_other(path: Path, output: Path | None) -> None:
    """``ctxviz import`` on another agent's session: its reader's timeline as a scenario."""
    from ctxviz.errors import InputError
    from ctxviz.importer.from_timeline import timeline_to_scenario
    from ctxviz.transcripts.registry import read_target

    try:
        reading = read_target(path)
        result = timeline_to_scenario(reading.timeline, path.name.split(".")[0])
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
    from ctxviz.importer.replay_recorded import recorded_fidelity

    try:
        report = recorded_fidelity(agent, path)
    except InputError as error:
        fail(error.message)
    for problem in report.session.problems[:5]:
        click.echo(f"warning: {problem}", err=True)
    show_report(report, as_json, _print)


def show_report(report: AnyReport, as_json: bool, print_tables: Callable[[AnyReport], None]) -> None:
    """A fidelity report as JSON, or as the tables ``print_tables`` draws."""
    if as_json:
        click.echo(json.dumps(report.to_json(), indent=1))
        return
    print_tables(report)


def _print(report: RecordedReport) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console()
    document = report.to_json()
    first = report.first_predicted
    calls = Table("call", "measured", "simulated", "error", "scored as")
    for row in document["calls"]:
        error = abs(row["simulated"] - row["measured"]) / row["measured"] * 100 if row["measured"] else 0.0
        scored = "predicted" if first is not None and row["call"] >= first else "fitted"
        calls.add_row(str(row["call"]), f"{row['measured']:,}", f"{row['simulated']:,}", f"{error:.2f}%", scored)
    console.print(calls)
    if report.compactions:
        table = Table("compaction", "after call (measured)", "after call (replay)", "off by", "next call measured",
                      "replay there", "error")  # fmt: skip
        for c in document["compactions"]:
            cells = (c["measured_after_call"], c["simulated_after_call"], c["offset"], c["measured_next"],
                     c["simulated_next"])  # fmt: skip
            error = f"{c['next_error']:.1f}%" if c["next_error"] is not None else "—"
            table.add_row(c["trigger"], *(f"{v:,}" if v is not None else "—" for v in cells), error)
        console.print(table)
    console.print(_headline(report, document))


def _headline(report: RecordedReport, document: dict[str, object]) -> str:
    session = report.session
    name = f"[bold]{session.session}[/]: {len(session.calls)} calls replayed under {session.agent}"
    name += f" {session.version}" if session.version else ""
    predicted = document["predicted"]
    fitted = document["fitted"]
    assert isinstance(predicted, dict) and isinstance(fitted, dict)
    if not predicted["calls"]:
        return (
            f"{name}; no compaction with a call after it, so nothing was predicted: all {fitted['calls']} calls fitted"
        )
    return (
        f"{name}: {predicted['calls']} calls predicted (after the first compaction), median error "
        f"{document['median_error']:.2f}%, 90th percentile {document['p90_error']:.2f}%; automatic compactions at "
        f"the same call {predicted['same_call']} of {predicted['automatic_compactions']}, within one "
        f"{predicted['within_one_call']}; first call after within 10% {predicted['next_within_10pct']} of "
        f"{predicted['next_calls']}; {fitted['calls']} calls before it fitted"
    )
