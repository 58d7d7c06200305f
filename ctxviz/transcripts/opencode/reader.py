"""opencode sessions under ``<data>/opencode/`` (``<data>`` is ``XDG_DATA_HOME``, default
``~/.local/share``): the current SQLite database ``opencode.db`` (see ``opencode.database``) or the older JSON
tree ``storage/`` with ``session/<project>/<session>.json``, ``message/<session>/<message>.json`` and
``part/<message>/<part>.json``. A session is named by its ``session/…`` file, or by the database and
its id. What a session's messages and parts say is read in ``opencode_build``, imported only when one
is read.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ctxviz.errors import InputError
from ctxviz.kinds import AgentName
from ctxviz.transcripts.protocol import NoUsage, Reading, Reads, SessionRef, SessionSummary

if TYPE_CHECKING:
    from ctxviz.timeline import Timeline
    from ctxviz.transcripts.opencode.build import Gathered


def storage_of(session_file: Path) -> Path:
    """``storage/`` from ``storage/session/<project>/<id>.json``."""
    return session_file.parent.parent.parent


def _data_root(env: Mapping[str, str], home: Path) -> Path:
    data = Path(env["XDG_DATA_HOME"]).expanduser() if env.get("XDG_DATA_HOME") else home / ".local" / "share"
    return data / "opencode"


def _databases(folder: Path) -> list[Path]:
    try:
        return sorted(p for p in folder.iterdir() if p.name.startswith("opencode") and p.suffix == ".db")
    except OSError:
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


class OpencodeReader:
    name = AgentName.OPENCODE

    def detect(self, path: Path) -> bool:
        from ctxviz.transcripts.jsonl import head
        from ctxviz.transcripts.opencode.database import SQLITE_MAGIC, is_opencode_db

        start = head(path)
        if start.startswith(SQLITE_MAGIC):
            return is_opencode_db(path, start)
        return b'"projectID"' in start and b'"directory"' in start and b'"role"' not in start

    def roots(self, env: Mapping[str, str], home: Path) -> list[Path]:
        root = _data_root(env, home)
        return [root] if (root / "storage" / "session").is_dir() or _databases(root) else []

    def discover(self, roots: list[Path]) -> list[SessionRef]:
        """Main sessions in each root's databases, and in its JSON tree unless a database already holds
        them (opencode copies the tree into its first database). A root may be a database file itself.
        Subagents' child sessions are counted with their parent, not listed."""
        from ctxviz.transcripts.opencode.database import listing
        from ctxviz.transcripts.walk import files_under

        found: list[SessionRef] = []
        for root in roots:
            databases = [root] if root.suffix == ".db" else _databases(root)
            in_database: set[str] = set()
            for database in databases:
                try:  # listed once: the sessions summarised next take the list from here
                    sessions = listing(database, _noted(database, Reads())).sessions
                except InputError:
                    continue
                in_database.update(str(s["id"]) for s in sessions)
                stat = database.stat()
                found += [
                    SessionRef(AgentName.OPENCODE, database, str(s["id"]), stat.st_size, _written(s, stat.st_mtime))
                    for s in sessions
                    if not s["parentID"]
                ]

            tree = root / "storage" / "session" if (root / "storage").is_dir() else root / "session"
            if root.suffix == ".db" or not tree.is_dir():
                continue
            from ctxviz.transcripts.jsonl import document  # only here: a run served from the index needs no other

            for file, size, mtime in files_under(tree, lambda name: name.endswith(".json"), 1):
                try:
                    session = document(file)
                except InputError:
                    session = {}
                if session.get("parentID") or session.get("id") in in_database:
                    continue  # a subagent's session (counted with its parent), or one the database holds
                found.append(SessionRef(AgentName.OPENCODE, file, file.stem, size, mtime))
        return found

    def _open(self, ref: SessionRef, problems: list[str], reads: Reads) -> tuple[Timeline, Gathered, dict[str, Any]]:
        from ctxviz.transcripts.jsonl import document, head
        from ctxviz.transcripts.opencode.build import Files, build
        from ctxviz.transcripts.opencode.database import SQLITE_MAGIC, Database, listing

        reads.path(ref.path)
        if not head(ref.path, 16).startswith(SQLITE_MAGIC):
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
            chosen = max(sessions, key=lambda s: (s["time"]["updated"] or 0, str(s["id"])))
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

    def timeline(self, ref: SessionRef) -> Timeline:
        return self.read(ref).timeline

    def summarise(self, ref: SessionRef, reads: Reads) -> SessionSummary:
        from ctxviz.transcripts.jsonl import obj
        from ctxviz.transcripts.opencode.build import children_in
        from ctxviz.transcripts.rows import from_millis, summary_row

        problems: list[str] = []
        timeline, state, session = self._open(ref, problems, reads)
        time = obj(session.get("time"))
        children = session.get("children")
        if children is None:  # the sessions beside it that name it their parent: all read, once a folder
            children = children_in(ref.path.parent, reads.every_file_in(ref.path.parent))[session["id"]]
        return summary_row(ref, timeline, project=str(session.get("directory") or ""),
                           started=from_millis(time.get("created")), ended=from_millis(time.get("updated")),
                           models=state.models, subagents=int(children),
                           problems=problems, size=int(session["bytes"]))  # fmt: skip
