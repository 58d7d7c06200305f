"""Commands over real transcripts: ``context`` and ``sessions``. Read-only, offline."""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Iterable, Iterator
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

import click

from ctxviz.cli.common import EXIT_OK, fail

if TYPE_CHECKING:
    from ctxviz.transcripts.protocol import SessionRef

_DATE = re.compile(r"-\d{8}$")
_PROGRESS_FROM = 20  # files; fewer scan too fast for a bar to help
_OTHER_COLUMNS = 78  # the sessions table's other columns (agent, session, … size), with their padding
_NARROW = _OTHER_COLUMNS + 12  # below this many columns the sessions table drops the start's time of day
_MODELS_MIN = 8  # the models column's least width


def _say(text: str) -> None:
    """A message to stderr; any text from a transcript or a file name is made safe to print first."""
    from ctxviz.transcripts.safe import safe_text

    click.echo("\n".join(safe_text(line) for line in text.split("\n")), err=True)


def _report_problems(problems: tuple[str, ...] | list[str], verbose: bool, *, counted: bool = False) -> None:
    """``counted``: the report already said how many lines were skipped (its notices); say it once."""
    if not problems:
        return
    if verbose:
        for problem in problems:
            _say(problem)
    if counted:
        if not verbose:
            _say("ctxviz: --verbose lists the skipped lines")
        return
    more = "" if verbose else " (--verbose lists them)"
    _say(f"ctxviz: {len(problems)} damaged or unknown lines skipped{more}")


def choose_session(
    file: Path | None, latest: bool, session_id: str | None, project: str | None, agents: tuple[str, ...] = ()
) -> Path | SessionRef:
    """The transcript a command was pointed at: a FILE, the --latest session of any agent, or --session ID
    (all but FILE narrowed by --project and --agent). Raises ``InputError`` when none matches."""
    from ctxviz.errors import InputError
    from ctxviz.transcripts.discover import config_roots, session_files
    from ctxviz.transcripts.every_agent import find_session
    from ctxviz.transcripts.latest import latest_session
    from ctxviz.transcripts.registry import reader_named
    from ctxviz.transcripts.select import by_session, project_matches

    if sum((file is not None, latest, session_id is not None)) != 1:
        raise click.UsageError("give one of FILE, --latest or --session ID")
    if file is not None:
        if agents:
            raise click.UsageError("--agent chooses among the sessions found: give it with --latest or --session")
        return file
    if latest:
        return latest_session(os.environ, Path.home(), agents=agents, project=project, cwd=os.getcwd())
    assert session_id is not None
    names = {reader_named(a).name for a in agents}
    missing = InputError(f"no session {session_id!r} found (try `ctxviz sessions`)")
    if not names or "claude-code" in names:  # Claude Code's own (fast) choice first
        try:
            files = [f for f in session_files(config_roots()) if project_matches(f, project)]
            return by_session(files, session_id).path
        except InputError as error:
            missing = error
    if (other := find_session(os.environ, Path.home(), session_id, names or None)) is None:
        raise missing
    return other


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
    from ctxviz.transcripts.select import parse_day

    try:
        return parse_day(value)
    except ValueError as error:
        raise click.BadParameter(str(error), param=param) from None


@click.command()
@click.argument("file", required=False, type=click.Path(dir_okay=False, path_type=Path))
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
@click.option("--top", default=10, show_default=True, help="How many of the largest items to list.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON (format ctxviz.context/1).")
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
    verbose: bool,
) -> None:
    """The /context breakdown of a real session at any API call.

    Give a session FILE of any agent (Claude Code, Codex, gemini-cli, opencode, pi, grok-build; the agent
    is told from the content), or --latest, or --session ID. Totals are measured by the API;
    how they split among the items is estimated (chars/4) and marked with ~.
    """
    from ctxviz.errors import InputError
    from ctxviz.transcripts.registry import read_target

    try:
        reading = read_target(choose_session(file, latest, session_id, project, agents))
    except InputError as error:
        _fail_safely(error.message)
    timeline = reading.timeline
    from ctxviz.report.context_data import api_call_indices, context_dict

    calls = api_call_indices(timeline)
    if at_call is not None and not 1 <= at_call <= len(calls):
        has = f"calls 1–{len(calls)}" if calls else "no per-call usage (its steps are estimates)"
        raise click.BadParameter(f"call {at_call} does not exist; this session has {has}",
                                 param_hint="--at")  # fmt: skip
    index = calls[at_call - 1] if at_call is not None else timeline.last
    if as_json:
        click.echo(json.dumps(context_dict(timeline, index, top_items=top), indent=2, ensure_ascii=False))
    else:
        from rich.console import Console

        from ctxviz.report.context import context_renderable

        Console().print(context_renderable(timeline, index, top_items=top))
    _report_problems(reading.problems, verbose, counted=not as_json)
    sys.exit(EXIT_OK)


