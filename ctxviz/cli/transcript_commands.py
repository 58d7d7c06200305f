"""Commands over real transcripts: ``context`` and ``sessions``. Read-only, offline."""

from __future__ import annotations

import json
import os
import sys
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

import click

from ctxviz.cli.common import EXIT_OK, fail
from ctxviz.report.sessions import report_problems

if TYPE_CHECKING:
    from ctxviz.transcripts.protocol import SessionRef


def choose_session(
    file: Path | None,
    latest: bool,
    session_id: str | None,
    project: str | None,
    agents: tuple[str, ...] = (),
    among: tuple[str, ...] = (),
) -> Path | SessionRef:
    """The transcript a command was pointed at: a FILE, the --latest session, or --session ID (both among
    ``agents``, the --agent given, else ``among``, the agents the command reads, else any; and narrowed by
    --project). Raises ``InputError`` when none matches."""
    from ctxviz.transcripts.find import latest_session, session_by_id

    if sum((file is not None, latest, session_id is not None)) != 1:
        raise click.UsageError("give one of: a session file, --latest, --session ID")
    if file is not None:
        if agents:
            raise click.UsageError("--agent chooses among the sessions found: give it with --latest or --session")
        return file
    agents = agents or among
    if latest:
        return latest_session(os.environ, Path.home(), agents=agents, project=project, cwd=os.getcwd())
    assert session_id is not None
    return session_by_id(os.environ, Path.home(), session_id, agents=agents, project=project)


def _fail_safely(message: str) -> NoReturn:
    from ctxviz.transcripts.safe import safe_text

    fail("\n".join(safe_text(line) for line in message.split("\n")))


def _known_readers(ctx: click.Context, param: click.Parameter, value: tuple[str, ...]) -> tuple[str, ...]:
    """``--agent NAME``: an agent whose sessions can be read, or a usage error (exit 2) naming them."""
    from ctxviz.errors import InputError
    from ctxviz.transcripts.registry import reader_named

    try:
        return tuple(reader_named(name).name for name in value)
    except InputError as error:
        raise click.BadParameter(error.message, ctx=ctx, param=param) from None


def _day(_ctx: click.Context, param: click.Parameter, value: str | None) -> date | None:
    if value is None:
        return None
    from ctxviz.transcripts.days import parse_day

    try:
        return parse_day(value)
    except ValueError as error:
        raise click.BadParameter(str(error), param=param) from None


