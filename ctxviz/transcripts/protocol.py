"""The one interface every agent's transcript reader offers, and the values it trades in.

A reader knows one agent's sessions on disk: it recognises a file by its content, finds the sessions
under the agent's folders, summarises one cheaply (for ``ctxviz sessions``) and builds its Timeline
(for ``context``, ``play`` and the TUI). It also answers what the other faces would otherwise ask by
the agent's name: whether its logs record usage, what to watch while a session runs, which files
under a folder are sessions (and which are a subagent's), and what can be told of a session without
reading it. The faces never ask which agent wrote a file; they ask the registry for the reader that
recognises it.

A reader subclasses ``Reader``: what most agents share (one file a session, watched as one file,
known only once summarised) is written here once, and a reader overrides what differs.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple, Protocol, runtime_checkable

from ctxviz.errors import InputError
from ctxviz.errors import NoUsage as NoUsage  # what a reader raises for a session without usage
from ctxviz.transcripts.packed import session_stem
from ctxviz.transcripts.reads import Reads as Reads  # what a row was worked out from
from ctxviz.transcripts.session_row import Compaction as Compaction  # the row every reader makes
from ctxviz.transcripts.session_row import SessionSummary as SessionSummary

if TYPE_CHECKING:
    from datetime import date

    from ctxviz.timeline import Block, Timeline
    from ctxviz.transcripts.index import SummaryIndex

# How much of a file ``detect`` may read: the first records say which agent wrote it.
DETECT_BYTES = 64 * 1024
# A timeline's model when the session names none (grok-build's logs may not): shown in the header.
MODEL_NOT_RECORDED = "model not recorded"


class SessionRef(NamedTuple):
    """Where one session lives. ``path`` is what a user would pass to ``ctxviz context``: the session's
    file (opencode: its ``session/<project>/<id>.json``; grok-build: a file in its session folder)."""

    agent: str
    path: Path
    session: str
    size: int = 0
    mtime: float = 0.0


class Glance(NamedTuple):
    """What a reader tells of a session without reading it (its file's name and folder, its first records)."""

    project: str  # the project's path as far as it can be told so ("" when it cannot)
    matches: bool  # the project asked for (``-p``) is in its path; True when none was asked for
    local: bool  # it is the current folder's project


FoundFile = tuple[Path, int, float]  # (file, size, mtime), as a walk of a folder finds it
Answer = SessionSummary | InputError  # a row, or why there is none


class Reading(NamedTuple):
    """A session's timeline and every damaged or unknown record skipped on the way (each located)."""

    timeline: Timeline
    problems: tuple[str, ...]


class Carried(NamedTuple):
    """A block as the calls sent it: the calls before it entered, and the calls before it left."""

    block: Block
    first: int
    stop: int


class CallWindow(NamedTuple):
    """One step's ``/context`` without the session's whole timeline: ``timeline`` holds the session's
    model, window and notices and that one step (its index 0), with the blocks in the window after it;
    the rest are the figures about the session around it, as the whole timeline would give them.

    A window read from the session's last compaction on (``read_from``: the byte it started at) has
    no history: the figures that count from the session's start are None (not read), never a guess."""

    timeline: Timeline
    step: int | None  # its index in the session
    at_call: int | None  # the calls up to it, itself included
    calls: int | None
    compactions: tuple[dict[str, object], ...] | None  # as ``report.context_data.compactions_so_far`` gives them
    carried: tuple[Carried, ...] | None  # the blocks carried most up to it, largest first
    problems: tuple[str, ...]
    read_from: int | None = None  # None: the file was read from its start


@runtime_checkable
class Reader(Protocol):
    """One agent's transcripts. Every method raises ``InputError`` (never anything else) for input it
    cannot use; damaged records inside a readable session are skipped and reported, not fatal."""

    # Where the agent keeps its sessions, as ``ctxviz sessions --help`` lists it (its folders, the variable
    # that moves them).
    folders: str = ""
    # Whether the agent's logs record token usage at all (Cursor's do not: nothing to measure or watch).
    records_usage: bool = True
    # Whether a session can be followed by reading only what is appended to its file, record by record
    # (``ctxviz.live`` then tails it; otherwise it reads the session again whenever it changed).
    follows_by_appends: bool = False
    # Whether ``context`` at the last call prints ``window_from_end`` (else only the TUI's first screen
    # shows it, and ``context`` reads the whole file).
    context_reads_from_end: bool = True

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

    def discover(self, roots: list[Path], unread: list[str] | None = None) -> list[SessionRef]:
        """Every session under ``roots``, in a stable order; ``unread``: where to say, located, each place
        under them that could not be looked into (a folder it may not list, a link to nothing)."""
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
        return self.read(ref).timeline

    def call_window(
        self, ref: SessionRef, at_call: int | None, top: int, *, history: bool = False
    ) -> CallWindow | None:
        """The window at the ``at_call``-th call (None: the last step) with the ``top`` blocks carried
        most, read without building the whole timeline; None when this reader cannot (then ``read``).
        Not ``history``: the last step of a big session may be read from its last compaction on."""
        return None

    def window_from_end(self, ref: SessionRef, top: int) -> CallWindow | None:
        """The last step's window read from the session's last compaction on, when the file before it
        is big enough for that to matter; None otherwise (then the whole read)."""
        return None

    def last_window(self, ref: SessionRef) -> Timeline | None:
        """A timeline whose last step is the session's last, read from the session's end where its log
        allows (from its last compaction on): the steps before it are not all the session's, only the
        last one is to be shown. None when only the whole file can tell (then ``read``)."""
        return None

    def summaries(
        self, roots: list[Path], index: SummaryIndex, project: str | None, since: date | None
    ) -> tuple[int, Iterator[Answer]]:
        """Every session's row under ``roots`` of a project containing ``project`` (or why a session has
        none), each kept in ``index`` while what it was worked out from is unchanged; and how many are
        coming. ``since``: sessions the reader can tell cheaply were not active since may be left out
        (the caller filters the rows on their dates)."""
        refs: dict[tuple[Path, str], SessionRef] = {}  # a database file holds many sessions
        unread: list[str] = []
        for ref in sorted(self.discover(roots, unread), key=lambda r: str(r.path)):
            refs.setdefault((ref.path, ref.session), ref)
        wanted = project.lower() if project else None

        def rows() -> Iterator[Answer]:
            yield from map(InputError, unread)
            for ref in refs.values():
                try:
                    row = kept_row(self, ref, index)
                except InputError as error:
                    yield error
                    continue
                if wanted is None or wanted in row.project.lower():
                    yield row

        return len(refs) + len(unread), rows()

    def sessions_in(self, files: Sequence[FoundFile]) -> list[SessionRef]:
        """The sessions that ``files`` (this agent's, found under a folder a user named) are: one a file
        unless the agent's layout says otherwise (a subagent's file is its session's; a session spread
        over a folder is one)."""
        return [SessionRef(self.name, file, session_stem(file), size, mtime) for file, size, mtime in files]

    def glance(self, ref: SessionRef, project: str | None = None, cwd: str | None = None) -> Glance | None:
        """What its file's name, folder and first records tell of the session (for ``--latest`` and
        ``-p`` without reading every session); None when only its summary tells."""
        return None

    def sessions_named(self, refs: Sequence[SessionRef], wanted: str, thorough: bool) -> list[SessionRef]:
        """The sessions among ``refs`` (this agent's) whose id, as ``sessions`` prints it, or file name
        starts with ``wanted``. Not ``thorough``: only those whose file's name or id is near it are
        read; ``thorough``: every other one too (slower; asked only when no agent found one)."""
        near = [r for r in refs if r.session.startswith(wanted) or wanted[:8] in session_stem(r.path)]
        return self._named([r for r in refs if r not in near] if thorough else near, wanted)

    def _named(self, refs: Iterable[SessionRef], wanted: str) -> list[SessionRef]:
        found: list[SessionRef] = []
        for ref in refs:
            try:
                named = self.summarise(ref, Reads()).session
            except InputError:
                continue
            if named.startswith(wanted) or ref.session.startswith(wanted) or wanted in session_stem(ref.path):
                found.append(ref)
        return found

    def to_follow(self, ref: SessionRef) -> SessionRef:
        """What ``watch`` follows for a session found on disk, with the time it was last written."""
        return ref

    def watched_places(self, ref: SessionRef) -> list[str]:
        """What to ``stat`` to know whether the session changed, its own file first (its size tells a
        truncation)."""
        return [str(ref.path)]


def ref_for(agent: str, path: Path, session: str | None = None) -> SessionRef:
    """A reference to a file a user named (its size and time when it can be read)."""
    try:
        stat = path.stat()
    except OSError:
        return SessionRef(agent, path, session or session_stem(path))
    return SessionRef(agent, path, session or session_stem(path), stat.st_size, stat.st_mtime)


def counted(count: int, one: str, many: str) -> str:
    """``1 message`` / ``3 messages``: a count in a notice, in the right number."""
    return f"{count:,} {one if count == 1 else many}"


def kept_row(reader: Reader, ref: SessionRef, index: SummaryIndex) -> SessionSummary:
    """The session's row from ``index`` while nothing its reader read for it changed, else summarised
    now and kept (``InputError`` when it cannot be summarised: kept too, and raised again as it was)."""
    return index.row(
        f"{reader.name} {ref.path}#{ref.session}", str(ref.path), lambda reads: reader.summarise(ref, reads)
    )
