"""The ``sessions`` listing: every agent's sessions as JSON or a table, and what was skipped, on stderr.

No command-line framework here: ``ctxviz sessions`` calls ``list_sessions`` after click has parsed its
options, and ``ctxviz sessions --json`` alone, the form tools poll, calls it before click is even
imported (``ctxviz.main``). Both print the same bytes.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

Result = TypeVar("Result")

if TYPE_CHECKING:
    from datetime import date

    from ctxviz.errors import InputError
    from ctxviz.transcripts.protocol import SessionSummary

SESSIONS_FORMAT = "ctxviz.sessions/1"  # ``sessions --json-object``: the rows and what gave no session
_PROGRESS_FROM = 20  # files; fewer scan too fast for a bar to help
_OTHER_COLUMNS = 78  # the table's other columns (agent, session, … size), with their padding
_NARROW = _OTHER_COLUMNS + 12  # below this many columns the table drops the start's time of day
_MODELS_MIN = 8  # the models column's least width
# The cmp column's marks: automatic, /compact, and compactions whose transcript does not say which.
_TRIGGER_MARKS = (("auto", "a"), ("manual", "m"), ("unknown", "?"))


def say(text: str) -> None:
    """A message to stderr; any text from a transcript or a file name is made safe to print first."""
    from ctxviz.transcripts.safe import safe_text

    sys.stderr.write("\n".join(safe_text(line) for line in text.split("\n")) + "\n")


def report_problems(problems: tuple[str, ...] | list[str], verbose: bool, *, counted: bool = False) -> None:
    """``counted``: the report already said how many lines were skipped (its notices); say it once."""
    if not problems:
        return
    if verbose:
        for problem in problems:
            say(problem)
    if counted:
        if not verbose:
            say("ctxviz: --verbose lists the skipped lines")
        return
    more = "" if verbose else " (--verbose lists them)"
    say(f"ctxviz: {len(problems)} damaged or unknown lines skipped{more}")


def report_unread(unread: list[str], verbose: bool) -> None:
    """Files that gave no session: never lost in silence, and never counted as damaged lines."""
    if not unread:
        return
    if verbose:
        for message in unread:
            say(message)
        return
    which = f"{len(unread)} files, folders or databases" if len(unread) > 1 else "1 file, folder or database"
    say(f"ctxviz: {which} gave no session: {unread[0]}{' …' if len(unread) > 1 else ''} (--verbose lists them)")


def list_sessions(
    *,
    project: str | None = None,
    since: date | None = None,
    until: date | None = None,
    as_json: bool = False,
    as_object: bool = False,
    agents: tuple[str, ...] = (),
    roots: tuple[Path, ...] = (),
    verbose: bool = False,
    use_index: bool = True,
) -> None:
    """Print the sessions found (``InputError`` when the search itself fails). ``as_object``: JSON, as one
    object that also lists every file, folder or database that gave no session."""
    as_json = as_json or as_object
    from ctxviz.transcripts.days import local_day
    from ctxviz.transcripts.every_agent import collect

    def progress(results: Iterator[SessionSummary | InputError], total: int) -> Iterable[SessionSummary | InputError]:
        if as_json or total < _PROGRESS_FROM or not sys.stderr.isatty():
            return results
        return with_progress_bar(results, total)

    found = collect(os.environ, Path.home(), agents=agents, extra_roots=roots, project=project, since=since,
                    progress=progress, use_index=use_index)  # fmt: skip
    rows: list[SessionSummary] = []
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
        say(f"ctxviz: {calls:,} API calls in {among} sessions carry no usage: not counted")
    if as_json:
        from ctxviz.transcripts.safe import safe_json_text

        listed = [r.as_json() for r in rows]
        # the bare list unless the object is asked for: tools that poll it keep the shape they parse
        document = (
            {"format": SESSIONS_FORMAT, "sessions": listed, "gave_no_session": found.unread} if as_object else listed
        )
        sys.stdout.write(safe_json_text(json.dumps(document, ensure_ascii=False, indent=1)) + "\n")
    else:
        print_table(rows, found.not_started if not found.rows else 0)  # none listed only for lack of calls
    report_problems(found.problems, verbose)
    report_unread(found.unread, verbose)
    if found.without_usage:
        count = len(found.without_usage)
        which = f"{count} sessions record" if count > 1 else "1 session records"
        say(f"ctxviz: {which} no token usage, not listed: {found.without_usage[0]}{' …' if count > 1 else ''}")


def with_progress_bar(results: Iterator[Result], total: int) -> Iterator[Result]:
    """``results``, with a bar on stderr redrawn as each arrives (by hand: no refresh thread)."""
    from rich.console import Console
    from rich.progress import Progress

    with Progress(console=Console(stderr=True), transient=True, auto_refresh=False) as bar:
        task = bar.add_task("Reading sessions", total=total)
        for result in results:
            yield result
            bar.advance(task)
            bar.refresh()


def size_label(size: int) -> str:
    if size < 1000:
        return "<1k"  # not "0k": the session's file is not empty
    return f"{size / 1_000_000:.1f}M" if size >= 100_000 else f"{size / 1000:.0f}k"


def print_table(rows: list[SessionSummary], not_started: int = 0) -> None:
    """The sessions as a table; ``not_started``: sessions found that made no API call yet (not listed)."""
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    from ctxviz.short_forms import humanize, undated
    from ctxviz.transcripts.safe import safe_text

    console = Console()
    if not rows:
        if not_started:
            which = f"{not_started} sessions were" if not_started > 1 else "1 session was"
            console.print(f"No session with an API call yet ({which} found, each without one).")
        else:
            console.print("No sessions found (see `ctxviz sessions --help` for the folders searched).")
        return
    # Every column but project and models has a fixed width; those two share what is left, so the
    # numbers are never pushed off the edge. Below _NARROW columns the start loses its time of day.
    narrow = console.width < _NARROW
    # Sessions of more than one year show the start's year instead of its time of day (a narrow table its
    # last two digits): 10-27 alone would read as this year's. Within one year the year is left out.
    with_year = len({r.started[:4] for r in rows if r.started}) > 1
    when = slice(2 if narrow else 0, 10) if with_year else slice(5, 10 if narrow else 16)
    widths = {"session": 8, "started": when.stop - when.start, "calls": 5, "peak": 6, "last": 6, "cmp": 3, "sub": 3,
              "size": 5}  # fmt: skip
    agent_width = max(10, *(len(r.agent) for r in rows))
    widths = {name: max(len(name), width) for name, width in widths.items()}  # a head is never cut
    fixed = agent_width + sum(widths.values()) + len(widths) + 2  # one space after each column but the last
    left = console.width - fixed
    # the project label is cut on the left to what the terminal leaves beside the other columns
    room = max(7, left - _MODELS_MIN) if narrow else max(12, min(PROJECT_LABEL_CHARS, console.width - _OTHER_COLUMNS))
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
        table.add_row(  # Text cells: a transcript's text is never read as Rich markup, nor as terminal input
            r.agent,
            Text(safe_text(labels.get(r.project, ""))),
            Text(safe_text(r.session[:8])),
            safe_text((r.started or "")[when].replace("T", " ")),
            Text(safe_text(", ".join(undated(m.removeprefix("claude-")) for m in r.models))),
            str(r.calls),
            estimated + humanize(r.peak),
            estimated + humanize(r.last),
            compactions or "–",
            str(r.subagents),
            size_label(r.bytes),
        )
    console.print(table)


PROJECT_LABEL_CHARS = 30


def project_labels(projects: list[str], limit: int = PROJECT_LABEL_CHARS) -> dict[str, str]:
    """A short label per project path that still tells them apart: the last two folders, more while two
    projects share them (worktrees of one repository), cut on the left when long — the end is what
    differs."""
    parts = {p: [x for x in p.replace("\\", "/").split("/") if x] for p in set(projects)}
    depth = dict.fromkeys(parts, 2)
    while True:
        tails: dict[str, list[str]] = {}
        for project, names in parts.items():
            tails.setdefault("/".join(names[-depth[project] :]), []).append(project)
        clashes = [p for group in tails.values() if len(group) > 1 for p in group if depth[p] < len(parts[p])]
        if not clashes:
            break
        for project in clashes:
            depth[project] += 1
    labels: dict[str, str] = {}
    for project, names in parts.items():
        label = "/".join(names[-depth[project] :]) or project
        labels[project] = label if len(label) <= limit else "…" + label[-(limit - 1) :]
    return labels
