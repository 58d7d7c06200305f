"""``context --json``'s cache: the streaming pass of ``one_call`` saved where it stopped (the file's end),
so that the next run on the same file reads only what was appended since — nothing at all when nothing
was. One file per transcript in the user's cache folder, never among an agent's folders.

Layout: a checksum and one line of JSON (which file, up to which byte, a digest of its first and of its
last bytes there, each section's length and checksum), then two msgpack sections: the answer (the
window printed, all a run on the unchanged file reads: on a 1 GB session of 446,627 calls, 0.1 MB of a
33 MB cache) and the pass (read only when the file grew). Anything unexpected — damaged, another format or ctxviz
version, another file at the path, a file that shrank or whose bytes there changed — makes the cache
worthless, never trusted: the file is read from its start and the cache written anew. Only a plain
(uncompressed) file read to a complete last line is saved. Deleting the folder is always safe.
"""

from __future__ import annotations

import hashlib
import heapq
import json
import os
import zlib
from contextlib import suppress
from itertools import chain, groupby, repeat
from pathlib import Path
from typing import Any

import msgspec

from ctxviz import __version__
from ctxviz.cache_folder import user_cache_folder, write_atomically
from ctxviz.errors import InputError
from ctxviz.regular_file import open_regular
from ctxviz.timeline import Block, Step, Timeline
from ctxviz.transcripts.claude_code.build import StepBuilder
from ctxviz.transcripts.claude_code.one_call import Pass, StepTally
from ctxviz.transcripts.claude_code.parse import Entry, ParseState, Piece
from ctxviz.transcripts.lines import CHUNK_BYTES, lines_after, read_chunk
from ctxviz.transcripts.packed import GZIP_MAGIC
from ctxviz.transcripts.protocol import CallWindow, Carried

CACHE_FORMAT = "ctxviz.context-cache/2"
MAX_HEADER_BYTES = 64 * 1024
EDGE_BYTES = 4096  # the bytes at the file's start and before the offset whose digest must still match
KEPT_TOP = 10  # at least this many blocks carried most are kept: a later --top up to it is answered


class _Saved(msgspec.Struct, array_like=True):
    """A ``Pass`` at rest, positional (smaller and faster to read back)."""

    line_number: int
    top: int
    # parse state
    # tool_use id → its tool, its label: as the parse state holds them, so that neither saving nor taking
    # up the pass rebuilds the map (1 s of 2.3 on a session of 446,627 tool calls)
    tool_calls: dict[str, tuple[str, str]]
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


class _Answer(msgspec.Struct, array_like=True):
    """The window a run answered (``CallWindow``): a later run on the unchanged file prints it as is."""

    top: int
    timeline: Timeline
    step: int
    at_call: int
    calls: int
    compactions: list[dict[str, Any]]
    carried: list[tuple[Block, int, int]]
    problems: list[str]


_DECODER = msgspec.msgpack.Decoder(_Saved)
_ANSWER_DECODER = msgspec.msgpack.Decoder(_Answer)
_ENCODER = msgspec.msgpack.Encoder()


def cache_file(transcript: Path) -> Path:
    key = zlib.crc32(str(transcript).encode()) & 0xFFFFFFFF
    return user_cache_folder() / "context" / f"{transcript.stem[:64]}-{key:08x}.cache"


def _runs(models: list[str]) -> list[tuple[str, int]]:
    """Each model and how many calls in a row named it (counted in C: a session has one model a call)."""
    return [(model, sum(1 for _ in run)) for model, run in groupby(models)]


def _saved(taken: Pass, line_number: int) -> _Saved:
    tools, follower, tally = taken.tools, taken.follower, taken.tally
    builder = follower.builder
    last = tally.last
    return _Saved(
        line_number, tally.top,
        tools.names, tools.task_prompts, tools.cwd, tools.measured, tools.unmeasured, taken.session,
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
        models=list(chain.from_iterable(repeat(model, count) for model, count in saved.models)),
        last_used=saved.last_used, last_measured=saved.last_measured, peak=saved.peak,
        compactions=saved.compactions_done,
    )  # fmt: skip
    follower.builder = StepBuilder({}, state=tally.state, pending=list(saved.pending), notes=list(saved.notes),
                                   calls=saved.calls, overhead=saved.overhead)  # fmt: skip
    tools = ParseState(saved.tool_calls, saved.task_prompts, saved.cwd, saved.measured, saved.unmeasured)
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


def _header(cache: Path, path: Path, stat: os.stat_result) -> dict[str, Any] | None:
    """The cache's header when it is this file's (the same file, not shrunk, its bytes at the start and
    before the offset unchanged), read without its sections; None otherwise."""
    try:
        with open_regular(cache) as handle:
            line = handle.readline(MAX_HEADER_BYTES)
        check, _, text = line.rstrip(b"\n").partition(b" ")
        if len(check) != 8 or int(check, 16) != zlib.crc32(text):
            return None
        header: dict[str, Any] = json.loads(text)
        offset = header.get("offset") if isinstance(header, dict) else None
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
        header["start"] = len(line)
        return header
    except (OSError, ValueError, RecursionError, AttributeError):
        return None


