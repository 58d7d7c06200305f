"""grok-build sessions: ``<grok home>/sessions/<encoded cwd>/<session id>/`` (``GROK_HOME``, default
``~/.grok``), a folder holding ``updates.jsonl`` (the session's event log), ``chat_history.jsonl`` (the
current context only, rewritten at each compaction), ``signals.json`` (the latest figures) and
``summary.json`` (the model, the cwd, the times). A session is named by its ``updates.jsonl``, or by
its ``chat_history.jsonl`` when it has no log. What they say is read in ``grok_build.session``,
imported only when a session is read.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ctxviz.errors import InputError
from ctxviz.kinds import AgentName
from ctxviz.transcripts.grok_build.record_types import GROK_UPDATE_METHODS
from ctxviz.transcripts.packed import COMPRESSED, unpacked_name
from ctxviz.transcripts.protocol import (
    MODEL_NOT_RECORDED,
    FoundFile,
    Reader,
    Reading,
    Reads,
    SessionRef,
    SessionSummary,
)
from ctxviz.transcripts.walk import agent_home, session_files

if TYPE_CHECKING:
    from ctxviz.transcripts.grok_build.session import Parsed

UPDATES = "updates.jsonl"
HISTORY = "chat_history.jsonl"


def _is_log_or_history(name: str) -> bool:
    return unpacked_name(name) in (UPDATES, HISTORY)


def _kept(folder: Path, name: str) -> Path:
    """The folder's file ``name``, or its compressed copy when only that is there (an archived session)."""
    plain = folder / name
    packed = folder / (name + COMPRESSED)
    return packed if not plain.is_file() and packed.is_file() else plain


class GrokBuildReader(Reader):
    name = AgentName.GROK_BUILD
    folders = "GROK_HOME or ~/.grok"

    def detect(self, path: Path) -> bool:
        from ctxviz.transcripts.jsonl import first_records, head, kind_of

        found = first_records(path, 5)
        if any(kind_of(r, "method") in GROK_UPDATE_METHODS for r in found):
            return True
        # chat_history.jsonl: items with a top-level content, unlike Claude Code's message records
        if found and found[0].get("type") == "system" and "content" in found[0] and "message" not in found[0]:
            return True
        return b'"contextTokensUsed"' in head(path, 4096)

    def roots(self, env: Mapping[str, str], home: Path) -> list[Path]:
        return agent_home(env, "GROK_HOME", home / ".grok", "sessions")

    def discover(self, roots: list[Path], unread: list[str] | None = None) -> list[SessionRef]:
        found = session_files(roots, "sessions", _is_log_or_history, 2, unread=unread)
        return [
            SessionRef(self.name, file, file.parent.name, size, mtime)
            for _, file, size, mtime in found
            if unpacked_name(file.name) == UPDATES or not _kept(file.parent, UPDATES).is_file()
        ]

    def sessions_in(self, files: Sequence[FoundFile]) -> list[SessionRef]:
        """A session is its folder, named by its log (else by its history), however many of its files
        were found."""
        by_folder: dict[Path, FoundFile] = {}
        for found in files:
            if found[0].parent not in by_folder or unpacked_name(found[0].name) == UPDATES:
                by_folder[found[0].parent] = found
        return [SessionRef(self.name, file, file.parent.name, size, mtime) for file, size, mtime in by_folder.values()]

    def watched_places(self, ref: SessionRef) -> list[str]:
        """Its log (or history) first, then every other file of its folder: summary and signals."""
        from ctxviz.transcripts.walk import names_in

        folder = str(ref.path.parent)
        return [str(ref.path)] + [os.path.join(folder, name) for name in names_in(folder) if name != ref.path.name]

    def _parse(self, ref: SessionRef, reads: Reads) -> tuple[Parsed, Path]:
        from ctxviz.transcripts.grok_build.session import parse, parse_history
        from ctxviz.transcripts.jsonl import records

        folder = ref.path.parent
        updates, history = _kept(folder, UPDATES), _kept(folder, HISTORY)
        # the log is appended to, the history rewritten at each compaction, signals.json and summary.json
        # rewritten as the session goes: each is noted as a file, also while missing (it may appear), and
        # so is the compressed copy read while it is missing
        for place in dict.fromkeys((folder / UPDATES, updates)):
            reads.path(place)
        problems: list[str] = []
        if updates.is_file():
            state = parse(records(updates, problems), str(updates))
        else:
            for place in dict.fromkeys((folder / HISTORY, history)):
                reads.path(place)
            if not history.is_file():
                raise InputError(f"{folder}: neither {UPDATES} nor {HISTORY} here: not a grok-build session folder")
            state = parse_history(records(history, problems), str(history))
        state.problems[:0] = problems
        return state, folder

    def read(self, ref: SessionRef) -> Reading:
        from ctxviz.transcripts.grok_build.session import build

        state, folder = self._parse(ref, Reads())
        return Reading(build(state, folder), tuple(state.problems))

    def summarise(self, ref: SessionRef, reads: Reads) -> SessionSummary:
        from urllib.parse import unquote

        from ctxviz.transcripts.grok_build.session import build, json_or_empty
        from ctxviz.transcripts.rows import RowDetails, from_millis, is_time, summary_row

        state, folder = self._parse(ref, reads)
        reads.path(folder / "signals.json")  # both read by build, and summary.json again below
        reads.path(folder / "summary.json")
        timeline = build(state, folder)
        start = from_millis(state.started * 1000) if state.started is not None else None
        end = from_millis(state.ended * 1000) if state.ended is not None else None
        meta = json_or_empty(folder / "summary.json")
        start = start or (meta.get("created_at") if is_time(meta.get("created_at")) else None)
        end = end or (meta.get("updated_at") if is_time(meta.get("updated_at")) else None)
        models = [timeline.model] if timeline.model != MODEL_NOT_RECORDED else []
        project = timeline.source.summary or unquote(folder.parent.name)
        row = summary_row(ref, timeline, RowDetails(project, start, end, models, problems=state.problems,
                                                     measured=False))  # fmt: skip
        return row._replace(calls=state.model_calls, file=state.where)
