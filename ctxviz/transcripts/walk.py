"""Walking an agent's folder for session files: read-only, sorted, and safe from symlink loops (a
symlink that leads out of the folder, or back into a folder already walked, is not followed)."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

MAX_DEPTH = 8  # Codex nests YYYY/MM/DD; opencode and grok-build two levels; deeper is not a session tree


def files_under(
    base: Path, wanted: Callable[[str], bool], max_depth: int = MAX_DEPTH
) -> Iterator[tuple[Path, int, float]]:
    """``(file, size, mtime)`` for each file under ``base`` whose name ``wanted`` accepts. A FIFO or device
    so named is given too: opening it is refused (``regular_file``), so it is reported, not lost in silence."""
    try:
        top = base.resolve()
    except (OSError, RuntimeError):
        return
    seen: set[Path] = set()
    pending = [(base, 0)]
    while pending:
        folder, depth = pending.pop()
        try:
            real = folder.resolve()
        except (OSError, RuntimeError):
            continue
        if real in seen or not real.is_relative_to(top):
            continue
        seen.add(real)
        try:
            with os.scandir(folder) as scan:
                entries = sorted(scan, key=lambda e: e.name)
        except OSError:
            continue
        folders = []
        for entry in entries:
            try:
                if entry.is_dir():
                    if depth < max_depth:
                        folders.append((Path(entry.path), depth + 1))
                elif wanted(entry.name):
                    if entry.is_symlink() and not _inside(Path(entry.path), top):
                        continue
                    stat = entry.stat()
                    yield Path(entry.path), stat.st_size, stat.st_mtime
            except OSError:
                continue
        pending.extend(reversed(folders))


def agent_home(env: Mapping[str, str], variable: str | None, default: Path, sessions: str) -> list[Path]:
    """The agent's folder, where ``variable`` names it or else ``default``, if its ``sessions`` folder exists."""
    root = Path(env[variable]).expanduser() if variable and env.get(variable) else default
    return [root] if (root / sessions).is_dir() else []


def session_files(
    roots: list[Path], sessions: str, wanted: Callable[[str], bool], max_depth: int = MAX_DEPTH
) -> Iterator[tuple[Path, Path, int, float]]:
    """``(base, file, size, mtime)`` for each file ``wanted`` accepts under each root's ``sessions`` folder
    (``base``), or under the root itself when it has none (``--root`` may name either)."""
    for root in roots:
        base = root / sessions if (root / sessions).is_dir() else root
        for file, size, mtime in files_under(base, wanted, max_depth):
            yield base, file, size, mtime


def _inside(path: Path, top: Path) -> bool:
    try:
        return path.resolve().is_relative_to(top)
    except (OSError, RuntimeError):
        return False


def names_in(folder: str) -> list[str]:
    """The names in ``folder``, sorted; none when it cannot be listed (gone, or not a folder)."""
    try:
        return sorted(os.listdir(folder))
    except OSError:
        return []