@click.command()
@click.option("-p", "--project", metavar="P", help="Only sessions whose project path contains P.")
@click.option("--since", callback=_day, metavar="DATE", help="Sessions active on or after DATE (YYYYMMDD).")
@click.option("--until", callback=_day, metavar="DATE", help="Sessions started on or before DATE (YYYYMMDD).")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list (see the README for the fields).")
@click.option("--agent", "agents", multiple=True, metavar="NAME", callback=_known_readers,
              help="Only this agent's sessions (repeatable).")  # fmt: skip
@click.option("--root", "roots", multiple=True, type=click.Path(file_okay=False, path_type=Path), metavar="DIR",
              help="Also look under DIR, in any agent's layout (repeatable).")  # fmt: skip
@click.option("-v", "--verbose", is_flag=True, help="List every damaged or unknown line skipped.")
@click.option("--no-cache", is_flag=True, help="Read every session again, ignoring the summary index in the cache.")
def sessions(
    project: str | None,
    since: date | None,
    until: date | None,
    as_json: bool,
    agents: tuple[str, ...],
    roots: tuple[Path, ...],
    verbose: bool,
    no_cache: bool,
) -> None:
    """The sessions on this machine, every agent: calls, peak and last context, compactions, subagents.

    Looks in each agent's folders: ~/.claude, ~/.config/claude and CLAUDE_CONFIG_DIR (Claude Code),
    CODEX_HOME or ~/.codex, GEMINI_CLI_HOME or ~/.gemini, XDG_DATA_HOME/opencode or
    ~/.local/share/opencode, PI_CODING_AGENT_DIR or ~/.pi/agent, GROK_HOME or ~/.grok.

    In the table, cmp counts the compactions: "2a" is two automatic ones, "1m" one /compact, "1?" one whose
    transcript does not say which (Codex, pi). A "~" before
    peak and last marks estimates, for agents whose transcripts record no token usage.
    """
    from ctxviz.errors import InputError
    from ctxviz.process import one_shot
    from ctxviz.transcripts.every_agent import collect
    from ctxviz.transcripts.protocol import SessionSummary
    from ctxviz.transcripts.select import local_day

    one_shot()  # prints the rows and ends: no teardown of what was read

    def progress(results: Iterator[SessionSummary | InputError], total: int) -> Iterable[SessionSummary | InputError]:
        if as_json or total < _PROGRESS_FROM or not sys.stderr.isatty():
            return results
        from rich.console import Console
        from rich.progress import track

        return track(results, total=total, description="Reading sessions", console=Console(stderr=True),
                     transient=True)  # fmt: skip

    try:
        found = collect(os.environ, Path.home(), agents=agents, extra_roots=roots, project=project, since=since,
                        progress=progress, use_index=not no_cache)  # fmt: skip
    except InputError as error:
        _fail_safely(error.message)
    rows: list[SessionSummary] = []
    problems = found.problems
    for row in found.rows:
        started, ended = local_day(row.started), local_day(row.ended)
        if since is not None and ended is not None and ended < since:
            continue
        if until is not None and started is not None and started > until:
            continue
        rows.append(row)
    rows.sort(key=lambda r: (r.started or "", r.session))
    if found.unmeasured_calls:
        calls, among = sum(found.unmeasured_calls), len(found.unmeasured_calls)
        _say(f"ctxviz: {calls:,} API calls in {among} sessions carry no usage: not counted")
    if as_json:
        sys.stdout.write(json.dumps([r.as_json() for r in rows], ensure_ascii=False, indent=1) + "\n")
    else:
        _print_sessions(rows)
    _report_problems(problems, verbose)
    if found.without_usage:
        count = len(found.without_usage)
        which = f"{count} sessions record" if count > 1 else "1 session records"
        _say(f"ctxviz: {which} no token usage, not listed: {found.without_usage[0]}{' …' if count > 1 else ''}")


