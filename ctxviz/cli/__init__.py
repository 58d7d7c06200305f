"""The ``ctxviz`` command. A subcommand's module is imported only when that command runs (``--help``
imports them all to list them), and each imports its heavy parts (Textual, the engine, the transcript
reader) inside the command body: ``ctxviz sessions`` never pays for ``compare``'s or ``serve``'s imports."""

from __future__ import annotations

import importlib

import click

from ctxviz import __version__
from ctxviz.tokens import TOKENIZER_CHOICES

# command → the module under ctxviz.cli that defines it (in that module's COMMANDS list)
COMMAND_MODULES: dict[str, str] = {
    "run": "scenario_commands",
    "validate": "scenario_commands",
    "scenarios": "scenario_commands",
    "schema": "scenario_commands",
    "context": "transcript_commands",
    "sessions": "transcript_commands",
    "play": "tui_commands",
    "screenshot": "tui_commands",
    "agents": "agent_commands",
    "compare": "compare_commands",
    "import": "import_commands",
    "fidelity": "import_commands",
    "audit": "audit_commands",
    "watch": "live_commands",
    "statusline": "live_commands",
    "serve": "serve_commands",
}


def load_command(name: str) -> click.Command | None:
    module_name = COMMAND_MODULES.get(name)
    if module_name is None:
        return None
    commands: list[click.Command] = importlib.import_module(f"ctxviz.cli.{module_name}").COMMANDS
    return next(command for command in commands if command.name == name)


class _Group(click.Group):
    """Commands are loaded by name on first use (click's lazy-group pattern).

    ``--tokenizer`` is an option of the group, but people write it after the subcommand too
    (``ctxviz run x --tokenizer chars4``): lift it to the front before click parses."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMAND_MODULES)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        return load_command(cmd_name)

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
        from ctxviz.cli.tui_commands import play

        ctx.invoke(play)
