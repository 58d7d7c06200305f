"""opencode sessions under ``<data>/opencode/`` (``<data>`` is ``XDG_DATA_HOME``, default
``~/.local/share``): the current SQLite database ``opencode.db`` (see ``opencode.database``) or the older JSON
tree ``storage/`` with ``session/<project>/<session>.json``, ``message/<session>/<message>.json`` and
``part/<message>/<part>.json``. A session is named by its ``session/…`` file, or by the database and
its id. What a session's messages and parts say is read in ``opencode_build``, imported only when one
is read.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ctxviz.errors import InputError
from ctxviz.kinds import AgentName
from ctxviz.transcripts.packed import named, session_stem
from ctxviz.transcripts.protocol import FoundFile, NoUsage, Reader, Reading, Reads, SessionRef, SessionSummary
from ctxviz.transcripts.walk import is_folder_or_closed

if TYPE_CHECKING:
    from ctxviz.timeline import Timeline
    from ctxviz.transcripts.opencode.build import Gathered


NEWEST_MESSAGES = 2  # the JSON tree: the messages whose parts are still being written


def storage_of(session_file: Path) -> Path:
    """``storage/`` from ``storage/session/<project>/<id>.json``."""
    return session_file.parent.parent.parent


def _data_root(env: Mapping[str, str], home: Path) -> Path:
    data = Path(env["XDG_DATA_HOME"]).expanduser() if env.get("XDG_DATA_HOME") else home / ".local" / "share"
    return data / "opencode"


def _databases(folder: Path, unread: list[str] | None = None) -> list[Path]:
    """The databases in opencode's folder; ``unread``: where to say that the folder cannot be listed."""
    try:
        return sorted(p for p in folder.iterdir() if p.name.startswith("opencode") and p.suffix == ".db")
    except FileNotFoundError:
        return []
    except OSError as error:
        if unread is not None:
            unread.append(f"{folder}: cannot list this folder: {error.strerror or error}")
        return []


def _noted(database: Path, reads: Reads) -> tuple[int, ...]:
    """The database's key and its write-ahead log's, noted before either is read. opencode writes through
    the log: the main file's time moves only when the log is copied back into it. Both are every
    session's: a write to one reads all again."""
    return (*reads.path(database), *reads.path(database.with_name(database.name + "-wal")))


def _written(session: Mapping[str, Any], fallback: float) -> float:
    """When a session in a database was last written (its ``time.updated``, milliseconds), so that the
    sessions one file holds are told apart by age; the file's time when it is missing."""
    updated = session.get("time", {}).get("updated")
    return updated / 1000 if isinstance(updated, int | float) and updated > 0 else fallback


@cache
def _session_id(session_file: Path) -> str:
    """The id a session's JSON file holds (its messages' folder is named by it); it never changes."""
    from ctxviz.transcripts.jsonl import document

    try:
        return str(document(session_file).get("id") or session_stem(session_file))
    except InputError:
        return session_stem(session_file)


def _tree_places(session_file: Path) -> list[str]:
    """The JSON tree's places that change while the session runs: its message folder (a new message),
    the newest messages (their tokens are filled in at the end of a step) and their parts' folders
    and files (opencode names a message's file and its parts' folder by the message's id)."""
    from ctxviz.transcripts.walk import names_in

    messages = str(storage_of(session_file) / "message" / _session_id(session_file))
    parts = str(storage_of(session_file) / "part")
    places = [messages, parts]
    for name in names_in(messages)[-NEWEST_MESSAGES:]:
        folder = os.path.join(parts, name.removesuffix(".json"))
        places += [os.path.join(messages, name), folder]
        places += [os.path.join(folder, part) for part in names_in(folder)]
    return places


def _is_database(path: Path) -> bool:
    from ctxviz.transcripts.jsonl import head
    from ctxviz.transcripts.opencode.database import SQLITE_MAGIC

    return head(path, 16).startswith(SQLITE_MAGIC)


def _database_written(database: Path) -> float:
    """When a database was last written: its write-ahead log is written first."""
    times = []
    for path in (database, Path(f"{database}-wal")):
        try:
            times.append(path.stat().st_mtime)
        except OSError:
            continue
    return max(times, default=0.0)