# The cmp column's marks: automatic, /compact, and compactions whose transcript does not say (Codex, pi).
_TRIGGER_MARKS = (("auto", "a"), ("manual", "m"), ("unknown", "?"))


def _print_sessions(rows: list) -> None:  # type: ignore[type-arg]
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    from ctxviz.layout import humanize
    from ctxviz.transcripts.select import PROJECT_LABEL_CHARS, project_labels

    console = Console()
    if not rows:
        console.print("No sessions found (see `ctxviz sessions --help` for the folders searched).")
        return
    # Every column but project and models has a fixed width; those two share what is left, so the
    # numbers are never pushed off the edge. Below _NARROW columns the start loses its time of day.
    narrow = console.width < _NARROW
    widths = {"session": 8, "started": 5 if narrow else 11, "calls": 5, "peak": 6, "last": 6, "cmp": 3, "sub": 3,
              "size": 5}  # fmt: skip
    agent_width = max(10, *(len(r.agent) for r in rows))
    widths = {name: max(len(name), width) for name, width in widths.items()}  # a head is never cut
    fixed = agent_width + sum(widths.values()) + len(widths) + 2  # one space after each column but the last
    left = console.width - fixed
    # the project label is cut on the left to what the terminal leaves beside the other columns
    room = max(8, left - _MODELS_MIN) if narrow else max(12, min(PROJECT_LABEL_CHARS, console.width - _OTHER_COLUMNS))
    labels = project_labels([r.project for r in rows if r.project], room)
    project_width = min(room, max(map(len, labels.values()), default=7))
    table = Table(box=None, padding=(0, 1, 0, 0), pad_edge=False, header_style="bold")
    table.add_column("agent", no_wrap=True, min_width=agent_width)
    table.add_column("project", no_wrap=True, min_width=project_width)
    for name, width in widths.items():
        justify = "left" if name in ("session", "started") else "right"
        table.add_column(name, no_wrap=True, min_width=width, justify=justify)  # type: ignore[arg-type]
        if name == "started":
            models_width = max(_MODELS_MIN, left - project_width)
            table.add_column("models", no_wrap=True, min_width=_MODELS_MIN, max_width=models_width, overflow="ellipsis")
    for r in rows:
        counts = [(sum(1 for c in r.compactions if c.trigger == trigger), mark) for trigger, mark in _TRIGGER_MARKS]
        compactions = " ".join(f"{count}{mark}" for count, mark in counts if count)
        estimated = "" if r.measured else "~"  # peak and last are estimates for agents without usage
        table.add_row(  # Text cells: a transcript's text is never read as Rich markup
            r.agent,
            Text(labels.get(r.project, "")),
            Text(r.session[:8]),
            (r.started or "")[5 : 10 if narrow else 16].replace("T", " "),
            Text(", ".join(_DATE.sub("", m.removeprefix("claude-")) for m in r.models)),
            str(r.calls),
            estimated + humanize(r.peak),
            estimated + humanize(r.last),
            compactions or "–",
            str(r.subagents),
            f"{r.bytes / 1_000_000:.1f}M" if r.bytes >= 100_000 else f"{r.bytes / 1000:.0f}k",
        )
    console.print(table)


def _short_agent(agent: str) -> str:
    return agent.split("-", 1)[0]


def _size(size: int) -> str:
    if size < 1000:
        return "<1k"  # not "0k": the session's file is not empty
    return f"{size / 1_000_000:.1f}M" if size >= 100_000 else f"{size / 1000:.0f}k"


COMMANDS: list[click.Command] = [context, sessions]
