"""The one interface every agent's transcript reader offers, and the values it trades in.

A reader knows one agent's sessions on disk: it recognises a file by its content, finds the sessions
under the agent's folders, summarises one cheaply (for ``ctxviz sessions``) and builds its Timeline
(for ``context``, ``play`` and the TUI). The faces never ask which agent wrote a file; they ask the
registry for the reader that recognises it.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple, Protocol, runtime_checkable

from ctxviz.errors import InputError
from ctxviz.transcripts.reads import Reads as Reads  # what a row was worked out from
from ctxviz.transcripts.session_row import Compaction as Compaction  # the row every reader makes
from ctxviz.transcripts.session_row import SessionSummary as SessionSummary

if TYPE_CHECKING:
    from ctxviz.timeline import Timeline

# How much of a file ``detect`` may read: the first records say which agent wrote it.
DETECT_BYTES = 64 * 1024
# A timeline's model when the session names none (grok-build's logs may not): shown in the header.
MODEL_NOT_RECORDED = "model not recorded"


class NoUsage(InputError):
    """A session that records no token usage at all (Cursor's transcripts): nothing to measure, not damage."""


class SessionRef(NamedTuple):
    """Where one session lives. ``path`` is what a user would pass to ``ctxviz context``: the session's
    file (opencode: its ``session/<project>/<id>.json``; grok-build: a file in its session folder)."""

    agent: str
    path: Path
    session: str
    size: int = 0
    mtime: float = 0.0


class Reading(NamedTuple):
    """A session's timeline and every damaged or unknown record skipped on the way (each located)."""

    timeline: Timeline
    problems: tuple[str, ...]


@runtime_checkable
class Reader(Protocol):
    """One agent's transcripts. Every method raises ``InputError`` (never anything else) for input it
    cannot use; damaged records inside a readable session are skipped and reported, not fatal."""

    @property
    def name(self) -> str:
        """The agent, as ``Timeline.agent`` spells it ("codex", "gemini-cli", …)."""
        ...

    def detect(self, path: Path) -> bool:
        """Whether ``path`` is this agent's session file, judged from its first ``DETECT_BYTES``."""
        ...

    def roots(self, env: Mapping[str, str], home: Path) -> list[Path]:
        """The agent's folders on this machine (its default and its override variable), existing ones."""
        ...

    def discover(self, roots: list[Path]) -> list[SessionRef]:
        """Every session under ``roots``, in a stable order."""
        ...

    def summarise(self, ref: SessionRef, reads: Reads) -> SessionSummary:
        """The ``sessions`` row, reading no more than the numbers need. Each file and folder is noted in
        ``reads`` before it is read (so also when the session then cannot be summarised): the summary
        index keeps the row, or the failure, while none of them changes."""
        ...

    def read(self, ref: SessionRef) -> Reading:
        """The session's Timeline with the problems met."""
        ...

    def timeline(self, ref: SessionRef) -> Timeline:
        """The session's Timeline (``read(ref).timeline``)."""
        ...


def ref_for(agent: str, path: Path, session: str | None = None) -> SessionRef:
    """A reference to a file a user named (its size and time when it can be read)."""
    try:
        stat = path.stat()
    except OSError:
        return SessionRef(agent, path, session or path.stem)
    return SessionRef(agent, path, session or path.stem, stat.st_size, stat.st_mtime)


def counted(count: int, one: str, many: str) -> str:
    """``1 message`` / ``3 messages``: a count in a notice, in the right number."""
    return f"{count:,} {one if count == 1 else many}"
