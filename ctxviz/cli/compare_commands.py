"""``ctxviz compare``: one scenario (or real session) under several agents or what-if settings, and the
``--set`` handling that ``run --set`` and ``play --set`` share with it."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

import click

from ctxviz.cli.common import fail, tokenizer_name
from ctxviz.process import one_shot

if TYPE_CHECKING:
    from ctxviz.report.compare_runs import Comparison, WhatIf
    from ctxviz.whatif import Settings


def what_if_caption(what_if: WhatIf, what_ifs: Sequence[str]) -> str:
    """One line for ``run --set``'s text: what was replayed, and how to see it without the what-ifs (the
    table of a replayed session looks like the session's own)."""
    if what_if.reference_name == "measured":
        return (
            f"what-if {' '.join(what_ifs)}: {what_if.name} replayed under these settings, not as it ran "
            "(without --set, `ctxviz run` shows the session as recorded)"
        )
    return f"what-if {' '.join(what_ifs)}: {what_if.name} replayed under these settings (without --set: as written)"


def parse_settings_option(values: Sequence[str]) -> Settings:
    """``--set`` values → Settings; a bad key or value is a usage error (exit 2) naming the valid keys."""
    from ctxviz.errors import InputError
    from ctxviz.whatif import parse_settings

    try:
        return parse_settings(values)
    except InputError as error:
        raise click.BadParameter(error.message, param_hint="--set") from None


def open_what_if(
    ctx: click.Context, path: str | None, settings: Settings, allow_outside: bool, agent: str | None = None
) -> WhatIf:
    """``path`` replayed under ``settings`` by ``agent`` (see ``replay_what_if``); bad input ends the command."""
    from ctxviz.errors import InputError
    from ctxviz.report.compare_runs import replay_what_if
    from ctxviz.sources import open_replayable

    try:
        return replay_what_if(open_replayable(path, tokenizer_name(ctx), allow_outside), settings, agent)
    except InputError as error:
        fail(error.message)


def build_comparison(
    ctx: click.Context, path: str | None, agents: str | None, settings: Settings, allow_outside: bool
) -> Comparison:
    """``--agents`` as given; else, with unscoped what-ifs, the scenario's agent as written against the
    same agent with the settings; else every profile."""
    from ctxviz.errors import InputError
    from ctxviz.report.compare_runs import agent_names, check_scopes, compare, parse_run_specs, what_if_pair
    from ctxviz.sources import open_replayable

    try:
        loaded = open_replayable(path, tokenizer_name(ctx), allow_outside)
    except InputError as error:
        fail(error.message)
    try:
        if agents is None and settings and not settings.scopes:
            specs, settings = what_if_pair(loaded.scenario.agent, settings)
        else:
            specs = parse_run_specs(agents, agent_names())
            check_scopes(settings, specs)
    except InputError as error:
        raise click.UsageError(error.message) from None
    try:
        comparison = compare(loaded.scenario, specs, settings, loaded.display)
    except InputError as error:
        fail(error.message)
    runs = tuple(replace(run, timeline=loaded.finish(run.timeline)) for run in comparison.runs)
    return replace(comparison, runs=runs, measured=loaded.measured)


@click.command(short_help="One scenario or session under several agents or what-ifs.")
@click.argument("scenario")
@click.option("--agents", metavar="A,B,LABEL=AGENT", help="The runs, by agent (default: every profile).")
@click.option(
    "--set",
    "set_values",
    multiple=True,
    metavar="KEY=VALUE",
    help="A what-if (window=1m, autocompact=off, drop=12, …); AGENT.KEY or LABEL.KEY scopes it to some runs.",
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON (format ctxviz.compare/1).")
@click.option(
    "--tui/--table",
    "tui",
    default=None,
    help="Open the side-by-side screen, or print tables (default: the screen on a terminal, tables in a pipe).",
)
@click.option(
    "--screenshot",
    type=click.Path(dir_okay=False, path_type=Path),
    metavar="OUT.svg",
    help="Write an SVG of the compare screen (160×50, at the event where the runs differ most) instead.",
)
@click.option("--allow-outside", is_flag=True, help="Let {file: …} sizes read outside the scenario's folder.")
@click.pass_context
def compare(
    ctx: click.Context,
    scenario: str,
    agents: str | None,
    set_values: tuple[str, ...],
    as_json: bool,
    tui: bool | None,
    screenshot: Path | None,
    allow_outside: bool,
) -> None:
    """Replay SCENARIO (a file, a built-in name or a session .jsonl) under several agents side by side.

    Without --agents every profile runs. With --set and no --agents, the scenario's own agent runs twice:
    as written and with the settings.
    """
    settings = parse_settings_option(set_values)
    terminal = sys.stdin.isatty() and sys.stdout.isatty()
    if screenshot is None and (as_json or tui is False or (tui is None and not terminal)):
        one_shot()  # prints JSON or tables and ends: no collector passes over the runs, no teardown
    comparison = build_comparison(ctx, scenario, agents, settings, allow_outside)
    if screenshot is not None:
        import asyncio

        from ctxviz.tui.compare_app import take_screenshot

        screenshot.write_text(asyncio.run(take_screenshot(comparison)), encoding="utf-8")
        click.echo(screenshot)
        return
    if as_json:
        from ctxviz.report.compare_json import dump_bytes

        sys.stdout.buffer.write(dump_bytes(comparison))
        return
    if tui and not terminal:
        fail("ctxviz compare --tui needs a terminal (its input or output is not one); try --table or --json")
    if tui or (tui is None and terminal):
        from ctxviz.tui.compare_app import run_compare

        run_compare(comparison)
        return
    from rich.console import Console

    from ctxviz.report.compare import comparison_renderable

    console = Console()
    # every line is already cut to the width: cropping would only measure 10,000s of lines again
    console.print(comparison_renderable(comparison, console.width), crop=False)


COMMANDS: list[click.Command] = [compare]
