"""pi sessions: ``<agent dir>/sessions/--<cwd>--/<time>_<id>.jsonl``; the agent dir is ``~/.pi/agent``
unless ``PI_CODING_AGENT_DIR`` names another. One JSONL file per session, all its branches included,
starting with a ``session`` header that names its ``cwd``. What a session says is read in
``pi.session``, imported only when one is read: a ``sessions`` run served from the summary index never
loads it.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from ctxviz.kinds import AgentName
from ctxviz.transcripts.packed import named, session_stem
from ctxviz.transcripts.protocol import Reader, Reading, Reads, SessionRef, SessionSummary
from ctxviz.transcripts.walk import agent_home, session_files

if TYPE_CHECKING:
    from ctxviz.transcripts.pi.session import Parsed


class PiReader(Reader):
    name = AgentName.PI
    folders = "PI_CODING_AGENT_DIR or ~/.pi/agent"

    def detect(self, path: Path) -> bool:
        from ctxviz.transcripts.jsonl import first_records

        found = first_records(path, 3)
        return bool(found) and found[0].get("type") == "session" and "cwd" in found[0]

    def roots(self, env: Mapping[str, str], home: Path) -> list[Path]:
        return agent_home(env, "PI_CODING_AGENT_DIR", home / ".pi" / "agent", "sessions")

    def discover(self, roots: list[Path], unread: list[str] | None = None) -> list[SessionRef]:
        found = session_files(roots, "sessions", named(".jsonl"), 2, unread=unread)
        return [SessionRef(self.name, file, session_stem(file), size, mtime) for _, file, size, mtime in found]

    def _parse(self, ref: SessionRef) -> Parsed:
        from ctxviz.transcripts.jsonl import records
        from ctxviz.transcripts.pi.session import parse

        problems: list[str] = []
        state = parse(records(ref.path, problems), str(ref.path))
        state.problems[:0] = problems
        return state

    def read(self, ref: SessionRef) -> Reading:
        from ctxviz.transcripts.pi.session import build

        state = self._parse(ref)
        timeline, _ = build(state, ref.path)
        return Reading(timeline, tuple(state.problems))

    def summarise(self, ref: SessionRef, reads: Reads) -> SessionSummary:
        from ctxviz.transcripts.pi.session import build
        from ctxviz.transcripts.rows import RowDetails, is_time, summary_row

        reads.path(ref.path)  # a session, all its branches, is one file
        state = self._parse(ref)
        timeline, session = build(state, ref.path)
        stamps = [e.get("timestamp") for _, e in state.entries if is_time(e.get("timestamp"))]
        started = state.header.get("timestamp") if is_time(state.header.get("timestamp")) else None
        return summary_row(ref, timeline, RowDetails(str(state.header.get("cwd") or ""),
                                                     started or (stamps[0] if stamps else None),
                                                     stamps[-1] if stamps else None, session.models,
                                                     problems=state.problems))  # fmt: skip
