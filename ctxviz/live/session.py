"""One session file followed as it grows: the tailer, the line parser's carried state and the
incremental follower together. The I/O is the tailer's, but for two reads from the file's start: a
rebuild's, and a first read's when the follower it fed cannot tell (the lines fed, parsed again).
"""

from __future__ import annotations

import os
from contextlib import closing
from dataclasses import dataclass, field
from itertools import islice, takewhile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ctxviz.errors import InputError
from ctxviz.live.tail import Change, Tail
from ctxviz.timeline import Timeline
from ctxviz.transcripts.claude_code.discover import COMPACTION_PREFIX
from ctxviz.transcripts.claude_code.follow import Figures, Follower
from ctxviz.transcripts.claude_code.from_end import last_boundary, last_call_before
from ctxviz.transcripts.claude_code.parse import Entry, ParseState, parse_lines
from ctxviz.transcripts.lines import Line, numbered_lines
from ctxviz.transcripts.safe import safe_text, safe_timeline

if TYPE_CHECKING:
    from ctxviz.live.children import SubagentTimelines


HEAD_LINES = 200  # the file's first records are parsed in batches of this many, up to the first call


@dataclass(frozen=True, slots=True)
class Update:
    change: Change
    rebuilt: bool = False
    reason: str = ""  # why the file restarted or went away


@dataclass
class _FirstRead:
    """A first read fed to a fresh follower batch by batch, so that its entries are not all held at once.
    When only the whole-file build can tell what they make (a rewind or gap, a main conversation after a
    subagent's, the older layout's sidechain records in the session file), the entries are held from
    then on and built from at the end, those already fed parsed again from the file's start."""

    batches: int = 0
    fed: bool = False  # the follower took the entries so far
    held: list[Entry] = field(default_factory=list)  # the first ones until one is conversational; all, once not fed
    streamed: bool = True
    lost_before: int | None = None  # the entries of the lines before this one were fed, then not trusted

    def take(self, live: LiveSession, lines: list[Line], entries: list[Entry]) -> None:
        if not self.streamed:
            self.held += entries
            return
        if live.children is not None:
            live.children.session = live.session
            live.children.add(entries)
            if any(e.sidechain for e in entries):  # matched to their Task calls over the whole file
                self._hold(lines, entries)
                return
        follower = live.follower
        if not self.fed:
            self.held += entries
            if any(e.conversational for e in self.held):
                self.fed = self.streamed = follower.start(self.held)
                if self.fed:
                    self.held = []
        elif not follower.feed(entries):
            self._hold(lines, entries)

    def _hold(self, lines: list[Line], entries: list[Entry]) -> None:
        self.streamed = False
        if self.fed:
            self.lost_before, self.held = lines[0][0], list(entries)
        else:
            self.held += entries

    def entries(self, path: Path) -> list[Entry]:
        """Every entry read, for the whole-file build (those fed before, parsed again)."""
        if self.lost_before is None:
            return self.held
        before = self.lost_before
        with closing(numbered_lines(path, [])) as lines:
            head = list(takewhile(lambda line: line[0] < before, lines))
        return [*parse_lines(head, str(path)).entries, *self.held]


