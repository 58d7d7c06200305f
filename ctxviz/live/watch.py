"""What ``ctxviz watch`` follows, without the TUI: one session, or whichever session of any agent (or
of one) was written last, switching when a newer one starts. Each ``poll`` is cheap: a ``stat`` of what
the followed session writes to, and every few polls a look through the agents' folders when following
the newest (``ctxviz.transcripts.find``). A session whose reader follows it by appends (Claude Code's)
is read incrementally, only the appended bytes; another is read again through its reader when it
changed (``ctxviz.live.reread``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from ctxviz.errors import InputError
from ctxviz.live.reread import RereadSession
from ctxviz.live.session import LiveSession
from ctxviz.live.tail import Change
from ctxviz.timeline import Timeline
from ctxviz.transcripts.protocol import Reader, SessionRef

SCAN_EVERY = 20  # polls between two looks for a newer session (2 s at the app's interval)

Followed = LiveSession | RereadSession


@dataclass(frozen=True, slots=True)
class Seen:
    """What a poll found: a new timeline to show (or None: keep the last picture) and what to say."""

    timeline: Timeline | None
    status: str  # for the header; "" when there is nothing to say
    switched: bool = False  # now following another session


def opened(path: Path, agent: str | None = None) -> tuple[Reader, SessionRef]:
    """The reader of a session file: the agent named, else the one whose records the file holds (an
    empty file, a session just started, goes to the reader of files no reader recognises yet)."""
    from ctxviz.transcripts.protocol import ref_for
    from ctxviz.transcripts.registry import open_session, reader_named

    if agent is None:
        return open_session(path)
    reader = reader_named(agent)
    return reader, ref_for(reader.name, path)


def _followed(reader: Reader, ref: SessionRef) -> Followed:
    return LiveSession(ref.path) if reader.follows_by_appends else RereadSession(reader, ref)


class Watch:
    """Follows ``path``; with ``newest`` set, whichever session (of ``agent``, or any) was written last
    under the folders ``env`` and ``home`` name."""

    def __init__(
        self,
        path: Path | None,
        *,
        newest: bool = False,
        agent: str | None = None,
        env: Mapping[str, str] | None = None,
        home: Path | None = None,
    ) -> None:
        self.newest, self.agent = newest, agent
        self.env = os.environ if env is None else env
        self.home = Path.home() if home is None else home
        self.session: Followed | None = None
        self.opened: tuple[Reader, SessionRef] | None = None  # the followed session's reader
        # In the app, the look for a newer session runs in a thread (a look through many sessions can
        # take a tenth of a second): ``look`` leaves what it found here for the next ``poll``.
        self.looks_in_background = False
        self.found: SessionRef | None = None
        if path is not None:
            self._follow(*opened(path, agent))
        elif (ref := self._newest()) is not None:
            self._following(ref)
        self._polls = 0
        self._warned_of: str | None = None  # the other session whose lines the followed file was warned of

    def _follow(self, reader: Reader, ref: SessionRef) -> Followed:
        self.opened = reader, ref
        self.session = _followed(reader, ref)
        return self.session

    def _following(self, ref: SessionRef) -> Followed:
        from ctxviz.transcripts.registry import reader_named

        return self._follow(reader_named(ref.agent), ref)

    def window_from_end(self) -> Timeline | None:
        """The followed session's last call alone, read from its end (``Reader.window_from_end``): a first
        screen while the first ``poll`` reads the whole file. None when the session is small enough to be
        read whole at once, or only the whole read can tell."""
        if self.opened is None:
            return None
        reader, ref = self.opened
        try:
            window = reader.window_from_end(ref, 0)
        except InputError:
            return None  # the whole read says what is wrong with the file
        return window.timeline if window is not None else None

    def progress(self) -> tuple[int, int] | None:
        """How far the read under way is: bytes read and the file's size; None when not told."""
        return self.session.progress() if self.session is not None else None

    def _newest(self) -> SessionRef | None:
        from ctxviz.transcripts.find import newest_to_follow

        return newest_to_follow(self.env, self.home, self.agent, os.getcwd())

    def look(self) -> None:
        """Look for the newest session (from a thread: it only sets ``found``)."""
        self.found = self._newest()

    @property
    def path(self) -> Path | None:
        return self.session.path if self.session is not None else None

    def poll(self) -> Seen | None:
        """None when nothing changed since the last poll."""
        self._polls += 1
        ref = None
        if self.newest and self.looks_in_background:
            ref, self.found = self.found, None
        elif self.newest and (self.session is None or self._polls % SCAN_EVERY == 0):
            ref = self._newest()
        if ref is not None and ref.path != self.path:
            session = self._following(ref)
            session.poll()
            name = session.session or ref.path.stem
            return Seen(session.timeline(), f"switched to the newer {ref.agent} session {name[:8]}", switched=True)
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
            status = f"the file was {_how(update.reason)}: read again"
        other = getattr(self.session, "other_session", None)
        if other and other != self._warned_of:  # told once: the timeline's notices keep saying it
            self._warned_of = other
            status = f"lines of another session ({other[:8]}) were appended to this file: its figures mix two sessions"
        return Seen(self.session.timeline(), status)


def _how(reason: str) -> str:
    return next((how for how in ("truncated", "rewritten") if how in reason), "replaced")
