"""The summary index: each session's ``sessions`` row kept between runs, so a run where nothing changed
reads no transcript at all.

One JSON file in the user's cache folder (``platformdirs``), never beside the transcripts. A row is
reused only when the ctxviz version and the size and modification time of everything it was worked
out from match: a Claude Code session's file and its subagents folder; for another agent, what its
reader names (a Codex or pi session is its one file; an agent whose session is spread over many files
names nothing, and its rows are worked out every time). Anything else is summarised again. The index
is a convenience, never a source of truth: unreadable, corrupt, of another format or unwritable, it is
ignored (and rebuilt when it can be written); every row is checked field by field; deleting it is
always safe.
Plain JSON, so that a run served from it imports nothing that reads transcripts.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

from ctxviz import __version__
from ctxviz.cache_folder import user_cache_folder, write_atomically
from ctxviz.errors import InputError
from ctxviz.transcripts.discover import SessionFile
from ctxviz.transcripts.protocol import Reader, SessionRef
from ctxviz.transcripts.session_row import SessionSummary

# Bump when what a summary holds or how it is worked out changes: rows of another format are not reused.
INDEX_FORMAT = "ctxviz.sessions-index/3"
INDEX_NAME = "sessions-index.json"

# The size and modification time (ns) of each file or folder a row depends on; -1, -1 for one missing.
Key = tuple[int, ...]
_MISSING = (-1, -1)


def cache_folder(roots: Sequence[Path]) -> Path | None:
    """Where the index lives: the user's cache folder for ctxviz; None when that would be inside (or
    hold) a transcripts folder: nothing is ever written there."""
    folder = user_cache_folder()
    try:
        resolved = folder.resolve()
        real_roots = [root.resolve() for root in roots]
    except (OSError, RuntimeError):
        return None
    if any(resolved.is_relative_to(root) or root.is_relative_to(resolved) for root in real_roots):
        return None
    return folder


def _stat(path: Path) -> tuple[int, int]:
    try:
        stat = path.stat()
    except (OSError, RuntimeError):
        return _MISSING
    return (stat.st_size, stat.st_mtime_ns)


def key_of(paths: Iterable[Path]) -> Key:
    return tuple(n for path in paths for n in _stat(path))


def _claude_key(file: SessionFile) -> Key:
    """The session file (as discovery found it) and its subagents folder."""
    return (file.size, file.mtime_ns, *_stat(file.path.parent / file.path.stem))


def _load(path: Path) -> dict[str, tuple[Key, SessionSummary]]:
    try:
        index = json.loads(path.read_bytes())
        if index["format"] != INDEX_FORMAT or index["version"] != __version__:
            return {}
        loaded: dict[str, tuple[Key, SessionSummary]] = {}
        for name, entry in index["rows"].items():
            key, summary = entry["key"], SessionSummary.from_dict(entry["row"])
            if summary is not None and summary.file == name and all(type(n) is int for n in key):
                loaded[name] = (tuple(key), summary)
        return loaded
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return {}  # missing, unreadable or corrupt: rebuilt from the transcripts


class SummaryIndex:
    """The rows of the previous run, and the rows of this one to write back. A row is named by its
    session's file; ``path`` None: nothing is read or written (``--no-cache``, or no usable folder)."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._old = _load(path) if path is not None else {}
        self._new: dict[str, tuple[Key, SessionSummary]] = {}

    def get(self, name: str, key: Key) -> SessionSummary | None:
        """The kept row of ``name`` when nothing it depends on changed, else None."""
        kept = self._old.get(name)
        if kept is None or kept[0] != key:
            return None
        self._new[name] = kept
        return kept[1]

    def put(self, name: str, key: Key, summary: SessionSummary) -> None:
        self._new[name] = (key, summary)

    def save(self) -> None:
        """Write this run's rows (only those of files still there); a failure leaves no partial file."""
        if self.path is None or self._new == self._old:
            return
        rows = {name: {"key": list(key), "row": summary.as_dict()} for name, (key, summary) in self._new.items()}
        data = json.dumps({"format": INDEX_FORMAT, "version": __version__, "rows": rows}, separators=(",", ":"))
        with contextlib.suppress(OSError):  # read-only or full: the next run summarises again
            write_atomically(self.path, data.encode())


def open_index(roots: Sequence[Path], *, use_index: bool = True) -> SummaryIndex:
    """The index in the user's cache folder (never under one of ``roots``); a closed one when
    ``use_index`` is False or there is no such folder."""
    folder = cache_folder(roots) if use_index else None
    return SummaryIndex(folder / INDEX_NAME if folder is not None else None)


def reader_row(reader: Reader, ref: SessionRef, index: SummaryIndex) -> SessionSummary:
    """Another agent's row: kept when the reader can say what it depends on and none of it changed
    (``InputError`` when the session cannot be summarised)."""
    depends_on = reader.row_depends_on(ref)
    if not depends_on:
        return reader.summarise(ref)
    name, key = str(ref.path), key_of(depends_on)
    kept = index.get(name, key)
    if kept is not None and kept.agent == reader.name:
        return kept
    row = reader.summarise(ref)
    if row.file == name:
        index.put(name, key, row)
    return row


def summaries(files: Sequence[SessionFile], index: SummaryIndex) -> Iterator[SessionSummary | InputError]:
    """Each Claude Code file's summary (or why it could not be read): first the rows kept in the index
    where nothing changed, then the others as they are summarised (in parallel when many). The caller
    saves the index once every agent's rows are in."""
    todo: list[tuple[SessionFile, Key]] = []
    for file in files:
        key = _claude_key(file)
        kept = index.get(str(file.path), key)
        if kept is None:
            todo.append((file, key))
        else:
            yield kept
    if todo:
        from ctxviz.transcripts.summary import summarize_all

        for (file, key), row in zip(todo, summarize_all([file for file, _ in todo]), strict=True):
            if isinstance(row, SessionSummary):
                index.put(str(file.path), key, row)
            yield row
