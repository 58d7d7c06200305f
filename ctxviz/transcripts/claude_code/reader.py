"""Claude Code behind the reader protocol: its package's discovery (``discover``), summary (``summary``)
and reading (``load``), offered to the registry like every other agent's."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from ctxviz.kinds import AgentName
from ctxviz.transcripts.protocol import Reading, Reads, SessionRef, SessionSummary

if TYPE_CHECKING:
    from ctxviz.timeline import Timeline

_CHAT_TYPES = frozenset({"user", "assistant", "system", "attachment", "summary"})


class ClaudeCodeReader:
    name = AgentName.CLAUDE_CODE

    def detect(self, path: Path) -> bool:
        from ctxviz.transcripts.jsonl import first_records, kind_of  # only detection reads a file's records

        for record in first_records(path):
            if "projectHash" in record:  # gemini-cli's chats also name a sessionId
                return False
            if kind_of(record) in _CHAT_TYPES and ("uuid" in record or "leafUuid" in record):
                return True
            if isinstance(record.get("sessionId"), str) and (
                isinstance(record.get("type"), str) or isinstance(record.get("message"), dict)
            ):
                return True
        return False

    def roots(self, env: Mapping[str, str], home: Path) -> list[Path]:
        from ctxviz.transcripts.claude_code.discover import config_roots

        return config_roots(env, home)

    def discover(self, roots: list[Path]) -> list[SessionRef]:
        from ctxviz.transcripts.claude_code.discover import session_files

        return [SessionRef(AgentName.CLAUDE_CODE, f.path, f.session, f.size, f.mtime) for f in session_files(roots)]

    def summarise(self, ref: SessionRef, reads: Reads) -> SessionSummary:
        from ctxviz.transcripts.claude_code.summary import summarize

        reads.path(ref.path)
        reads.path(ref.path.parent / ref.path.stem)  # its subagents folder (their files are counted)
        return summarize(ref.path)

    def read(self, ref: SessionRef) -> Reading:
        from ctxviz.transcripts.claude_code.load import read_transcript

        reading = read_transcript(ref.path)
        return Reading(reading.timeline, reading.problems)

    def timeline(self, ref: SessionRef) -> Timeline:
        return self.read(ref).timeline
