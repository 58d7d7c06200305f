"""The last call's ``/context`` of a big session read from its last compaction on: the window now costs the
bytes after the last compaction boundary (found by reading backwards), not the whole file.

The file's first records up to its first call are read too: they give the fixed overhead a compaction
keeps. Everything between is not read, so what counts from the session's start — the calls, the step's
index, every compaction, the blocks carried most — is not known: the window says so (None) and a notice
says how to get it. The window itself is the whole read's: the same live blocks, breakdown and items.
Whenever the records after the boundary alone may not give what the whole file gives (``Follower.
from_last_compaction``), or the fixed overhead changed on the way, the answer is None: read whole.
"""

from __future__ import annotations

import os
from contextlib import closing
from dataclasses import replace
from itertools import islice, takewhile
from pathlib import Path

import msgspec

from ctxviz.errors import InputError
from ctxviz.regular_file import open_regular
from ctxviz.transcripts.claude_code.discover import COMPACTION_PREFIX
from ctxviz.transcripts.claude_code.follow import Follower
from ctxviz.transcripts.claude_code.from_end import last_boundary, last_call_before
from ctxviz.transcripts.claude_code.one_call import Pass
from ctxviz.transcripts.claude_code.parse import Parsed, ParseState, parse_lines
from ctxviz.transcripts.lines import CHUNK_BYTES, lines_after, numbered_lines, read_chunk
from ctxviz.transcripts.packed import GZIP_MAGIC, session_stem
from ctxviz.transcripts.protocol import CallWindow

# A file with more than this before its last compaction boundary is read from the boundary on, unless its
# history is asked for (``context --history``) or a cache already holds it. Far above any session read
# whole in a second or two (a 20 MB session takes ~1 s; 64 MB ~4 s), so that small sessions keep every
# figure without asking.
FROM_END_BYTES = 64 * 1024 * 1024
HEAD_LINES = 200  # the file's first records are parsed in batches of this many, up to the first call


def history_notice(offset: int, size: int) -> str:
    return (
        f"read from the last compaction on (byte {offset:,} of {size:,}): the calls, compactions and items "
        "carried before it were not read; --history reads them (the whole file, kept for later runs)"
    )


def big_boundary(path: Path, from_end_bytes: int | None = None) -> int | None:
    """Where the last compaction boundary starts, when at least ``from_end_bytes`` (None: ``FROM_END_BYTES``)
    come before it and the file is a plain session of its own (not a compaction call's file); else None."""
    from_end_bytes = FROM_END_BYTES if from_end_bytes is None else from_end_bytes
    if path.name.startswith(COMPACTION_PREFIX):
        return None
    try:
        if os.stat(path).st_size < from_end_bytes:
            return None  # nothing to save: no search backwards
        with open_regular(path) as handle:
            if handle.read(2) == GZIP_MAGIC:
                return None  # compressed: it can only be read from its start
    except OSError:
        return None
    offset = last_boundary(path)
    return offset if offset is not None and offset >= from_end_bytes else None


def window_from_end(path: Path, top: int, from_end_bytes: int | None = None) -> CallWindow | None:
    """The last step's window read from the last compaction boundary on, when at least ``from_end_bytes``
    come before it; None when the file is smaller or only the whole read can tell."""
    offset = big_boundary(path, from_end_bytes)
    if offset is None:
        return None
    try:
        size = os.stat(path).st_size
        taken = _head(path, top)
        if taken is None:
            return None
        tail = _tail(path, offset, taken.tools, 0)
        if tail.problems:  # located problems: number the tail's lines as the whole file numbers them
            taken = _head(path, top)
            if taken is None:
                return None
            tail = _tail(path, offset, taken.tools, _newlines_before(path, offset))
    except (InputError, OSError):
        return None
    return _window(path, taken, tail, offset, size)


def _head(path: Path, top: int) -> Pass | None:
    """A pass holding the file's first records up to its first call on the main conversation, or None
    when the session does not start the usual way (a compaction first, no call, no fixed overhead)."""
    first = _first_call_line(path)
    if first is None:
        return None
    taken = Pass.new(None, top)
    with closing(numbered_lines(path, taken.line_problems)) as lines:
        head = list(takewhile(lambda line: line[0] <= first, lines))
    parsed = parse_lines(head, str(path), taken.tools)
    taken.session, taken.parse_problems = parsed.session, list(parsed.problems)
    follower = taken.follower
    if not follower.start(parsed.entries):
        return None
    if follower.builder.overhead is None or follower.compactions or follower.open_compaction:
        return None
    return taken


def _first_call_line(path: Path) -> int | None:
    """The line of the file's first call on the main conversation (its records parsed in batches)."""
    tools, problems = ParseState(), list[str]()
    with closing(numbered_lines(path, problems)) as lines:
        while batch := list(islice(lines, HEAD_LINES)):
            parsed = parse_lines(batch, str(path), tools)
            if line := next((e.line for e in parsed.entries if e.used is not None and not e.sidechain), None):
                return line
    return None


def _tail(path: Path, offset: int, tools: ParseState, lines_before: int) -> Parsed:
    problems: list[str] = []
    with open_regular(path) as handle:
        handle.seek(offset)
        parsed = parse_lines(lines_after(handle, path, problems, read_chunk(handle, path), lines_before), str(path),
                             tools)  # fmt: skip
    return replace(parsed, problems=tuple(problems) + parsed.problems) if problems else parsed


def _newlines_before(path: Path, offset: int) -> int:
    count, start = 0, 0
    with open_regular(path) as handle:
        while start < offset and (chunk := handle.read(min(CHUNK_BYTES, offset - start))):
            count += chunk.count(b"\n")
            start += len(chunk)
    return count


def _window(path: Path, taken: Pass, tail: Parsed, offset: int, size: int) -> CallWindow | None:
    from ctxviz.transcripts.claude_code.load import reading_notices
    from ctxviz.transcripts.claude_code.timeline import session_timeline
    from ctxviz.transcripts.safe import safe_text, safe_timeline

    head, tally, tools = taken.follower, taken.tally, taken.tools
    overhead = head.builder.overhead
    if any(e.used is not None and not e.model for e in tail.entries):
        return None  # a call naming no model: the whole read lists models its own way
    follower = Follower.from_last_compaction(head, tail.entries)
    if follower is None:
        return None
    follower.finish()
    if follower.mode != "main" or follower.duplicates or tally.last is None:
        return None
    if follower.builder.overhead != overhead:
        return None  # the fixed overhead shrank after the boundary: the whole read may have shrunk it before
    problems = (*taken.line_problems, *taken.parse_problems, *tail.problems)
    notices = [history_notice(offset, size), *reading_notices(len(problems), len(tools.unmeasured - tools.measured))]
    live = list(tally.state.live.values())
    alone = msgspec.structs.replace(tally.last, index=0, added=tuple(b.id for b in live), removed=())
    cwd = tools.cwd
    timeline = session_timeline(
        [alone],
        live,
        follower.models,
        name=taken.session or tail.session or session_stem(path),
        path=str(path),
        summary=safe_text(cwd) if cwd else None,
        notices=notices,
        peak=max(tally.peak, last_call_before(path, offset) or 0),
        models_read=True,
    )
    return CallWindow(safe_timeline(timeline), None, None, None, None, None, problems, read_from=offset)
