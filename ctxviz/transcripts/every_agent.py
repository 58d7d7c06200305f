"""The rows of ``ctxviz sessions`` for every agent: Claude Code through its own fast path (parallel,
cached summaries), every other agent through its reader. The I/O edge; the CLI only prints."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING

from ctxviz.errors import InputError
from ctxviz.kinds import AgentName
from ctxviz.transcripts.protocol import NoUsage, Reads, SessionRef, SessionSummary

if TYPE_CHECKING:
    from ctxviz.transcripts.index import SummaryIndex


class Rows:
    """What a ``sessions`` run found, every agent's."""

    def __init__(self) -> None:
        self.rows: list[SessionSummary] = []
        self.problems: list[str] = []  # damaged lines and unreadable files, located
        self.without_usage: list[str] = []  # sessions that record no token usage
        self.unmeasured_calls: list[int] = []  # per session: its calls without usage
        self.not_started = 0  # sessions with nothing to show yet (no API call), not listed


# Wraps the Claude Code results with a progress display: (results, how many) → the same results.
Progress = Callable[[Iterator[SessionSummary | InputError], int], Iterable[SessionSummary | InputError]]


def _claude(
    roots: list[Path], project: str | None, since: date | None, progress: Progress | None, index: SummaryIndex
) -> Iterable[SessionSummary | InputError]:
    from ctxviz.transcripts.claude_code.discover import session_files
    from ctxviz.transcripts.claude_code.select import project_matches
    from ctxviz.transcripts.index import summaries

    files = [f for f in session_files(roots) if project_matches(f, project)]
    if since is not None:  # a file last written before --since cannot hold a session active after it
        files = [f for f in files if date.fromtimestamp(f.mtime) >= since]
    rows = summaries(files, index)  # the summary index: unchanged files are not read
    return progress(rows, len(files)) if progress is not None else rows


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
    from ctxviz.transcripts.index import open_index, reader_row
    from ctxviz.transcripts.registry import READERS, discover_in, discover_under, reader_named

    readers = [reader_named(a) for a in agents] if agents else list(READERS)
    names = [r.name for r in readers]
    extra_roots = list(extra_roots)
    roots_of = {reader.name: reader.roots(env, home) for reader in readers}
    # the index is never written inside any agent's folder
    index = open_index([*(root for roots in roots_of.values() for root in roots), *map(Path, extra_roots)],
                       use_index=use_index)  # fmt: skip
    found = Rows()
    results: list[SessionSummary | InputError] = []
    if AgentName.CLAUDE_CODE in roots_of:
        results.extend(_claude(roots_of.pop(AgentName.CLAUDE_CODE), project, since, progress, index))
    refs = discover_in(roots_of)
    refs += discover_under(extra_roots, names)
    for ref in refs:
        try:
            results.append(reader_row(reader_named(ref.agent), ref, index))
        except InputError as error:
            results.append(error)
    index.save()
    wanted = project.lower() if project else None
    seen: set[tuple[str, str]] = set()  # (file, session): a database file holds many sessions
    listed = {row.session for row in results if isinstance(row, SessionSummary)}
    for row in results:
        if isinstance(row, NoUsage):
            found.without_usage.append(row.message)
        elif isinstance(row, InputError):
            found.problems.append(row.message)
        else:
            found.problems.extend(row.problems)
            if row.unmeasured_calls:
                found.unmeasured_calls.append(row.unmeasured_calls)
            if row.parent is not None and row.parent in listed:
                continue  # a subagent's session: counted with its parent (one whose parent is not found is a row)
            if wanted and row.agent != AgentName.CLAUDE_CODE and wanted not in row.project.lower():
                continue
            if row.calls == 0 and (row.measured or row.started is None):
                # nothing to show yet: no call measured (for an agent without usage, nothing recorded at
                # all, a log just created)
                found.not_started += 1
                continue
            if (row.file, row.session) not in seen:
                seen.add((row.file, row.session))
                found.rows.append(row)
    return found


def find_session(
    env: Mapping[str, str], home: Path, wanted: str, agents: Iterable[str] | None = None
) -> SessionRef | None:
    """The one session of another agent than Claude Code (of ``agents``, default any) whose id is
    ``wanted`` or starts with it (the id ``sessions`` prints, or a file's name); None when there is
    none. Several: ``InputError``."""
    from ctxviz.transcripts.registry import AGENTS, discover

    refs = discover(env, home, [a for a in (AGENTS if agents is None else agents) if a != AgentName.CLAUDE_CODE])
    near = [r for r in refs if r.session.startswith(wanted) or wanted[:8] in r.path.stem]
    found = _named(near, wanted)
    if not found:  # a file named otherwise than its id: read the others too (slower, so only now)
        found = _named([r for r in refs if r not in near], wanted)
    if len(found) > 1:
        names = ", ".join(f"{r.agent} {r.session}" for r in found[:5])
        raise InputError(f"session {wanted!r} is ambiguous: {names}")
    return found[0] if found else None


def _named(refs: list[SessionRef], wanted: str) -> list[SessionRef]:
    """The sessions among ``refs`` whose id (as ``sessions`` prints it, or its file's name) starts with
    ``wanted``."""
    from ctxviz.transcripts.registry import reader_named

    found: list[SessionRef] = []
    for ref in refs:
        try:
            named = reader_named(ref.agent).summarise(ref, Reads()).session
        except InputError:
            continue
        if named.startswith(wanted) or ref.session.startswith(wanted) or wanted in ref.path.stem:
            found.append(ref)
    return found
