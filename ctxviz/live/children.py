"""The timelines a followed session's steps open: its subagents' and its compactions' own files, read
when a step first needs one. A subagent's result reaches the main conversation after its file is
complete, and a compaction's file before its boundary is written, so each is read once."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path

from ctxviz.timeline import Timeline
from ctxviz.transcripts.discover import compaction_files, subagent_files
from ctxviz.transcripts.load import _child


class SubagentTimelines(Mapping[str, Timeline]):
    """Subagent id → its timeline, for the session file ``path`` (both layouts). The folders are
    scanned again only when an id is asked for that the last scan did not find."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.session: str | None = None  # set once the session's id is known (older layout matches by it)
        self._files: dict[str, Path] = {}
        self._read: dict[str, Timeline | None] = {}

    def _file(self, agent: str) -> Path | None:
        if agent not in self._files and not agent.startswith("task:"):
            self._files = dict(subagent_files(self.path, self.session))
        return self._files.get(agent)

    def __getitem__(self, agent: str) -> Timeline:
        if agent not in self._read:
            file = self._file(agent)
            self._read[agent] = _child(file) if file is not None else None
        found = self._read[agent]
        if found is None:
            raise KeyError(agent)
        return found

    def __contains__(self, agent: object) -> bool:
        try:
            return isinstance(agent, str) and self[agent] is not None
        except KeyError:
            return False

    def __iter__(self) -> Iterator[str]:
        return iter(k for k, v in self._read.items() if v is not None)

    def __len__(self) -> int:
        return sum(1 for v in self._read.values() if v is not None)


def compaction_timeline(path: Path, session: str | None, number: int) -> Timeline | None:
    """The ``number``-th compaction's own timeline (from 0, oldest first), if its file is there."""
    files = compaction_files(path, session)
    return _child(files[number]) if number < len(files) else None
