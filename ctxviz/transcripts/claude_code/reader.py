"""Claude Code behind the reader protocol: its package's discovery (``discover``), choice (``select``),
summary (``summary``) and reading (``load``), offered to the registry like every other agent's. Its
fast paths live here: a session's project and id are told by its folder's name and first records, and
its summaries are kept by file in the summary index; a live session is followed by reading what is
appended."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from itertools import chain
from pathlib import Path
from typing import TYPE_CHECKING

from ctxviz.errors import InputError
from ctxviz.kinds import AgentName
from ctxviz.transcripts.packed import session_stem
from ctxviz.transcripts.protocol import (
    Answer,
    CallWindow,
    FoundFile,
    Glance,
    Reader,
    Reading,
    Reads,
    SessionRef,
    SessionSummary,
)

if TYPE_CHECKING:
    from datetime import date

    from ctxviz.transcripts.claude_code.discover import SessionFile
    from ctxviz.transcripts.index import SummaryIndex

_CHAT_TYPES = frozenset({"user", "assistant", "system", "attachment", "summary"})


def _file(ref: SessionRef) -> SessionFile:
    """The discovery record of a session found as a reference (its folder is its project's)."""
    from ctxviz.transcripts.claude_code.discover import SessionFile

    return SessionFile(ref.path, ref.path.parent, ref.path.parent.parent.parent, ref.size, ref.mtime)


class ClaudeCodeReader(Reader):
    name = AgentName.CLAUDE_CODE
    folders = "~/.claude, ~/.config/claude and each folder CLAUDE_CONFIG_DIR names"
    follows_by_appends = True

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

    def discover(self, roots: list[Path], unread: list[str] | None = None) -> list[SessionRef]:
        from ctxviz.transcripts.claude_code.discover import session_files

        files = session_files(roots, unread)
        return [SessionRef(AgentName.CLAUDE_CODE, f.path, f.session, f.size, f.mtime) for f in files]

    def summarise(self, ref: SessionRef, reads: Reads) -> SessionSummary:
        from ctxviz.transcripts.claude_code.summary import summarize

        reads.path(ref.path)
        reads.path(ref.path.parent / session_stem(ref.path))  # its subagents folder (their files are counted)
        return summarize(ref.path)

    def read(self, ref: SessionRef) -> Reading:
        from ctxviz.transcripts.claude_code.load import read_transcript

        reading = read_transcript(ref.path)
        return Reading(reading.timeline, reading.problems)

    def call_window(
        self, ref: SessionRef, at_call: int | None, top: int, *, history: bool = False
    ) -> CallWindow | None:
        if at_call is None:  # the last step: taken up where the last run stopped, from the cache
            from ctxviz.transcripts.claude_code.one_call_cache import cached_call_window

            return cached_call_window(ref.path, top, history=history)
        from ctxviz.transcripts.claude_code.one_call import call_window

        return call_window(ref.path, at_call, top)

    def window_from_end(self, ref: SessionRef, top: int) -> CallWindow | None:
        from ctxviz.transcripts.claude_code.one_call_from_end import window_from_end

        return window_from_end(ref.path, top)

    def summaries(
        self, roots: list[Path], index: SummaryIndex, project: str | None, since: date | None
    ) -> tuple[int, Iterator[Answer]]:
        from datetime import date

        from ctxviz.transcripts.claude_code.discover import session_files
        from ctxviz.transcripts.claude_code.indexed import summaries
        from ctxviz.transcripts.claude_code.select import project_matches

        unread: list[str] = []
        files = [f for f in session_files(roots, unread) if project_matches(f, project)]
        if since is not None:  # a file last written before --since cannot hold a session active after it
            files = [f for f in files if date.fromtimestamp(f.mtime) >= since]
        # the summary index: unchanged files are not read
        return len(files) + len(unread), chain(map(InputError, unread), summaries(files, index))

    def sessions_in(self, files: Sequence[FoundFile]) -> list[SessionRef]:
        from ctxviz.transcripts.claude_code.discover import AGENT_PREFIX

        # a subagent's file is its session's, not a session of its own
        return super().sessions_in([found for found in files if not found[0].name.startswith(AGENT_PREFIX)])

    def glance(self, ref: SessionRef, project: str | None = None, cwd: str | None = None) -> Glance:
        from ctxviz.transcripts.claude_code.discover import decode_project
        from ctxviz.transcripts.claude_code.select import encoded_project, project_matches

        file = _file(ref)
        folder = file.project_dir.name  # read back from the folder's name: its records are read only for -p
        local = cwd is not None and folder == encoded_project(cwd)
        return Glance(decode_project(folder), project_matches(file, project), local)

    def sessions_named(self, refs: Sequence[SessionRef], wanted: str, thorough: bool) -> list[SessionRef]:
        from ctxviz.transcripts.claude_code.select import sessions_named

        if thorough:  # the id is in the file's name or its first records, both read already
            return []
        by_path = {ref.path: ref for ref in refs}
        return [by_path[found.path] for found in sessions_named([_file(ref) for ref in refs], wanted)]
