"""Commands that open the TUI: ``play`` (also what ``ctxviz`` alone runs) and ``screenshot``."""

from __future__ import annotations

from pathlib import Path

import click

from ctxviz.cli.common import AGENT_HELP, check_agent, fail, tokenizer_name


@click.command()
@click.argument("path", required=False)
@click.option("--allow-outside", is_flag=True, help="Let a scenario's file: sizes read outside its folder.")
@click.option("--agent", callback=check_agent, help=AGENT_HELP)
@click.option(
    "--set", "set_values", multiple=True, metavar="KEY=VALUE", help="A what-if: window=1m, autocompact=off, drop=12, …"
)
@click.pass_context
def play(
    ctx: click.Context, path: str | None, allow_outside: bool, agent: str | None, set_values: tuple[str, ...]
) -> None:
    """Open a scenario or a transcript in the TUI (default: the built-in default scenario)."""
    import os
    import sys

    # under ctxviz serve the app draws through textual-serve's web driver, not a terminal
    web = bool(os.environ.get("TEXTUAL_DRIVER"))
    if not web and not (sys.stdin.isatty() and sys.stdout.isatty()):
        fail("ctxviz play needs a terminal (its input or output is not one); try `ctxviz run` for a table")
    from ctxviz.errors import InputError
    from ctxviz.sources import open_timeline

    if set_values:
        from ctxviz.cli.compare_commands import open_what_if, parse_settings_option
        from ctxviz.tui.compare_app import run_what_if

        run_what_if(open_what_if(ctx, path, parse_settings_option(set_values), allow_outside, agent), set_values)
        return
    try:
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
