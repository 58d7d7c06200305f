"""The summary index keeps the rows of agents whose sessions are spread over many files (gemini-cli,
opencode's files and database, grok-build) while nothing their reader read changed, and reads a
session again as soon as one of those files or folders does, however it was written. A session that
cannot be summarised is kept too, and reported exactly as a fresh read reports it."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
from collections import Counter
from pathlib import Path

import pytest
from agent_homes import GROK_ID, OTHERS, T0, copy_to, count_summaries, empty_home
from click.testing import CliRunner

from ctxviz.cli import main
from ctxviz.errors import Unreadable
from ctxviz.transcripts.registry import READERS

Row = tuple[str, str, int, int, int, tuple[str, ...]]


def _run(*extra: str) -> tuple[list[Row], str, int]:
    """The rows of ``sessions --json`` (agent, session, calls, peak, subagents, models), what it said on
    stderr and its exit code."""
    result = CliRunner().invoke(main, ["sessions", "--json", *extra])
    rows = [(r["agent"], r["session"], r["calls"], r["peak"], r["subagents"], tuple(r["models"]))
            for r in json.loads(result.stdout or "[]")]  # fmt: skip
    return rows, result.stderr, result.exit_code


@pytest.fixture
def read(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """How many sessions each reader summarised since the counter was last cleared."""
    return count_summaries(monkeypatch)


def _served_from_the_index(monkeypatch: pytest.MonkeyPatch) -> None:
    """From now on any reading fails the test: every reader's summary, and Claude Code's."""
    import ctxviz.transcripts.claude_code.summary as summary

    def no_reading(*_: object) -> None:
        raise AssertionError("a session was read although nothing it was worked out from changed")

    for reader in READERS:
        monkeypatch.setattr(type(reader), "summarise", no_reading)
    monkeypatch.setattr(summary, "summarize", no_reading)


def _written(path: Path, text: str, seconds: float = 1.0) -> None:
    """``path`` rewritten in place (same inode), its time set past the fixtures' fixed clock."""
    with path.open("r+", encoding="utf-8") as handle:
        handle.truncate(0)
        handle.write(text)
    os.utime(path, (T0 + seconds,) * 2)


def test_gemini_cli_kept_until_its_chat_or_its_subagents_change(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, read: Counter[str]
) -> None:
    chats = empty_home(tmp_path, monkeypatch) / ".gemini" / "tmp" / "demo" / "chats"
    chat = copy_to(OTHERS / "gemini-cli" / "agent-sessions_jsonl_v040.jsonl", chats / "session-2026-08-03.jsonl")
    first, _, _ = _run()
    assert [r[2:5] for r in first] == [(2, 12_069, 0)]
    read.clear()
    assert _run()[0] == first and read == {}
    subagent = copy_to(chat, chats / "gemini_stage0_jsonl" / "sub-1.jsonl")  # a subagent's chat appears
    assert _run()[0][0][4] == 1 and read == {"gemini-cli": 1}
    read.clear()
    _written(subagent, "{}\n")  # only counted, never read: its content decides nothing
    assert _run()[0][0][4] == 1 and read == {}
    lines = chat.read_text(encoding="utf-8").splitlines(keepends=True)
    calls = [n for n, line in enumerate(lines) if '"type":"gemini"' in line]
    _written(chat, "".join(lines[: calls[-1]]))  # the last reply gone: one call left
    assert _run()[0][0][2] == 1 and read == {"gemini-cli": 1}
    read.clear()
    _served_from_the_index(monkeypatch)
    assert _run()[0][0][2:5] == (1, 11_855, 1)


def _grok(home: Path) -> Path:
    folder = home / ".grok" / "sessions" / "%2Ftmp%2Fdemo" / GROK_ID
    shutil.copytree(OTHERS / "grok-build" / "synthetic" / "sessions" / "%2Ftmp%2Fdemo" / GROK_ID, folder)
    return folder


def test_grok_build_kept_until_a_file_of_its_folder_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, read: Counter[str]
) -> None:
    folder = _grok(empty_home(tmp_path, monkeypatch))
    first, _, _ = _run()
    assert [r[2] for r in first] == [5]
    read.clear()
    assert _run()[0] == first and read == {}
    signals = folder / "signals.json"
    _written(signals, signals.read_text(encoding="utf-8").replace("14210", "14211"))  # rewritten in place
    assert _run()[0] == first and read == {"grok-build": 1}
    read.clear()
    (folder / "summary.json").write_text('{"current_model_id": "grok-code-fast-1"}', encoding="utf-8")  # added
    assert _run()[0][0][5] == ("grok-code-fast-1",) and read == {"grok-build": 1}
    read.clear()
    updates = folder / "updates.jsonl"
    _written(updates, "".join(updates.read_text(encoding="utf-8").splitlines(keepends=True)[:7]))  # one turn
    assert _run()[0][0][2] == 2 and read == {"grok-build": 1}
    read.clear()
    _served_from_the_index(monkeypatch)
    assert _run()[0][0][2] == 2


def test_grok_build_history_alone_is_kept_until_it_is_rewritten(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, read: Counter[str]
) -> None:
    session = OTHERS / "grok-build" / "agent-sessions" / "019f6851-7ec4-7ef0-97d3-03f3eee38755"
    folder = empty_home(tmp_path, monkeypatch) / ".grok" / "sessions" / "%2Ftmp%2Fdemo" / session.name
    shutil.copytree(session, folder)
    first, _, _ = _run()
    read.clear()
    assert _run()[0] == first and read == {}
    history = folder / "chat_history.jsonl"
    _written(history, history.read_text(encoding="utf-8") + "{not json\n")  # rewritten at a compaction
    assert _run()[0] == first and read == {"grok-build": 1}


