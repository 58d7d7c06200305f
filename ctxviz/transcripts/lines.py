"""Reading a transcript file as numbered lines: the I/O edge of the reader.

Files are read in fixed-size chunks, so a 1 GB transcript costs one chunk of memory plus the records
kept from it; a single line longer than ``MAX_LINE_BYTES`` is skipped rather than buffered whole.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from ctxviz.errors import InputError

CHUNK_BYTES = 8 * 1024 * 1024
# The largest line kept: a tool result is capped far below this (Claude Code spills big outputs to
# tool-results/ files), so a longer line is damage, not content.
MAX_LINE_BYTES = 64 * 1024 * 1024


def numbered_lines(path: Path, problems: list[str]) -> Iterator[tuple[int, bytes, bool]]:
    """``(line number, bytes, complete)`` for each non-empty line; ``complete`` is False for a last line
    without its newline (a session still being written). CR before LF is dropped. An unreadable file
    raises ``InputError``; an over-long line is reported into ``problems`` and skipped."""
    try:
        handle = path.open("rb")
    except OSError as error:
        raise InputError(f"{path}: cannot read: {error.strerror or error}") from None
    number = 0
    carry = b""
    skipping = False
    with handle:
        while True:
            try:
                chunk = handle.read(CHUNK_BYTES)
            except OSError as error:
                raise InputError(f"{path}: cannot read: {error.strerror or error}") from None
            if not chunk:
                break
            pieces = chunk.split(b"\n")
            pieces[0] = carry + pieces[0]
            carry = pieces.pop()
            for piece in pieces:
                number += 1
                if skipping:
                    skipping = False
                    continue
                if piece.endswith(b"\r"):
                    piece = piece[:-1]
                if piece.strip():
                    yield number, piece, True
            if len(carry) > MAX_LINE_BYTES and not skipping:
                problems.append(f"{path}:{number + 1}: line longer than {MAX_LINE_BYTES >> 20} MB, skipped")
                skipping = True
            if skipping:
                carry = b""
    if carry and not skipping:
        number += 1
        if carry.endswith(b"\r"):
            carry = carry[:-1]
        if carry.strip():
            yield number, carry, False
