"""Where a transcript's current window starts: its last compaction boundary, found by reading the file
backwards in blocks, so that what concerns "now" costs the bytes after it, not the whole file.

A boundary is a complete ``system`` record of subtype ``compact_boundary`` on the main conversation (a
subagent's own compactions are not the session's). Only lines that name ``compact_boundary`` are decoded.
"""

from __future__ import annotations

from pathlib import Path

from ctxviz.transcripts.claude_code.records import DecodeError, decode_record
from ctxviz.transcripts.lines import MAX_LINE_BYTES

BLOCK_BYTES = 1024 * 1024
_MARK = b'"compact_boundary"'


def _is_main_boundary(line: bytes) -> bool:
    try:
        record = decode_record(line)
    except DecodeError:
        return False
    return record.kind == "system" and record.subtype == "compact_boundary" and not record.isSidechain


def last_boundary(path: Path) -> int | None:
    """The byte offset where the last boundary's line starts; None when the file has none (or cannot be
    read: the whole-file read then says why)."""
    try:
        handle = path.open("rb")
    except OSError:
        return None
    with handle:
        try:
            end = handle.seek(0, 2)
            after = b""  # the start of the line cut by the block read before (it continues in this one)
            while end > 0:
                start = max(0, end - BLOCK_BYTES)
                handle.seek(start)
                buffer = handle.read(end - start) + after
                limit = len(buffer)
                while (hit := buffer.rfind(_MARK, 0, limit)) >= 0:
                    line_start = buffer.rfind(b"\n", 0, hit) + 1
                    if line_start == 0 and start > 0:
                        break  # the line began in an earlier block: read with that block
                    line_end = buffer.find(b"\n", hit)
                    # an unfinished last line is not a record yet (the whole-file read skips it too)
                    if line_end >= 0 and _is_main_boundary(buffer[line_start:line_end].rstrip(b"\r")):
                        return start + line_start
                    limit = line_start
                first_newline = buffer.find(b"\n")
                after = buffer if first_newline < 0 else buffer[: first_newline + 1]
                if len(after) > MAX_LINE_BYTES:
                    after = b"\n"  # an over-long line is skipped by every read: only its end is kept
                end = start
        except OSError:
            return None
    return None
