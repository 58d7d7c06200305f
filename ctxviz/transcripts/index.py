"""The summary index: each session's ``sessions`` row kept between runs, so a run where nothing changed
reads no transcript at all.

One JSON file in the user's cache folder (``platformdirs``), never beside the transcripts. A row is
reused only when its file's path, size and modification time, the modification time of its subagents
folder and the ctxviz version all match; anything else is summarised again. The index is a convenience,
never a source of truth: unreadable, corrupt, of another format or unwritable, it is ignored (and
rebuilt when it can be written); every row is checked field by field; deleting it is always safe.
Plain JSON, so that a run served from it imports nothing that reads transcripts.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Sequence
from pathlib import Path

from ctxviz import __version__
from ctxviz.cache_folder import user_cache_folder
from ctxviz.errors import InputError
from ctxviz.transcripts.discover import SessionFile
from ctxviz.transcripts.session_row import SessionSummary

# Bump when what a summary holds or how it is worked out changes: rows of another format are not reused.
INDEX_FORMAT = "ctxviz.sessions-index/3"
INDEX_NAME = "sessions-index.json"

Key = tuple[int, int, int]  # size, mtime_ns, the subagents folder's mtime_ns (0 when none)


def cache_folder(roots: Sequence[Path]) -> Path | None:
    """Where the index lives: the user's cache folder for ctxviz; None when that would be inside (or
    hold) a transcripts folder: nothing is ever written there."""
    folder = user_cache_folder()
    try:
        resolved = folder.resolve()
    except (OSError, RuntimeError):
        return None
    if any(resolved.is_relative_to(root) or root.is_relative_to(resolved) for root in roots):
        return None
    return folder


def _key(file: SessionFile) -> Key:
    try:
        subagents = (file.path.parent / file.path.stem).stat().st_mtime_ns
    except (OSError, RuntimeError):
        subagents = 0
    return (file.size, file.mtime_ns, subagents)


def _load(path: Path) -> dict[str, tuple[Key, SessionSummary]]:
    try:
        index = json.loads(path.read_bytes())
        if index["format"] != INDEX_FORMAT or index["version"] != __version__:
            return {}
        rows = index["rows"]
        loaded: dict[str, tuple[Key, SessionSummary]] = {}
        for file, (size, mtime_ns, subagents, data) in rows.items():
            summary = SessionSummary.from_dict(data)
            if summary is not None and summary.file == file and all(type(n) is int for n in (size, mtime_ns)):
                loaded[file] = ((size, mtime_ns, subagents), summary)
        return loaded
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return {}  # missing, unreadable or corrupt: rebuilt from the transcripts


class SummaryIndex:
    """The rows of the previous run, and the rows of this one to write back."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._old = _load(path) if path is not None else {}
        self._new: dict[str, tuple[Key, SessionSummary]] = {}

    def get(self, file: SessionFile) -> SessionSummary | None:
        """The kept row of ``file`` when nothing about it changed, else None."""
        key = _key(file)
        kept = self._old.get(str(file.path))
        if kept is None or kept[0] != key:
            return None
        self._new[str(file.path)] = kept
        return kept[1]

    def put(self, file: SessionFile, summary: SessionSummary) -> None:
        self._new[str(file.path)] = (_key(file), summary)

    def save(self) -> None:
        """Write this run's rows (only those of files still there); a failure leaves no partial file."""
        if self.path is None or self._new == self._old:
            return
        import tempfile

        rows = {file: [*key, summary.as_dict()] for file, (key, summary) in self._new.items()}
        data = json.dumps({"format": INDEX_FORMAT, "version": __version__, "rows": rows}, separators=(",", ":"))
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            handle, temporary = tempfile.mkstemp(prefix=".sessions-index-", dir=self.path.parent)
            try:
                with os.fdopen(handle, "w", encoding="utf-8") as out:
                    out.write(data)
                os.replace(temporary, self.path)
            except BaseException:
                os.unlink(temporary)
                raise
        except OSError:
            return  # read-only or full: the next run summarises again


def summaries(
    files: Sequence[SessionFile], roots: Sequence[Path], *, use_index: bool = True
) -> Iterator[SessionSummary | InputError]:
    """Each file's summary (or why it could not be read): first the rows kept in the index where nothing
    changed, then the others as they are summarised (in parallel when many); the index is written back
    once all are done."""
    folder = cache_folder(roots) if use_index else None
    index = SummaryIndex(folder / INDEX_NAME if folder is not None else None)
    todo: list[SessionFile] = []
    for file in files:
        kept = index.get(file)
        if kept is None:
            todo.append(file)
        else:
            yield kept
    if todo:
        from ctxviz.transcripts.summary import summarize_all

        for file, row in zip(todo, summarize_all(todo), strict=True):
            if isinstance(row, SessionSummary):
                index.put(file, row)
            yield row
    index.save()
