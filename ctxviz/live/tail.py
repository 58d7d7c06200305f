"""Following a growing JSONL file: each read returns only the complete lines appended since the last.

The offset, the file's identity (device, inode) and an unfinished last line are remembered, so a read
costs one ``stat`` when nothing changed and the new bytes otherwise. A file that shrank (truncated), was
replaced (another inode at the path), was rewritten in place (the same inode, longer, but the bytes just
before the old offset differ: checked on the read that happens anyway) or disappeared is reported; the
caller decides what to keep.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

from ctxviz.regular_file import open_regular
from ctxviz.transcripts.lines import MAX_LINE_BYTES, Line

READ_BYTES = 8 * 1024 * 1024
UTF8_BOM = b"\xef\xbb\xbf"  # an editor's mark at the start of a file, not part of its first line
BOUNDARY_BYTES = 64  # the bytes before the offset compared on each read: a rewrite almost never keeps them


class Change(StrEnum):
    """What a read found."""

    SAME = "same"  # nothing new
    GREW = "grew"  # complete lines were appended (or only part of a line: no lines yet)
    RESTARTED = "restarted"  # truncated or replaced: the lines are the new file's, from its start
    GONE = "gone"  # deleted or unreadable: no lines


@dataclass(frozen=True, slots=True)
class Read:
    change: Change
    lines: list[Line]
    reason: str = ""  # for RESTARTED and GONE: what happened, in words


@dataclass
class Tail:
    """The reading position in one file. ``read()`` is the only method; it never raises on I/O."""

    path: Path
    offset: int = 0
    identity: tuple[int, int] | None = None  # (st_dev, st_ino) of the file the offset belongs to
    line_number: int = 0  # lines handed out or skipped so far (numbers match a whole-file read)
    carry: bytes = b""  # the unfinished last line, waiting for its newline
    skipping: bool = False  # inside an over-long line: dropped up to its newline
    boundary: bytes = b""  # the last bytes read (up to BOUNDARY_BYTES): still there unless the file was rewritten
    problems: list[str] = field(default_factory=list)

    def read(self, take: Callable[[list[Line]], object] | None = None) -> Read:
        """What changed, and the complete lines appended. ``take``: each chunk's lines are handed to it
        as they are split instead (``Read.lines`` is then empty), so a first read of a large file never
        holds all its lines at once."""
        try:
            stat = os.stat(self.path)
        except OSError as error:
            return Read(Change.GONE, [], f"{self.path} is gone ({error.strerror or error})")
        identity = (stat.st_dev, stat.st_ino)
        reason = ""
        if self.identity is not None and identity != self.identity:
            reason = f"{self.path} was replaced by another file: reading it from the start"
        elif stat.st_size < self.offset:
            reason = f"{self.path} was truncated ({stat.st_size:,} < {self.offset:,} bytes): reading it from the start"
        elif stat.st_size == self.offset and self.identity is not None:
            return Read(Change.SAME, [])
        if reason:
            self._restart()
        self.identity = identity
        lines: list[Line] = []
        try:
            with open_regular(self.path) as handle:
                if self.boundary and not reason:
                    handle.seek(self.offset - len(self.boundary))
                    if handle.read(len(self.boundary)) != self.boundary:
                        reason = f"{self.path} was rewritten in place: reading it from the start"
                        self._restart()
                handle.seek(self.offset)
                while chunk := handle.read(READ_BYTES):
                    start = self.offset == 0
                    self.offset += len(chunk)
                    self.boundary = (self.boundary + chunk[-BOUNDARY_BYTES:])[-BOUNDARY_BYTES:]
                    found = self._split(chunk.removeprefix(UTF8_BOM) if start else chunk)
                    if take is None:
                        lines += found
                    else:
                        take(found)
        except OSError as error:
            return Read(Change.GONE, lines, f"{self.path}: cannot read ({error.strerror or error})")
        return Read(Change.RESTARTED if reason else Change.GREW, lines, reason)

    def _restart(self) -> None:
        self.offset, self.line_number, self.carry, self.skipping, self.boundary = 0, 0, b"", False, b""

    def _split(self, data: bytes) -> list[Line]:
        """The complete lines in ``carry + data`` (same numbering and blank-line rule as a whole-file
        read); what follows the last newline waits in ``carry``."""
        buffer = self.carry + data if self.carry else data
        lines: list[Line] = []
        start = 0
        number = self.line_number
        while (newline := buffer.find(b"\n", start)) >= 0:
            number += 1
            end = newline - 1 if newline > start and buffer[newline - 1] == 13 else newline
            if self.skipping:
                self.skipping = False
            elif end > start and not buffer[start:end].isspace():
                lines.append((number, buffer[start:end], True))
            start = newline + 1
        self.line_number = number
        self.carry = buffer[start:]
        if len(self.carry) > MAX_LINE_BYTES or (self.skipping and self.carry):
            if not self.skipping:
                self.problems.append(f"{self.path}:{number + 1}: line longer than {MAX_LINE_BYTES >> 20} MB, skipped")
            self.skipping, self.carry = True, b""
        return lines
