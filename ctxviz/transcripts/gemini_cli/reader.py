"""gemini-cli chats: ``<home>/.gemini/tmp/<project>/chats/session-<time>-<id>.jsonl`` (older builds: one
``.json`` document with a ``messages`` list). ``GEMINI_CLI_HOME`` replaces the home folder. A chat's
subagents' chats sit in ``chats/<its session id>/``. What a chat says is read in ``gemini_cli.chat``,
imported only when one is read.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from ctxviz.kinds import AgentName
from ctxviz.transcripts.packed import named, session_stem, unpacked_name
from ctxviz.transcripts.protocol import Reader, Reading, Reads, SessionRef, SessionSummary
from ctxviz.transcripts.walk import is_folder_or_closed

if TYPE_CHECKING:
    from ctxviz.transcripts.gemini_cli.chat import Parsed


class GeminiCliReader(Reader):
    name = AgentName.GEMINI_CLI
    folders = "GEMINI_CLI_HOME or ~/.gemini"

    def detect(self, path: Path) -> bool:
        from ctxviz.transcripts.jsonl import head

        start = head(path)
        return b'"projectHash"' in start and b'"sessionId"' in start

    def roots(self, env: Mapping[str, str], home: Path) -> list[Path]:
        base = Path(env["GEMINI_CLI_HOME"]).expanduser() if env.get("GEMINI_CLI_HOME") else home
        root = base / ".gemini"
        return [root] if is_folder_or_closed(root / "tmp") else []

    def discover(self, roots: list[Path], unread: list[str] | None = None) -> list[SessionRef]:
        from ctxviz.transcripts.walk import files_under

        found: list[SessionRef] = []
        for root in roots:
            base = root / "tmp" if is_folder_or_closed(root / "tmp") else root
            for file, size, mtime in files_under(base, named(".jsonl", ".json"), 4, unread):
                if file.parent.name == "chats":  # chats/<parent id>/… are its subagents' chats
                    found.append(SessionRef(AgentName.GEMINI_CLI, file, session_stem(file), size, mtime))
        return found

    def _parse(self, ref: SessionRef) -> Parsed:
        from ctxviz.transcripts.gemini_cli.chat import parse
        from ctxviz.transcripts.jsonl import document, first_records, head, records

        problems: list[str] = []
        if not first_records(ref.path, 1) and head(ref.path, 16).lstrip()[:1] == b"{":  # one pretty document
            state = parse([(1, document(ref.path))], str(ref.path))
        else:
            state = parse(records(ref.path, problems), str(ref.path))
        state.problems[:0] = problems
        return state

    def read(self, ref: SessionRef) -> Reading:
        from ctxviz.transcripts.gemini_cli.chat import build

        state = self._parse(ref)
        return Reading(build(state, ref.path)[0], tuple(state.problems))

    def summarise(self, ref: SessionRef, reads: Reads) -> SessionSummary:
        from ctxviz.transcripts.gemini_cli.chat import build
        from ctxviz.transcripts.rows import RowDetails, is_time, summary_row

        reads.path(ref.path)  # appended to (JSONL) or rewritten in place (an older .json): its time moves
        state = self._parse(ref)
        timeline, models = build(state, ref.path)
        started = state.meta.get("startTime") if is_time(state.meta.get("startTime")) else state.started
        children = ref.path.parent / timeline.source.name
        reads.path(children)  # only counted: a subagent's chat added or removed changes the folder's time
        # a chat kept both ways (x.jsonl and x.jsonl.gz) is one subagent's
        subagents = len({unpacked_name(p.name) for p in children.glob("*.json*")}) if children.is_dir() else 0
        details = RowDetails(timeline.source.summary or "", started, state.ended, models, subagents=subagents,
                             problems=state.problems)  # fmt: skip
        return summary_row(ref, timeline, details)
