"""opencode's sessions summarised in one run read what they share once, not once per session: a
database's session list (every session needs it to find itself and count its children) and, in the
older JSON tree, the session files beside each other (read to count a session's subagents). Either
was read again for every session, so a run took time quadratic in the number of sessions."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from agent_homes import OTHERS, empty_home
from click.testing import CliRunner

import ctxviz.transcripts.opencode.build as opencode_build
from benchmarks.agent_corpus import opencode_db
from ctxviz.cli import main
from ctxviz.transcripts.opencode.database import Database

COPIES = 6  # of each sample's sessions: a large one listed with a subagent, a small one without tokens


def _rows(*extra: str) -> list[tuple[str, int, int]]:
    result = CliRunner().invoke(main, ["sessions", "--json", "--agent", "opencode", *extra])
    assert result.exit_code == 0, result.output
    return sorted((r["session"], r["calls"], r["subagents"]) for r in json.loads(result.stdout))


def test_a_database_s_sessions_are_listed_once_a_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    database = opencode_db(empty_home(tmp_path, monkeypatch), 2 * COPIES)  # the benchmark's corpus, small
    listed = []
    sessions = Database.sessions

    def counting(self: Database) -> list[dict[str, object]]:
        listed.append(self.path)
        return sessions(self)

    monkeypatch.setattr(Database, "sessions", counting)
    large = [("s_stage0_large", 1, 1), *((f"s_stage0_large_{n:04d}", 1, 1) for n in range(1, COPIES))]
    assert _rows("--no-cache") == large
    assert listed == [database]  # by discovery; the 2 x COPIES sessions summarised take its list
    _rows()  # the index written
    listed.clear()
    os.utime(database)  # opencode wrote: every session of the file is summarised again
    assert _rows() == large and listed == [database]


def _storage(home: Path) -> Path:
    """The JSON tree's two sessions ``COPIES`` times in one project, each large one with a subagent's
    session beside it: the session folder of ``3 x COPIES`` files."""
    storage = home / ".local/share/opencode/storage"
    for n in range(COPIES):
        for file in (OTHERS / "opencode/agent-sessions_storage_v2").rglob("*.json"):
            relative = str(file.relative_to(OTHERS / "opencode/agent-sessions_storage_v2"))
            text = file.read_text(encoding="utf-8")
            for old in ("s_stage0_", "m_assistant_", "m_user_"):
                relative, text = relative.replace(old, f"{old}{n}_"), text.replace(old, f"{old}{n}_")
            (storage / relative).parent.mkdir(parents=True, exist_ok=True)
            (storage / relative).write_text(text, encoding="utf-8")
        child = {"id": f"s_child_{n}", "parentID": f"s_stage0_{n}_large", "directory": "/tmp/large"}
        (storage / f"session/proj_test/ses_child_{n}.json").write_text(json.dumps(child), encoding="utf-8")
    return storage / "session" / "proj_test"


def test_sibling_session_files_are_read_once_a_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = _storage(empty_home(tmp_path, monkeypatch))
    read: list[Path] = []
    document = opencode_build.document

    def counting(path: Path) -> object:
        read.append(path)
        return document(path)

    monkeypatch.setattr(opencode_build, "document", counting)
    siblings = sorted(folder.iterdir())
    large = [(f"s_stage0_{n}_large", 1, 1) for n in range(COPIES)]
    assert _rows("--no-cache") == large
    assert sorted(p for p in read if p.parent == folder) == siblings  # each once, for the COPIES sessions
    _rows()  # the index written
    read.clear()
    os.utime(siblings[0])  # a sibling written: every session of the folder is summarised again
    assert _rows() == large
    assert sorted(p for p in read if p.parent == folder) == siblings
