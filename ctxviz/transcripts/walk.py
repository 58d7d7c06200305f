"""Walking an agent's folder for session files: read-only, sorted, and safe from symlink loops (a
symlink that leads out of the folder, or back into a folder already walked, is not followed).

What the walk cannot look into is never dropped in silence: a caller that passes ``unread`` gets each
such place, located and with why (a folder it may not list, a session-named link to nothing or out of
the folder), to report among what gave no session."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

from ctxviz.transcripts.packed import shadowed

MAX_DEPTH = 8  # Codex nests YYYY/MM/DD; opencode and grok-build two levels; deeper is not a session tree


def files_under(
    base: Path, wanted: Callable[[str], bool], max_depth: int = MAX_DEPTH, unread: list[str] | None = None
) -> Iterator[tuple[Path, int, float]]:
    """``(file, size, mtime)`` for each file under ``base`` whose name ``wanted`` accepts, but a compressed
    copy of a file beside it (``x.jsonl.gz`` beside ``x.jsonl``: listed once, as ``x.jsonl``). A FIFO or device
    so named is given too: opening it is refused (``regular_file``), so it is reported, not lost in silence.
    ``unread``: where to say what could not be looked into."""
    said = unread if unread is not None else []
    try:
        top = base.resolve()
    except (OSError, RuntimeError):
        said.append(f"{base}: a symlink loop: not followed")
        return
    seen: set[Path] = set()
    pending = [(base, 0)]
    while pending:
        folder, depth = pending.pop()
        try:
            real = folder.resolve()
        except (OSError, RuntimeError):
            said.append(f"{folder}: a symlink loop: not followed")
            continue
        if real in seen:
            continue  # walked already: its sessions are listed once
        if not real.is_relative_to(top):
            said.append(f"{folder}: a link out of {base}: not followed")
            continue
        seen.add(real)
        try:
            with os.scandir(folder) as scan:
                entries = sorted(scan, key=lambda e: e.name)
        except FileNotFoundError:
            continue  # removed since it was found: nothing was in it to lose
        except OSError as error:
            said.append(f"{folder}: cannot list this folder: {error.strerror or error}")
            continue
        folders = []
        names = {entry.name for entry in entries}
        for entry in entries:
            try:
                if entry.is_dir():
                    if depth < max_depth:
                        folders.append((Path(entry.path), depth + 1))
                elif wanted(entry.name) and not shadowed(entry.name, names):
                    if entry.is_symlink() and not _inside(Path(entry.path), top):
                        said.append(f"{entry.path}: {link_trouble(Path(entry.path))}: not followed")
                        continue
                    found = entry.stat()
                    yield Path(entry.path), found.st_size, found.st_mtime
            except OSError as error:
                said.append(f"{entry.path}: {_trouble(entry, error)}")
                continue
        pending.extend(reversed(folders))


def agent_home(env: Mapping[str, str], variable: str | None, default: Path, sessions: str) -> list[Path]:
    """The agent's folder, where ``variable`` names it or else ``default``, if its ``sessions`` folder exists."""
    root = Path(env[variable]).expanduser() if variable and env.get(variable) else default
    return [root] if is_folder_or_closed(root / sessions) else []


def session_files(
    roots: list[Path],
    sessions: str,
    wanted: Callable[[str], bool],
    max_depth: int = MAX_DEPTH,
    unread: list[str] | None = None,
) -> Iterator[tuple[Path, Path, int, float]]:
    """``(base, file, size, mtime)`` for each file ``wanted`` accepts under each root's ``sessions`` folder
    (``base``), or under the root itself when it has none (``--root`` may name either); what cannot be
    looked into goes to ``unread``."""
    for root in roots:
        base = root / sessions if is_folder_or_closed(root / sessions) else root
        for file, size, mtime in files_under(base, wanted, max_depth, unread):
            yield base, file, size, mtime


def _inside(path: Path, top: Path) -> bool:
    try:
        return path.resolve().is_relative_to(top)
    except (OSError, RuntimeError):
        return False


def _trouble(entry: os.DirEntry[str], error: OSError) -> str:
    if entry.is_symlink():
        return f"{link_trouble(Path(entry.path))}: not followed"
    return f"cannot read: {error.strerror or error}"


def link_trouble(link: Path) -> str:
    """Why a session-named symlink is not followed: it leads nowhere, round in a loop, or out."""
    try:
        target = link.resolve(strict=True)
    except FileNotFoundError:
        return "a symlink to a missing file"
    except (OSError, RuntimeError):
        return "a symlink loop"
    return f"a symlink out of the folder (to {target})"


def is_folder_or_closed(path: Path) -> bool:
    """Whether ``path`` is a folder, or something there that may not be looked into (a folder without
    permission, a loop): the walk then says so, where a plain check would raise or drop it unsaid."""
    try:
        return stat.S_ISDIR(os.stat(path).st_mode)
    except (FileNotFoundError, NotADirectoryError):
        return False
    except OSError:
        return True


def names_in(folder: str) -> list[str]:
    """The names in ``folder``, sorted; none when it cannot be listed (gone, or not a folder)."""
    try:
        return sorted(os.listdir(folder))
    except OSError:
        return []
