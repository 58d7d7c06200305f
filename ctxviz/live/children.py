"""The timelines a followed session's steps open: its subagents' and its compactions' own files, read
when a step first needs one, and (older layout) the subagents' sidechains recorded inside the session
file itself. A subagent's result reaches the main conversation after its file or sidechain is
complete, and a compaction's file before its boundary is written, so each is built once.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path

from ctxviz.timeline import Timeline
from ctxviz.transcripts.claude_code.discover import compaction_files, subagent_files
from ctxviz.transcripts.claude_code.load import child_timeline, sidechain_children
from ctxviz.transcripts.claude_code.parse import Entry, Parsed, ParseState

SIDECHAIN_KEY = "task:"  # the older layout's children are named by the Task call that started them


class SubagentTimelines(Mapping[str, Timeline]):
    """Subagent id → its timeline, for the session file ``path`` (both layouts). The folders are
    scanned again only when an id is asked for that the last scan did not find."""

    def __init__(self, path: Path, tools: ParseState) -> None:
        self.path = path
        self.tools = tools  # the session's parse state: its Task prompts name the sidechains
        self.session: str | None = None  # set once the session's id is known (older layout matches by it)
        self._files: dict[str, Path] = {}
        self._read: dict[str, Timeline | None] = {}
        self._side: list[Entry] = []  # the session file's sidechain records, in file order
        self._main: Entry | None = None  # a main-conversation record: a file of sidechains only has none
        self._sidechains: dict[str, Timeline] = {}
        self._sidechains_from = 0  # how many sidechain records ``_sidechains`` was built from

    def add(self, entries: Iterable[Entry]) -> None:
        """Records of the session file as they are read: its sidechains are kept for the Task calls."""
        for entry in entries:
            if entry.sidechain and entry.uuid:
                self._side.append(entry)
            elif self._main is None and not entry.sidechain and entry.conversational:
                self._main = entry

    def _sidechain(self, agent: str) -> Timeline | None:
        if self._main is None or not self._side:
            return None
        if self._sidechains_from != len(self._side):  # rebuilt only when new sidechain records came
            entries = (self._main, *self._side)
            parsed = Parsed(entries, (), {}, self.session, None, self.tools.task_prompts)
            self._sidechains, self._sidechains_from = sidechain_children(parsed, self.path), len(self._side)
        return self._sidechains.get(agent)

    def _file(self, agent: str) -> Path | None:
        if agent not in self._files:
            self._files = dict(subagent_files(self.path, self.session))
        return self._files.get(agent)

    def __getitem__(self, agent: str) -> Timeline:
        if agent.startswith(SIDECHAIN_KEY):
            found = self._sidechain(agent)
            if found is None:
                raise KeyError(agent)
            return found
        if agent not in self._read:
            file = self._file(agent)
            self._read[agent] = child_timeline(file) if file is not None else None
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
        yield from (k for k, v in self._read.items() if v is not None)
        yield from self._sidechains

    def __len__(self) -> int:
        return sum(1 for v in self._read.values() if v is not None) + len(self._sidechains)


def compaction_timeline(path: Path, session: str | None, number: int) -> Timeline | None:
    """The ``number``-th compaction's own timeline (from 0, oldest first), if its file is there."""
    files = compaction_files(path, session)
    return child_timeline(files[number]) if number < len(files) else None
