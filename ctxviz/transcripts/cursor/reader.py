"""Cursor agent transcripts (``~/.cursor/projects/<project>/agent-transcripts/…/<id>.jsonl``): lines of
``{role, message: {content: [...]}}`` and ``{"type": "turn_ended"}``. They hold the conversation but no
token usage, no model and no window, so there is no context to show: every read ends in one clear
sentence saying so (``NoUsage``), never in silence."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from ctxviz.kinds import AgentName
from ctxviz.transcripts.packed import named, session_stem
from ctxviz.transcripts.protocol import NoUsage, Reader, Reading, Reads, SessionRef, SessionSummary
from ctxviz.transcripts.walk import agent_home, session_files

WHY = "a Cursor agent transcript: Cursor records no token usage, so its context cannot be shown"


def _is_turn(record: Mapping[str, object]) -> bool:
    return record.get("role") in ("user", "assistant") and isinstance(record.get("message"), dict)


class CursorReader(Reader):
    name = AgentName.CURSOR
    folders = "~/.cursor"
    records_usage = False

    def detect(self, path: Path) -> bool:
        from ctxviz.transcripts.jsonl import first_records

        found = first_records(path)
        turns = [r for r in found if _is_turn(r)]
        others = [r for r in found if not _is_turn(r) and r.get("type") != "turn_ended"]
        return bool(turns) and not others and not any("uuid" in r or "sessionId" in r for r in turns)

    def roots(self, env: Mapping[str, str], home: Path) -> list[Path]:
        return agent_home(env, None, home / ".cursor", "projects")

    def discover(self, roots: list[Path], unread: list[str] | None = None) -> list[SessionRef]:
        found = session_files(roots, "projects", named(".jsonl"), 4, unread=unread)
        return [
            SessionRef(self.name, file, session_stem(file), size, mtime)
            for base, file, size, mtime in found
            if "agent-transcripts" in file.relative_to(base).parts
        ]

    def summarise(self, ref: SessionRef, reads: Reads) -> SessionSummary:
        reads.path(ref.path)  # found as a Cursor transcript: while it is the same, so is the answer
        raise NoUsage(f"{ref.path}: {WHY}")

    def read(self, ref: SessionRef) -> Reading:
        raise NoUsage(f"{ref.path}: {WHY}")
