"""``context --json``'s cache: the streaming pass of ``one_call`` saved where it stopped (the file's end),
so that the next run on the same file reads only what was appended since — nothing at all when nothing
was. One file per transcript in the user's cache folder, never among an agent's folders.

Layout: a checksum, one line of JSON (which file, up to which byte, a digest of its first and of its
last bytes there), then the pass as msgpack. Anything unexpected — damaged, another format or ctxviz
version, another file at the path, a file that shrank or whose bytes there changed — makes the cache
worthless, never trusted: the file is read from its start and the cache written anew. Only a plain
(uncompressed) file read to a complete last line is saved. Deleting the folder is always safe.
"""

from __future__ import annotations

import hashlib
import heapq
import os
import sys
import zlib
from contextlib import suppress
from pathlib import Path
from typing import Any

import msgspec

from ctxviz import __version__
from ctxviz.cache_file import pack_cache, unpack_cache
from ctxviz.cache_folder import user_cache_folder, write_atomically
from ctxviz.errors import InputError
from ctxviz.regular_file import open_regular, read_regular
from ctxviz.timeline import Block, Step
from ctxviz.transcripts.claude_code.build import StepBuilder
from ctxviz.transcripts.claude_code.one_call import Pass, StepTally
from ctxviz.transcripts.claude_code.parse import Entry, ParseState, Piece
from ctxviz.transcripts.lines import CHUNK_BYTES, lines_after, read_chunk
from ctxviz.transcripts.protocol import CallWindow

CACHE_FORMAT = "ctxviz.context-cache/1"
MAX_CACHE_BYTES = 512 * 1024 * 1024
EDGE_BYTES = 4096  # the bytes at the file's start and before the offset whose digest must still match
KEPT_TOP = 10  # at least this many blocks carried most are kept: a later --top up to it is answered


class _Saved(msgspec.Struct, array_like=True):
    """A ``Pass`` at rest, positional (smaller and faster to read back)."""

    line_number: int
    top: int
    # parse state
    tools: list[str]  # each tool's name once: the tool calls name it by its place here
    tool_calls: dict[str, tuple[int, str]]  # tool_use id → its tool, its label
    task_prompts: dict[str, str]
    cwd: str | None
    measured: set[str]
    unmeasured: set[str]
    session: str | None
    line_problems: list[str]
    parse_problems: list[str]
    # follower
    mode: str | None
    last_call: str | None
    below: set[str]
    last_conversational: str | None
    linked: bool
    bridged: set[str]
    seen: set[str] | None  # None: the same as ``measured`` (a session of one chain: each string once)
    open_compaction: Entry | None
    models: list[tuple[str, int]]  # each model and how many calls in a row named it
    last_used: int | None
    last_measured: bool
    peak: int
    compactions_done: int
    # builder
    block_count: int
    live: list[Block]
    total: int
    pending: list[Piece]
    notes: list[str]
    overhead: int | None
    # tally
    calls: int
    steps: int
    tally_peak: int
    previous: tuple[int, bool]
    compactions: list[dict[str, Any]]
    waiting: list[int]  # which of ``compactions`` wait for their next call
    entered: list[tuple[int, int]]  # (block id, calls before it) of each live block
    ranked: list[tuple[Block, int, int]]
    last: tuple[int, str, int, bool] | None  # the last step: index, kind, used, measured


_DECODER = msgspec.msgpack.Decoder(_Saved)
_ENCODER = msgspec.msgpack.Encoder()


def cache_file(transcript: Path) -> Path:
    key = zlib.crc32(str(transcript).encode()) & 0xFFFFFFFF
    return user_cache_folder() / "context" / f"{transcript.stem[:64]}-{key:08x}.cache"


def _runs(models: list[str]) -> list[tuple[str, int]]:
    runs: list[tuple[str, int]] = []
    for model in models:
        if runs and runs[-1][0] == model:
            runs[-1] = (model, runs[-1][1] + 1)
        else:
            runs.append((model, 1))
    return runs


