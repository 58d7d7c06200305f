"""The ``ctxviz`` command. Each subcommand module imports its heavy parts (Textual, the engine, the
transcript reader) inside the command body, so ``ctxviz --help`` stays fast and never imports Textual."""

from __future__ import annotations

import click

from ctxviz import __version__
from ctxviz.cli import (
    agent_commands,
    import_commands,
    live_commands,
    scenario_commands,
    transcript_commands,
    tui_commands,
)
from ctxviz.tokens import TOKENIZER_CHOICES


@click.group(invoke_without_command=True, context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--tokenizer",
    type=click.Choice(TOKENIZER_CHOICES),
    default="cl100k",
    show_default=True,
    help="How text is counted: cl100k_base (offline) or a chars/4 estimate.",
)
@click.version_option(__version__, prog_name="ctxviz")
@click.pass_context
def main(ctx: click.Context, tokenizer: str) -> None:
    """See what fills a coding agent's context window.

    With no command, opens the TUI on the built-in default scenario.
    """
    ctx.obj = {"tokenizer": tokenizer}
    if ctx.invoked_subcommand is None:
        ctx.invoke(tui_commands.play)


for module in (agent_commands, scenario_commands, transcript_commands, tui_commands, import_commands, live_commands):
    for command in module.COMMANDS:
        main.add_command(command)
