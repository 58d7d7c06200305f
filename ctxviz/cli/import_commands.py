"""``ctxviz import`` (a real session → a scenario) and ``ctxviz fidelity`` (the engine against the session)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import click

from ctxviz.cli.common import fail
from ctxviz.cli.fidelity_agents import emit_scenario, import_other, other_agent, print_fidelity, show_report

if TYPE_CHECKING:
    from ctxviz.importer.fidelity import FidelityReport


def _session_file(file: Path | None, latest: bool, session_id: str | None) -> Path:
    """The session file a command was pointed at; --latest and --session look among the sessions it
    imports (found as every command finds them)."""
    from ctxviz.cli.transcript_commands import choose_session
    from ctxviz.errors import InputError
    from ctxviz.importer import IMPORTED_AGENT

    try:
        target = choose_session(file, latest, session_id, None, among=(IMPORTED_AGENT,))
    except InputError as error:
        fail(error.message)
    return target if isinstance(target, Path) else target.path


_SESSION_OPTIONS = (
    click.argument("session", required=False, type=click.Path(path_type=Path)),
    click.option("--latest", is_flag=True, help="The most recent session (of the current project if it has one)."),
    click.option("--session", "session_id", default=None, help="A session by its id (or the start of it)."),
)


def _with_session(command: Callable[..., None]) -> Callable[..., None]:
    for option in reversed(_SESSION_OPTIONS):
        command = option(command)
    return command


@click.command(name="import")
@_with_session
@click.option("-o", "--output", type=click.Path(path_type=Path), default=None, help="Write the scenario here.")
@click.option("--keep-paths", is_flag=True, help="Keep paths as recorded (home folder names included).")
def import_session(
    session: Path | None, latest: bool, session_id: str | None, output: Path | None, keep_paths: bool
) -> None:
    """Turn a session into a scenario that replays its main chain: a Claude Code session, or another
    agent's whose log records usage (Codex, pi, gemini-cli, opencode) as a scenario of that agent.

    Sizes come from the measured API usage where the transcript allows it (for Claude Code each event's
    comment says whether its size is measured or estimated). The session's automatic compactions are
    left to the engine: `ctxviz fidelity` shows whether it compacts at the same place.
    """
    from ctxviz.errors import InputError
    from ctxviz.importer import session_to_scenario

    path = _session_file(session, latest, session_id)
    if other_agent(path) is not None:
        import_other(path, output)
        return
    try:
        result = session_to_scenario(path, keep_paths=keep_paths)
    except InputError as error:
        fail(error.message)
    emit_scenario(result.yaml, len(result.scenario.events), result.problems, output)


@click.command()
@_with_session
@click.option("--json", "as_json", is_flag=True, help="Print the comparison as JSON (format ctxviz.fidelity/1).")
def fidelity(session: Path | None, latest: bool, session_id: str | None, as_json: bool) -> None:
    """Replay a session under its agent's rules (claude-code, codex, pi) and compare with what it measured,
    call by call."""
    from ctxviz.errors import InputError
    from ctxviz.importer import fidelity as measure

    path = _session_file(session, latest, session_id)
    if (agent := other_agent(path)) is not None:
        print_fidelity(agent, path, as_json)
        return
    try:
        report = measure(path)
    except InputError as error:
        fail(error.message)
    show_report(report, as_json, _print_report)


def _print_report(report: FidelityReport) -> None:
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
        table = Table("compaction", "after call (measured)", "after call (replay)", "off by", "next call measured",
                      "replay there", "error")  # fmt: skip
        for fit in report.compactions:
            cells = (fit.measured_after_call, fit.simulated_after_call, fit.offset, fit.measured_next,
                     fit.simulated_next)  # fmt: skip
            error = f"{fit.next_error:.1f}%" if fit.next_error is not None else "—"
            table.add_row(fit.trigger, *(f"{v:,}" if v is not None else "—" for v in cells), error)
        console.print(table)
    sources = Table("where the error comes from", "calls", "mean error", "worst call")
    for source in report.sources:
        sources.add_row(source.label, str(source.calls), f"{source.mean_error:.2f}%",
                        f"{source.worst_call} ({source.worst_error:.1f}%)")  # fmt: skip
    console.print(sources)
    console.print(_headline(report))


def _headline(report: FidelityReport) -> str:
    """What the replay predicted and how well; the calls fitted by the importer are named apart."""
    name = f"[bold]{report.session}[/]: {len(report.calls)} calls replayed under claude-code"
    version = f" {report.version}" if report.version else ""
    if not report.predicted.calls:
        return (
            f"{name}{version}; no compaction with a call after it, so nothing was predicted: all "
            f"{report.fitted.calls} calls are fitted from the session's own measurements"
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
    return (
        f"{name}{version}: {report.predicted.calls} calls predicted (after the first compaction), median "
        f"error {report.median_error:.2f}%, 90th percentile {report.p90_error:.2f}%{timing}{after}; "
        f"{report.fitted.calls} calls before it fitted"
    )


COMMANDS = [import_session, fidelity]