@click.command()
@click.argument("file", required=False, type=click.Path(path_type=Path))
@click.option("--latest", is_flag=True, help="The most recent session of any agent (this folder's project first).")
@click.option("--session", "session_id", metavar="ID", help="A session by id (a unique prefix is enough).")
@click.option("-p", "--project", metavar="P", help="Only sessions whose project path contains P.")
@click.option(
    "--agent",
    "agents",
    multiple=True,
    metavar="NAME",
    help="With --latest or --session: only this agent's sessions (repeatable).",
)
@click.option(
    "--at", "at_call", type=int, metavar="N", help="At the N-th API call, counted from 1 (default: the last)."
)
@click.option(
    "--top",
    metavar="N",
    type=click.IntRange(min=0),
    default=10,
    show_default=True,
    help="How many of the largest items to list.",
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON (format ctxviz.context/1).")
@click.option("--history", is_flag=True,
              help="Read the whole session, also when it is big: the calls, compactions and items carried "
                   "before its last compaction (a big session is otherwise read from there on).")  # fmt: skip
@click.option("-v", "--verbose", is_flag=True, help="List every damaged or unknown line skipped.")
def context(
    file: Path | None,
    latest: bool,
    session_id: str | None,
    project: str | None,
    agents: tuple[str, ...],
    at_call: int | None,
    top: int,
    as_json: bool,
    history: bool,
    verbose: bool,
) -> None:
    """The /context breakdown of a real session at any API call.

    Give a session FILE of any agent (the agent is told from the content; `ctxviz sessions --help` lists
    the agents read), or --latest, or --session ID. Totals are measured by the API;
    how they split among the items is estimated (chars/4) and marked with ~.

    At the last call, a big session (more than 64 MB before its last compaction) is read from its last
    compaction on: the window is the same, what counts from the session's start is shown as not read
    (--history reads it).
    """
    from ctxviz.errors import InputError
    from ctxviz.transcripts.registry import read_target

    try:
        target = choose_session(file, latest, session_id, project, agents)
        if as_json and top >= 0 and (at_call is None or at_call >= 1):
            _one_call_json(target, at_call, top, verbose, history)
        if not as_json and at_call is None and not history and top >= 0:
            _from_end_text(target, top, verbose)
        reading = read_target(target)
    except InputError as error:
        _fail_safely(error.message)
    timeline = reading.timeline
    from ctxviz.report.context_data import api_call_indices, carried_rows, context_dict

    calls = api_call_indices(timeline)
    if at_call is not None and not 1 <= at_call <= len(calls):
        has = f"calls 1–{len(calls)}" if calls else "no per-call usage (its steps are estimates)"
        raise click.BadParameter(f"call {at_call} does not exist; this session has {has}",
                                 param_hint="--at")  # fmt: skip
    index = calls[at_call - 1] if at_call is not None else timeline.last
    from ctxviz.report.audit import carried_so_far

    cost = carried_so_far(timeline, index)
    if as_json:
        document = context_dict(timeline, index, top_items=top)
        document["carried"] = carried_rows(cost.items, top)
        _print_json(document)
    else:
        from rich.console import Console

        from ctxviz.report.context import context_renderable

        Console().print(context_renderable(timeline, index, top_items=top))
        from ctxviz.report.audit_text import carried_renderable

        if cost.calls and top > 0:
            Console().print("", carried_renderable(cost, min(top, 5)))
    report_problems(reading.problems, verbose, counted=not as_json)
    sys.exit(EXIT_OK)


def _one_call_json(target: Path | SessionRef, at_call: int | None, top: int, verbose: bool, history: bool) -> None:
    """``context --json`` from a reader that reads one call's window without the whole timeline; returns
    (having printed nothing) when it cannot, for the whole-file read."""
    from ctxviz.transcripts.registry import open_session, reader_named

    reader, ref = open_session(target) if isinstance(target, Path) else (reader_named(target.agent), target)
    window = reader.call_window(ref, at_call, top, history=history)
    if window is None:
        return
    from ctxviz.report.context_data import call_window_dict

    _print_json(call_window_dict(window, top_items=top))
    report_problems(window.problems, verbose, counted=False)
    sys.exit(EXIT_OK)


def _from_end_text(target: Path | SessionRef, top: int, verbose: bool) -> None:
    """``context`` at the last call of a big session, read from its last compaction on; returns (having
    printed nothing) when the session is not read so, for the whole-file read."""
    from ctxviz.transcripts.registry import open_session, reader_named

    reader, ref = open_session(target) if isinstance(target, Path) else (reader_named(target.agent), target)
    window = reader.window_from_end(ref, top) if reader.context_reads_from_end else None
    if window is None:
        return
    from rich.console import Console

    from ctxviz.report.context import context_renderable

    Console().print(context_renderable(window.timeline, 0, top_items=top, history=False))
    report_problems(window.problems, verbose, counted=True)
    sys.exit(EXIT_OK)


def _print_json(document: dict[str, object]) -> None:
    from ctxviz.transcripts.safe import safe_json_text

    click.echo(safe_json_text(json.dumps(document, indent=2, ensure_ascii=False)))


class _ListsEachAgentsFolders(click.Command):
    """A command whose help ends with each agent's folders, as its reader gives them."""

    def format_epilog(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        from ctxviz.transcripts.registry import READERS

        with formatter.section("Folders searched"):
            formatter.write_dl(sorted((reader.name, reader.folders) for reader in READERS))
        super().format_epilog(ctx, formatter)


@click.command(cls=_ListsEachAgentsFolders, short_help="Every agent's sessions here: calls, peak, last, compactions.")
@click.option("-p", "--project", metavar="P", help="Only sessions whose project path contains P.")
@click.option("--since", callback=_day, metavar="DATE", help="Sessions active on or after DATE (YYYYMMDD).")
@click.option("--until", callback=_day, metavar="DATE", help="Sessions started on or before DATE (YYYYMMDD).")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list (see the README for the fields).")
@click.option("--json-object", "as_object", is_flag=True,
              help="Print one JSON object: the list, and every file, folder or database that gave no session, "
                   "with why.")  # fmt: skip
@click.option("--agent", "agents", multiple=True, metavar="NAME", callback=_known_readers,
              help="Only this agent's sessions (repeatable).")  # fmt: skip
@click.option("--root", "roots", multiple=True, metavar="DIR",
              type=click.Path(exists=True, file_okay=False, path_type=Path),
              help="Also look under DIR, in any agent's layout (repeatable).")  # fmt: skip
@click.option("-v", "--verbose", is_flag=True, help="List every damaged or unknown line skipped.")
@click.option("--no-cache", is_flag=True, help="Read every session again, ignoring the summary index in the cache.")
def sessions(
    project: str | None,
    since: date | None,
    until: date | None,
    as_json: bool,
    as_object: bool,
    agents: tuple[str, ...],
    roots: tuple[Path, ...],
    verbose: bool,
    no_cache: bool,
) -> None:
    """The sessions on this machine, every agent: calls, peak and last context, compactions, subagents.

    Looks in each agent's folders (listed below).

    In the table, cmp counts the compactions: "2a" is two automatic ones, "1m" one /compact, "1?" one whose
    transcript does not say which. A "~" before
    peak and last marks estimates, for agents whose transcripts record no token usage.
    """
    from ctxviz.errors import InputError
    from ctxviz.process import one_shot
    from ctxviz.report.sessions import list_sessions

    one_shot()  # prints the rows and ends: no teardown of what was read
    try:
        list_sessions(project=project, since=since, until=until, as_json=as_json, as_object=as_object, agents=agents,
                      roots=roots, verbose=verbose, use_index=not no_cache)  # fmt: skip
    except InputError as error:
        _fail_safely(error.message)


COMMANDS: list[click.Command] = [context, sessions]
