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


def _check_file(file: Path) -> None:
    """A file to follow must be a regular file: a FIFO or a device would block or flood the reads. A
    compressed one is refused too: no agent appends to it, so following it would show it once, stale."""
    from ctxviz.errors import InputError
    from ctxviz.regular_file import check_regular
    from ctxviz.transcripts.packed import is_compressed

    try:
        check_regular(file)
    except FileNotFoundError:
        raise InputError(f"{file}: no such file") from None
    except OSError as error:
        raise InputError(f"{file}: {error.strerror or error}") from None
    if is_compressed(file):
        raise InputError(f"{file}: compressed, so no agent writes to it any more: `ctxviz play {file}` shows it")


@click.command(short_help="Open the TUI on a session and follow it as it is written.")
@click.argument("file", required=False, type=click.Path(path_type=Path))
@click.option("--latest", is_flag=True, help="The most recent session now (and stay on it).")
@click.option("--session", "session_id", metavar="ID", help="A session by id (a unique prefix is enough).")
@click.option("--agent", metavar="NAME", help="Only this agent's sessions (`ctxviz sessions --help` lists them).")
def watch(file: Path | None, latest: bool, session_id: str | None, agent: str | None) -> None:
    """Open the TUI on a session and follow it as it is written.

    New API calls appear as steps within a second. With no argument, follows whichever session of any
    agent (or of --agent) was written last, and switches when a newer one starts. Claude Code sessions
    are read as they grow; other agents' are read again whenever their files change.
    """
    from ctxviz.errors import InputError
    from ctxviz.live.watch import Watch

    if sum((file is not None, latest, session_id is not None)) > 1:
        raise click.UsageError("give at most one of FILE, --latest or --session ID")
    try:
        if agent is not None:
            _check_agent(agent)
        if session_id is not None or latest:
            file = _chosen(session_id, agent)
        if file is not None:
            _check_file(file)
            if agent is not None:
                _check_whose(file, agent)
        followed = Watch(file, newest=file is None, agent=agent)
    except InputError as error:
        fail(error.message)
    if followed.path is None:
        followed = _first_session(agent)
    # a big session's last call, read from its end, shows while the whole file is read in the app
    first = followed.window_from_end()
    timeline = first or _first_timeline(followed)
    from ctxviz.live.watch_app import run_watch

    # which agent's session, told once in a notification: the header has no room for it at 80 columns
    which = f"{timeline.agent} session {timeline.source.name[:8]}"
    status = f"following the newest session: {which}" if file is None else f"following {which}"
    from ctxviz.process import ends_with_the_command

    ends_with_the_command()  # q quits even while a read runs in its thread
    run_watch(followed, timeline, status, from_end=first is not None)


def _check_agent(agent: str) -> None:
    from ctxviz.errors import InputError
    from ctxviz.transcripts.registry import reader_named

    if not reader_named(agent).records_usage:
        raise InputError(f"--agent {agent}: its transcripts record no token usage, so there is nothing to watch")


def _check_whose(file: Path, agent: str) -> None:
    """``--agent`` names the reader of a file whose records tell no agent yet (a session just started);
    a file that is plainly another agent's would be read as none and waited on for ever."""
    from ctxviz.errors import InputError
    from ctxviz.transcripts.registry import reader_for

    found = reader_for(file)
    if found is not None and found.name != agent:
        raise InputError(f"{file}: a {found.name} session, not {agent}'s; leave out --agent {agent} to follow it")


def _chosen(session_id: str | None, agent: str | None) -> Path:
    """The file of ``--session ID`` or of ``--latest``."""
    from ctxviz.errors import InputError
    from ctxviz.transcripts.find import newest_to_follow, session_by_id

    if session_id is not None:
        return session_by_id(os.environ, Path.home(), session_id, agents=[agent] if agent else ()).path
    ref = newest_to_follow(os.environ, Path.home(), agent, os.getcwd())
    if ref is None:
        whose = f"{agent} sessions" if agent else "sessions of any agent"
        raise InputError(f"no {whose} found (`ctxviz sessions` lists where it looks)")
    return ref.path


def _first_session(agent: str | None) -> Watch:
    """Like ``tail -F``: with no session yet, wait for the first one to start."""
    from ctxviz.live.watch import Watch

    whose = f"{agent} session" if agent else "session of any agent"
    click.echo(f"ctxviz: no {whose} yet; waiting for one to start (Ctrl-C to stop)", err=True)
    while True:
        time.sleep(WAIT_SECONDS)
        followed = Watch(None, newest=True, agent=agent)
        if followed.path is not None:
            return followed


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
            if waiting := getattr(session, "waiting", ""):  # another agent's reader says why it has none
                click.echo(f"ctxviz: {waiting}", err=True)
            told = True
        if session is not None and session.gone:
            fail(session.gone)
        time.sleep(WAIT_SECONDS)


@click.command(
    context_settings={"ignore_unknown_options": True, "allow_extra_args": True, "help_option_names": []},
    add_help_option=False,
    short_help="One line for Claude Code's status bar: context used and left.",
)
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def statusline(args: tuple[str, ...]) -> None:
    """One line for Claude Code's status bar: context used, left before compaction, biggest item.

    Reads the JSON Claude Code passes on stdin. --format, --no-color, --debug; --help for the fields.
    """
    from ctxviz.live.statusline import run

    sys.exit(run(list(args)))


COMMANDS: list[click.Command] = [watch, statusline]
