"""What every subcommand shares: the exit codes and how a bad input is reported."""

from __future__ import annotations

import sys
from typing import NoReturn

import click

from ctxviz.errors import FOLDER_GIVEN

EXIT_OK, EXIT_BAD_INPUT = 0, 1  # click itself exits 2 on a usage error


def fail(message: str) -> NoReturn:
    """Report bad input (a located, plain message — never a traceback) and exit 1."""
    message = message.rstrip("\n")
    context = click.get_current_context(silent=True)
    if FOLDER_GIVEN in message and context is not None and any(p.name == "latest" for p in context.command.params):
        message += " (or use --session / --latest)"  # only where this command has them
    click.echo(message, err=True)
    sys.exit(EXIT_BAD_INPUT)


def check_agent(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """``--agent NAME``: a known profile, or a usage error (exit 2) that lists the valid names."""
    if value is None:
        return None
    from ctxviz.profiles import UnknownAgent, get_profile

    try:
        get_profile(value)
    except UnknownAgent as error:
        raise click.BadParameter(error.message, ctx=ctx, param=param) from None
    return value


def check_agent_replays(agent: str | None, path: str | None, set_values: tuple[str, ...]) -> None:
    """``--agent`` replays a scenario; a session file is read as it was recorded unless ``--set`` replays
    it. Given one alone, it is a usage error (exit 2), as ``--agent`` with a file is in ``context``."""
    from ctxviz.sources import is_transcript_name

    if agent is not None and path is not None and not set_values and is_transcript_name(path):
        raise click.UsageError(
            "--agent replays a scenario; a session file is read as it was recorded "
            "(with --set, or with `ctxviz compare --agents`, it is replayed under another agent)"
        )


AGENT_HELP = "Replay the scenario under this agent's profile (default: the scenario's agent:, else claude-code)."


def tokenizer_name(ctx: click.Context) -> str:
    root = ctx.find_root()
    return str((root.obj or {}).get("tokenizer", "cl100k"))