class OpencodeReader(Reader):
    name = AgentName.OPENCODE
    folders = "XDG_DATA_HOME/opencode or ~/.local/share/opencode"

    def detect(self, path: Path) -> bool:
        from ctxviz.transcripts.jsonl import head
        from ctxviz.transcripts.opencode.database import SQLITE_MAGIC, is_opencode_db

        start = head(path)
        if start.startswith(SQLITE_MAGIC):
            return is_opencode_db(path, start)
        return b'"projectID"' in start and b'"directory"' in start and b'"role"' not in start

    def roots(self, env: Mapping[str, str], home: Path) -> list[Path]:
        root = _data_root(env, home)
        return [root] if is_folder_or_closed(root / "storage" / "session") or _databases(root) else []

    def discover(self, roots: list[Path], unread: list[str] | None = None) -> list[SessionRef]:
        """Main sessions in each root's databases, and in its JSON tree unless a database already holds
        them (opencode copies the tree into its first database). A root may be a database file itself.
        Subagents' child sessions are counted with their parent, not listed."""
        from ctxviz.transcripts.opencode.database import listing
        from ctxviz.transcripts.walk import files_under

        found: list[SessionRef] = []
        for root in roots:
            databases = [root] if root.suffix == ".db" else _databases(root, unread)
            in_database: set[str] = set()
            for database in databases:
                try:  # listed once: the sessions summarised next take the list from here
                    sessions = listing(database, _noted(database, Reads())).sessions
                except InputError:  # the database itself, so that summarising it says what is wrong
                    found.append(SessionRef(AgentName.OPENCODE, database, database.stem))
                    continue
                in_database.update(str(s["id"]) for s in sessions)
                stat = database.stat()
                found += [
                    SessionRef(AgentName.OPENCODE, database, str(s["id"]), stat.st_size, _written(s, stat.st_mtime))
                    for s in sessions
                    if not s["parentID"]
                ]

            tree = root / "storage" / "session" if is_folder_or_closed(root / "storage") else root / "session"
            if root.suffix == ".db" or not is_folder_or_closed(tree):
                continue
            from ctxviz.transcripts.jsonl import document  # only here: a run served from the index needs no other

            for file, size, mtime in files_under(tree, named(".json"), 1, unread):
                try:
                    session = document(file)
                except InputError:
                    session = {}
                if session.get("parentID") or session.get("id") in in_database:
                    continue  # a subagent's session (counted with its parent), or one the database holds
                found.append(SessionRef(AgentName.OPENCODE, file, session_stem(file), size, mtime))
        return found

    def sessions_in(self, files: Sequence[FoundFile]) -> list[SessionRef]:
        """A database holds many sessions: each is found through it."""
        databases = [found for found in files if found[0].suffix == ".db"]
        others = super().sessions_in([found for found in files if found[0].suffix != ".db"])
        return self.discover([file for file, _, _ in databases]) + others

    def to_follow(self, ref: SessionRef) -> SessionRef:
        """A database is followed whole: its reader takes the session written last, as it changes."""
        if ref.path.suffix != ".db":
            return ref
        return SessionRef(ref.agent, ref.path, "", ref.size, _database_written(ref.path))

    def watched_places(self, ref: SessionRef) -> list[str]:
        if _is_database(ref.path):
            return [str(ref.path), f"{ref.path}-wal"]  # opencode writes through SQLite's write-ahead log
        return [str(ref.path), *_tree_places(ref.path)]

    def _open(self, ref: SessionRef, problems: list[str], reads: Reads) -> tuple[Timeline, Gathered, dict[str, Any]]:
        from ctxviz.transcripts.jsonl import document, head
        from ctxviz.transcripts.opencode.build import Files, build
        from ctxviz.transcripts.opencode.database import SQLITE_MAGIC, Database, listing, sort_time

        reads.path(ref.path)
        if not head(ref.path, 16).startswith(SQLITE_MAGIC) and ref.path.suffix != ".db":
            session = document(ref.path)
            files = Files(storage_of(ref.path), reads)
            timeline, state = build(ref.path, session, files, problems)
            size = ref.size + files.session_bytes(str(session.get("id")), state.message_ids)
            return timeline, state, {**session, "bytes": size}
        listed = listing(ref.path, _noted(ref.path, reads))
        sessions = listed.sessions
        if not sessions:
            raise NoUsage(f"{ref.path}: an opencode database without sessions")
        chosen = listed.by_id.get(ref.session)
        latest: tuple[str, ...] = ()
        if chosen is None:  # the database itself was named: its most recent session
            chosen = max(sessions, key=lambda s: (sort_time(s["time"]["updated"]), str(s["id"])))
            latest = (f"{ref.path} holds {len(sessions)} sessions; this is the latest, {chosen['id']}",)
        with Database(ref.path) as db:
            notices = db.notices + latest
            timeline, state = build(ref.path, chosen, db, problems, notices)
            size = db.session_bytes(str(chosen["id"]), state.message_ids)
        return timeline, state, {**chosen, "children": listed.children[chosen["id"]], "bytes": size}

    def read(self, ref: SessionRef) -> Reading:
        problems: list[str] = []
        timeline, _, _ = self._open(ref, problems, Reads())
        return Reading(timeline, tuple(problems))

    def summarise(self, ref: SessionRef, reads: Reads) -> SessionSummary:
        from ctxviz.transcripts.jsonl import obj
        from ctxviz.transcripts.opencode.build import children_in
        from ctxviz.transcripts.rows import RowDetails, from_millis, summary_row

        problems: list[str] = []
        timeline, state, session = self._open(ref, problems, reads)
        time = obj(session.get("time"))
        children = session.get("children")
        if children is None:  # the sessions beside it that name it their parent: all read, once a folder
            children = children_in(ref.path.parent, reads.every_file_in(ref.path.parent))[session["id"]]
        return summary_row(ref, timeline, RowDetails(str(session.get("directory") or ""),
                                                     from_millis(time.get("created")), from_millis(time.get("updated")),
                                                     state.models, subagents=int(children), problems=problems,
                                                     size=int(session["bytes"])))  # fmt: skip
