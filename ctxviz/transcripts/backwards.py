"""A JSONL file read from its end, in blocks: the complete lines holding a mark, the last first, each with
the offset where it starts. What concerns a session's present (its last compaction, the calls after it)
is found so for the cost of the bytes after it, not of the whole file. Agent-neutral: a reader decodes
and judges the lines it is handed."""

from __future__ import annotations

from collections.abc import Iterator
from typing import BinaryIO

from ctxviz.transcripts.lines import MAX_LINE_BYTES

BLOCK_BYTES = 1024 * 1024


def lines_backwards(handle: BinaryIO, end: int, mark: bytes, floor: int = 0) -> Iterator[tuple[int, bytes]]:
    """``(offset, line)`` of each complete line between ``floor`` and ``end`` that holds ``mark``, the last
    first, without its line end. An unfinished last line (no newline yet) is not a line: a whole-file read
    skips it too. A line longer than ``MAX_LINE_BYTES``, which every read skips, is never handed out."""
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
            if line_end >= 0 and line_end - line_start <= MAX_LINE_BYTES:
                yield start + line_start, buffer[line_start:line_end].rstrip(b"\r")
            limit = line_start
        first_newline = buffer.find(b"\n")
        after = buffer if first_newline < 0 else buffer[: first_newline + 1]
        if len(after) > MAX_LINE_BYTES:
            after = b"\n"  # an over-long line is skipped by every read: only its end is kept
        end = start
