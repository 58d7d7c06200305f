"""Commands that open the TUI: ``play`` (also what ``ctxviz`` alone runs) and ``screenshot``."""

from __future__ import annotations

from functools import partial
from pathlib import Path

import click

from ctxviz.cli.common import AGENT_HELP, check_agent, check_agent_replays, fail, tokenizer_name


@click.command(short_help="Open a scenario or a session in the TUI.")
@click.argument("path", required=False)
@click.option("--allow-outside", is_flag=True, help="Let a scenario's file: sizes read outside its folder.")
@click.option("--latest", is_flag=True, help="The most recent session of any agent (as for `context`).")
@click.option("--session", "session_id", metavar="ID", help="A session by id (a unique prefix is enough).")
@click.option(
    "-p", "--project", metavar="P", help="With --latest or --session: only sessions whose project contains P."
)
@click.option(
    "--agent", metavar="NAME", callback=check_agent, help=AGENT_HELP + " With --latest or --session: only its sessions."
)
@click.option(
    "--set", "set_values", multiple=True, metavar="KEY=VALUE", help="A what-if: window=1m, autocompact=off, drop=12, …"
)
@click.pass_context
def play(
    ctx: click.Context,
    path: str | None,
    allow_outside: bool,
    latest: bool = False,
    session_id: str | None = None,
    project: str | None = None,
    agent: str | None = None,
    set_values: tuple[str, ...] = (),
) -> None:
    """Open a scenario or a transcript in the TUI (default: the built-in default scenario)."""
    from ctxviz.errors import InputError
    from ctxviz.sources import last_call_from_end, open_timeline

    timeline = None
    if not (latest or session_id is not None):
        check_agent_replays(agent, path, set_values)
    if latest or session_id is not None:
        from ctxviz.cli.transcript_commands import choose_session
        from ctxviz.transcripts.registry import read_target

        agents = (agent,) if agent else ()  # with --latest or --session, --agent narrows the sessions
        agent = None  # and replays nothing: a session is read as it was recorded
        try:
            target = choose_session(Path(path) if path else None, latest, session_id, project, agents)
            path = str(target if isinstance(target, Path) else target.path)
            if not set_values:  # a session found on disk is read by its own reader (one of a database's)
                timeline = read_target(target).timeline
        except InputError as error:
            fail(error.message)
    if set_values:
        from ctxviz.cli.compare_commands import open_what_if, parse_settings_option

        what_if = open_what_if(ctx, path, parse_settings_option(set_values), allow_outside, agent)
        if not has_terminal():
            fail("ctxviz play needs a terminal (its input or output is not one); try `ctxviz run` for a table")
        from ctxviz.tui.compare_app import run_what_if

        run_what_if(what_if, set_values)
        return
    read_whole = None
    try:
        # a big session's last call, read from its end, shows while the whole file is read in the app
        first = last_call_from_end(path) if timeline is None and agent is None else None
        if first is not None:
            timeline, read_whole = first, partial(open_timeline, path, tokenizer=tokenizer_name(ctx))
        elif timeline is None:
            timeline = open_timeline(path, tokenizer=tokenizer_name(ctx), allow_outside=allow_outside, agent=agent)
    except InputError as error:
        fail(error.message)
    if not has_terminal():  # after reading the input: its errors come first, wherever they are printed
        fail("ctxviz play needs a terminal (its input or output is not one); try `ctxviz run` for a table")
    from ctxviz.tui.app import run_app, run_from_end

    if read_whole is None:
        run_app(timeline)
        return
    from ctxviz.process import ends_with_the_command

    ends_with_the_command()  # q quits even while the whole read runs in its thread
    try:
        run_from_end(timeline, read_whole)
    except InputError as error:
        fail(error.message)


def has_terminal() -> bool:
    """Whether the TUI can draw here: a terminal on both ends, or textual-serve's web driver."""
    import os
    import sys

    return bool(os.environ.get("TEXTUAL_DRIVER")) or (sys.stdin.isatty() and sys.stdout.isatty())


@click.command(short_help="Write SVG screenshots of the TUI's main views.")
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
    from ctxviz.tui.screenshots import scenes_for, take_screenshots

    for written in asyncio.run(take_screenshots(timeline, out)):
        click.echo(written)
    missing = scenes_for(timeline)[1]
    if missing:
        click.echo(f"not written (nothing to show in {timeline.source.name}): {', '.join(missing)}", err=True)


COMMANDS: list[click.Command] = [play, screenshot]
