"""What every subcommand shares: the exit codes and how a bad input is reported."""

from __future__ import annotations

import sys
from typing import NoReturn

import click

EXIT_OK, EXIT_BAD_INPUT = 0, 1  # click itself exits 2 on a usage error


def fail(message: str) -> NoReturn:
    """Report bad input (a located, plain message — never a traceback) and exit 1."""
    click.echo(message.rstrip("\n"), err=True)
    sys.exit(EXIT_BAD_INPUT)


def tokenizer_name(ctx: click.Context) -> str:
    root = ctx.find_root()
    return (root.obj or {}).get("tokenizer", "cl100k")
