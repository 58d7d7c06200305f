"""Reading a transcript file as numbered lines: the I/O edge of the reader.

Files are read in fixed-size chunks, so a 1 GB transcript costs one chunk of memory plus the records
kept from it; a single line longer than ``MAX_LINE_BYTES`` is skipped rather than buffered whole.
Each line is handed out as its own bytes (one copy, which the decoder needs anyway).
"""

from __future__ import annotations

import gzip
from collections.abc import Generator, Iterator
from pathlib import Path
from typing import BinaryIO

from ctxviz.errors import InputError, Unreadable
from ctxviz.regular_file import open_regular
from ctxviz.transcripts.packed import GZIP_MAGIC
from ctxviz.transcripts.safe import safe_text

CHUNK_BYTES = 8 * 1024 * 1024
# The largest line kept: Claude Code spills big tool outputs to tool-results/ files, so a longer line
# is damage, not content.
MAX_LINE_BYTES = 64 * 1024 * 1024

_BLANK = b" \t\r\x0b\x0c"
_UTF8_BOM = b"\xef\xbb\xbf"  # an editor's mark at the start: not part of the first record
_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")
Line = tuple[int, bytes, bool]  # line number, the line without its end, ends with a newline


def _refuse_utf16(head: bytes, path: Path) -> None:
    """A transcript saved as UTF-16 (an editor, a Windows shell redirect) reads as binary junk: say so."""
    wide = len(head) >= 4 and ((head[1] == head[3] == 0 != head[0]) or (head[0] == head[2] == 0 != head[1]))
    if head.startswith(_UTF16_BOMS) or wide:
        raise InputError(
            f"{safe_text(str(path))}: the file is UTF-16 text; Claude Code writes UTF-8 "
            "(convert it, e.g. iconv -f UTF-16 -t UTF-8 FILE > FILE-utf8.jsonl)"
        )


def read_chunk(handle: BinaryIO, path: Path, size: int | None = None) -> bytes:
    try:
        return handle.read(CHUNK_BYTES if size is None else size)
    except (OSError, EOFError) as error:  # EOFError: a gzip file cut short
        raise Unreadable(f"{safe_text(str(path))}: cannot read: {getattr(error, 'strerror', None) or error}") from None


def open_transcript_file(path: Path) -> tuple[BinaryIO, bytes]:
    """The open file and its first chunk, without a UTF-8 BOM; a UTF-16 file or an unreadable one raises
    ``InputError`` (the caller closes the handle)."""
    try:
        handle = open_regular(path)
    except OSError as error:
        raise Unreadable(f"{safe_text(str(path))}: cannot read: {error.strerror or error}") from None
    try:
        first = read_chunk(handle, path)
        if first.startswith(GZIP_MAGIC):  # a compressed session (.jsonl.gz) is read through gzip
            handle.close()
            handle = gzip.open(path, "rb")  # type: ignore[assignment]  # noqa: SIM115 (the caller closes it)
            first = read_chunk(handle, path)
        _refuse_utf16(first, path)
    except InputError:
        handle.close()
        raise
    return handle, first.removeprefix(_UTF8_BOM)


def numbered_lines(path: Path, problems: list[str]) -> Generator[Line]:
    """``(line number, bytes, complete)`` for each non-blank line, without its CR LF or LF; ``complete``
    is False for a last line without its newline (a session still being written). An unreadable file
    raises ``InputError``; an over-long line is reported into ``problems`` and skipped."""
    handle, first = open_transcript_file(path)
    with handle:
        yield from lines_after(handle, path, problems, first, 0)


def lines_after(handle: BinaryIO, path: Path, problems: list[str], pending: bytes, number: int) -> Iterator[Line]:
    """``numbered_lines`` from the middle of a file: ``pending`` is what was read but not yet split into
    lines (starting a line), ``number`` the lines before it."""
    carry = b""
    skipping = False
    chunk = pending
    while chunk:
        buffer = carry + chunk if carry else chunk
        start = 0
        while (newline := buffer.find(b"\n", start)) >= 0:
            number += 1
            end = newline - 1 if newline > start and buffer[newline - 1] == 13 else newline
            if skipping:
                skipping = False
            elif end > start and (buffer[start] not in _BLANK or not buffer[start:end].isspace()):
                yield number, buffer[start:end], True
            start = newline + 1
        carry = buffer[start:]
        if skipping or len(carry) > MAX_LINE_BYTES:
            if not skipping:
                where = safe_text(str(path))
                problems.append(f"{where}:{number + 1}: line longer than {MAX_LINE_BYTES >> 20} MB, skipped")
            skipping = True
            carry = b""
        chunk = read_chunk(handle, path)
    if carry and not skipping:
        end = len(carry) - 1 if carry.endswith(b"\r") else len(carry)
        if end > 0 and not carry[:end].isspace():
            yield number + 1, carry[:end], False
