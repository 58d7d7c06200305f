"""``ctxviz audit``: what a session sent (every item's tokens × the calls it stayed) and what would have
sent less, each saving replayed. The I/O edge: it reads the session, imports it, and prints what the
pure report modules compute."""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import click

from ctxviz.cli.common import EXIT_OK, fail, tokenizer_name
from ctxviz.cli.transcript_commands import choose_session

if TYPE_CHECKING:
    from ctxviz.report.audit import CarriedCost
    from ctxviz.report.audit_findings import Finding
    from ctxviz.report.compare_runs import Comparison
    from ctxviz.report.prices import Price
    from ctxviz.scenario.model import Scenario
    from ctxviz.timeline import Timeline
    from ctxviz.transcripts.protocol import SessionRef


def _prices(path: Path | None) -> dict[str, Price]:
    from ctxviz.report.prices import PRICES, parse_prices

    if path is None:
        return PRICES
    try:
        return parse_prices(json.loads(path.read_text(encoding="utf-8")), str(path))
    except OSError as error:
        fail(f"{path}: cannot read: {error.strerror or error}")
    except json.JSONDecodeError as error:
        fail(f"{path}:{error.lineno}:{error.colno}: not JSON: {error.msg}")
    except ValueError as error:
        fail(str(error))


def _is_scenario(file: Path | None) -> bool:
    from ctxviz.sources import SCENARIO_SUFFIXES, TRANSCRIPT_SUFFIXES

    if file is None:
        return False
    return file.suffix in SCENARIO_SUFFIXES or (not file.exists() and file.suffix not in TRANSCRIPT_SUFFIXES)


@dataclass(frozen=True)
class Audited:
    """What the command prints, and what a finding's comparison replays (no scenario: none can be)."""

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


def _audit_scenario(file: Path, tokenizer: str = "cl100k") -> Audited:
    from ctxviz.engine import simulate
    from ctxviz.report.audit import carried_cost
    from ctxviz.report.audit_findings import findings
    from ctxviz.sources import open_replayable

    loaded = open_replayable(str(file), tokenizer)
    timeline = loaded.finish(simulate(loaded.scenario, source_path=loaded.display))
    cost = carried_cost(timeline)
    return Audited(timeline, cost, findings(loaded.scenario, cost), scenario=loaded.scenario)


def _audit_session(target: Path | SessionRef) -> Audited:
    from ctxviz.errors import InputError
    from ctxviz.importer import session_to_scenario
    from ctxviz.report.audit import carried_cost
    from ctxviz.report.audit_findings import findings
    from ctxviz.transcripts.registry import read_target

    timeline = read_target(target).timeline
    cost = carried_cost(timeline)
    if not cost.calls:
        raise InputError(f"{timeline.source.path or timeline.source.name}: no API call records its usage; "
                         "there is nothing measured to audit")  # fmt: skip
    try:
        imported = session_to_scenario(target if isinstance(target, Path) else target.path)
    except InputError as error:
        return Audited(timeline, cost, None, f"the findings replay an imported session: {error.message}")
    call_events = [call.after_event for call in imported.calls]
    found = findings(imported.scenario, cost, call_events=call_events, window=timeline.window)
    return Audited(timeline, cost, found, None, imported.scenario, tuple(imported.measured_per_event()))


@click.command()
@click.argument("session", required=False, type=click.Path(dir_okay=False, path_type=Path))
@click.option("--latest", is_flag=True, help="The most recent session of any agent (this folder's project first).")
@click.option("--session", "session_id", metavar="ID", help="A session by id (a unique prefix is enough).")
@click.option(
    "-p", "--project", metavar="P", help="With --latest or --session: only sessions whose project path contains P."
)
@click.option(
    "--agent", "agents", multiple=True, metavar="NAME", help="With --latest or --session: only this agent's sessions."
)
@click.option("--top", default=15, show_default=True, help="How many of the items that carried most to list.")
@click.option(
    "--prices",
    "prices_file",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="A JSON price table ($ per million tokens) instead of the one shipped.",
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON (format ctxviz.audit/1).")
@click.option("--tui", is_flag=True, help="Open the audit screen: ⏎ on a finding compares its two replays.")
@click.pass_context
def audit(
    ctx: click.Context,
    session: Path | None,
    latest: bool,
    session_id: str | None,
    project: str | None,
    agents: tuple[str, ...],
    top: int,
    prices_file: Path | None,
    as_json: bool,
    tui: bool,
) -> None:  # fmt: skip
    """Where a session's input tokens went, and what would have sent fewer.

    Every API call sends the whole window again, so an item costs its tokens times the calls it stayed
    in the window (carried). SESSION is a session file of any agent whose log records usage, or a
    scenario (its replay is audited). Each finding's saving is two replays of the session (as recorded
    and under the what-if it names), never a formula.
    """
    from ctxviz.errors import InputError
    from ctxviz.process import one_shot
    from ctxviz.report.audit_json import audit_dict, cost_json
    from ctxviz.report.prices import input_cost

    if not tui:
        one_shot()
    elif not (sys.stdin.isatty() and sys.stdout.isatty()):
        fail("ctxviz audit --tui needs a terminal (its input or output is not one); try without --tui")
    table = _prices(prices_file)
    try:
        if _is_scenario(session):
            assert session is not None
            audited = _audit_scenario(session, tokenizer_name(ctx))
        else:
            audited = _audit_session(choose_session(session, latest, session_id, project, agents))
    except InputError as error:
        fail(error.message)
    timeline, cost = audited.timeline, audited.cost
    sizes = [timeline.steps[step].used for step in cost.call_steps]
    prices_from = str(prices_file) if prices_file else None
    money = cost_json(input_cost(timeline.model, sizes, table), timeline.model, prices_from)
    document = audit_dict(timeline, cost, audited.findings, money, audited.not_replayed)
    if tui:
        from ctxviz.tui.audit_app import AuditApp

        AuditApp(timeline, document, audited.findings, audited.comparison).run()
        return
    if as_json:
        click.echo(json.dumps(document, indent=1, ensure_ascii=False))
    else:
        from rich.console import Console

        from ctxviz.report.audit_text import audit_renderable

        Console().print(audit_renderable(document, top))
    sys.exit(EXIT_OK)


COMMANDS: list[click.Command] = [audit]
