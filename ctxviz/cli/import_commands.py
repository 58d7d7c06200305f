"""``ctxviz import`` (a real session → a scenario) and ``ctxviz fidelity`` (the engine against the session)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import click

from ctxviz.cli.common import fail
from ctxviz.cli.fidelity_agents import (
    emit_scenario,
    import_other,
    other_agent,
    print_fidelity,
    print_tables,
    show_report,
)

if TYPE_CHECKING:
    from ctxviz.transcripts.protocol import SessionRef


def _session_target(
    file: Path | None, latest: bool, session_id: str | None, among: tuple[str, ...]
) -> Path | SessionRef:
    """The session a command was pointed at; --latest and --session look among the sessions of ``among``
    (every agent: none), found as every command finds them."""
    from ctxviz.cli.transcript_commands import choose_session
    from ctxviz.errors import InputError

    try:
        return choose_session(file, latest, session_id, None, among=among)
    except InputError as error:
        fail(error.message)


_SESSION_OPTIONS = (
    click.argument("session", required=False, type=click.Path(path_type=Path)),
    click.option("--latest", is_flag=True, help="The most recent session of any agent (this folder's project first)."),
    click.option("--session", "session_id", metavar="ID", help="A session by id (a unique prefix is enough)."),
)


def _with_session(command: Callable[..., None]) -> Callable[..., None]:
    for option in reversed(_SESSION_OPTIONS):
        command = option(command)
    return command


@click.command(name="import", short_help="Turn a real session into a scenario that replays it.")
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
    from ctxviz.importer import IMPORTED_AGENT, session_to_scenario

    target = _session_target(session, latest, session_id, among=())
    if isinstance(target, Path):
        path, other = target, other_agent(target) is not None
    else:
        path, other = target.path, target.agent != IMPORTED_AGENT
    if other:
        import_other(target, output)
        return
    try:
        result = session_to_scenario(path, keep_paths=keep_paths)
    except InputError as error:
        fail(error.message)
    emit_scenario(result.yaml, len(result.scenario.events), result.problems, output)


@click.command(short_help="Replay a session under its agent's rules and score each call.")
@_with_session
@click.option("--json", "as_json", is_flag=True, help="Print the comparison as JSON (format ctxviz.fidelity/1).")
def fidelity(session: Path | None, latest: bool, session_id: str | None, as_json: bool) -> None:
    """Replay a session under its agent's rules (claude-code, codex, pi) and compare with what it measured,
    call by call."""
    from ctxviz.errors import InputError
    from ctxviz.importer import IMPORTED_AGENT, session_to_scenario
    from ctxviz.importer.fidelity import fidelity_of
    from ctxviz.transcripts.registry import recorded_agents

    target = _session_target(session, latest, session_id, among=(IMPORTED_AGENT, *recorded_agents()))
    path = target if isinstance(target, Path) else target.path
    if (agent := other_agent(path)) is not None:
        print_fidelity(agent, path, as_json)
        return
    try:
        imported = session_to_scenario(path)
    except InputError as error:
        fail(error.message)
    for problem in imported.problems[:5]:  # as import and the other agents' fidelity warn of them
        click.echo(f"warning: {problem}", err=True)
    report = fidelity_of(imported, imported.draft.session.session_id or Path(path).stem)
    show_report(report, as_json, lambda fit: print_tables(fit, IMPORTED_AGENT))


COMMANDS = [import_session, fidelity]
