"""Commands over real transcripts: ``context`` and ``sessions``."""

from __future__ import annotations

import click

COMMANDS: list[click.Command] = []
