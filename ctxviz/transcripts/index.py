"""The summary index: each session's ``sessions`` row, or why it could not be summarised, kept between
runs, so that a run where nothing changed reads no transcript at all.

One JSON file in the user's cache folder (``platformdirs``), never beside the transcripts. An answer is
reused only when the ctxviz version and the size and modification time of everything it was worked
out from match: a Claude Code session's file (as discovery found it) and its subagents folder; for
another agent, each file and folder its reader noted while summarising it (``reads``), a folder whose
files were all read with a digest of their sizes and times. A failure is kept with its message and
given back as the same error, unless a file could not be read at all (``Unreadable``). Anything else
is summarised again. The index is a convenience, never a source of truth: unreadable, corrupt, of
another format or unwritable, it is ignored (and rebuilt when it can be written); every row is
checked field by field; deleting it is always safe.
Plain JSON, so that a run served from it imports nothing that reads transcripts.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ctxviz import __version__
from ctxviz.cache_folder import user_cache_folder, write_atomically
from ctxviz.errors import InputError, NoUsage, Unreadable
from ctxviz.regular_file import read_regular
from ctxviz.transcripts.reads import Reads, Stats
from ctxviz.transcripts.session_row import SessionSummary

# Bump when what a summary holds or how it is worked out changes: rows of another format are not reused.
INDEX_FORMAT = "ctxviz.sessions-index/4"
INDEX_NAME = "sessions-index.json"
# Far more than the rows of every session a machine holds: a larger file there is not ours (cut, it is
# not JSON, and is rebuilt).
MAX_INDEX_BYTES = 512 * 1024 * 1024

Answer = SessionSummary | InputError  # a row, or why there is none (``NoUsage``: nothing measured)


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


def _keys(data: Any) -> dict[str, tuple[int, ...]] | None:
    """``{path: key}`` as the file holds it, checked (a key is a list of integers); None when off."""
    if not isinstance(data, dict):
        return None
    if not all(isinstance(key, list) and all(type(n) is int for n in key) for key in data.values()):
        return None
    return {str(path): tuple(key) for path, key in data.items()}


def _entry(data: Any) -> tuple[Reads, Answer] | None:
    """An entry of the file: what it was worked out from and its row (checked field by field) or its
    error; None when anything is off."""
    if not isinstance(data, dict):
        return None
    reads = Reads()
    files, folders = _keys(data.get("files")), _keys(data.get("folders"))
    if files is None or folders is None:
        return None
    reads.files, reads.folders = files, folders
    if "row" in data:
        row = SessionSummary.from_dict(data["row"])
        return (reads, row) if row is not None else None
    message, no_usage = data.get("error"), data.get("no_usage")
    if not isinstance(message, str) or type(no_usage) is not bool:
        return None
    return reads, (NoUsage if no_usage else InputError)(message)


def _as_json(reads: Reads, answer: Answer) -> dict[str, object]:
    kept: dict[str, object] = {"files": reads.files, "folders": reads.folders}
    if isinstance(answer, SessionSummary):
        return {**kept, "row": answer.as_dict()}
    return {**kept, "error": answer.message, "no_usage": isinstance(answer, NoUsage)}


def _load(path: Path) -> dict[str, tuple[Reads, Answer]]:
    try:
        index = json.loads(read_regular(path, MAX_INDEX_BYTES))
        if index["format"] != INDEX_FORMAT or index["version"] != __version__:
            return {}
        loaded: dict[str, tuple[Reads, Answer]] = {}
        for name, data in index["rows"].items():
            entry = _entry(data)
            if entry is not None:
                loaded[name] = entry
        return loaded
    except (OSError, ValueError, TypeError, KeyError, AttributeError, RecursionError):
        return {}  # missing, unreadable, not a regular file, too large or corrupt: rebuilt from the transcripts


class SummaryIndex:
    """The answers of the previous run, and those of this one to write back, each named (a Claude Code
    session by its file, another agent's by its file and id: a database holds many). ``path`` None:
    nothing is read or written (``--no-cache``, or no usable folder)."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._old = _load(path) if path is not None else {}
        self._new: dict[str, tuple[Reads, Answer]] = {}
        self.stats = Stats()  # every key this run, each taken once

    def get(self, name: str, file: str) -> Answer | None:
        """The kept answer of ``name`` (a session of ``file``) when nothing it was worked out from
        changed, else None."""
        kept = self._old.get(name)
        if kept is None or isinstance(kept[1], SessionSummary) and kept[1].file != file:
            return None
        if not kept[0].unchanged(self.stats):
            return None
        self._new[name] = kept
        return kept[1]

    def put(self, name: str, reads: Reads, answer: Answer) -> None:
        if not isinstance(answer, Unreadable):  # its cause may pass while every key stays the same
            self._new[name] = (reads, answer)

    def save(self) -> None:
        """Write this run's answers (only those of sessions still there); a failure leaves no partial file."""
        if self.path is None or self._new == self._old:  # kept entries are the very objects loaded
            return
        entries = {name: _as_json(reads, answer) for name, (reads, answer) in self._new.items()}
        data = json.dumps({"format": INDEX_FORMAT, "version": __version__, "rows": entries}, separators=(",", ":"))
        with contextlib.suppress(OSError):  # read-only or full: the next run summarises again
            write_atomically(self.path, data.encode())

    def row(self, name: str, file: str, summarise: Callable[[Reads], SessionSummary]) -> SessionSummary:
        """The row of ``name`` (a session of ``file``), kept while nothing ``summarise`` read for it
        changed, else summarised now and kept (``InputError`` when it cannot be: kept too, and raised
        again as it was)."""
        kept = self.get(name, file)
        if isinstance(kept, InputError):
            raise kept
        if kept is not None:
            return kept
        reads = Reads(self.stats)
        try:
            row = summarise(reads)
        except InputError as error:
            self.put(name, reads, error)
            raise
        if row.file == file:
            self.put(name, reads, row)
        return row


def open_index(roots: Sequence[Path], *, use_index: bool = True) -> SummaryIndex:
    """The index in the user's cache folder (never under one of ``roots``); a closed one when
    ``use_index`` is False or there is no such folder."""
    folder = cache_folder(roots) if use_index else None
    return SummaryIndex(folder / INDEX_NAME if folder is not None else None)
