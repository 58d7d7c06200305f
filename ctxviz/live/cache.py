"""The statusline's cache: one file per transcript in the user's cache dir, holding where the last run
stopped reading and the incremental state there, so the next run reads only what was appended.

Layout: a checksum, one line of JSON (the header: which file, up to which byte, and the figures to
print), then the state as msgpack. The header alone answers a run that finds nothing new, without decoding the
state (or importing the reader). Anything unexpected — unreadable, undecodable, another format or
ctxviz version, another file at the path — makes the cache worthless, never trusted: the state is
rebuilt from the transcript. Deleting the folder is always safe.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec

from ctxviz import __version__
from ctxviz.cache_file import CACHE_FORMAT, MAX_CACHE_BYTES, pack_cache, unpack_cache
from ctxviz.cache_folder import write_atomically
from ctxviz.live.session import LiveSession
from ctxviz.live.tail import Tail
from ctxviz.regular_file import read_regular
from ctxviz.timeline import Block
from ctxviz.transcripts.claude_code.build import BuildState, StepBuilder
from ctxviz.transcripts.claude_code.cache_place import among_agent_folders
from ctxviz.transcripts.claude_code.follow import Follower, Forget, Tally, window_thresholds
from ctxviz.transcripts.claude_code.parse import Entry, ParseState, Piece


class _Saved(msgspec.Struct, array_like=True):
    """A lean ``LiveSession`` at rest (positional msgpack: smaller and faster to read back)."""

    offset: int
    identity: tuple[int, int] | None
    line_number: int
    carry: bytes
    skipping: bool
    boundary: bytes
    tool_names: dict[str, tuple[str, str]]
    task_prompts: dict[str, str]
    measured: list[str]
    unmeasured: list[str]
    cwd: str | None
    session: str | None
    problems: int
    mode: str | None
    last_call: str | None
    below: list[str]
    last_conversational: str | None
    linked: bool
    bridged: list[str]
    seen: list[str]
    open_compaction: Entry | None
    models: list[str]
    last_used: int | None
    last_measured: bool
    peak: int
    reordered: bool
    live: list[Block]
    total: int
    block_count: int
    step_count: int
    pending: list[Piece]
    notes: list[str]
    calls: int
    overhead: int | None
    calls_counted: bool


_DECODER = msgspec.msgpack.Decoder(_Saved)
_ENCODER = msgspec.msgpack.Encoder()


def header_matches(header: dict[str, Any], path: Path) -> bool:
    return (
        header.get("format") == CACHE_FORMAT
        and header.get("version") == __version__
        and header.get("path") == str(path)
    )


def load(cache_file: Path, path: Path) -> tuple[LiveSession, dict[str, Any]] | None:
    """The cached state of ``path``'s session and its header, or None when there is none worth trusting."""
    try:
        unpacked = unpack_cache(read_regular(cache_file, MAX_CACHE_BYTES))
        if unpacked is None or not header_matches(unpacked[0], path):
            return None
        saved = _DECODER.decode(unpacked[1])
    except (OSError, msgspec.DecodeError, RecursionError):
        return None
    return _restore(saved, path), unpacked[0]


def _restore(saved: _Saved, path: Path) -> LiveSession:
    live = LiveSession(path, lean=True, from_end=not saved.calls_counted)
    live.tail = Tail(path, saved.offset, saved.identity, saved.line_number, saved.carry, saved.skipping,
                     saved.boundary)  # fmt: skip
    live.tools = ParseState(names=dict(saved.tool_names), task_prompts=dict(saved.task_prompts), cwd=saved.cwd,
                        measured=set(saved.measured), unmeasured=set(saved.unmeasured))  # fmt: skip
    live.session, live.problems = saved.session, saved.problems
    state = BuildState(Tally(saved.block_count), Tally(saved.step_count), {b.id: b for b in saved.live},
                   saved.total, Forget())  # fmt: skip
    live.follower = Follower(
        lean=True,
        compaction_call=live.compaction_call,
        mode=saved.mode,
        last_call=saved.last_call,
        below=set(saved.below),
        last_conversational=saved.last_conversational,
        linked=saved.linked,
        bridged=set(saved.bridged),
        seen=set(saved.seen),
        open_compaction=saved.open_compaction,
        models=list(saved.models),
        last_used=saved.last_used,
        last_measured=saved.last_measured,
        peak=saved.peak,
        reordered=saved.reordered,
        calls_counted=saved.calls_counted,
    )
    live.follower.builder = StepBuilder({}, compaction_call=live.compaction_call, state=state,
                                     pending=list(saved.pending), notes=list(saved.notes), calls=saved.calls,
                                     overhead=saved.overhead)  # fmt: skip
    return live


