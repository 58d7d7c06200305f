"""A session followed by reading it again through its reader whenever it changed (every agent whose
reader does not follow it by appends). Whether it changed is a cheap question: a ``stat`` of each place
its reader says the agent writes to (``Reader.watched_places``: the session's file, or a folder, a
database and its write-ahead log). Only when one of them moved is the session read whole again: about
30 ms per MB (benchmarks/live.py), so a large session is read again at most every few times its reading took,
which leaves the screen free to answer keys between two reads.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path

from ctxviz.errors import InputError
from ctxviz.live.session import Update
from ctxviz.live.tail import Change
from ctxviz.timeline import Timeline
from ctxviz.transcripts.protocol import Reader, SessionRef
from ctxviz.transcripts.safe import safe_timeline

Stamp = tuple[str, int, int, int]  # path, inode, size, mtime_ns
SLOW_READ_SECONDS = 0.05  # a read that took longer is not repeated for REST_FACTOR times as long
REST_FACTOR = 3


def _stamp(path: str) -> Stamp | None:
    try:
        stat = os.stat(path)
    except OSError:
        return None
    return (path, stat.st_ino, stat.st_size, stat.st_mtime_ns)


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

    def progress(self) -> tuple[int, int] | None:
        """Not told: the reader reads the session in one call."""
        return None

    def poll(self) -> Update:
        """A ``stat`` of each watched place; the session read again only when one of them moved."""
        places = self.reader.watched_places(self.ref)
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
