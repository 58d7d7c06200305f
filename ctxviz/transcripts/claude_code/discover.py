"""Where Claude Code keeps transcripts, and which files belong to a session. Read-only; a symlink that
leads out of the folder being searched is never followed, and a symlink loop is skipped like a missing
file (``Path.resolve`` raises RuntimeError on a loop in Python 3.11–3.12, OSError later).

Layout: ``<root>/projects/<encoded cwd>/<session>.jsonl``, subagents in
``<session>/subagents/agent-<id>.jsonl`` (older: ``agent-<id>.jsonl`` beside the session file). Any of
them may be kept gzip-compressed (``<session>.jsonl.gz``): found the same way, and listed once when the
uncompressed file is there too (``packed``).
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from functools import lru_cache
from pathlib import Path
from typing import NamedTuple

from ctxviz.transcripts.packed import named, session_stem, shadowed, unpacked_head
from ctxviz.transcripts.walk import is_folder_or_closed, link_trouble

AGENT_PREFIX = "agent-"
COMPACTION_PREFIX = "agent-acompact"  # the compaction call's own transcript, not a user subagent
_PEEK_BYTES = 64 * 1024
_is_jsonl = named(".jsonl")  # compressed or not


class SessionFile(NamedTuple):
    path: Path
    project_dir: Path  # the encoded project folder
    root: Path
    size: int
    mtime: float
    mtime_ns: int = 0  # the summary index's key (exact, unlike the float)

    @property
    def session(self) -> str:
        return session_stem(self.path)


def config_roots(env: Mapping[str, str] | None = None, home: Path | None = None) -> list[Path]:
    """Every Claude config folder: each ``CLAUDE_CONFIG_DIR`` entry, ``~/.config/claude``, ``~/.claude``."""
    env = os.environ if env is None else env
    home = Path(env.get("HOME") or Path.home()) if home is None else home
    candidates = [Path(p.strip()).expanduser() for p in env.get("CLAUDE_CONFIG_DIR", "").split(",") if p.strip()]
    candidates += [home / ".config" / "claude", home / ".claude"]
    roots: list[Path] = []
    for candidate in candidates:
        try:
            resolved = candidate.resolve()
        except (OSError, RuntimeError):
            continue
        # a projects folder that may not be looked into is kept: listing it then says so
        has_projects = is_folder_or_closed(resolved / "projects")
        if resolved not in roots and has_projects:
            roots.append(resolved)
    return roots


def _inside(path: Path, base: Path) -> bool:
    try:
        return path.resolve().is_relative_to(base)
    except (OSError, RuntimeError):
        return False


def _entries(folder: Path, base: Path, unread: list[str] | None = None) -> Iterator[os.DirEntry[str]]:
    """The folder's entries but links out of ``base``; ``unread``: where to say it cannot be listed."""
    try:
        with os.scandir(folder) as scan:
            items = sorted(scan, key=lambda e: e.name)
    except FileNotFoundError:
        return
    except OSError as error:
        if unread is not None:
            unread.append(f"{folder}: cannot list this folder: {error.strerror or error}")
        return
    for item in items:
        if item.is_symlink() and not _inside(Path(item.path), base):
            # a session or a project folder so linked is said, not lost; any other file is no session's
            if unread is not None and (_is_jsonl(item.name) or os.path.isdir(item.path)):
                unread.append(f"{item.path}: {link_trouble(Path(item.path))}: not followed")
            continue
        yield item


def _is_dir(item: os.DirEntry[str]) -> bool:
    try:
        return item.is_dir()
    except OSError:
        return False


def session_files(roots: list[Path], unread: list[str] | None = None) -> list[SessionFile]:
    """Every main session file under the roots' ``projects/`` folders, in name order; ``unread``: where
    to say what could not be looked into (a folder it may not list, a session-named link to nothing)."""
    found: list[SessionFile] = []
    for root in roots:
        for project in _entries(root / "projects", root, unread):
            if not _is_dir(project):
                continue
            items = list(_entries(Path(project.path), root, unread))
            names = {item.name for item in items}
            for item in items:
                if not _is_jsonl(item.name) or item.name.startswith(AGENT_PREFIX) or shadowed(item.name, names):
                    continue
                try:
                    stat = item.stat()
                    is_folder = item.is_dir()
                except OSError as error:
                    if unread is not None:
                        trouble = f"cannot read: {error.strerror or error}"
                        why = f"{link_trouble(Path(item.path))}: not followed" if item.is_symlink() else trouble
                        unread.append(f"{item.path}: {why}")
                    continue
                # a FIFO or device named like a session is listed too: reading it is refused, and said
                if not is_folder:
                    found.append(
                        SessionFile(
                            Path(item.path), Path(project.path), root, stat.st_size, stat.st_mtime, stat.st_mtime_ns
                        )
                    )
    return found