def _saved(taken: Pass, line_number: int) -> _Saved:
    tools, follower, tally = taken.tools, taken.follower, taken.tally
    builder = follower.builder
    last = tally.last
    names = {name: n for n, name in enumerate(dict.fromkeys(name for name, _ in tools.names.values()))}
    calls = {tool: (names[name], label) for tool, (name, label) in tools.names.items()}
    return _Saved(
        line_number, tally.top,
        list(names), calls, tools.task_prompts, tools.cwd, tools.measured, tools.unmeasured, taken.session,
        taken.line_problems, taken.parse_problems,
        follower.mode, follower.last_call, follower.below, follower.last_conversational, follower.linked,
        follower.bridged, None if follower.seen == tools.measured else follower.seen, follower.open_compaction,
        _runs(follower.models),
        follower.last_used, follower.last_measured, follower.peak, follower.compactions,
        len(tally.state.blocks), list(tally.state.live.values()), tally.state.total, builder.pending, builder.notes,
        builder.overhead,
        tally.calls, tally.steps, tally.peak, tally.previous, tally.compactions,
        [n for n, c in enumerate(tally.compactions) if any(c is w for w in tally.waiting)],
        [(block_id, first) for block_id, (_, first) in tally.entered.items()],
        [(block, first, stop) for _, _, _, block, first, stop in tally.ranked],
        (last.index, last.kind, last.used, last.measured) if last is not None else None,
    )  # fmt: skip


def _restored(saved: _Saved, top: int) -> Pass:
    from ctxviz.transcripts.claude_code.follow import Follower

    tally = StepTally(None, saved.top)
    tally.calls, tally.steps, tally.peak, tally.previous = saved.calls, saved.steps, saved.tally_peak, saved.previous
    tally.compactions = saved.compactions
    tally.waiting = [saved.compactions[n] for n in saved.waiting]
    live = {b.id: b for b in saved.live}
    tally.entered = {block_id: (live[block_id], first) for block_id, first in saved.entered}
    tally.ranked = [(b.tokens * (stop - first), -first, -b.id, b, first, stop) for b, first, stop in saved.ranked]
    heapq.heapify(tally.ranked)
    if saved.last is not None:
        index, kind, used, measured = saved.last
        tally.last = Step(index, kind, "", (), (), used, measured)
    tally.state.live, tally.state.total = live, saved.total
    tally.state.blocks.length = saved.block_count  # type: ignore[attr-defined]
    tally.state.steps.length = saved.steps  # type: ignore[attr-defined]
    follower = Follower(
        lean=True, mode=saved.mode, last_call=saved.last_call, below=saved.below,
        last_conversational=saved.last_conversational, linked=saved.linked, bridged=saved.bridged,
        seen=set(saved.measured) if saved.seen is None else saved.seen, open_compaction=saved.open_compaction,
        models=[model for model, count in saved.models for _ in range(count)], last_used=saved.last_used,
        last_measured=saved.last_measured, peak=saved.peak, compactions=saved.compactions_done,
    )  # fmt: skip
    follower.builder = StepBuilder({}, state=tally.state, pending=list(saved.pending), notes=list(saved.notes),
                                   calls=saved.calls, overhead=saved.overhead)  # fmt: skip
    names = [sys.intern(name) for name in saved.tools]
    calls = {tool: (names[n], label) for tool, (n, label) in saved.tool_calls.items()}
    tools = ParseState(calls, saved.task_prompts, saved.cwd, saved.measured, saved.unmeasured)
    return Pass(tally, follower, tools, saved.line_problems, saved.parse_problems, saved.session)


def _digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def _edges(path: Path, offset: int) -> tuple[str, str, bool]:
    """Digests of the file's first ``EDGE_BYTES`` and of the ``EDGE_BYTES`` before ``offset``, and
    whether the byte before ``offset`` ends a line (so the pass stopped after a complete one)."""
    with open_regular(path) as handle:
        head = handle.read(EDGE_BYTES)
        handle.seek(max(0, offset - EDGE_BYTES))
        before = handle.read(min(offset, EDGE_BYTES))
    return _digest(head), _digest(before), before.endswith(b"\n")


