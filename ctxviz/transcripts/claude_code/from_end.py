"""Where a transcript's current window starts: its last compaction boundary, found by reading the file
backwards in blocks, so that what concerns "now" costs the bytes after it, not the whole file.

A boundary is a complete ``system`` record of subtype ``compact_boundary`` on the main conversation (a
subagent's own compactions are not the session's). Only lines that name what is looked for are decoded.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from ctxviz.transcripts.backwards import lines_backwards
from ctxviz.transcripts.claude_code.records import SYNTHETIC_MODEL, DecodeError, Record, decode_record

_BOUNDARY = b'"compact_boundary"'
_USAGE = b'"usage"'
# How far before a boundary its last call is looked for: compaction follows a call within a few records.
CALL_BEFORE_BYTES = 16 * 1024 * 1024


def _backwards(handle: BinaryIO, end: int, mark: bytes, floor: int = 0) -> Iterator[tuple[int, Record]]:
    """``(offset, record)`` of each complete line between ``floor`` and ``end`` that holds ``mark`` and
    decodes, the last first (transcripts/backwards.py reads the blocks)."""
    for offset, line in lines_backwards(handle, end, mark, floor):
        if (record := _decoded(line)) is not None:
            yield offset, record


def _decoded(line: bytes) -> Record | None:
    try:
        return decode_record(line)
    except DecodeError:
        return None


def _is_boundary(record: Record) -> bool:
    return record.kind == "system" and record.subtype == "compact_boundary" and not record.isSidechain


def last_boundary(path: Path) -> int | None:
    """The byte offset where the last boundary's line starts; None when the file has none (or cannot be
    read: the whole-file read then says why)."""
    try:
        with path.open("rb") as handle:
            end = handle.seek(0, 2)
            return next((offset for offset, record in _backwards(handle, end, _BOUNDARY) if _is_boundary(record)),
                        None)  # fmt: skip
    except OSError:
        return None


def last_call_before(path: Path, offset: int) -> int | None:
    """The measured size of the last API call on the main conversation in the ``CALL_BEFORE_BYTES`` before
    ``offset`` (a boundary's): what the context reached before that compaction. None when none is there."""
    try:
        with path.open("rb") as handle:
            for _, record in _backwards(handle, offset, _USAGE, max(0, offset - CALL_BEFORE_BYTES)):
                message = record.message
                if record.kind != "assistant" or record.isSidechain or message is None or message.usage is None:
                    continue
                if message.model != SYNTHETIC_MODEL and (used := message.usage.context) is not None:
                    return used
    except OSError:
        return None
    return None