def decode_project(name: str) -> str:
    """Best effort at the cwd behind an encoded folder name (``/``, ``.``, space and ``~`` all became
    ``-``): prefer the reading whose folders exist. The records' ``cwd`` is the truth when present."""
    parts = name.lstrip("-").split("-")
    path = ""
    current = ""
    for part in parts:
        current = f"{current}-{part}" if current else part
        if os.path.isdir(f"{path}/{current}"):
            path, current = f"{path}/{current}", ""
    return f"{path}/{current}" if current else path or "/"


def peek_ids(path: Path) -> tuple[str | None, str | None]:
    """The sessionId and cwd its first records name (to tell which session an agent file belongs to,
    and to find a session by the id and project that ``sessions`` shows) without reading the file."""
    from ctxviz.transcripts.claude_code.records import decode_head

    try:
        head = unpacked_head(path, _PEEK_BYTES)
    except OSError:
        return None, None
    session = cwd = None
    for line in head.removeprefix(b"\xef\xbb\xbf").split(b"\n")[:50]:
        found = decode_head(line)
        if found is not None:
            session, cwd = session or found[0], cwd or found[1]
        if session and cwd:
            break
    return session, cwd


def first_session_id(path: Path) -> str | None:
    return peek_ids(path)[0]


def _agent_files(session_path: Path, session: str | None) -> list[Path]:
    try:
        base = session_path.parent.resolve()
    except (OSError, RuntimeError):
        return []
    own = session_path.parent / session_stem(session_path) / "subagents"
    files = [Path(e.path) for e in _agent_entries(own, base)]
    for folder in (session_path.parent / "subagents", session_path.parent):
        if folder == own or session is None:
            continue
        try:
            changed = folder.stat().st_mtime_ns
        except (OSError, RuntimeError):
            continue
        files += [file for file, owner in _older_agent_files(folder, base, changed) if owner == session]
    return files


@lru_cache(maxsize=64)
def _older_agent_files(folder: Path, base: Path, changed: int) -> tuple[tuple[Path, str | None], ...]:
    """The ``agent-*.jsonl`` files directly in a folder (the older layout) with the session each names,
    listed and peeked once while the folder is unchanged (``changed``: its mtime): every session of the
    folder asks, and a project folder can hold thousands of sessions."""
    return tuple((Path(item.path), first_session_id(Path(item.path))) for item in _agent_entries(folder, base))


def _agent_entries(folder: Path, base: Path) -> list[os.DirEntry[str]]:
    """The ``agent-*.jsonl`` files in a folder, compressed or not (a compressed copy beside its file: once)."""
    items = list(_entries(folder, base))
    names = {item.name for item in items}
    return [
        item
        for item in items
        if item.name.startswith(AGENT_PREFIX)
        and _is_jsonl(item.name)
        and not shadowed(item.name, names)
        and not _is_dir(item)
    ]


def subagent_files(session_path: Path, session: str | None) -> list[tuple[str, Path]]:
    """``(agent id, file)`` of the session's user subagents, both layouts."""
    return [
        (session_stem(file).removeprefix(AGENT_PREFIX), file)
        for file in _agent_files(session_path, session)
        if not file.name.startswith(COMPACTION_PREFIX)
    ]


def compaction_files(session_path: Path, session: str | None) -> list[Path]:
    """The compaction calls' own transcripts, oldest first (they pair with the boundaries in order)."""
    files = [f for f in _agent_files(session_path, session) if f.name.startswith(COMPACTION_PREFIX)]
    return sorted(files, key=lambda f: (_mtime(f), f.name))


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0
