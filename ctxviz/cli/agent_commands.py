"""``ctxviz agents``: every agent profile with its default model, window, thresholds and each number's
source and confidence (documented / read in source at a commit / measured on real sessions / assumed)."""

from __future__ import annotations

import json
from typing import Any

import click

FORMAT = "ctxviz.agents/1"


def _plain(value: Any) -> Any:
    """A number's value as JSON: tuples as lists, model specs as objects, mappings with sorted keys."""
    import dataclasses

    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in sorted(value.items())}
    if isinstance(value, tuple | list | set | frozenset):
        return [_plain(v) for v in value]
    return value


def agents_document(names: tuple[str, ...] | None = None) -> dict[str, Any]:
    """The stable ``ctxviz.agents/1`` document: one entry per profile (``names``, or all of them in the
    registry's order). Raises ``UnknownAgent``."""
    from ctxviz.profiles import AGENT_NAMES, get_profile
    from ctxviz.profiles.base import provenance

    agents = []
    for name in names or AGENT_NAMES:
        profile = get_profile(name)
        spec = profile.model_window(profile.default_model)
        limits = profile.thresholds.thresholds(spec.window, spec.max_output)
        numbers = [
            {"name": key, "value": _plain(value), "confidence": where.confidence, "source": where.source}
            for key, (value, where) in provenance(profile.numbers).items()
        ]
        agents.append(
            {
                "name": profile.name,
                "title": profile.title,
                "default_model": spec.model,
                "window": spec.window,
                "max_output": spec.max_output,
                "thresholds": {
                    "autocompact": limits.autocompact,
                    "warning": limits.warning,
                    "blocking": limits.blocking,
                    "buffer": limits.buffer,
                },
                "trigger": profile.thresholds.formula(),
                "subagents": list(profile.subagents.types),
                "assumed": sum(1 for n in numbers if n["confidence"] == "assumed"),
                "numbers": numbers,
            }
        )
    return {"format": FORMAT, "agents": agents}


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return ", ".join(value)
    if isinstance(value, dict | list):
        return f"({len(value)} entries)"
    return str(value)


@click.command(short_help="Each agent profile: window, thresholds, and their sources.")
@click.argument("names", nargs=-1, metavar="[AGENT]...")
@click.option("--json", "as_json", is_flag=True, help=f"Print the profiles as JSON (format {FORMAT}).")
@click.option("--numbers/--no-numbers", default=True, help="List every number with its source (default: yes).")
def agents(names: tuple[str, ...], as_json: bool, numbers: bool) -> None:
    """List the agent profiles (all, or the AGENTs named): default model, window, thresholds, and where
    each number comes from — documented, read in source at a commit, or assumed."""
    from ctxviz.profiles import UnknownAgent

    try:
        document = agents_document(names)
    except UnknownAgent as error:  # a usage error (exit 2), as an unknown --agent is everywhere else
        raise click.BadParameter(error.message, param_hint="AGENT") from None
    if as_json:
        click.echo(json.dumps(document, indent=1, ensure_ascii=False))
        return
    from rich.console import Console
    from rich.table import Table

    console = Console()
    summary = Table(title="Agent profiles", header_style="bold", box=None)
    figures = ("window", "auto-compact", "assumed")
    for column in ("agent", "default model", *figures[:2], "subagents", figures[2]):
        summary.add_column(
            column,
            justify="right" if column in figures else "left",
            no_wrap=column == "agent" or column in figures,  # an agent's name and a figure are never cut
        )
    for agent in document["agents"]:
        trigger = agent["thresholds"]["autocompact"]
        summary.add_row(
            agent["name"],
            agent["default_model"],
            f"{agent['window']:,}",
            f"{trigger:,}" if trigger is not None else "off",
            ", ".join(agent["subagents"]) or "none",
            f"{agent['assumed']} of {len(agent['numbers'])}",
        )
    console.print(summary)
    # each rule on a line of its own: in a column, "min(20,000," was cut at 80 columns
    rules = Table("agent", "auto-compact rule", title="When each compacts", header_style="bold", box=None)
    rules.columns[0].no_wrap = True
    for agent in document["agents"]:
        rules.add_row(agent["name"], agent["trigger"])
    console.print(rules)
    if not numbers:
        return
    colours = {"documented": "green", "source": "cyan", "measured": "blue", "assumed": "yellow"}
    for agent in document["agents"]:
        table = Table(title=f"{agent['title']} ({agent['name']})", header_style="bold", box=None)
        table.add_column("number")
        table.add_column("value", justify="right", overflow="fold")
        table.add_column("confidence")
        table.add_column("source", overflow="fold")
        for row in agent["numbers"]:
            colour = colours.get(row["confidence"], "white")
            table.add_row(row["name"], _value(row["value"]), f"[{colour}]{row['confidence']}[/]", row["source"])
        console.print()
        console.print(table)


COMMANDS: list[click.Command] = [agents]
