"""``ctxviz audit``: what a session sent (every item's tokens × the calls it stayed) and what would have
sent less, each saving replayed. The I/O edge: it reads the session, imports it, and prints what the
pure report modules compute."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from ctxviz.cli.common import EXIT_OK, fail, tokenizer_name
from ctxviz.cli.transcript_commands import choose_session

if TYPE_CHECKING:
    from ctxviz.report.prices import Price


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


@click.command(short_help="Where a session's input tokens went; what would have sent fewer.")
@click.argument("session", required=False, type=click.Path(path_type=Path))
@click.option("--latest", is_flag=True, help="The most recent session of any agent (this folder's project first).")
@click.option("--session", "session_id", metavar="ID", help="A session by id (a unique prefix is enough).")
@click.option(
    "-p", "--project", metavar="P", help="With --latest or --session: only sessions whose project path contains P."
)
@click.option(
    "--agent", "agents", multiple=True, metavar="NAME", help="With --latest or --session: only this agent's sessions."
)
@click.option(
    "--top",
    metavar="N",
    type=click.IntRange(min=0),
    default=15,
    show_default=True,
    help="How many of the items that carried most to list.",
)
@click.option(
    "--prices",
    "prices_file",
    type=click.Path(path_type=Path),
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
    from ctxviz.audit_source import audit_scenario, audit_session
    from ctxviz.errors import InputError
    from ctxviz.process import one_shot

    if not tui:
        one_shot()
    elif not (sys.stdin.isatty() and sys.stdout.isatty()):
        fail("ctxviz audit --tui needs a terminal (its input or output is not one); try without --tui")
    table = _prices(prices_file)
    try:
        if _is_scenario(session):
            assert session is not None
            audited = audit_scenario(session, tokenizer_name(ctx))
        else:
            audited = audit_session(choose_session(session, latest, session_id, project, agents))
    except InputError as error:
        fail(error.message)
    document = audited.document(table, str(prices_file) if prices_file else None)
    if tui:
        from ctxviz.tui.audit_app import AuditApp

        AuditApp(audited.timeline, document, audited.findings, audited.comparison).run()
        return
    if as_json:
        from ctxviz.transcripts.safe import safe_json_text

        click.echo(safe_json_text(json.dumps(document, indent=1, ensure_ascii=False)))
    else:
        from rich.console import Console

        from ctxviz.report.audit_text import audit_renderable

        Console().print(audit_renderable(document, top))
    sys.exit(EXIT_OK)


COMMANDS: list[click.Command] = [audit]
