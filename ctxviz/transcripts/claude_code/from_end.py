"""Where a transcript's current window starts: its last compaction boundary, found by reading the file
backwards in blocks, so that what concerns "now" costs the bytes after it, not the whole file.

A boundary is a complete ``system`` record of subtype ``compact_boundary`` on the main conversation (a
subagent's own compactions are not the session's). Only lines that name what is looked for are decoded.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from ctxviz.transcripts.claude_code.records import SYNTHETIC_MODEL, DecodeError, Record, decode_record
from ctxviz.transcripts.lines import MAX_LINE_BYTES

BLOCK_BYTES = 1024 * 1024
_BOUNDARY = b'"compact_boundary"'
_USAGE = b'"usage"'
# How far before a boundary its last call is looked for: compaction follows a call within a few records.
CALL_BEFORE_BYTES = 16 * 1024 * 1024


def _backwards(handle: BinaryIO, end: int, mark: bytes, floor: int = 0) -> Iterator[tuple[int, Record]]:
    """``(offset, record)`` of each complete line between ``floor`` and ``end`` that holds ``mark`` and
    decodes, the last first. An unfinished last line is not a record yet (the whole-file read skips it too)."""
    after = b""  # the start of the line cut by the block read before (it continues in this one)
    while end > floor:
        start = max(floor, end - BLOCK_BYTES)
        handle.seek(start)
        buffer = handle.read(end - start) + after
        limit = len(buffer)
        while (hit := buffer.rfind(mark, 0, limit)) >= 0:
            line_start = buffer.rfind(b"\n", 0, hit) + 1
            if line_start == 0 and start > floor:
                break  # the line began in an earlier block: read with that block
            line_end = buffer.find(b"\n", hit)
            if line_end >= 0 and (record := _decoded(buffer[line_start:line_end])) is not None:
                yield start + line_start, record
            limit = line_start
        first_newline = buffer.find(b"\n")
        after = buffer if first_newline < 0 else buffer[: first_newline + 1]
        if len(after) > MAX_LINE_BYTES:
            after = b"\n"  # an over-long line is skipped by every read: only its end is kept
        end = start


def _decoded(line: bytes) -> Record | None:
    try:
        return decode_record(line.rstrip(b"\r"))
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
