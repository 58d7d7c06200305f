"""The rows of ``ctxviz sessions`` for every agent, each through its reader (which may take a fast path
of its own: Claude Code's keeps its summaries by file). The I/O edge; the CLI only prints."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from datetime import date
from pathlib import Path

from ctxviz.errors import InputError
from ctxviz.transcripts.protocol import NoUsage, SessionSummary, kept_row


class Rows:
    """What a ``sessions`` run found, every agent's."""

    def __init__(self) -> None:
        self.rows: list[SessionSummary] = []
        self.problems: list[str] = []  # damaged lines, located
        self.unread: list[str] = []  # files and databases that gave no session, each with why
        self.without_usage: list[str] = []  # sessions that record no token usage
        self.unmeasured_calls: list[int] = []  # per session: its calls without usage
        self.not_started = 0  # sessions with nothing to show yet (no API call), not listed


# Wraps an agent's results with a progress display: (results, how many) → the same results.
Progress = Callable[[Iterator[SessionSummary | InputError], int], Iterable[SessionSummary | InputError]]


def collect(
    env: Mapping[str, str],
    home: Path,
    *,
    agents: Iterable[str] = (),
    extra_roots: Iterable[Path] = (),
    project: str | None = None,
    since: date | None = None,
    progress: Progress | None = None,
    use_index: bool = True,
) -> Rows:
    """Every session's row (sessions without a measured call are left out, and counted). One summary
    index serves every agent; it is written back once all rows are in."""
    from ctxviz.transcripts.index import open_index
    from ctxviz.transcripts.registry import READERS, agent_folders, discover_under, reader_named

    readers = [reader_named(a) for a in agents] if agents else list(READERS)
    names = [r.name for r in readers]
    extra_roots = list(extra_roots)
    roots_of = {reader.name: reader.roots(env, home) for reader in readers}
    # the index is never written inside any agent's folder (those of agents not asked for too)
    index = open_index([*agent_folders(env, home), *map(Path, extra_roots)], use_index=use_index)
    found = Rows()
    results: list[SessionSummary | InputError] = []
    for reader in sorted(readers, key=lambda r: r.name):
        if not roots_of[reader.name]:
            continue  # none of its folders here: what its discovery imports is not needed
        count, rows = reader.summaries(roots_of[reader.name], index, project, since)
        results.extend(progress(rows, count) if progress is not None else rows)
    wanted = project.lower() if project else None
    unread: list[str] = []
    for ref in discover_under(extra_roots, names, unread):
        try:
            summary = kept_row(reader_named(ref.agent), ref, index)
        except InputError as error:
            results.append(error)
            continue
        if wanted is None or wanted in summary.project.lower():
            results.append(summary)
    results.extend(map(InputError, unread))
    index.save()
    seen: set[tuple[str, str]] = set()  # (file, session): a database file holds many sessions
    listed = {row.session for row in results if isinstance(row, SessionSummary)}
    for row in results:
        if isinstance(row, NoUsage):
            found.without_usage.append(row.message)
        elif isinstance(row, InputError):
            found.unread.append(row.message)
        else:
            found.problems.extend(row.problems)
            if row.unmeasured_calls:
                found.unmeasured_calls.append(row.unmeasured_calls)
            if row.parent is not None and row.parent in listed:
                continue  # a subagent's session: counted with its parent (one whose parent is not found is a row)
            if row.calls == 0 and (row.measured or row.started is None):
                # nothing to show yet: no call measured (for an agent without usage, nothing recorded at
                # all, a log just created)
                found.not_started += 1
                continue
            if (row.file, row.session) not in seen:
                seen.add((row.file, row.session))
                found.rows.append(row)
    return found
