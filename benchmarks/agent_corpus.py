"""A home folder per agent other than Claude Code, each holding many sessions copied from the test
fixtures (fresh ids and names), where that agent writes them: the corpus of ``transcripts.py
--other-agents``. The readers find these folders from HOME alone. Each builder returns the file the
agent writes when its newest session grows (timed as "one changed")."""

from __future__ import annotations

import shutil
import sqlite3
import uuid
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OTHERS = ROOT / "tests/fixtures/other-agents"
GROK = OTHERS / "grok-build"


def _copies(source: Path, target: Path, replace: dict[str, str]) -> None:
    text = source.read_text(encoding="utf-8")
    for old, new in replace.items():
        text = text.replace(old, new)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")


def codex(home: Path, count: int) -> Path:
    samples = sorted((OTHERS / "codex").glob("*.jsonl"))
    for n in range(count):
        name = f"rollout-2026-08-03T00-00-00-{uuid.UUID(int=n + 1)}.jsonl"
        _copies(samples[n % len(samples)], home / ".codex/sessions/2026/08/03" / name, {})
    return home / ".codex/sessions/2026/08/03" / name


def pi(home: Path, count: int) -> Path:
    samples = sorted((OTHERS / "pi").glob("*.jsonl"))
    for n in range(count):
        _copies(samples[n % len(samples)], home / f".pi/agent/sessions/--tmp-demo--/2026-08-03_{n:04d}.jsonl", {})
    return home / f".pi/agent/sessions/--tmp-demo--/2026-08-03_{n:04d}.jsonl"


def gemini_cli(home: Path, count: int) -> Path:
    samples = {OTHERS / "gemini-cli/agent-sessions_jsonl_v040.jsonl": "gemini_stage0_jsonl",
               OTHERS / "gemini-cli/agent-sessions_large.json": "session-2025-12-16T23-47-b4f17607"}  # fmt: skip
    for n in range(count):
        source, session = list(samples.items())[n % len(samples)]
        fresh = str(uuid.UUID(int=n + 1))
        chats = home / f".gemini/tmp/project-{n % 10}/chats"
        _copies(source, chats / f"session-2026-08-03T00-00-{fresh[-8:]}{source.suffix}", {session: fresh})
    return chats / f"session-2026-08-03T00-00-{fresh[-8:]}{source.suffix}"


def opencode_files(home: Path, count: int) -> Path:
    """Each copy of the storage tree holds two sessions: ``count // 2`` copies, in ten projects. opencode
    rewrites a session's file (its ``time.updated``) as it grows."""
    tree = OTHERS / "opencode/agent-sessions_storage_v2"
    storage = home / ".local/share/opencode/storage"
    for n in range(count // 2):
        replace = {"s_stage0_": f"s{n:04d}_", "m_assistant_": f"m{n:04d}_assistant_", "m_user_": f"m{n:04d}_user_",
                   "proj_test": f"proj_{n % 10}"}  # fmt: skip
        for file in tree.rglob("*.json"):
            relative = str(file.relative_to(tree))
            for old, new in replace.items():
                relative = relative.replace(old, new)
            _copies(file, storage / relative, replace)
    return storage / f"session/proj_{n % 10}/ses_s{n:04d}_large.json"


def opencode_db(home: Path, count: int) -> Path:
    """The synthetic database's two main sessions (and the child of one) again and again, fresh ids."""
    target = home / ".local/share/opencode/opencode.db"
    target.parent.mkdir(parents=True)
    shutil.copy(OTHERS / "opencode/synthetic-db/opencode.db", target)
    with sqlite3.connect(target) as db:
        sessions = db.execute("SELECT * FROM session").fetchall()
        messages = db.execute("SELECT * FROM message").fetchall()
        parts = db.execute("SELECT * FROM part").fetchall()
        for n in range(1, count // 2):
            fresh = f"_{n:04d}"
            db.executemany("INSERT INTO session VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                           [(s[0] + fresh, s[1], s[2] and s[2] + fresh, *s[3:]) for s in sessions])  # fmt: skip
            db.executemany("INSERT INTO message VALUES (?, ?, ?, ?, ?)",
                           [(m[0] + fresh, m[1] + fresh, *m[2:]) for m in messages])  # fmt: skip
            db.executemany("INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)",
                           [(p[0] + fresh, p[1] + fresh, p[2] + fresh, *p[3:]) for p in parts])  # fmt: skip
        # opencode's own indexes (its first migration's); the small fixture lacks them, and without them
        # every message's parts would be found by scanning the whole table
        db.executescript("CREATE INDEX message_session_idx ON message (session_id);"
                         "CREATE INDEX part_message_idx ON part (message_id);"
                         "CREATE INDEX part_session_idx ON part (session_id);")  # fmt: skip
    return target  # without a write-ahead log here: its main file


def grok_build(home: Path, count: int) -> Path:
    samples = [*GROK.glob("synthetic/sessions/*/*"), *GROK.glob("agent-sessions/*")]
    for n in range(count):
        source = samples[n % len(samples)]
        fresh = str(uuid.UUID(int=n + 1))
        for file in sorted(source.iterdir()):
            target = home / ".grok/sessions/%2Ftmp%2Fdemo" / fresh / file.name
            _copies(file, target, {source.name: fresh})
    return target


CORPORA: dict[str, Callable[[Path, int], Path]] = {
    "codex": codex,
    "pi": pi,
    "gemini-cli": gemini_cli,
    "opencode (files)": opencode_files,
    "opencode (database)": opencode_db,
    "grok-build": grok_build,
}
