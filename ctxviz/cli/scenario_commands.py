"""Commands over scenarios: ``run``, ``validate``, ``scenarios``, ``schema``."""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING

import click

from ctxviz.cli.common import AGENT_HELP, check_agent, check_agent_replays, fail, tokenizer_name
from ctxviz.process import one_shot

if TYPE_CHECKING:
    from ctxviz.timeline import Timeline


def _open(ctx: click.Context, scenario: str, allow_outside: bool, agent: str | None = None) -> Timeline:
    from ctxviz.errors import InputError
    from ctxviz.sources import open_timeline

    try:
        return open_timeline(scenario, tokenizer=tokenizer_name(ctx), allow_outside=allow_outside, agent=agent)
    except InputError as error:
        fail(error.message)


@click.command(short_help="Replay a scenario; print its steps and final breakdown.")
@click.argument("scenario")
@click.option("--json", "as_json", is_flag=True, help="Print the timeline as JSON (format ctxviz.timeline/1).")
@click.option(
    "--at", type=int, metavar="N", help="Show the breakdown at step N, counted from 0 (default: the last step)."
)
@click.option("--why", is_flag=True, help="Add each step's why-notes to the table.")
@click.option("--allow-outside", is_flag=True, help="Let {file: …} sizes read outside the scenario's folder.")
@click.option("--agent", metavar="NAME", callback=check_agent, help=AGENT_HELP)
@click.option(
    "--set", "set_values", multiple=True, metavar="KEY=VALUE", help="A what-if: window=1m, autocompact=off, drop=12, …"
)
@click.pass_context
def run(
    ctx: click.Context,
    scenario: str,
    as_json: bool,
    at: int | None,
    why: bool,
    allow_outside: bool,
    agent: str | None,
    set_values: tuple[str, ...],
) -> None:
    """Replay SCENARIO (a path, a built-in name, or a session .jsonl with --set) and print its steps and
    final breakdown."""
    one_shot()
    check_agent_replays(agent, scenario, set_values)
    caption = None
    if set_values:
        from dataclasses import replace

        from ctxviz.cli.compare_commands import open_what_if, parse_settings_option, what_if_caption

        what_if = open_what_if(ctx, scenario, parse_settings_option(set_values), allow_outside, agent)
        timeline, caption = what_if.timeline, what_if_caption(what_if, set_values)
        # said in the JSON too, so a file read later is not taken for the scenario as written
        timeline = replace(timeline, notices=(*timeline.notices, f"what-if: {', '.join(set_values)}"))
    else:
        timeline = _open(ctx, scenario, allow_outside, agent)
    if at is not None and not 0 <= at <= timeline.last:
        raise click.BadParameter(f"step {at} does not exist; steps are 0–{timeline.last}", param_hint="--at")
    if as_json:
        from ctxviz.report.json import dump_bytes

        sys.stdout.buffer.write(dump_bytes(timeline, at))
        return
    from rich.console import Console

    from ctxviz.report.context import context_renderable
    from ctxviz.report.steps import header_text, steps_table, why_notes

    console = Console()
    console.print(header_text(timeline))
    if caption:
        console.print(caption, style="yellow", highlight=False)
    console.print(steps_table(timeline, console.width))
    console.print()
    if why:
        console.print(why_notes(timeline))
        console.print()
    console.print(context_renderable(timeline, timeline.last if at is None else at))


@click.command(short_help="Check scenario files; every problem with its line and column.")
@click.argument("scenarios", nargs=-1, required=True)
@click.option("--allow-outside", is_flag=True, help="Let {file: …} sizes read outside the scenario's folder.")
@click.pass_context
def validate(ctx: click.Context, scenarios: tuple[str, ...], allow_outside: bool) -> None:
    """Check scenario files; print every problem with file, line and column."""
    one_shot()
    from ctxviz.errors import InputError
    from ctxviz.sources import open_timeline
    from ctxviz.transcripts.protocol import counted

    failed = False
    for scenario in scenarios:
        try:
            timeline = open_timeline(scenario, tokenizer=tokenizer_name(ctx), allow_outside=allow_outside)
        except InputError as error:
            click.echo(error.message, err=True)
            failed = True
            continue
        for notice in timeline.notices:
            click.echo(f"{scenario}: warning: {notice}", err=True)
        steps = counted(len(timeline.steps), "step", "steps")
        click.echo(f"{scenario}: ok — {steps}, peak {timeline.peak:,} tokens")
    if failed:
        ctx.exit(1)


@click.command()
@click.option("--json", "as_json", is_flag=True, help="Print the list as JSON.")
def scenarios(as_json: bool) -> None:
    """List the built-in scenarios."""
    import yaml

    from ctxviz.sources import DEFAULT_SCENARIO, builtin_scenarios

    rows = []
    for path in builtin_scenarios():
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        summary = " ".join(str(data.get("summary", "")).split())
        rows.append(
            {
                "name": path.stem,
                "title": data.get("name", ""),
                "summary": summary,
                "events": len(data.get("events", [])),
                "default": path.stem == DEFAULT_SCENARIO,
            }
        )
    if as_json:
        click.echo(json.dumps(rows, indent=1))
        return
    from rich.console import Console
    from rich.table import Table

    table = Table(box=None, header_style="bold")
    for column in ("name", "events", "summary"):
        table.add_column(column, overflow="fold")
    for row in rows:
        name = row["name"] + (" (default)" if row["default"] else "")
        first_sentence = row["summary"].split(". ")[0].rstrip(".") + "."
        table.add_row(name, str(row["events"]), f"[bold]{row['title']}[/]: {first_sentence}")
    Console().print(table)
    click.echo("Run one with: ctxviz run NAME   ·   open it with: ctxviz play NAME")


@click.command()
def schema() -> None:
    """Print the JSON schema of the scenario format (for editors)."""
    from ctxviz.profiles.scenario_fit import scenario_schema

    document = scenario_schema()
    document["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    document["title"] = "ctxviz scenario"
    click.echo(json.dumps(document, indent=1, sort_keys=True))


COMMANDS: list[click.Command] = [run, validate, scenarios, schema]