@dataclass
class LiveSession:
    path: Path
    lean: bool = False
    from_end: bool = False  # lean, and the first read starts at the last compaction (calls not counted)
    tail: Tail = field(init=False)
    tools: ParseState = field(default_factory=ParseState)
    follower: Follower = field(init=False)
    session: str | None = None
    other_session: str | None = None  # a second session's id met in the file (its lines were appended to it)
    problems: int = 0
    unmeasured_calls: int = 0
    gone: str = ""  # why the file cannot be read now ("" while it can): the last picture stays
    children: SubagentTimelines | None = field(init=False, default=None)  # None in lean mode

    def __post_init__(self) -> None:
        self.tail = Tail(self.path)
        self.follower = Follower(**self._settings())

    def _settings(self, entries: list[Entry] | None = None) -> dict[str, Any]:
        """The follower's settings: a lean one (the statusline's) opens no other file. ``entries``: the
        file's records so far (their sidechains are subagents too, in the older layout)."""
        settings: dict[str, Any] = {"lean": self.lean, "compaction_call": self.compaction_call}
        self.children = None
        if not self.lean:
            from ctxviz.live.children import SubagentTimelines, compaction_timeline

            children = SubagentTimelines(self.path, self.tools)
            children.session = self.session
            children.add(entries or [])
            self.children = children
            settings["children"] = children
            settings["compaction_child"] = lambda n: compaction_timeline(self.path, self.session, n)
        return settings

    @property
    def compaction_call(self) -> bool:
        return self.path.name.startswith(COMPACTION_PREFIX)

    def poll(self) -> Update:
        """Read what was appended since the last poll and take it in (one ``stat`` when nothing was)."""
        if self.from_end and self.follower.mode is None and self.tail.offset == 0 and self._start_from_end():
            return Update(Change.GREW, rebuilt=True, reason="the first read")
        # Before the first conversational record everything read is built from again, fed to the follower
        # batch by batch as it is read: the entries are not all held at once (the first read of a 152 MB
        # session held its 134,211 entries, 135 MB, beside the state built from them).
        anew = self.follower.mode is None
        first = _FirstRead()

        def take(lines: list[Line]) -> None:
            if not first.batches:
                self._reset()
                self.follower = Follower(**self._settings())
            first.batches += 1
            first.take(self, lines, self._parse(lines))

        read = self.tail.read(take if anew else None)
        if read.change is Change.GONE:
            self.gone = read.reason
            if anew and first.batches:  # half taken: read again from the start when it is back
                self.tail, self.follower = Tail(self.path), Follower(**self._settings())
            return Update(Change.GONE, reason=read.reason)
        self.gone = ""
        if read.change is Change.SAME:
            return Update(Change.SAME)
        if anew:
            if not first.batches:
                self._reset()
            if first.streamed and self.follower.duplicates:  # the whole-file build words these
                first.streamed, first.lost_before, first.held = False, self.tail.line_number + 1, []
            if not first.streamed or self.follower.mode is None:
                self._build(first.entries(self.path))
            return Update(read.change, rebuilt=True, reason=read.reason or "the first read")
        if read.change is Change.RESTARTED:
            self._restart(read.lines)
            return Update(read.change, rebuilt=True, reason=read.reason)
        entries = self._parse(read.lines)
        if self.children is not None:
            self.children.add(entries)
        if self.follower.feed(entries):
            return Update(Change.GREW)
        self.rebuild()
        return Update(Change.GREW, rebuilt=True)

    def rebuild(self) -> None:
        """Start again from the whole file (a change the incremental state cannot follow); from its last
        compaction when the session is read so."""
        if self.from_end and self._start_from_end():
            self.gone = ""
            return
        self._read_whole()

    def _read_whole(self) -> None:
        """The follower built from every entry of the file at once (the batch reader's own chain code)."""
        self.tail = Tail(self.path)
        self._reset()
        entries: list[Entry] = []
        read = self.tail.read(lambda lines: entries.extend(self._parse(lines)))
        self.gone = read.reason if read.change is Change.GONE else ""
        self._build(entries)

    def _restart(self, lines: list[Line]) -> None:
        self._reset()
        self._build(self._parse(lines))

    def _reset(self) -> None:
        self.tools, self.session, self.problems, self.other_session = ParseState(), None, 0, None

    def _build(self, entries: list[Entry]) -> None:
        self.follower = Follower.from_entries(entries, **self._settings(entries))

    def _start_from_end(self) -> bool:
        """A lean first read from the file's last compaction boundary: its first records up to the first
        call (the fixed overhead a compaction keeps), then everything from the boundary on. False (nothing
        changed) when the file has no boundary or its tail alone may not give what the whole file gives."""
        offset = last_boundary(self.path)
        if offset is None:
            return False
        tools, problems = ParseState(), list[str]()
        head: Follower | None = None
        taken: list[Entry] = []
        session = None
        try:
            with closing(numbered_lines(self.path, problems)) as lines:
                while head is None and (batch := list(islice(lines, HEAD_LINES))):
                    parsed = parse_lines(batch, str(self.path), tools)
                    session = session or parsed.session
                    taken += parsed.entries
                    first = next((n for n, e in enumerate(taken) if e.used is not None and not e.sidechain), None)
                    if first is not None:  # up to the first call only: a short session compacts within a batch
                        head = Follower.from_entries(taken[: first + 1], lean=True,
                                                     compaction_call=self.compaction_call)  # fmt: skip
        except InputError:
            return False  # the whole-file read says what is wrong with the file
        if head is None or head.builder.overhead is None or head.compactions or head.open_compaction:
            return False  # a call only after a compaction: not a session's usual start
        tail = Tail(self.path, offset=offset)
        read = tail.read()
        if read.change is Change.GONE or not read.lines:
            return False
        parsed = parse_lines(read.lines, str(self.path), tools)
        follower = Follower.from_last_compaction(head, parsed.entries)
        if follower is None:
            return False
        # Without the window from Claude Code, a call above the model's window proves a 1M one: the
        # context the compaction started from tells what the tail alone cannot.
        follower.peak = max(follower.peak, last_call_before(self.path, offset) or 0)
        self.tail, self.tools, self.follower = tail, tools, follower
        self.session = session or parsed.session
        self.problems = len(parsed.problems) + len(tail.problems)
        self.unmeasured_calls = parsed.unmeasured_calls
        return True

    def _parse(self, lines: list[Line]) -> list[Entry]:
        parsed = parse_lines(lines, str(self.path), self.tools)
        if self.session is not None and parsed.session not in (None, self.session):
            self.other_session = self.other_session or parsed.session
        self.other_session = self.other_session or parsed.other_session
        self.session = self.session or parsed.session
        self.problems += len(parsed.problems)
        self.unmeasured_calls = parsed.unmeasured_calls  # counted over the whole file (the sets carry over)
        return list(parsed.entries)

    def progress(self) -> tuple[int, int] | None:
        """Bytes read so far and the file's size (a first read of a big file takes a while)."""
        try:
            return self.tail.offset, os.stat(self.path).st_size
        except OSError:
            return None

    def figures(self) -> Figures | None:
        return self.follower.figures()

    def timeline(self) -> Timeline | None:
        notices = [f"{self.problems} damaged or unknown lines skipped"] if self.problems else []
        if self.other_session:
            notices.append(f"lines of another session ({self.other_session[:8]}) were appended to this file: its "
                           "figures mix two sessions")  # fmt: skip
        if self.unmeasured_calls:
            notices.append(f"{self.unmeasured_calls:,} API calls carry no usage (damaged or missing): not shown as "
                           "calls; what they added is counted at the next measured call")  # fmt: skip
        summary = safe_text(self.tools.cwd) if self.tools.cwd else None
        timeline = self.follower.timeline(name=self.session or self.path.stem, path=str(self.path),
                                          summary=summary, notices=notices)  # fmt: skip
        return safe_timeline(timeline) if timeline is not None else None
