"""The statusline's figures for a session whose reader is not followed by appends (a Codex rollout, a pi
session): the last step of what its reader reads — from the session's end where its log allows
(``Reader.last_window``), else the whole file. No incremental state is kept: the cache holds the header
alone, which answers every run while the file does not change."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ctxviz import __version__
from ctxviz.cache_file import CACHE_FORMAT, pack_cache
from ctxviz.cache_folder import write_atomically
from ctxviz.errors import InputError
from ctxviz.kinds import StepKind
from ctxviz.timeline import Timeline
from ctxviz.transcripts.claude_code.cache_place import among_agent_folders
from ctxviz.transcripts.claude_code.follow import NOT_ITEMS
from ctxviz.transcripts.protocol import Reader, ref_for


def figures(timeline: Timeline, *, calls_counted: bool) -> dict[str, Any]:
    """What a statusline prints of a timeline's last step (``calls_counted``: every call is in it)."""
    last = timeline.steps[-1]
    items = [b for b in timeline.state_at(timeline.last) if b.kind not in NOT_ITEMS]
    top = min(items, key=lambda b: (-b.tokens, b.entered, b.id), default=None)
    calls = sum(1 for step in timeline.steps if step.kind == StepKind.API_CALL) if calls_counted else None
    limits = timeline.thresholds
    return {"used": last.used, "measured": last.measured, "calls": calls, "model": timeline.model,
            "window": timeline.window, "autocompact": limits.autocompact, "warning": limits.warning,
            "blocking": limits.blocking, "biggest": [top.label, top.tokens] if top is not None else None}  # fmt: skip


def refresh_other(
    cache_file: Path, reader: Reader, path: Path, window: int | None, problems: list[str], *, count_calls: bool
) -> dict[str, Any]:
    """The header of ``path``'s figures, read now and kept in ``cache_file`` (a failure to write it is told
    in ``problems``, not an error). ``count_calls``: read whole, the calls before the last compaction
    counted. ``window`` (Claude Code's) is kept to match the cache, not used: the log names its own."""
    stat = os.stat(path)  # before reading: a file that grows meanwhile is read again next time
    ref = ref_for(reader.name, path)
    header: dict[str, Any] = {"format": CACHE_FORMAT, "version": __version__, "path": str(path),
                              "identity": [stat.st_dev, stat.st_ino], "offset": stat.st_size,
                              "window_asked": window, "session": None, "figures": None,
                              "agent": reader.name}  # fmt: skip
    timeline = None if count_calls else reader.last_window(ref)
    where = "its last compaction" if timeline is not None else "the start"
    try:
        found = timeline or reader.read(ref).timeline
    except InputError as error:
        problems.append(error.message)
        return header
    problems.append(f"{path}: read from {where} ({reader.name})")
    header["session"] = found.source.name
    if found.steps:
        header["figures"] = figures(found, calls_counted=timeline is None)
    if among_agent_folders(cache_file.parent, path):
        problems.append(f"{cache_file}: not written: the cache folder is inside an agent's folder")
        return header
    try:
        write_atomically(cache_file, pack_cache(header, b""))
    except OSError as error:
        problems.append(f"{cache_file}: cache not written ({error.strerror or error})")
    return header
