"""Finding one session among every agent's: ``--latest``, ``--session ID`` (both narrowed by ``-p`` and
``--agent``), the newest session ``watch`` follows, and the recent sessions the TUI's open screen lists.
The I/O edge (it lists the agents' folders); the faces only open what it returns.

What a reader can tell of a session without reading it (its ``glance``: a Claude Code session's
project is its folder's name) is used first; another session's project needs its summary, which reads
the file, so those are read newest first and only as far as needed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

from ctxviz.errors import InputError
from ctxviz.transcripts.packed import COMPRESSED
from ctxviz.transcripts.protocol import Glance, NoUsage, Reader, Reads, SessionRef, SessionSummary
from ctxviz.transcripts.safe import safe_text

# How many sessions may be summarised to find one of the current folder's project; past that the
# newest session is taken (reading every session could take as long as ``ctxviz sessions``).
LOCAL_LOOKUPS = 20


def _chosen(agents: Iterable[str] | None) -> list[Reader]:
    from ctxviz.transcripts.registry import READERS, reader_named

    names = list(agents or ())
    return [reader_named(name) for name in names] if names else list(READERS)


def _found(readers: list[Reader], env: Mapping[str, str], home: Path) -> list[tuple[Reader, list[SessionRef]]]:
    return [(reader, reader.discover(roots)) for reader in readers if (roots := reader.roots(env, home))]


def _main_session(reader: Reader, ref: SessionRef) -> SessionSummary | NoUsage | None:
    """The summary of a session worth opening (readable, measured or estimated, not a subagent's own),
    ``NoUsage`` for one that records no usage, else None."""
    try:
        row = reader.summarise(ref, Reads())
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
    readers = _chosen(agents)
    candidates = [(ref, reader) for reader, refs in _found(readers, env, home) for ref in refs]
    candidates.sort(key=lambda found: (found[0].mtime, found[0].path.name, found[0].session), reverse=True)
    wanted = project.lower() if project else None
    newest: SessionRef | None = None
    unmeasured: SessionRef | None = None  # the newest session that records no usage at all
    lookups = 0
    for ref, reader in candidates:
        seen = reader.glance(ref, project, cwd)
        if seen is None:
            if newest is not None and lookups >= LOCAL_LOOKUPS:
                continue  # the newest is found; only a session told cheaply of this project may still win
            lookups += 1
            row = _main_session(reader, ref)
            if isinstance(row, NoUsage):
                unmeasured = unmeasured or ref
                continue
            if row is None:
                continue
            matches = wanted is None or wanted in row.project.lower()
            seen = Glance(row.project, matches, cwd is not None and _same_folder(row.project, cwd))
        if not seen.matches:
            continue
        if seen.local:
            return ref
        if newest is None:
            newest = ref
            if cwd is None:
                return ref
    if newest is None and unmeasured is not None and wanted is None:
        return unmeasured  # its reader says what it lacks, more use than "no sessions found"
    if newest is None:
        raise InputError(_nothing_found([r.name for r in readers], project))
    return newest


def _nothing_found(names: list[str], project: str | None) -> str:
    which = "no sessions" if len(names) > 1 else f"no {names[0]} sessions"
    where = f" of a project containing {project!r}" if project else ""
    return f"{which}{where} found (see `ctxviz sessions --help` for the folders searched)"


def session_by_id(
    env: Mapping[str, str], home: Path, wanted: str, *, agents: Iterable[str] = (), project: str | None = None
) -> SessionRef:
    """The one session (of ``agents``, default any; of a project containing ``project``) whose id is
    ``wanted`` or starts with it: the id ``sessions`` prints, or a file's name. An exact id wins over
    prefixes. ``InputError`` when there is none, or several."""
    found_by = _found(_chosen(agents), env, home)
    if project:  # what a glance cannot tell is kept: -p narrows what is told cheaply
        found_by = [(reader, [ref for ref in refs if _may_be_of(reader, ref, project)]) for reader, refs in found_by]
    found: list[SessionRef] = []
    for thorough in (False, True):  # the files named near the id first; every session only if none is
        for reader, refs in found_by:
            found += reader.sessions_named(refs, wanted, thorough)
        if found:
            break
    found = [ref for ref in found if ref.session == wanted] or found
    if not found:
        whose = f"{list(agents)[0]} session" if len(list(agents)) == 1 else "session"
        raise InputError(f"no {whose} {safe_text(wanted)!r} found (try `ctxviz sessions`)")
    if len(found) > 1:
        names = ", ".join(f"{ref.agent} {ref.session}" for ref in found[:5])
        raise InputError(f"session {safe_text(wanted)!r} is ambiguous: {safe_text(names)}")
    return found[0]


def _may_be_of(reader: Reader, ref: SessionRef, project: str) -> bool:
    seen = reader.glance(ref, project)
    return seen is None or seen.matches


def newest_to_follow(
    env: Mapping[str, str], home: Path, agent: str | None = None, cwd: str | None = None
) -> SessionRef | None:
    """The session written last under the agents' folders (only ``agent``'s when named) of an agent
    whose logs record usage: what ``watch`` follows. Among an agent's sessions told cheaply to be of
    ``cwd``'s project, those win, as for ``--latest``. A compressed session is never followed: no agent
    writes to it (it may still be the newest file, just archived)."""
    candidates: list[SessionRef] = []
    readers = [reader for reader in _chosen([agent] if agent else None) if reader.records_usage]
    for reader, found in _found(readers, env, home):
        refs = [ref for ref in found if not ref.path.name.endswith(COMPRESSED)]
        local = [ref for ref in refs if (seen := reader.glance(ref, None, cwd)) is not None and seen.local]
        candidates += [reader.to_follow(ref) for ref in local or refs]
    return max(candidates, key=lambda r: (r.mtime, str(r.path)), default=None)


def recent_sessions(env: Mapping[str, str], home: Path, limit: int) -> list[tuple[SessionRef, str]]:
    """The ``limit`` sessions written last, of every agent whose logs record usage, each with its project
    as far as told without reading it ("" when only its summary tells): for the TUI's open screen."""
    readers = {reader.name: reader for reader in _chosen(None) if reader.records_usage}
    refs = [ref for _, found in _found(list(readers.values()), env, home) for ref in found]
    refs = sorted(refs, key=lambda r: (-r.mtime, str(r.path), r.session))[:limit]
    return [(ref, seen.project if (seen := readers[ref.agent].glance(ref)) is not None else "") for ref in refs]
