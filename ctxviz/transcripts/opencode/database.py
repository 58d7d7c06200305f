"""opencode's current storage: one SQLite database, ``<data>/opencode/opencode.db`` (other release
channels: ``opencode-<channel>.db``), tables ``session``, ``message`` and ``part``. A message or part
row keeps the JSON the older file layout held, minus its ids, in its ``data`` column.

Opened as immutable: SQLite then neither creates nor changes the write-ahead log and its index beside
the database (``-wal``, ``-shm``), which even a read-only connection does, in opencode's folder. While
opencode runs, what it wrote last is only in that log: then the database and its log are copied into
ctxviz's cache folder, the log folded into the copy there, and the copy is read (one copy a database,
kept while neither file changes; see ``_with_its_log``). Where no copy can be made, the database alone
is read and the timeline says that its log was not.
"""

from __future__ import annotations

import json
import math
import os
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ctxviz.errors import InputError, Unreadable
from ctxviz.regular_file import check_regular

SQLITE_MAGIC = b"SQLite format 3\x00"
_TABLES = frozenset({"session", "message", "part"})
if TYPE_CHECKING:  # imported where a database is opened: most runs find none
    import sqlite3

Row = tuple[str, dict[str, Any]]  # where (for messages about damage), the record


def _connect(path: Path) -> sqlite3.Connection:
    import sqlite3

    connection = sqlite3.connect(f"{path.as_uri()}?mode=ro&immutable=1", uri=True)
    connection.row_factory = sqlite3.Row
    connection.execute("SELECT count(*) FROM sqlite_master").fetchone()
    return connection


def is_opencode_db(path: Path, start: bytes) -> bool:
    """Whether a file is a SQLite database with opencode's tables (cheap: the header, then the schema)."""
    if not start.startswith(SQLITE_MAGIC):
        return False
    try:
        with Database(path) as database:
            return database.tables() >= _TABLES
    except InputError:
        return False


def _unmerged_log(database: Path) -> bool:
    try:
        return os.stat(f"{database}-wal").st_size > 0
    except OSError:
        return False


def _key(path: Path) -> tuple[int, int]:
    found = os.stat(path)
    return found.st_size, found.st_mtime_ns


def _copy(source: Path, target: Path) -> None:
    import shutil

    from ctxviz.regular_file import open_regular

    private = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with open_regular(source) as handle, os.fdopen(private, "wb") as out:  # a FIFO or device as the log: refused
        shutil.copyfileobj(handle, out, 1024 * 1024)


def _copies_folder(database: Path) -> Path | None:
    """Where the copies go: ctxviz's cache folder, never inside an agent's folder (None then)."""
    from ctxviz.transcripts.index import cache_folder
    from ctxviz.transcripts.registry import agent_folders

    folder = cache_folder([database.parent, *agent_folders(os.environ, Path.home())])
    return None if folder is None else folder / "opencode"


# Each database's copy with its log folded in, by the database's path, with both files' key when copied.
_COPIES: dict[str, tuple[tuple[int, ...], Path]] = {}


def _with_its_log(database: Path) -> Path | None:
    """A copy of ``database`` with its write-ahead log folded in, made in ctxviz's cache folder (nothing
    is written beside the database) and named by both files' sizes and times, so a later run reuses it
    while opencode wrote nothing more; the copy of an older state is removed. None when no copy can be
    made (no usable cache folder, a log that is not a regular file, no room).

    The database is copied before its log: SQLite writes into the database only when it copies the log
    back, and a page so written is still in the log, so the pair is whole unless the database changed
    while it was copied, which is then tried again."""
    import hashlib
    import sqlite3

    log = Path(f"{database}-wal")
    try:
        key = (*_key(database), *_key(log))
    except OSError:
        return None
    kept = _COPIES.get(str(database))
    if kept is not None and kept[0] == key:
        return kept[1]  # every session of the database opens it: one look at the folder a run
    folder = _copies_folder(database)
    if folder is None:
        return None
    name = hashlib.sha256(str(database).encode("utf-8", "surrogateescape")).hexdigest()[:16]
    work = folder / f".{name}.{os.getpid()}.tmp"
    try:
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        for _ in range(3):
            key = (*_key(database), *_key(log))
            target = folder / f"{name}-{'-'.join(map(str, key))}.db"
            if target.is_file():
                _COPIES[str(database)] = (key, target)
                return target
            _copy(database, work)
            _copy(log, Path(f"{work}-wal"))
            if _key(database) != key[:2]:
                continue  # the log was being copied back into it: a mixed pair; again
            # the copy is ctxviz's own: opened writable so that SQLite folds the log into it, then read immutable
            connection = sqlite3.connect(f"{work.as_uri()}?mode=rw", uri=True)
            try:
                connection.execute("PRAGMA journal_mode=DELETE").fetchone()
            finally:
                connection.close()
            os.replace(work, target)
            for older in folder.glob(f"{name}-*.db"):
                if older != target:
                    older.unlink(missing_ok=True)
            _COPIES[str(database)] = (key, target)
            return target
        return None
    except (OSError, sqlite3.Error):
        return None
    finally:
        for leftover in (work, Path(f"{work}-wal"), Path(f"{work}-shm")):
            leftover.unlink(missing_ok=True)