def _saved(live: LiveSession) -> _Saved:
    tail, follower = live.tail, live.follower
    builder = follower.builder
    state = builder.state
    return _Saved(
        tail.offset, tail.identity, tail.line_number, tail.carry, tail.skipping, tail.boundary,
        live.tools.names, live.tools.task_prompts, sorted(live.tools.measured), sorted(live.tools.unmeasured),
        live.tools.cwd, live.session, live.problems,
        follower.mode, follower.last_call, sorted(follower.below), follower.last_conversational, follower.linked,
        sorted(follower.bridged), sorted(follower.seen), follower.open_compaction, follower.models,
        follower.last_used, follower.last_measured, follower.peak, follower.reordered,
        list(state.live.values()), state.total, len(state.blocks), len(state.steps),
        builder.pending, builder.notes, builder.calls, builder.overhead, follower.calls_counted,
    )  # fmt: skip


def _limits(live: LiveSession, window: int | None, previous: dict[str, Any] | None) -> dict[str, Any]:
    """Model, window and thresholds. They change only with the model, the window Claude Code names,
    or a call above the window (a 1M session): otherwise the last run's are reused, which spares
    importing the profile."""
    follower = live.follower
    model = follower.models[-1] if follower.models else "unknown"
    prior = previous.get("figures") if previous else None
    if (
        isinstance(prior, dict)
        and prior.get("model") == model
        and previous is not None
        and previous.get("window_asked") == window
        and (window is not None or follower.peak <= prior["window"])
    ):
        return {key: prior[key] for key in ("model", "window", "autocompact", "warning", "blocking")}
    model, size, limits = window_thresholds(follower.models, follower.peak, window)
    return {"model": model, "window": size, "autocompact": limits.autocompact, "warning": limits.warning,
            "blocking": limits.blocking}  # fmt: skip


def figures_header(
    live: LiveSession, path: Path, window: int | None, previous: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The header: the file's identity and offset, and everything a run with nothing new prints."""
    figures = live.figures()
    header: dict[str, Any] = {
        "format": CACHE_FORMAT,
        "version": __version__,
        "path": str(path),
        "identity": list(live.tail.identity) if live.tail.identity else None,
        "offset": live.tail.offset,
        "window_asked": window,
        "session": live.session,
        "figures": None,
    }
    if figures is not None:
        header["figures"] = {
            "used": figures.used,
            "measured": figures.measured,
            "calls": figures.calls,
            **_limits(live, window, previous),
            "biggest": list(figures.biggest) if figures.biggest else None,
        }
    return header


def save(cache_file: Path, live: LiveSession, header: dict[str, Any]) -> None:
    write_atomically(cache_file, pack_cache(header, _ENCODER.encode(_saved(live))))


def refresh(
    cache_file: Path, path: Path, window: int | None, problems: list[str], *, count_calls: bool = False
) -> dict[str, Any]:
    """Bring the cache of ``path`` up to date (reading only what was appended when it can be trusted)
    and return its header. A failure to write the cache is not an error: the figures are still right.
    What happened on the way (a cache rebuilt, not written) is told in ``problems``. A first read starts
    at the last compaction unless ``count_calls`` (the calls before it are counted only by reading them)."""
    loaded = load(cache_file, path)
    previous = None
    if loaded is not None and count_calls and not loaded[0].follower.calls_counted:
        problems.append(f"{path}: read from its last compaction before; read whole now, to count its calls")
    elif loaded is None and cache_file.exists():
        problems.append(f"{cache_file}: cache not usable (damaged, or another version): rebuilt")
    if loaded is None or (count_calls and not loaded[0].follower.calls_counted):
        live = LiveSession(path, lean=True, from_end=not count_calls)
    else:
        live, previous = loaded
    update = live.poll()
    if update.change.value == "gone":
        raise FileNotFoundError(update.reason)
    header = figures_header(live, path, window, previous)
    if update.rebuilt:
        where = "its last compaction" if not live.follower.calls_counted else "the start"
        problems.append(f"{path}: read from {where} ({update.reason or 'the chain changed'})")
    if among_agent_folders(cache_file.parent, path):
        problems.append(f"{cache_file}: not written: the cache folder is inside an agent's folder")
        return header
    try:
        save(cache_file, live, header)
    except OSError as error:
        problems.append(f"{cache_file}: cache not written ({error.strerror or error})")
    return header