def _section(cache: Path, header: dict[str, Any], name: str) -> bytes | None:
    """The cache's ``answer`` or ``state`` bytes, checked against the header's length and checksum."""
    try:
        answer_length = header["answer"][0]
        length, check = header[name]
        with open_regular(cache) as handle:
            handle.seek(header["start"] + (answer_length if name == "state" else 0))
            data = handle.read(length)
    except (OSError, KeyError, IndexError, TypeError, ValueError):
        return None
    return data if len(data) == length and zlib.crc32(data) == check else None


def _answer(cache: Path, header: dict[str, Any], top: int) -> CallWindow | None:
    """The window the last run answered, kept for a file that has not changed since."""
    data = _section(cache, header, "answer")
    try:
        answer = _ANSWER_DECODER.decode(data) if data is not None else None
    except (msgspec.DecodeError, RecursionError, ValueError):
        return None
    if answer is None or answer.top < top:
        return None
    carried = tuple(Carried(*c) for c in answer.carried)
    return CallWindow(answer.timeline, answer.step, answer.at_call, answer.calls, tuple(answer.compactions), carried,
                      tuple(answer.problems))  # fmt: skip


def _state(cache: Path, header: dict[str, Any], top: int) -> Pass | None:
    """The pass where the last run stopped, to take up what was appended since."""
    data = _section(cache, header, "state")
    try:
        saved = _DECODER.decode(data) if data is not None else None
        if saved is None or saved.top < top:
            return None
        return _restored(saved, top)
    except (msgspec.DecodeError, RecursionError, KeyError, IndexError, TypeError, ValueError):
        return None


def _packed(header: dict[str, Any], answer: bytes, state: bytes) -> bytes:
    header = {**header, "answer": [len(answer), zlib.crc32(answer)], "state": [len(state), zlib.crc32(state)]}
    text = json.dumps(header, ensure_ascii=False).encode()
    return b"%08x " % zlib.crc32(text) + text + b"\n" + answer + state


def cached_call_window(
    path: Path, top: int, *, history: bool = False, from_end_bytes: int | None = None
) -> CallWindow | None:
    """``call_window`` at the last step: the last run's answer when the file has not changed since, else
    taken up from the cache where the last run stopped, and the cache brought up to date (not written
    when it cannot be: the answer is still right). Without a cache and not ``history``, a big session is
    read from its last compaction on (``one_call_from_end``), and nothing is cached."""
    from ctxviz.transcripts.claude_code.cache_place import among_agent_folders

    # keyed by where the file is; the path as given is what the output and the problems name
    try:
        stat = os.stat(path)
        with open_regular(path) as handle:
            compressed = handle.read(2) == GZIP_MAGIC
    except OSError:
        return None
    cache = cache_file(path.absolute())
    header = None if compressed else _header(cache, path, stat)
    if header is not None and header["offset"] == stat.st_size and (answer := _answer(cache, header, top)):
        return answer
    if header is None and not history:
        from ctxviz.transcripts.claude_code.one_call_from_end import window_from_end

        if (window := window_from_end(path, top, from_end_bytes)) is not None:
            return window
    taken = None if header is None else _state(cache, header, top)
    try:
        if taken is not None and header is not None:
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
    except (InputError, OSError, ValueError):
        return None
    unchanged = (after.st_size, after.st_mtime_ns, after.st_ino) == (stat.st_size, stat.st_mtime_ns, stat.st_ino)
    header = state = None
    if not compressed and unchanged and stat.st_size > 0:
        try:
            head, before, complete = _edges(path, stat.st_size)
            if complete:
                line_number += _newlines(path, start, stat.st_size)
                header = {"format": CACHE_FORMAT, "version": __version__, "path": str(path),
                          "identity": [stat.st_dev, stat.st_ino], "offset": stat.st_size, "mtime_ns": stat.st_mtime_ns,
                          "head": head, "before": before, "lines": line_number}  # fmt: skip
                state = _ENCODER.encode(_saved(taken, line_number))
        except OSError:
            header = None
    window = taken.window(path)
    if header is not None and state is not None and window is not None:
        kept = _ENCODER.encode(_answer_of(window, taken.tally.top))
        if not among_agent_folders(cache.parent, path.absolute()):
            with suppress(OSError):  # not written: the next run reads the file again
                write_atomically(cache, _packed(header, kept, state))
    return window


def _answer_of(window: CallWindow, top: int) -> _Answer:
    assert window.step is not None and window.at_call is not None and window.calls is not None
    return _Answer(top, window.timeline, window.step, window.at_call, window.calls, list(window.compactions or ()),
                   [(c.block, c.first, c.stop) for c in window.carried or ()], list(window.problems))  # fmt: skip


def taken_lines(header: dict[str, Any]) -> int:
    lines = header.get("lines")
    if type(lines) is not int or lines < 0:
        raise ValueError("lines")
    return lines