def _newlines(path: Path, start: int, end: int) -> int:
    count = 0
    with open_regular(path) as handle:
        handle.seek(start)
        while start < end and (chunk := handle.read(min(CHUNK_BYTES, end - start))):
            count += chunk.count(b"\n")
            start += len(chunk)
    return count


def _load(cache: Path, path: Path, stat: os.stat_result, top: int) -> tuple[Pass, dict[str, Any]] | None:
    try:
        unpacked = unpack_cache(read_regular(cache, MAX_CACHE_BYTES))
        if unpacked is None:
            return None
        header, body = unpacked
        offset = header.get("offset")
        if (
            header.get("format") != CACHE_FORMAT
            or header.get("version") != __version__
            or header.get("path") != str(path)
            or header.get("identity") != [stat.st_dev, stat.st_ino]
            or type(offset) is not int
            or not 0 < offset <= stat.st_size
            or (offset == stat.st_size and header.get("mtime_ns") != stat.st_mtime_ns)  # rewritten in place
            or [header.get("head"), header.get("before")] != list(_edges(path, offset)[:2])
        ):
            return None
        saved = _DECODER.decode(body)
        if saved.top < top:
            return None
        return _restored(saved, top), header
    except (OSError, msgspec.DecodeError, RecursionError, KeyError, IndexError, TypeError, ValueError):
        return None


def cached_call_window(path: Path, top: int) -> CallWindow | None:
    """``call_window`` at the last step, taken up from the cache where the last run stopped; the cache is
    then brought up to date (not written when it cannot be: the answer is still right)."""
    from ctxviz.transcripts.claude_code.cache_place import among_agent_folders

    # keyed by where the file is; the path as given is what the output and the problems name
    try:
        stat = os.stat(path)
        with open_regular(path) as handle:
            compressed = handle.read(2) == b"\x1f\x8b"
    except OSError:
        return None
    cache = cache_file(path.absolute())
    loaded = None if compressed else _load(cache, path, stat, top)
    try:
        if loaded is not None:
            taken, header = loaded
            start, line_number = header["offset"], taken_lines(header)
            if stat.st_size > start:
                with open_regular(path) as handle:
                    handle.seek(start)
                    lines = lines_after(handle, path, taken.line_problems, read_chunk(handle, path), line_number)
                    if not taken.take(path, lines):
                        return None
        else:
            taken, start, line_number = Pass.new(None, max(top, KEPT_TOP)), 0, 0
            from ctxviz.transcripts.lines import numbered_lines

            if not taken.take(path, numbered_lines(path, taken.line_problems)):
                return None
        after = os.stat(path)
    except (InputError, OSError):
        return None
    body = None
    unchanged = (after.st_size, after.st_mtime_ns, after.st_ino) == (stat.st_size, stat.st_mtime_ns, stat.st_ino)
    grew = loaded is None or stat.st_size > start
    if not compressed and unchanged and grew and stat.st_size > 0:
        try:
            head, before, complete = _edges(path, stat.st_size)
            if complete:
                line_number += _newlines(path, start, stat.st_size)
                header = {"format": CACHE_FORMAT, "version": __version__, "path": str(path),
                          "identity": [stat.st_dev, stat.st_ino], "offset": stat.st_size, "mtime_ns": stat.st_mtime_ns,
                          "head": head, "before": before, "lines": line_number}  # fmt: skip
                body = pack_cache(header, _ENCODER.encode(_saved(taken, line_number)))
        except OSError:
            body = None
    window = taken.window(path)
    if body is not None and window is not None and not among_agent_folders(cache.parent, path.absolute()):
        with suppress(OSError):  # not written: the next run reads the file again
            write_atomically(cache, body)
    return window


def taken_lines(header: dict[str, Any]) -> int:
    lines = header.get("lines")
    if type(lines) is not int or lines < 0:
        raise ValueError("lines")
    return lines
