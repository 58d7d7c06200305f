"""The ``ctxviz`` command. Each subcommand module imports its heavy parts (Textual, the engine, the
transcript reader) inside the command body, so ``ctxviz --help`` stays fast and never imports Textual."""

from __future__ import annotations

import click

from ctxviz import __version__
from ctxviz.cli import (
    agent_commands,
    compare_commands,
    import_commands,
    live_commands,
    scenario_commands,
    serve_commands,
    transcript_commands,
    tui_commands,
)
from ctxviz.tokens import TOKENIZER_CHOICES


class _Group(click.Group):
    """``--tokenizer`` is an option of the group, but people write it after the subcommand too
    (``ctxviz run x --tokenizer chars4``): lift it to the front before click parses."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        lifted: list[str] = []
        rest: list[str] = []
        words = iter(args)
        for word in words:
            if word == "--":
                rest += [word, *words]
                break
            if word == "--tokenizer":
                lifted += [word, next(words, "")]
            elif word.startswith("--tokenizer="):
                lifted.append(word)
            else:
                rest.append(word)
        return super().parse_args(ctx, lifted + rest)


@click.group(cls=_Group, invoke_without_command=True, context_settings={"help_option_names": ["-h", "--help"]})
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


COMMAND_MODULES = (
    scenario_commands,
    transcript_commands,
    tui_commands,
    agent_commands,
    compare_commands,
    import_commands,
    live_commands,
    serve_commands,
)
for module in COMMAND_MODULES:
    for command in module.COMMANDS:
        main.add_command(command)
