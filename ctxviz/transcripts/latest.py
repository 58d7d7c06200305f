"""``--latest``: the most recently written session of any agent, narrowed by agent and project. The I/O
edge (it lists the agents' folders); the CLI only opens what it returns.

A Claude Code session's project is read cheaply (its folder's name, its first records); another agent's
needs its summary, which reads the file, so those are read newest first and only as far as needed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

from ctxviz.errors import InputError
from ctxviz.kinds import AgentName
from ctxviz.transcripts.protocol import NoUsage, Reads, SessionRef, SessionSummary

# How many other agents' sessions may be read to find one of the current folder's project; past that
# the newest session is taken (reading every session could take as long as ``ctxviz sessions``).
LOCAL_LOOKUPS = 20


def _main_session(ref: SessionRef) -> SessionSummary | NoUsage | None:
    """The summary of a session worth opening (readable, measured or estimated, not a subagent's own),
    ``NoUsage`` for one that records no usage, else None."""
    from ctxviz.transcripts.registry import reader_named

    try:
        row = reader_named(ref.agent).summarise(ref, Reads())
    except NoUsage as error:
        return error
    except InputError:
        return None
    if row.parent is not None or (row.calls == 0 and row.measured):
        return None
    return row


def _same_folder(a: str, b: str) -> bool:
    return a.rstrip("/\\") == b.rstrip("/\\")


def latest_session(
    env: Mapping[str, str],
    home: Path,
    *,
    agents: Iterable[str] = (),
    project: str | None = None,
    cwd: str | None = None,
) -> SessionRef:
    """The most recently written session of the chosen agents (default: all) whose project contains
    ``project``; one of ``cwd``'s project wins when there is one. A session that records no usage at all
    (Cursor's) is chosen only when no other is found, so that its reader says what it lacks.
    ``InputError`` when none is found."""
    from ctxviz.transcripts.claude_code.discover import SessionFile, session_files
    from ctxviz.transcripts.claude_code.reader import ClaudeCodeReader
    from ctxviz.transcripts.claude_code.select import encoded_project, project_matches
    from ctxviz.transcripts.registry import READERS, discover, reader_named

    names = [reader_named(a).name for a in agents] or [r.name for r in READERS]
    claude_files: dict[Path, SessionFile] = {}
    if AgentName.CLAUDE_CODE in names:
        claude_files = {f.path: f for f in session_files(ClaudeCodeReader().roots(env, home))}
    candidates = [SessionRef(AgentName.CLAUDE_CODE, f.path, f.session, f.size, f.mtime) for f in claude_files.values()]
    candidates += discover(env, home, [n for n in names if n != AgentName.CLAUDE_CODE])
    candidates.sort(key=lambda r: (r.mtime, r.path.name, r.session), reverse=True)
    wanted = project.lower() if project else None
    newest: SessionRef | None = None
    unmeasured: SessionRef | None = None  # the newest session that records no usage at all
    lookups = 0
    for ref in candidates:
        if ref.agent == AgentName.CLAUDE_CODE:
            file = claude_files[ref.path]
            if not project_matches(file, project):
                continue
            local = cwd is not None and file.project_dir.name == encoded_project(cwd)
        else:
            if newest is not None and lookups >= LOCAL_LOOKUPS:
                continue  # the newest is found; only a Claude Code session of this project may still win
            lookups += 1
            row = _main_session(ref)
            if isinstance(row, NoUsage):
                unmeasured = unmeasured or ref
                continue
            if row is None or (wanted is not None and wanted not in row.project.lower()):
                continue
            local = cwd is not None and _same_folder(row.project, cwd)
        if local:
            return ref
        if newest is None:
            newest = ref
            if cwd is None:
                return ref
    if newest is None and unmeasured is not None and wanted is None:
        return unmeasured  # its reader says what it lacks, more use than "no sessions found"
    if newest is None:
        raise InputError(_nothing_found(names, project))
    return newest


def _nothing_found(names: list[str], project: str | None) -> str:
    which = "no sessions" if len(names) > 1 else f"no {names[0]} sessions"
    where = f" of a project containing {project!r}" if project else ""
    return f"{which}{where} found (see `ctxviz sessions --help` for the folders searched)"
