"""Commands that open the TUI: ``play`` (also what ``ctxviz`` alone runs) and ``screenshot``."""

from __future__ import annotations

from pathlib import Path

import click

from ctxviz.cli.common import AGENT_HELP, check_agent, fail, tokenizer_name


@click.command()
@click.argument("path", required=False)
@click.option("--allow-outside", is_flag=True, help="Let a scenario's file: sizes read outside its folder.")
@click.option("--latest", is_flag=True, help="The most recent session of any agent (as for `context`).")
@click.option("--session", "session_id", metavar="ID", help="A session by id (a unique prefix is enough).")
@click.option(
    "-p", "--project", metavar="P", help="With --latest or --session: only sessions whose project contains P."
)
@click.option("--agent", callback=check_agent, help=AGENT_HELP + " With --latest or --session: only its sessions.")
@click.pass_context
def play(
    ctx: click.Context,
    path: str | None,
    allow_outside: bool,
    latest: bool = False,
    session_id: str | None = None,
    project: str | None = None,
    agent: str | None = None,
) -> None:
    """Open a scenario or a transcript in the TUI (default: the built-in default scenario)."""
    from ctxviz.errors import InputError
    from ctxviz.sources import open_timeline

    try:
        if latest or session_id is not None:
            from ctxviz.cli.transcript_commands import choose_session
            from ctxviz.transcripts.registry import read_target

            agents = (agent,) if agent else ()  # with --latest or --session, --agent names whose sessions
            target = choose_session(Path(path) if path else None, latest, session_id, project, agents)
            timeline = read_target(target).timeline
        else:
            timeline = open_timeline(path, tokenizer=tokenizer_name(ctx), allow_outside=allow_outside, agent=agent)
    except InputError as error:
        fail(error.message)
    from ctxviz.tui.app import run_app

    run_app(timeline)


@click.command()
@click.argument("path", required=False)
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("screenshots"),
    show_default=True,
    help="Folder to write the SVGs into.",
)
@click.pass_context
def screenshot(ctx: click.Context, path: str | None, out: Path) -> None:
    """Write SVG screenshots of the TUI's main views (default scenario unless PATH is given)."""
    import asyncio

    from ctxviz.errors import InputError
    from ctxviz.sources import open_timeline

    try:
        timeline = open_timeline(path, tokenizer=tokenizer_name(ctx))
    except InputError as error:
        fail(error.message)
    from ctxviz.tui.screenshots import take_screenshots

    for written in asyncio.run(take_screenshots(timeline, out)):
        click.echo(written)


COMMANDS: list[click.Command] = [play, screenshot]
