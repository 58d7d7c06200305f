"""A Codex rollout's present read from its end: its first records up to the first call (the instructions
and the unrecorded overhead the first call measures, which a compaction keeps), then everything from the
last call before its last ``compacted`` record on. A compaction that writes its ``replacement_history``
replaces every other item of the history, so the window after it is the whole read's; the calls between
are not read, and not counted.

Only where the tail alone tells what the whole file tells: otherwise ``None`` and the whole file is read —
no compaction with its replacement history, no call after it, a model or window not recorded after it,
base instructions not recorded before the first call, records out of time order, a gzip or pretty-printed
rollout, or a session short enough that head and tail meet.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from contextlib import closing
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from ctxviz.errors import InputError
from ctxviz.regular_file import open_regular, read_regular
from ctxviz.transcripts.assemble import Call, Compaction
from ctxviz.transcripts.backwards import lines_backwards
from ctxviz.transcripts.codex.rollout import Parsed
from ctxviz.transcripts.jsonl import Record, count, each_record, records, spans_lines
from ctxviz.transcripts.lines import lines_after
from ctxviz.transcripts.packed import GZIP_MAGIC
from ctxviz.transcripts.protocol import CallWindow

if TYPE_CHECKING:
    from ctxviz.timeline import Timeline

_COMPACTED = b'"compacted"'
_TOKEN_COUNT = b'"token_count"'
# A rollout with less than this before the byte its tail is read from opens whole in ``watch`` and ``play``:
# the whole read of 64 MB takes ~3.5 s (a 152 MB rollout ~8 s cpu), as Claude Code's from-end threshold.
FROM_END_BYTES = 64 * 1024 * 1024
# How far before the compaction its last call is looked for: Codex compacts right after a call.
CALL_BEFORE_BYTES = 16 * 1024 * 1024
# The tail's lines are numbered from here: their true numbers would cost counting every line before them;
# they only name the items' origins, which must not meet the head's.
TAIL_FIRST_LINE = 1 << 40
_DECODER = msgspec.json.Decoder()


def _decoded(line: bytes) -> Record | None:
    try:
        value = _DECODER.decode(line)
    except (msgspec.DecodeError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def _payload(record: Record) -> dict[str, Any]:
    payload = record.get("payload")
    return payload if isinstance(payload, dict) else {}


def _is_compaction(record: Record) -> bool:
    history = _payload(record).get("replacement_history")
    return record.get("type") == "compacted" and isinstance(history, list) and bool(history)


def _is_call(record: Record) -> bool:
    payload = _payload(record)
    return record.get("type") == "event_msg" and payload.get("type") == "token_count" and bool(payload.get("info"))


def _last(lines: Iterator[tuple[int, bytes]], wanted: Callable[[Record], bool]) -> tuple[int, Record] | None:
    for offset, line in lines:
        if (record := _decoded(line)) is not None and wanted(record):
            return offset, record
    return None


class _Recorded:
    """Whether the tail records the model and the window itself (else they are the whole file's to tell)."""

    def __init__(self) -> None:
        self.model = self.window = False

    def note(self, record: Record) -> None:
        payload = _payload(record)
        if record.get("type") == "turn_context" and isinstance(payload.get("model"), str) and payload["model"]:
            self.model = True
        info = payload.get("info") if payload.get("type") == "token_count" else None
        if isinstance(info, dict):
            self.window = self.window or bool(count(info.get("model_context_window")))
            self.model = self.model or (isinstance(info.get("model"), str) and bool(info["model"]))


def _head(state: Parsed, found: Iterable[tuple[int, Record]]) -> Iterator[tuple[int, Record]]:
    """The records up to the one that made the first call."""
    for line in found:
        yield line
        if state.events and isinstance(state.events[-1], Call):
            return


def _tail(handle: Any, path: Path, start: int, recorded: _Recorded) -> Iterator[tuple[int, Record]]:
    handle.seek(start)
    for number, line, complete in lines_after(handle, path, [], b"\n", TAIL_FIRST_LINE - 1):
        if complete and (record := _decoded(line)) is not None:
            recorded.note(record)
            yield number, record


def last_window(path: Path) -> Timeline | None:
    """A timeline whose last step is the rollout's last, read from its last compaction (the steps before
    are the head's first call and the calls around the compaction only); None when only the whole file
    can tell."""
    found = _read_from_end(path)
    return found[0] if found is not None else None


def window_from_end(path: Path, from_end_bytes: int | None = None) -> CallWindow | None:
    """The last step's window alone (its one step, index 0), read as ``last_window`` reads it, when at least
    ``from_end_bytes`` (None: ``FROM_END_BYTES``) come before the byte the tail is read from; else None.
    Nothing that counts from the rollout's start is known (the calls, the compactions, the step's index),
    nor are the problems: the tail's lines are not numbered as the file's, so the whole read tells them."""
    from_end_bytes = FROM_END_BYTES if from_end_bytes is None else from_end_bytes
    try:
        size = os.stat(path).st_size
    except OSError:
        return None  # the whole read says what is wrong with the file
    found = _read_from_end(path) if size >= from_end_bytes else None
    if found is None or found[1] < from_end_bytes:
        return None
    timeline, offset = found
    index = timeline.last
    live = timeline.state_at(index)
    alone = msgspec.structs.replace(
        timeline.steps[index], index=0, added=tuple(b.id for b in live), removed=(), fates=()
    )
    notice = (
        f"read from the last compaction on (byte {offset:,} of {size:,}): "
        "the calls and compactions before it were not read"
    )
    timeline = replace(timeline, steps=(alone,), blocks=tuple(live), notices=(notice,))
    return CallWindow(timeline, None, None, None, None, None, (), read_from=offset)


def _read_from_end(path: Path) -> tuple[Timeline, int] | None:
    """``last_window``'s timeline and the byte its tail was read from."""
    from ctxviz.transcripts.codex.rollout_timeline import build

    try:
        if read_regular(path, 2) == GZIP_MAGIC or spans_lines(path):
            return None
        state = Parsed(str(path))
        with closing(records(path, [])) as found:  # type: ignore[type-var]  # a generator: closing closes the file
            each_record(_head(state, found), state.where, [], state.record)
        if not state.events or not isinstance(state.events[-1], Call) or not state.seen_instructions:
            return None
        first_totals = state.last_totals
        recorded = _Recorded()
        with open_regular(path) as handle:
            end = handle.seek(0, 2)
            compaction = _last(lines_backwards(handle, end, _COMPACTED), _is_compaction)
            if compaction is None:
                return None
            floor = max(0, compaction[0] - CALL_BEFORE_BYTES)
            call = _last(lines_backwards(handle, compaction[0], _TOKEN_COUNT, floor), _is_call)
            if call is not None and _payload(call[1])["info"].get("total_token_usage") == first_totals:
                return None  # the first call is the last before the compaction: head and tail meet
            each_record(_tail(handle, path, (call or compaction)[0], recorded), state.where, [], state.record)
    except (OSError, InputError):
        return None  # the whole read says what is wrong with the file
    after = next((n for n in range(len(state.events) - 1, -1, -1) if isinstance(state.events[n], Compaction)), None)
    called = after is not None and any(isinstance(e, Call) for e in state.events[after:])
    if not called or not recorded.model or not recorded.window or state.out_of_time_order:
        return None
    return build(state, path), (call or compaction)[0]
