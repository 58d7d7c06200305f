"""Commands for a session still being written: ``watch`` (the TUI, following it) and ``statusline``
(one line for Claude Code's status bar; the installed ``ctxviz`` answers it before importing click)."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

import click

from ctxviz.cli.common import fail

if TYPE_CHECKING:
    from ctxviz.live.watch import Watch
    from ctxviz.timeline import Timeline

WAIT_SECONDS = 0.5  # while waiting for a session's first API call


@click.command()
@click.argument("file", required=False, type=click.Path(dir_okay=False, path_type=Path))
@click.option("--latest", is_flag=True, help="The most recent session now (and stay on it).")
@click.option("--session", "session_id", metavar="ID", help="A session by id (a unique prefix is enough).")
@click.option("--agent", default="claude-code", show_default=True, help="Whose sessions (only claude-code for now).")
def watch(file: Path | None, latest: bool, session_id: str | None, agent: str) -> None:
    """Open the TUI on a session and follow it as it is written.

    New API calls appear as steps within a second. With no argument, follows whichever session under
    ~/.claude (and CLAUDE_CONFIG_DIR) was written last, and switches when a newer one starts.
    """
    from ctxviz.errors import InputError
    from ctxviz.live.watch import Watch
    from ctxviz.transcripts.discover import config_roots, session_files
    from ctxviz.transcripts.select import by_session
    from ctxviz.transcripts.select import latest as newest

    if agent != "claude-code":
        fail(f"--agent {agent}: only claude-code sessions can be watched for now")
    if sum((file is not None, latest, session_id is not None)) > 1:
        raise click.UsageError("give at most one of FILE, --latest or --session ID")
    try:
        if session_id is not None or latest:
            files = session_files(config_roots())
            file = by_session(files, session_id).path if session_id else newest(files, os.getcwd()).path
        if file is not None and not file.is_file():
            raise InputError(f"{file}: no such file")
    except InputError as error:
        fail(error.message)
    followed = Watch(file, newest=file is None)
    if followed.path is None:
        fail("no Claude Code sessions found to watch (looked in ~/.claude, ~/.config/claude, CLAUDE_CONFIG_DIR)")
    timeline = _first_timeline(followed)
    from ctxviz.live.watch_app import run_watch

    status = "following the newest session" if file is None else ""
    run_watch(followed, timeline, status)


def _first_timeline(followed: Watch) -> Timeline:
    """The session's timeline once it has an API call (a session just started has none yet)."""
    told = False
    while True:
        seen = followed.poll()
        if seen is not None and seen.timeline is not None:
            return seen.timeline
        session = followed.session
        if session is not None and (timeline := session.timeline()) is not None:
            return timeline
        if not told:
            click.echo(f"ctxviz: waiting for the first API call in {followed.path} (Ctrl-C to stop)", err=True)
            told = True
        time.sleep(WAIT_SECONDS)


@click.command(
    context_settings={"ignore_unknown_options": True, "allow_extra_args": True, "help_option_names": []},
    add_help_option=False,
)
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def statusline(args: tuple[str, ...]) -> None:
    """One line for Claude Code's status bar: context used, left before compaction, biggest item.

    Reads the JSON Claude Code passes on stdin. --format, --no-color, --debug; --help for the fields.
    """
    from ctxviz.live.statusline import run

    sys.exit(run(list(args)))


COMMANDS: list[click.Command] = [watch, statusline]
