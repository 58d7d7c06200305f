"""Another agent's session followed by reading it again through its reader whenever it changed (Codex,
gemini-cli, opencode, pi, grok-build). Whether it changed is a cheap question: a ``stat`` of each place
the agent writes to — the session's file; grok-build's session folder; opencode's database and its
write-ahead log, or in its older JSON tree the session's message folder and the newest messages' part
folders. Only when one of them moved is the session read whole again: about 30 ms per MB
(benchmarks/live.py), so a large session is read again at most every few times its reading took,
which leaves the screen free to answer keys between two reads.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from ctxviz.errors import InputError
from ctxviz.kinds import AgentName
from ctxviz.live.session import Update
from ctxviz.live.tail import Change
from ctxviz.timeline import Timeline
from ctxviz.transcripts.protocol import Reader, SessionRef
from ctxviz.transcripts.safe import safe_timeline

Stamp = tuple[str, int, int, int]  # path, inode, size, mtime_ns
NEWEST_MESSAGES = 2  # opencode's JSON tree: the messages whose parts are still being written
SLOW_READ_SECONDS = 0.05  # a read that took longer is not repeated for REST_FACTOR times as long
REST_FACTOR = 3


def _stamp(path: str) -> Stamp | None:
    try:
        stat = os.stat(path)
    except OSError:
        return None
    return (path, stat.st_ino, stat.st_size, stat.st_mtime_ns)


def _names(folder: str) -> list[str]:
    try:
        return sorted(os.listdir(folder))
    except OSError:
        return []


@cache
def _opencode_session_id(session_file: Path) -> str:
    """The id a session's JSON file holds (its messages' folder is named by it); it never changes."""
    from ctxviz.transcripts.jsonl import document

    try:
        return str(document(session_file).get("id") or session_file.stem)
    except InputError:
        return session_file.stem


def _opencode_tree(session_file: Path) -> list[str]:
    """The JSON tree's places that change while the session runs: its message folder (a new message),
    the newest messages (their tokens are filled in at the end of a step) and their parts' folders
    and files (opencode names a message's file and its parts' folder by the message's id)."""
    from ctxviz.transcripts.opencode.reader import storage_of

    messages = str(storage_of(session_file) / "message" / _opencode_session_id(session_file))
    parts = str(storage_of(session_file) / "part")
    places = [messages, parts]
    for name in _names(messages)[-NEWEST_MESSAGES:]:
        folder = os.path.join(parts, name.removesuffix(".json"))
        places += [os.path.join(messages, name), folder]
        places += [os.path.join(folder, part) for part in _names(folder)]
    return places


def watched_places(agent: str, path: Path) -> list[str]:
    """What to ``stat`` to know whether ``agent``'s session at ``path`` changed (the session's own file
    first: its size tells a truncation)."""
    if agent == AgentName.GROK_BUILD:  # a folder of files: updates or chat history, summary, signals
        folder = str(path.parent)
        return [str(path)] + [os.path.join(folder, name) for name in _names(folder) if name != path.name]
    if agent == AgentName.OPENCODE:
        from ctxviz.transcripts.jsonl import head
        from ctxviz.transcripts.opencode.database import SQLITE_MAGIC

        if head(path, 16).startswith(SQLITE_MAGIC):
            return [str(path), f"{path}-wal"]  # opencode writes through SQLite's write-ahead log
        return [str(path), *_opencode_tree(path)]
    return [str(path)]


@dataclass
class RereadSession:
    """One session of ``reader``'s agent, its last timeline kept while the files do not change."""

    reader: Reader
    ref: SessionRef
    stamps: tuple[Stamp | None, ...] = ()
    last: Timeline | None = None
    gone: str = ""  # why the session cannot be read now ("" while it can): the last picture stays
    waiting: str = ""  # why the last change gave no timeline (no call yet, a file half written)
    problems: tuple[str, ...] = field(default=())
    rest_until: float = 0.0  # (monotonic) no new read before: the last one was slow

    @property
    def path(self) -> Path:
        return self.ref.path

    @property
    def session(self) -> str | None:
        return self.last.source.name if self.last is not None else None

    def poll(self) -> Update:
        """A ``stat`` of each watched place; the session read again only when one of them moved."""
        places = watched_places(self.reader.name, self.path)
        stamps = tuple(_stamp(place) for place in places)
        if stamps[0] is None:
            self.stamps = stamps
            if self.gone:
                return Update(Change.SAME)
            self.gone = f"{self.path} is gone"
            return Update(Change.GONE, reason=self.gone)
        if (stamps == self.stamps and not self.gone) or time.monotonic() < self.rest_until:
            return Update(Change.SAME)  # (a change seen while resting is read when the rest ends)
        change, reason = Change.GREW, ""
        before = self.stamps[0] if self.stamps else None
        if before is not None and self.path.suffix == ".jsonl":  # appended to: anything else is news
            if before[1] != stamps[0][1]:
                change, reason = Change.RESTARTED, f"{self.path} was replaced by another file"
            elif before[2] > stamps[0][2]:
                change, reason = Change.RESTARTED, f"{self.path} was truncated"
        self.stamps, self.gone = stamps, ""
        started = time.monotonic()
        try:
            reading = self.reader.read(self.ref)
            timeline = safe_timeline(reading.timeline)  # inside the time taken: the rest counts it too
        except InputError as error:
            self.waiting = error.message
            return Update(Change.SAME)  # nothing to show yet (or a file caught half written): wait
        finally:
            took = time.monotonic() - started
            self.rest_until = time.monotonic() + REST_FACTOR * took if took > SLOW_READ_SECONDS else 0.0
        self.waiting, self.last, self.problems = "", timeline, reading.problems
        return Update(change, rebuilt=True, reason=reason)

    def timeline(self) -> Timeline | None:
        return self.last