def sort_time(value: object) -> float:
    """A recorded time as a sort key: a damaged one (text, null, not finite) sorts first, never raises."""
    if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value):
        return float(value)
    return 0.0


class Database:
    def __init__(self, path: Path) -> None:
        import sqlite3

        self.path = path
        self.notices: tuple[str, ...] = ()
        try:
            check_regular(path)  # a FIFO there would block SQLite's open
            real = path.resolve(strict=True)
            unmerged = _unmerged_log(real)
            copy = _with_its_log(real) if unmerged else None
            if unmerged and copy is None:
                self.notices = (f"{path.name}-wal, the log of its last moments not yet in the database, was not read",)
            self.connection = _connect(copy or real)
        except (OSError, RuntimeError) as error:  # RuntimeError: a symlink loop
            reason = error.strerror if isinstance(error, OSError) and error.strerror else error
            raise Unreadable(f"{path}: cannot read opencode's database: {reason}") from None
        except sqlite3.Error as error:
            raise Unreadable(f"{path}: cannot read opencode's database: {error}") from None

    def __enter__(self) -> Database:
        return self

    def __exit__(self, *_: object) -> None:
        self.connection.close()

    def _query(self, sql: str, *args: object) -> list[sqlite3.Row]:
        import sqlite3

        try:
            return self.connection.execute(sql, args).fetchall()
        except sqlite3.Error as error:
            raise Unreadable(f"{self.path}: cannot read opencode's database: {error}") from None

    def tables(self) -> set[str]:
        return {str(r[0]) for r in self._query("SELECT name FROM sqlite_master WHERE type = 'table'")}

    def sessions(self) -> list[dict[str, Any]]:
        """Each session as the older ``session/…json`` file spelled it, oldest first."""
        found = []
        for row in self._query("SELECT * FROM session"):
            keys = row.keys()

            def column(name: str, keys: list[str] = keys, row: sqlite3.Row = row) -> Any:
                return row[name] if name in keys else None

            found.append({"id": column("id"), "parentID": column("parent_id"), "directory": column("directory"),
                          "title": column("title"),
                          "time": {"created": column("time_created"), "updated": column("time_updated")}})  # fmt: skip
        return sorted(found, key=lambda s: (sort_time(s["time"]["created"]), str(s["id"])))

    def _rows(self, table: str, key: str, value: str, problems: list[str]) -> list[Row]:
        found: list[Row] = []
        order = "time_created, id" if table == "message" else "id"
        for row in self._query(f"SELECT id, data FROM {table} WHERE {key} = ? ORDER BY {order}", value):
            where = f"{self.path}: {table} {row['id']}"
            try:
                data = json.loads(row["data"])
            except (TypeError, ValueError, RecursionError):
                problems.append(f"{where}: its data is not JSON, skipped")
                continue
            if not isinstance(data, dict):
                problems.append(f"{where}: its data is not an object, skipped")
                continue
            found.append((where, {**data, "id": row["id"]}))
        return found

    def messages(self, session_id: str, problems: list[str]) -> list[Row]:
        return self._rows("message", "session_id", session_id, problems)

    def parts(self, message_id: str, problems: list[str]) -> list[Row]:
        return self._rows("part", "message_id", message_id, problems)

    def session_bytes(self, session_id: str, message_ids: Sequence[str]) -> int:
        """The size of the session's records (its messages' and their parts' data), not the whole file's."""
        rows = self._query("SELECT COALESCE(SUM(LENGTH(data)), 0) AS n FROM message WHERE session_id = ?", session_id)
        rows += self._query(
            "SELECT COALESCE(SUM(LENGTH(part.data)), 0) AS n FROM part JOIN message ON part.message_id = message.id"
            " WHERE message.session_id = ?",
            session_id,
        )
        return sum(int(row["n"]) for row in rows)


@dataclass(frozen=True, slots=True)
class Listing:
    """A database's sessions as one look found them (never changed after), by id, and each parent's
    count of children (subagents' sessions)."""

    sessions: list[dict[str, Any]]
    by_id: dict[Any, dict[str, Any]]
    children: Counter[Any]


# Each database's last listing, by its path, with the key (its own and its write-ahead log's size and
# time) taken before it was listed. Every session of a database needs the whole list (to find itself,
# to count its children): without this a run summarising n sessions would list them n times. Plain
# data, no connection: nothing is carried into a forked child or kept open between runs.
_LISTINGS: dict[str, tuple[tuple[int, ...], Listing]] = {}


def listing(path: Path, key: tuple[int, ...]) -> Listing:
    """The database's sessions, listed again only when ``key`` (taken before now) is not the key of the
    last listing: a key taken before a listing can only be older than what was listed."""
    kept = _LISTINGS.get(str(path))
    if kept is not None and kept[0] == key:
        return kept[1]
    with Database(path) as db:
        sessions = db.sessions()
        found = Listing(sessions, {s["id"]: s for s in sessions}, Counter(s["parentID"] for s in sessions))
    _LISTINGS[str(path)] = (key, found)
    return found
