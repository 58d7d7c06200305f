"""Commands over real transcripts: ``context`` and ``sessions``. Read-only, offline."""

from __future__ import annotations

import json
import os
import re
import sys
from datetime import date
from pathlib import Path

import click

from ctxviz.cli.common import EXIT_OK, fail

_DATE = re.compile(r"-\d{8}$")
_PROGRESS_FROM = 20  # files; fewer scan too fast for a bar to help


def _report_problems(problems: tuple[str, ...] | list[str], verbose: bool, *, counted: bool = False) -> None:
    """``counted``: the report already said how many lines were skipped (its notices); say it once."""
    if not problems:
        return
    if verbose:
        for problem in problems:
            click.echo(problem, err=True)
    if counted:
        if not verbose:
            click.echo("ctxviz: --verbose lists the skipped lines", err=True)
        return
    more = "" if verbose else " (--verbose lists them)"
    click.echo(f"ctxviz: {len(problems)} damaged or unknown lines skipped{more}", err=True)


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
@click.option("--latest", is_flag=True, help="The most recent session (of the current project if it has one).")
@click.option("--session", "session_id", metavar="ID", help="A session by id (a unique prefix is enough).")
@click.option("-p", "--project", metavar="P", help="Only sessions whose project path contains P.")
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
    at_call: int | None,
    top: int,
    as_json: bool,
    verbose: bool,
) -> None:
    """The /context breakdown of a real Claude Code session at any API call.

    Give a transcript FILE, or --latest, or --session ID. Totals are measured by the API; how they split
    among the items is estimated (chars/4) and marked with ~.
    """
    from ctxviz.errors import InputError
    from ctxviz.transcripts.discover import config_roots, session_files
    from ctxviz.transcripts.load import read_transcript
    from ctxviz.transcripts.select import by_session, project_matches
    from ctxviz.transcripts.select import latest as newest

    if sum((file is not None, latest, session_id is not None)) != 1:
        raise click.UsageError("give one of FILE, --latest or --session ID")
    try:
        if file is None:
            files = [f for f in session_files(config_roots()) if project_matches(f, project)]
            chosen = by_session(files, session_id) if session_id else newest(files, os.getcwd())
            file = chosen.path
        reading = read_transcript(file)
    except InputError as error:
        fail(error.message)
    timeline = reading.timeline
    from ctxviz.report.context_data import api_call_indices, context_dict

    calls = api_call_indices(timeline)
    if at_call is not None and not 1 <= at_call <= len(calls):
        raise click.BadParameter(f"call {at_call} does not exist; this session has calls 1–{len(calls)}",
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
@click.option("-v", "--verbose", is_flag=True, help="List every damaged or unknown line skipped.")
def sessions(project: str | None, since: date | None, until: date | None, as_json: bool, verbose: bool) -> None:
    """The Claude Code sessions on this machine: calls, peak and last context, compactions, subagents.

    Looks in ~/.claude, ~/.config/claude and every folder CLAUDE_CONFIG_DIR names (comma-separated).
    """
    from ctxviz.errors import InputError
    from ctxviz.transcripts.discover import config_roots, session_files
    from ctxviz.transcripts.select import local_day, project_matches
    from ctxviz.transcripts.summary import SessionSummary, summarize_all

    files = [f for f in session_files(config_roots()) if project_matches(f, project)]
    if since is not None:  # a file last written before --since cannot hold a session active after it
        files = [f for f in files if date.fromtimestamp(f.mtime) >= since]
    rows: list[SessionSummary] = []
    problems: list[str] = []

    results = summarize_all(files)
    if not as_json and len(files) >= _PROGRESS_FROM and sys.stderr.isatty():
        from rich.console import Console
        from rich.progress import track

        results = track(results, total=len(files), description="Reading sessions",
                        console=Console(stderr=True), transient=True)  # fmt: skip
    for row in results:
        if isinstance(row, InputError):
            problems.append(row.message)
            continue
        problems.extend(row.problems)
        if row.calls == 0:
            continue
        started, ended = local_day(row.started), local_day(row.ended)
        if since is not None and ended is not None and ended < since:
            continue
        if until is not None and started is not None and started > until:
            continue
        rows.append(row)
    rows.sort(key=lambda r: (r.started or "", r.session))
    if as_json:
        sys.stdout.write(json.dumps([r.as_json() for r in rows], ensure_ascii=False, indent=1) + "\n")
    else:
        _print_sessions(rows)
    _report_problems(problems, verbose)


def _print_sessions(rows: list) -> None:  # type: ignore[type-arg]
    from rich.console import Console
    from rich.table import Table

    from ctxviz.layout import humanize

    console = Console()
    if not rows:
        console.print("No Claude Code sessions found (looked in ~/.claude, ~/.config/claude, CLAUDE_CONFIG_DIR).")
        return
    table = Table(box=None, padding=(0, 1, 0, 0), pad_edge=False, header_style="bold")
    table.add_column("project", no_wrap=True, overflow="ellipsis", max_width=16)
    widths = {"session": 8, "started": 11, "models": 8, "calls": 5, "peak": 6, "last": 6, "cmp": 3, "sub": 3, "size": 5}
    for name, width in widths.items():
        justify = "left" if name in ("session", "started", "models") else "right"
        table.add_column(name, no_wrap=True, min_width=width, justify=justify)  # type: ignore[arg-type]
    for r in rows:
        auto = sum(1 for c in r.compactions if c.trigger == "auto")
        manual = len(r.compactions) - auto
        compactions = " ".join(p for p in (f"{auto}a" if auto else "", f"{manual}m" if manual else "") if p)
        table.add_row(
            str(Path(*Path(r.project).parts[-2:])) if r.project else "",
            r.session[:8],
            (r.started or "")[5:16].replace("T", " "),
            ", ".join(_DATE.sub("", m.removeprefix("claude-")) for m in r.models),
            str(r.calls),
            humanize(r.peak),
            humanize(r.last),
            compactions or "–",
            str(r.subagents),
            f"{r.bytes / 1_000_000:.1f}M" if r.bytes >= 100_000 else f"{r.bytes / 1000:.0f}k",
        )
    console.print(table)


COMMANDS: list[click.Command] = [context, sessions]