def _opencode_files(home: Path) -> Path:
    storage = home / ".local" / "share" / "opencode" / "storage"
    shutil.copytree(OTHERS / "opencode" / "agent-sessions_storage_v2", storage)
    return storage


def test_opencode_files_kept_until_a_message_a_part_or_a_sibling_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, read: Counter[str]
) -> None:
    storage = _opencode_files(empty_home(tmp_path, monkeypatch))
    first, said, _ = _run()  # the small session records no tokens: said so, not listed
    assert [r[1:5] for r in first] == [("s_stage0_large", 1, 120, 0)]
    assert "record no token usage" in said or "records no token usage" in said
    read.clear()
    assert _run() == (first, said, 0) and read == {}
    step = storage / "part" / "m_assistant_large_1" / "006.json"
    _written(step, step.read_text(encoding="utf-8").replace('"input":120', '"input":999'))  # same size, in place
    assert _run()[0][0][3] == 999 and read == {"opencode": 1}
    read.clear()
    message = storage / "message" / "s_stage0_large" / "msg_0002.json"
    _written(message, message.read_text(encoding="utf-8").replace('"modelID":"gpt-4o-mini"', '"modelID":"gpt-5"'))
    assert "gpt-5" in _run()[0][0][5] and read == {"opencode": 1}
    read.clear()
    added = storage / "part" / "m_assistant_large_2" / "002.json"  # a part appears: a second call
    added.write_text('{"id":"p2","type":"step-finish","tokens":{"input":500,"output":1}}', encoding="utf-8")
    assert _run()[0][0][2:4] == (2, 999) and read == {"opencode": 1}
    read.clear()
    child = storage / "session" / "proj_test" / "ses_child.json"  # a subagent's session beside it
    child.write_text('{"id":"s_child","parentID":"s_stage0_large","directory":"/tmp/large"}', encoding="utf-8")
    assert _run()[0][0][4] == 1 and read["opencode"] >= 1
    read.clear()
    _served_from_the_index(monkeypatch)
    assert _run()[0][0][2:5] == (2, 999, 1)


def _opencode_db(home: Path) -> Path:
    return copy_to(OTHERS / "opencode" / "synthetic-db" / "opencode.db", home / ".local/share/opencode/opencode.db")


def test_opencode_database_kept_until_it_or_its_log_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, read: Counter[str]
) -> None:
    database = _opencode_db(empty_home(tmp_path, monkeypatch))
    first, said, _ = _run()
    assert [r[1:5] for r in first] == [("s_stage0_large", 1, 120, 1)]
    read.clear()
    assert _run() == (first, said, 0) and read == {}
    with sqlite3.connect(database) as db:
        db.execute("UPDATE part SET data = replace(data, '\"input\": 120', '\"input\": 777')")
    assert _run()[0][0][3] == 777 and read == {"opencode": 2}  # both sessions live in the file
    read.clear()
    writer = sqlite3.connect(database)  # opencode's own way: a write-ahead log, kept open while it runs
    try:
        assert writer.execute("PRAGMA journal_mode=WAL").fetchone() == ("wal",)
        assert _run()[0][0][3] == 777
        read.clear()
        before = database.stat().st_mtime_ns
        with writer:
            writer.execute("UPDATE part SET data = replace(data, '\"input\": 777', '\"input\": 778')")
        assert database.stat().st_mtime_ns == before  # only the log was written
        # read again (the log's key changed), with what only the log holds: from a copy of both made in
        # ctxviz's cache folder, never by opening the log where it is, lest SQLite write beside it
        assert _run()[0][0][3] == 778 and read == {"opencode": 2}
        read.clear()
        writer.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # opencode merges its log into the database
        assert _run()[0][0][3] == 778 and read == {"opencode": 2}
    finally:
        writer.close()


def test_a_failed_session_is_kept_and_reported_as_a_fresh_read_reports_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = empty_home(tmp_path, monkeypatch)
    _opencode_files(home)  # one session records no tokens (NoUsage)
    folder = _grok(home)
    utf16 = "\ufeff{}\n".encode("utf-16-le")  # damage the file's content decides: kept like a row
    copy_to(folder / "updates.jsonl", folder.parent / "019f7000-dead" / "updates.jsonl").write_bytes(utf16)
    claude = home / ".claude" / "projects" / "-tmp-demo" / "0cafe000-0000-4000-8000-000000000000.jsonl"
    copy_to(folder / "updates.jsonl", claude).write_bytes(utf16)
    fresh = {verbose: _run("--no-cache", *verbose) for verbose in ((), ("--verbose",))}
    for verbose, (rows, said, code) in fresh.items():
        assert code == 0 and "no token usage" in said
        assert _run(*verbose) == (rows, said, code)  # the first run, which writes the index
    assert fresh[("--verbose",)][1].count(": the file is UTF-16") == 2
    index = json.loads((Path(os.environ["XDG_CACHE_HOME"]) / "ctxviz" / "sessions-index.json").read_bytes())
    assert sum("error" in entry for entry in index["rows"].values()) == 3
    _served_from_the_index(monkeypatch)
    for verbose, answer in fresh.items():
        assert _run(*verbose) == answer


def test_a_file_that_could_not_be_read_is_not_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _grok(empty_home(tmp_path, monkeypatch))
    reader = type(next(r for r in READERS if r.name == "grok-build"))
    summarise = reader.summarise

    def refused(*_: object) -> None:
        raise Unreadable("updates.jsonl: cannot read: Permission denied")

    monkeypatch.setattr(reader, "summarise", refused)
    rows, said, _ = _run("--verbose")
    assert rows == [] and "Permission denied" in said
    monkeypatch.setattr(reader, "summarise", summarise)  # the permission given back: the file is unchanged
    assert [r[2] for r in _run()[0]] == [5]
