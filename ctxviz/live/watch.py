"""What ``ctxviz watch`` follows, without the TUI: one session, or whichever session of any agent (or
of one) was written last, switching when a newer one starts. Each ``poll`` is cheap: a ``stat`` of what
the followed session writes to, and every few polls a look through the agents' folders when following
the newest. A Claude Code session is read incrementally (only the appended bytes); another agent's is
read again through its reader when it changed (``ctxviz.live.reread``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from ctxviz.kinds import AgentName
from ctxviz.live.reread import RereadSession
from ctxviz.live.session import LiveSession
from ctxviz.live.tail import Change
from ctxviz.timeline import Timeline
from ctxviz.transcripts.protocol import SessionRef

SCAN_EVERY = 20  # polls between two looks for a newer session (2 s at the app's interval)

Followed = LiveSession | RereadSession


@dataclass(frozen=True, slots=True)
class Seen:
    """What a poll found: a new timeline to show (or None: keep the last picture) and what to say."""

    timeline: Timeline | None
    status: str  # for the header; "" when there is nothing to say
    switched: bool = False  # now following another session


def follow(path: Path, agent: str | None = None) -> Followed:
    """The follower for a session file: the agent named, else the one whose records the file holds (an
    empty file, a Claude Code session just started, goes to Claude Code)."""
    from ctxviz.transcripts.protocol import ref_for
    from ctxviz.transcripts.registry import reader_for, reader_named

    reader = reader_named(agent) if agent is not None else reader_for(path)
    if reader is None or reader.name == AgentName.CLAUDE_CODE:
        return LiveSession(path)
    return RereadSession(reader, ref_for(reader.name, path))


def _followed(ref: SessionRef) -> Followed:
    if ref.agent == AgentName.CLAUDE_CODE:
        return LiveSession(ref.path)
    from ctxviz.transcripts.registry import reader_named

    return RereadSession(reader_named(ref.agent), ref)


def newest(env: Mapping[str, str], home: Path, agent: str | None = None) -> SessionRef | None:
    """The session written last under the agents' folders (only ``agent``'s when named). Among Claude
    Code's, one of the current directory's project wins, as for ``--latest``."""
    from ctxviz.errors import InputError
    from ctxviz.transcripts.registry import AGENTS, discover

    agents = [agent] if agent is not None else list(AGENTS)
    candidates: list[SessionRef] = []
    if AgentName.CLAUDE_CODE in agents:
        from ctxviz.transcripts.claude_code.discover import config_roots, session_files
        from ctxviz.transcripts.claude_code.select import latest

        try:
            found = latest(session_files(config_roots(env, home)), os.getcwd())
            candidates.append(SessionRef(AgentName.CLAUDE_CODE, found.path, found.session, found.size, found.mtime))
        except InputError:
            pass
    for ref in discover(env, home, [a for a in agents if a not in (AgentName.CLAUDE_CODE, AgentName.CURSOR)]):
        if ref.path.suffix == ".db":  # a database holds many sessions: the reader takes its latest
            ref = SessionRef(ref.agent, ref.path, "", ref.size, _db_mtime(ref.path))
        candidates.append(ref)
    return max(candidates, key=lambda r: (r.mtime, str(r.path)), default=None)


def _db_mtime(database: Path) -> float:
    """When a database was last written: its write-ahead log is written first."""
    times = []
    for path in (database, Path(f"{database}-wal")):
        try:
            times.append(path.stat().st_mtime)
        except OSError:
            continue
    return max(times, default=0.0)


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
        # In the app, the look for a newer session runs in a thread (a look through many sessions can
        # take a tenth of a second): ``look`` leaves what it found here for the next ``poll``.
        self.looks_in_background = False
        self.found: SessionRef | None = None
        if path is not None:
            self.session = follow(path, agent)
        elif (ref := self._newest()) is not None:
            self.session = _followed(ref)
        self._polls = 0
        self._warned_of: str | None = None  # the other session whose lines the followed file was warned of

    def _newest(self) -> SessionRef | None:
        return newest(self.env, self.home, self.agent)

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
            self.session = _followed(ref)
            self.session.poll()
            name = self.session.session or ref.path.stem
            agent = "" if ref.agent == AgentName.CLAUDE_CODE else f"{ref.agent} "
            return Seen(self.session.timeline(), f"switched to the newer {agent}session {name[:8]}", switched=True)
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
