"""Codex rollouts: ``$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl`` (default ``~/.codex``),
one JSONL file per session, a subagent's too. What a rollout says is read in ``codex.rollout`` and made a
timeline in ``codex.rollout_timeline``, imported only when one is read: a ``sessions`` run served from the
summary index never loads them.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from ctxviz.kinds import AgentName
from ctxviz.transcripts.codex.record_types import CODEX_TOP_TYPES
from ctxviz.transcripts.packed import named, session_stem
from ctxviz.transcripts.protocol import CallWindow, Reader, Reading, Reads, SessionRef, SessionSummary
from ctxviz.transcripts.walk import agent_home, session_files

if TYPE_CHECKING:
    from ctxviz.timeline import Timeline
    from ctxviz.transcripts.codex.rollout import Parsed


class CodexReader(Reader):
    name = AgentName.CODEX
    folders = "CODEX_HOME or ~/.codex"
    # A rollout read from its end has neither its calls nor its located problems, which context prints:
    # only the TUI's first screen takes it.
    context_reads_from_end = False

    def detect(self, path: Path) -> bool:
        from ctxviz.transcripts.jsonl import first_records, first_spanning_record, kind_of, spans_lines

        found = first_records(path)
        if not found and spans_lines(path):  # a rollout re-written pretty-printed, one object over lines
            first = first_spanning_record(path)
            found = [first] if first is not None else []
        return any(kind_of(r) in CODEX_TOP_TYPES and isinstance(r.get("payload"), dict) for r in found)

    def roots(self, env: Mapping[str, str], home: Path) -> list[Path]:
        return agent_home(env, "CODEX_HOME", home / ".codex", "sessions")

    def discover(self, roots: list[Path], unread: list[str] | None = None) -> list[SessionRef]:
        found = session_files(roots, "sessions", named(".jsonl"), unread=unread)
        return [SessionRef(self.name, file, session_stem(file), size, mtime) for _, file, size, mtime in found]

    def _parse(self, ref: SessionRef, *, counting: bool = False) -> Parsed:
        from ctxviz.transcripts.codex.rollout import in_time_order, parse
        from ctxviz.transcripts.jsonl import records, spanning_records, spans_lines

        problems: list[str] = []
        # Codex writes one record a line; a rollout passed through a pretty-printer is read whole instead
        read = spanning_records if spans_lines(ref.path) else records
        state = parse(read(ref.path, problems), str(ref.path), counting=counting)
        if state.out_of_time_order:  # rare: only then are all its records held at once, to be reordered
            problems = []
            state = parse(in_time_order(list(read(ref.path, problems))), str(ref.path), counting=counting)
            state.reordered = True
        state.problems[:0] = problems
        return state

    def read(self, ref: SessionRef) -> Reading:
        from ctxviz.transcripts.codex.rollout_timeline import build

        state = self._parse(ref)
        return Reading(build(state, ref.path), tuple(state.problems))

    def last_window(self, ref: SessionRef) -> Timeline | None:
        from ctxviz.transcripts.codex.from_end import last_window

        return last_window(ref.path)

    def window_from_end(self, ref: SessionRef, top: int) -> CallWindow | None:
        from ctxviz.transcripts.codex.from_end import window_from_end

        return window_from_end(ref.path)

    def summarise(self, ref: SessionRef, reads: Reads) -> SessionSummary:
        from ctxviz.transcripts.codex.rollout_timeline import row

        reads.path(ref.path)  # a rollout is one file
        return row(self._parse(ref, counting=True), ref)
