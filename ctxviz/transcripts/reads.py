"""What a ``sessions`` row was worked out from: each file and folder its reader read, with the size and
modification time it had before it was read. The summary index keeps the row while none of them
changes. Stats only: nothing here reads a transcript.

Taken before the read, a key can only be older than what was read: a file written meanwhile is read
again next run, never kept stale.
"""

from __future__ import annotations

import os
from pathlib import Path

# A file's or folder's size and modification time (ns); a folder read file by file adds a digest of
# its files' names, sizes and times. -1s for one missing.
Key = tuple[int, ...]
MISSING = (-1, -1)


def _stat(path: str) -> Key:
    try:
        stat = os.stat(path)
    except (OSError, ValueError):
        return MISSING
    return (stat.st_size, stat.st_mtime_ns)


def _every_file(folder: str) -> Key:
    """The folder's own key (a name added or removed changes its time) and a digest of each entry's
    name, size and time: an agent that rewrites a file in place leaves the folder's time alone."""
    from hashlib import blake2b  # only a folder read file by file needs it (opencode's older storage)

    try:
        with os.scandir(folder) as scan:
            entries = sorted(scan, key=lambda e: e.name)
    except OSError:
        return (*MISSING, 0)
    digest = blake2b(digest_size=8)
    for entry in entries:
        try:
            stat = entry.stat()
        except OSError:
            continue  # gone since the listing: the folder's own time says so
        digest.update(f"{entry.name}\0{stat.st_size}\0{stat.st_mtime_ns}\n".encode(errors="surrogateescape"))
    return (*_stat(folder), int.from_bytes(digest.digest()))


class Stats:
    """Each path's key, taken once a run: many sessions may read one folder, and a key taken at the
    first look is still one taken before any of them read it."""

    def __init__(self) -> None:
        self._keys: dict[tuple[str, bool], Key] = {}

    def key(self, path: str, every_file: bool = False) -> Key:
        found = self._keys.get((path, every_file))
        if found is None:
            found = self._keys[(path, every_file)] = _every_file(path) if every_file else _stat(path)
        return found

    def known(self, path: str, key: Key) -> None:
        """A key already taken (by discovery, before anything was read)."""
        self._keys[(path, False)] = key


class Reads:
    """The files and folders one row was worked out from, each with its key. A reader notes each before
    it reads it, so that a failure's reads are known too."""

    def __init__(self, stats: Stats | None = None) -> None:
        self.files: dict[str, Key] = {}  # files read, and folders whose names were listed
        self.folders: dict[str, Key] = {}  # folders whose every file was read
        self._stats = stats if stats is not None else Stats()

    def path(self, path: Path) -> Key:
        """A file about to be read (or looked for), or a folder about to be listed; its key, by which a
        reader may keep what it reads there for another session of the same run."""
        key = self.files[str(path)] = self._stats.key(str(path))
        return key

    def every_file_in(self, folder: Path) -> Key:
        """A folder whose files are all about to be read; its key, as for ``path``."""
        key = self.folders[str(folder)] = self._stats.key(str(folder), every_file=True)
        return key

    def unchanged(self, stats: Stats) -> bool:
        """Whether every file and folder still has the key it had then."""
        return all(stats.key(p) == k for p, k in self.files.items()) and all(
            stats.key(p, every_file=True) == k for p, k in self.folders.items()
        )
