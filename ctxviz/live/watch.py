"""What ``ctxviz watch`` follows, without the TUI: one session file, or whichever session under the
Claude Code roots was written last (switching when a newer one starts). Each ``poll`` is cheap: a
``stat`` of the followed file, and every few polls a scan of the roots when following the newest.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ctxviz.live.session import LiveSession
from ctxviz.live.tail import Change
from ctxviz.timeline import Timeline

SCAN_EVERY = 20  # polls between two scans of the roots for a newer session (2 s at the default interval)


@dataclass(frozen=True, slots=True)
class Seen:
    """What a poll found: a new timeline to show (or None: keep the last picture) and what to say."""

    timeline: Timeline | None
    status: str  # for the header; "" when there is nothing to say
    switched: bool = False  # now following another session


def _newest(roots: list[Path] | None) -> Path | None:
    from ctxviz.errors import InputError
    from ctxviz.transcripts.discover import config_roots, session_files
    from ctxviz.transcripts.select import latest

    try:
        return latest(session_files(config_roots() if roots is None else roots), os.getcwd()).path
    except InputError:
        return None


class Watch:
    """Follows ``path``; with ``newest`` set, whichever session under ``roots`` was written last."""

    def __init__(self, path: Path | None, *, newest: bool = False, roots: list[Path] | None = None) -> None:
        self.newest, self.roots = newest, roots
        if path is None:
            path = _newest(roots)
        self.session: LiveSession | None = LiveSession(path) if path is not None else None
        self._polls = 0

    @property
    def path(self) -> Path | None:
        return self.session.path if self.session is not None else None

    def poll(self) -> Seen | None:
        """None when nothing changed since the last poll."""
        self._polls += 1
        if self.newest and (self.session is None or self._polls % SCAN_EVERY == 0):
            newer = _newest(self.roots)
            if newer is not None and newer != self.path:
                self.session = LiveSession(newer)
                self.session.poll()
                name = self.session.session or newer.stem
                return Seen(self.session.timeline(), f"switched to the newer session {name[:8]}", switched=True)
        if self.session is None:
            return None
        was_gone = bool(self.session.gone)
        update = self.session.poll()
        if update.change is Change.SAME or (update.change is Change.GONE and was_gone):
            return None
        if update.change is Change.GONE:
            return Seen(None, "file gone, last picture kept")
        status = ""
        if update.change is Change.RESTARTED:
            status = f"the file was {'truncated' if 'truncated' in update.reason else 'replaced'}: read again"
        return Seen(self.session.timeline(), status)
