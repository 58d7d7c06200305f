"""Hostile input: session files written to attack whoever reads them, each made here from the vendored
fixtures. Whatever a file holds, ctxviz prints no traceback, never hangs, lets no control sequence reach
the terminal, loses no session without saying so, and writes nothing in any agent's folder.

In-process through click's runner where only the output matters; a subprocess under a time bound where
the point is the whole command (a hang, a traceback on stderr)."""

from __future__ import annotations

import hashlib
import json
import os
import re
import sqlite3
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from agent_homes import FIXTURES, copy_to, empty_home, every_agent
from click.testing import CliRunner

from ctxviz.cli import main
from ctxviz.timeline import Timeline
from ctxviz.transcripts import open_transcript
from ctxviz.transcripts.safe import safe_json, safe_text

# An OSC 52 clipboard write, a window title, a cleared screen, a right-to-left override, a C1 CSI and an
# unterminated DCS (which would swallow everything printed after it)
EVIL = "\x1b]52;c;UFdORUQ=\x07\x1b]0;owned\x07\x1b[2J\u202e\u009b31m\x1bP"
# What must never reach a terminal: C0 but the line break, DEL, C1, the bidirectional overrides
UNSAFE = re.compile(r"[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
# Fields that say what a record is (its type, its ids, its times): left alone, so that each reader still
# recognises and links the records; every other text gets the sequences
STRUCTURE = frozenset({
    "type", "role", "timestamp", "id", "sessionId", "uuid", "parentUuid", "session_id", "parentID", "messageID",
    "sessionID", "created", "updated", "time", "status", "subtype", "kind", "mode", "version", "stopReason", "api",
    "provider", "projectID", "callID", "state", "messageId", "tool_use_id", "requestId", "customType", "parentId",
    "originator", "cli_version", "model_provider", "stop_reason", "reason", "event", "method", "sessionUpdate",
    "toolCallId",
})  # fmt: skip
SECONDS = 20  # a whole command's bound: each takes well under a second here
CLAUDE = FIXTURES / "claude-code" / "spotter-misc" / "short.jsonl"


def _poisoned(value: Any, key: str | None = None) -> Any:
    if isinstance(value, dict):
        return {k: _poisoned(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [_poisoned(v, key) for v in value]
    if isinstance(value, str) and key not in STRUCTURE and not value[:4].isdigit():
        return value + EVIL
    return value


def _poison(path: Path) -> None:
    """Every text field of every record of ``path`` (JSON or JSONL) with the sequences appended."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".json":
        path.write_text(json.dumps(_poisoned(json.loads(text))), encoding="utf-8")
        return
    lines = []
    for line in text.splitlines():
        try:
            lines.append(json.dumps(_poisoned(json.loads(line))))
        except ValueError:
            lines.append(line)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = empty_home(tmp_path, monkeypatch)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("NO_COLOR", "1")
    return folder


def _listing(folder: Path) -> dict[str, str]:
    """Every entry under ``folder`` with a digest of its bytes (a folder, FIFO or device: its kind)."""
    found = {}
    for path in sorted(folder.rglob("*")):
        if path.is_symlink() or not path.is_file():
            found[str(path)] = "link" if path.is_symlink() else "other"
        else:
            found[str(path)] = hashlib.sha256(path.read_bytes()).hexdigest()
    return found


def _run(*args: str) -> tuple[int, str]:
    """A command in this process: its exit code and everything it printed, stdout and stderr."""
    result = CliRunner().invoke(main, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.output


def _rows(*args: str) -> list[dict[str, Any]]:
    """The rows ``sessions --json`` prints."""
    result = CliRunner().invoke(main, ["sessions", "--json", *args])
    assert result.exit_code == 0, result.output
    rows: list[dict[str, Any]] = json.loads(result.stdout)
    return rows


def _command(*args: str, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    """A whole ``ctxviz`` run under the time bound (a hang fails the test instead of hanging it)."""
    return subprocess.run([sys.executable, "-m", "ctxviz", *args], input=stdin, capture_output=True,
                          timeout=SECONDS, env=os.environ.copy())  # fmt: skip


def _texts(timeline: Timeline) -> Iterator[str]:
    yield from (timeline.model, timeline.source.name, timeline.source.path or "", timeline.source.summary or "")
    yield from timeline.notices
    for step in timeline.steps:
        yield step.label
        yield from step.notes
        for fate in step.fates:
            yield from (fate.label, fate.why)
        if step.child is not None:
            yield from _texts(step.child)
    yield from (block.label for block in timeline.blocks)


def _poisoned_home(home: Path) -> dict[str, Path]:
    files = every_agent(home)
    for path in home.rglob("*.json*"):
        _poison(path)
    return files


# --- 1. nothing from a file drives the terminal ---------------------------------------------------------


def test_the_one_rule_makes_every_sequence_visible_and_inert() -> None:
    shown = safe_text(f"a{EVIL}b")
    assert not UNSAFE.search(shown) and shown.startswith("a") and shown.endswith("b") and "\ufffd" in shown
    escaped = safe_json(json.dumps({"x": f"a{EVIL}"}, ensure_ascii=False).encode())
    assert not UNSAFE.search(escaped.decode()) and json.loads(escaped) == {"x": f"a{EVIL}"}  # same value


def test_no_sequence_reaches_the_terminal_from_any_reader(home: Path) -> None:
    files = _poisoned_home(home)
    for args in (["sessions", "--no-cache"], ["sessions", "--json"], ["sessions", "-v"]):
        code, out = _run(*args)
        assert code == 0 and not UNSAFE.search(out), (args, UNSAFE.findall(out))
    rows = _rows("--json")
    assert {row["agent"] for row in rows} == set(files)  # poisoned, still read
    for agent, path in files.items():
        for args in (["context", str(path)], ["context", "--json", str(path)]):
            code, out = _run(*args)
            assert code == 0 and not UNSAFE.search(out), (agent, args, UNSAFE.findall(out))
        assert not any(UNSAFE.search(text) for text in _texts(open_transcript(path))), agent  # what the TUI shows


@pytest.mark.parametrize("agent", ["codex", "pi", "opencode"])
def test_the_tui_shows_no_sequence(home: Path, agent: str) -> None:
    import asyncio
    from html import unescape

    from ctxviz.tui.app import CtxvizApp

    app = CtxvizApp(open_transcript(_poisoned_home(home)[agent]))
    pictures = []

    async def run() -> None:
        async with app.run_test(size=(120, 40)) as pilot:
            for keys in ((), ("end",), ("2",), ("3",), ("1", "left")):  # main view, /context grid, window view
                await pilot.press(*keys)
                await pilot.pause()
                pictures.append(unescape(app.export_screenshot()))

    asyncio.run(run())
    assert all("\ufffd" in picture or agent == "opencode" for picture in pictures[:1])  # shown, made inert
    assert not any(UNSAFE.search(picture.replace("\n", "")) for picture in pictures)


def test_run_json_escapes_what_it_keeps(home: Path) -> None:
    path = _poisoned_home(home)["pi"]
    code, out = _run("run", "--json", str(path))
    assert code == 0 and not UNSAFE.search(out)


def test_the_status_line_shows_no_sequence(home: Path) -> None:
    from ctxviz.live.statusline import statusline

    session = home / ".claude" / "projects" / "-app" / "s.jsonl"
    records = [json.loads(line) for line in CLAUDE.read_text(encoding="utf-8").splitlines() if line.strip()]
    for record in records:
        for part in (record.get("message") or {}).get("content") or []:
            if isinstance(part, dict) and part.get("type") == "tool_use":
                part["name"] += EVIL
        if isinstance(record.get("message"), dict) and "model" in record["message"]:
            record["message"]["model"] += EVIL
    session.parent.mkdir(parents=True)
    session.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    stdin = json.dumps({"transcript_path": str(session)}).encode()
    for template in ("{bar} {used} {biggest} {model}", "{item} {model} {session}"):
        line = statusline(stdin, template, False, [])
        assert not UNSAFE.search(line), line
        again = statusline(stdin, template, False, [])  # from the cache now
        assert again == line


def test_a_tampered_status_line_cache_is_rebuilt(home: Path, tmp_path: Path) -> None:
    from ctxviz.cache_file import cache_file, pack_cache, unpack_cache
    from ctxviz.live.statusline import statusline

    session = copy_to(CLAUDE, home / ".claude" / "projects" / "-app" / "s.jsonl")
    stdin = json.dumps({"transcript_path": str(session)}).encode()
    honest = statusline(stdin, "{used_tokens} {model}", False, [])
    cache = cache_file(session)
    unpacked = unpack_cache(cache.read_bytes())
    assert unpacked is not None
    header, body = unpacked
    header["figures"] = {**header["figures"], "used": -150_000, "model": EVIL}
    cache.write_bytes(pack_cache(header, body))  # a checksum that holds: only the figures are wrong
    assert statusline(stdin, "{used_tokens} {model}", False, []) == honest


# --- 2. a bad file is a problem for that file only ------------------------------------------------------

DEEP = "[" * 100_000 + "]" * 100_000  # deeper than a decoder's stack: RecursionError, not a decode error


@pytest.mark.parametrize("agent", ["codex", "gemini-cli", "pi", "grok-build"])
def test_a_line_nested_too_deep_costs_only_that_line(home: Path, agent: str) -> None:
    path = every_agent(home)[agent]
    with path.open("a", encoding="utf-8") as out:
        out.write('{"type": ' + DEEP + "}\n")
    assert len(_rows("-v")) == 6  # every agent's session still listed, this one too
    code, out = _run("sessions", "-v")
    assert "nested too deep" in out
    code, out = _run("context", "--json", str(path))
    assert code == 0


def test_an_opencode_part_nested_too_deep_is_skipped(home: Path) -> None:
    path = every_agent(home)["opencode"]
    part = next((home / ".local/share/opencode/storage/part").rglob("*.json"))
    part.write_text('{"type": "text", "text": ' + DEEP + "}", encoding="utf-8")
    code, out = _run("context", "--json", str(path))
    assert code == 0


@pytest.mark.parametrize(
    ("usage", "what"),
    [
        ({"input_tokens": 2**63, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}, "overflow"),
        ({"input_tokens": 10**30, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}, "absurd"),
        ({"input_tokens": -1, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}, "sentinel"),
        ({"input_tokens": -150_000, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}, "negative"),
    ],
)
def test_claude_usage_no_api_returns_is_damage(home: Path, usage: dict[str, int], what: str) -> None:
    session = home / ".claude" / "projects" / "-app" / "s.jsonl"
    records = [json.loads(line) for line in CLAUDE.read_text(encoding="utf-8").splitlines() if line.strip()]
    for record in records:  # every record of the one call (each repeats its usage)
        if record.get("type") == "assistant" and "usage" in record["message"]:
            record["message"]["usage"] = usage
    session.parent.mkdir(parents=True)
    session.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    assert _rows("--no-cache") == []  # no call measured: nothing shown as one
    code, out = _run("sessions", "--no-cache", "-v")
    assert code == 0 and "s.jsonl:" in out  # each damaged line, located
    code, out = _run("context", str(session))
    assert code == 1 and "no API calls recorded" in out  # the damaged call is none


def test_opencode_times_of_mixed_types_are_sorted(home: Path) -> None:
    from benchmarks.agent_corpus import opencode_db

    database = opencode_db(home, 4)
    with sqlite3.connect(database) as db:
        db.execute("UPDATE session SET time_created = 'yesterday' WHERE rowid = 1")
        db.execute("UPDATE session SET time_updated = x'00ff' WHERE rowid = 2")
    db.close()
    assert _rows("--agent", "opencode")


def test_a_symlink_loop_as_the_opencode_database_is_reported(home: Path) -> None:
    folder = home / ".local/share/opencode"
    folder.mkdir(parents=True)
    (folder / "opencode.db").symlink_to(folder / "opencode.db")
    code, out = _run("sessions", "-v")
    assert code == 0 and "opencode.db" in out


@pytest.mark.parametrize("damage", ["corrupt", "empty", "folder"])
def test_an_opencode_database_without_sessions_says_why(home: Path, damage: str) -> None:
    every_agent(home)
    database = home / ".local/share/opencode/opencode.db"
    if damage == "folder":
        database.mkdir()
    else:
        database.write_bytes(b"SQLite format 3\x00" + b"\xff" * 4000 if damage == "corrupt" else b"")
    code, out = _run("sessions", "-v")
    assert code == 0 and "opencode.db: cannot read" in out and "claude-code" in out
    code, out = _run("sessions")  # a count, never among the damaged lines
    assert "1 file, folder or database gave no session: " in out and "damaged" not in out


def _close(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``folder`` made unreadable (mode 000). Root reads through any mode, so there the refusal a user
    would meet is played: listing it, or looking at anything inside it, raises ``PermissionError``."""
    folder.chmod(0)
    if os.geteuid() != 0:
        return
    closed = str(folder)

    def guarded(call: Any, inside_only: bool) -> Any:
        def checked(path: Any = ".", *args: Any, **kwargs: Any) -> Any:
            if not isinstance(path, int):
                where = os.path.abspath(os.fsdecode(path))
                if where.startswith(closed + os.sep) or (not inside_only and where == closed):
                    raise PermissionError(13, "Permission denied", where)
            return call(path, *args, **kwargs)

        return checked

    monkeypatch.setattr(os, "scandir", guarded(os.scandir, inside_only=False))
    monkeypatch.setattr(os, "listdir", guarded(os.listdir, inside_only=False))
    monkeypatch.setattr(os, "stat", guarded(os.stat, inside_only=True))


@pytest.mark.parametrize("agent", ["claude-code", "codex", "gemini-cli", "opencode", "pi", "grok-build"])
def test_a_folder_that_cannot_be_listed_is_said_not_lost(
    home: Path, monkeypatch: pytest.MonkeyPatch, agent: str
) -> None:
    """A session's folder without read permission (a gemini-cli ``chats/`` folder was dropped unsaid)."""
    folder = every_agent(home)[agent].parent
    try:
        _close(folder, monkeypatch)
        code, out = _run("sessions")
        assert code == 0 and "1 file, folder or database gave no session: " in out, out
        code, out = _run("sessions", "-v")
        assert f"{folder}: cannot list this folder: Permission denied" in out
        document = json.loads(CliRunner().invoke(main, ["sessions", "--json-object"]).stdout)
        assert document["format"] == "ctxviz.sessions/1" and len(document["sessions"]) == 5
        assert document["gave_no_session"] == [f"{folder}: cannot list this folder: Permission denied"]
        assert agent not in {row["agent"] for row in _rows()}  # --json: still the list tools parse
    finally:
        folder.chmod(0o755)


@pytest.mark.parametrize("top", [".gemini", ".codex", ".claude", ".local/share/opencode/storage", ".pi", ".grok"])
def test_an_agents_folder_that_cannot_be_looked_into_is_said(
    home: Path, monkeypatch: pytest.MonkeyPatch, top: str
) -> None:
    """Closed higher up, where the check for the agent's folder used to raise (a traceback for every agent)."""
    every_agent(home)
    try:
        _close(home / top, monkeypatch)
        code, out = _run("sessions", "-v")
        assert code == 0 and "cannot list this folder: Permission denied" in out and str(home / top) in out, out
        assert len(_rows()) == 5
    finally:
        (home / top).chmod(0o755)


def test_opencode_messages_that_cannot_be_listed_are_not_a_session_without_usage(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    every_agent(home)
    messages = home / ".local/share/opencode/storage/message"
    try:
        _close(messages, monkeypatch)
        code, out = _run("sessions", "-v")
        assert code == 0 and "cannot list this folder: Permission denied" in out and "no token usage" not in out
    finally:
        messages.chmod(0o755)


@pytest.mark.parametrize("agent", ["claude-code", "codex", "gemini-cli", "opencode", "pi"])
@pytest.mark.parametrize("target", ["missing", "loop", "outside"])
def test_a_link_named_like_a_session_that_is_not_followed_is_said(home: Path, agent: str, target: str) -> None:
    files = every_agent(home)
    link = files[agent].parent / f"linked{files[agent].suffix}"
    if target == "missing":
        link.symlink_to(home / "gone.jsonl")
    elif target == "loop":
        link.symlink_to(link)
    else:
        link.symlink_to(copy_to(files[agent], home.parent / "elsewhere" / files[agent].name))
    said = {"missing": "a symlink to a missing file", "loop": "a symlink loop", "outside": "a symlink out of"}
    code, out = _run("sessions", "-v")
    assert code == 0 and f"{link}: {said[target]}" in out and "not followed" in out, out
    assert len(_rows()) == 6


# --- 3. nothing blocks ----------------------------------------------------------------------------------


def _fifo(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(path)
    return path


def test_fifos_among_the_sessions_are_never_read(home: Path) -> None:
    files = every_agent(home)
    claude = files["claude-code"]
    _fifo(claude.parent / claude.stem / "subagents" / "agent-a1.jsonl")  # a subagent's file
    _fifo(claude.parent / "agent-b2.jsonl")  # an agent-* sibling
    _fifo(home / ".codex" / "sessions" / "2026" / "08" / "04" / "rollout-2026-08-04-b.jsonl")
    _fifo(home / ".local/share/opencode/opencode.db")
    _fifo(Path(os.environ["XDG_CACHE_HOME"]) / "ctxviz" / "sessions-index.json")  # the summary index
    done = _command("sessions", "-v")
    err = done.stderr.decode()
    assert done.returncode == 0 and b"Traceback" not in done.stderr, err
    assert "opencode.db: cannot read opencode's database: a FIFO" in err  # where a database belongs: said
    assert len(done.stdout.decode().splitlines()) == 1 + 6  # the head and every agent's session


def test_a_fifo_named_like_a_session_is_said_not_lost(home: Path) -> None:
    """A FIFO where an agent keeps its sessions, named like one, is no session, and ``sessions`` says so
    (it used to be skipped without a word)."""
    files = every_agent(home)
    fifos = [
        _fifo(files["claude-code"].parent / "11111111-2222-3333-4444-555555555555.jsonl"),
        _fifo(home / ".codex" / "sessions" / "2026" / "08" / "04" / "rollout-2026-08-04-b.jsonl"),
        _fifo(files["pi"].parent / "2026-08-04_fifo.jsonl"),
    ]
    done = _command("sessions", "-v")
    err = done.stderr.decode()
    assert done.returncode == 0 and b"Traceback" not in done.stderr, err
    for fifo in fifos:
        assert f"{fifo}: cannot read: a FIFO" in err
    assert len(done.stdout.decode().splitlines()) == 1 + 6  # every real session still listed


@pytest.mark.parametrize("command", ["context", "play", "validate", "watch"])
def test_a_fifo_named_on_the_command_line_is_refused(home: Path, command: str) -> None:
    fifo = _fifo(home / "session.jsonl")
    done = _command(command, str(fifo))
    assert done.returncode in (1, 2) and b"Traceback" not in done.stderr
    assert b"FIFO" in done.stderr


@pytest.mark.parametrize("device", ["/dev/urandom", "/dev/zero", "/proc/kmsg"])
def test_a_device_or_system_file_is_never_read(home: Path, device: str) -> None:
    if not os.path.exists(device):
        pytest.skip(f"no {device} here")
    done = _command("context", device)
    assert done.returncode == 1 and b"Traceback" not in done.stderr and b"not read" in done.stderr


@pytest.mark.parametrize("target", ["/dev/zero", "fifo", "loop"])
def test_a_scenario_file_size_naming_a_device_fifo_or_loop_is_refused(home: Path, target: str) -> None:
    if target == "fifo":
        _fifo(home / "fifo")
    elif target == "loop":
        (home / "loop").symlink_to(home / "loop")
    scenario = home / "s.yaml"
    scenario.write_text(f"name: s\nfiles:\n  a.txt: {{file: {target}}}\nevents:\n  - read: a.txt\n", encoding="utf-8")
    done = _command("run", str(scenario), "--allow-outside")
    assert done.returncode == 1 and b"Traceback" not in done.stderr and b"s.yaml:3" in done.stderr


@pytest.mark.parametrize("command", ["validate", "run"])
def test_a_fifo_as_a_scenario_is_refused(home: Path, command: str) -> None:
    done = _command(command, str(_fifo(home / "s.yaml")))
    assert done.returncode == 1 and b"FIFO" in done.stderr and b"Traceback" not in done.stderr


def test_the_status_line_on_a_fifo_cache_or_a_system_file(home: Path) -> None:
    from ctxviz.cache_file import cache_file

    session = copy_to(CLAUDE, home / ".claude" / "projects" / "-app" / "s.jsonl")
    _fifo(cache_file(session))
    done = _command("statusline", stdin=json.dumps({"transcript_path": str(session)}).encode())
    assert done.returncode == 0 and b"25.4k" in done.stdout  # the cache is not read; the figure still is
    if os.path.exists("/proc/kmsg"):
        done = _command("statusline", stdin=json.dumps({"transcript_path": "/proc/kmsg"}).encode())
        assert done.returncode == 0 and b"ctxviz" in done.stdout


# --- 5. read-only for real ------------------------------------------------------------------------------


def test_opencodes_wal_database_is_read_without_a_write(home: Path) -> None:
    from benchmarks.agent_corpus import opencode_db

    database = opencode_db(home, 4)
    writer = sqlite3.connect(database)
    writer.execute("PRAGMA journal_mode=WAL")
    writer.execute("PRAGMA wal_autocheckpoint=0")
    writer.execute("UPDATE session SET title = title || ' (renamed)'")
    writer.commit()  # opencode still running: its log beside the database, not yet copied back
    before = _listing(database.parent)
    assert any(name.endswith("-wal") for name in before)
    try:
        for args in (["sessions", "--no-cache"], ["sessions", "--json"], ["context", str(database)]):
            code, _ = _run(*args)
            assert code == 0
        assert _listing(database.parent) == before
        shm = Path(f"{database}-shm")
        shm_before = shm.read_bytes() if shm.exists() else None
        _run("sessions", "--no-cache")
        assert (shm.read_bytes() if shm.exists() else None) == shm_before
    finally:
        writer.close()


def _opencode_running(home: Path) -> tuple[Path, sqlite3.Connection]:
    """opencode's database as opencode leaves it while it runs: in WAL mode, with a session written only
    to its log (a copy of the synthetic database's large session, fresh ids), not yet copied back."""
    from benchmarks.agent_corpus import opencode_db

    database = opencode_db(home, 4)
    writer = sqlite3.connect(database)
    writer.execute("PRAGMA journal_mode=WAL")
    writer.execute("PRAGMA wal_autocheckpoint=0")
    fresh = "_in_log"
    large = "'s_stage0_large'"
    writer.execute("INSERT INTO session SELECT id || ?, project_id, NULL, slug, directory, 'in the log', version,"
                   f" time_created + 1, time_updated + 1 FROM session WHERE id = {large}", (fresh,))  # fmt: skip
    writer.execute("INSERT INTO message SELECT id || ?, session_id || ?, time_created, time_updated, data FROM message"
                   " WHERE session_id = 's_stage0_large'", (fresh, fresh))  # fmt: skip
    writer.execute("INSERT INTO part SELECT id || ?, message_id || ?, session_id || ?, time_created, time_updated, data"
                   " FROM part WHERE session_id = 's_stage0_large'", (fresh, fresh, fresh))  # fmt: skip
    writer.commit()
    return database, writer


def test_an_opencode_session_only_in_the_log_is_read_and_nothing_written_there(home: Path) -> None:
    """Opened immutable, the database alone lost what opencode wrote last without a word: now read
    from a private copy with the log folded in, made in ctxviz's cache folder."""
    database, writer = _opencode_running(home)
    try:
        before = _listing(database.parent)
        assert os.path.getsize(f"{database}-wal") > 0
        rows = {row["session"]: row for row in _rows("--no-cache", "--agent", "opencode")}
        # its one measured call: 120 input tokens, as the copied message records (output is not context)
        assert rows["s_stage0_large_in_log"]["calls"] == 1 and rows["s_stage0_large_in_log"]["peak"] == 120
        code, out = _run("context", str(database))  # the latest session, the one only in the log
        assert code == 0 and "s_stage0_large_in_log" in out and "was not read" not in out
        assert _listing(database.parent) == before  # opencode's folder: not a byte changed, nothing added
        copies = list((Path(os.environ["XDG_CACHE_HOME"]) / "ctxviz" / "opencode").iterdir())
        assert len(copies) == 1 and stat.S_IMODE(copies[0].parent.stat().st_mode) == 0o700
        writer.execute("UPDATE session SET title = 'renamed' WHERE id = 's_stage0_large_in_log'")
        writer.commit()
        assert "s_stage0_large_in_log" in {row["session"] for row in _rows("--no-cache")}
        assert len(list(copies[0].parent.iterdir())) == 1  # the older state's copy replaced, not kept
    finally:
        writer.close()


def test_opencodes_log_is_said_unread_where_no_copy_may_be_made(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    database, writer = _opencode_running(home)
    monkeypatch.setenv("XDG_CACHE_HOME", str(database.parent))  # a cache there would write in opencode's folder
    try:
        before = _listing(home)
        code, out = _run("context", "--json", str(database))
        assert code == 0 and "opencode.db-wal, the log of its last moments not yet in the database, was not read" in out
        assert _listing(home) == before
    finally:
        writer.close()


def test_a_cache_folder_inside_an_agents_folder_is_never_written(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    files = every_agent(home)
    from ctxviz.live.statusline import statusline

    for agent_folder in (home / ".claude", home / ".codex"):
        monkeypatch.setenv("XDG_CACHE_HOME", str(agent_folder))
        before = _listing(home)
        _run("sessions")
        _run("context", "--latest")
        statusline(json.dumps({"transcript_path": str(files["claude-code"])}).encode(), "{used}", False, [])
        assert _listing(home) == before, agent_folder


# --- Done when: every case at once, every command, nothing written --------------------------------------


def test_every_command_on_a_hostile_home_writes_nothing_there(home: Path) -> None:
    files = _poisoned_home(home)
    _fifo(home / ".codex" / "sessions" / "2026" / "08" / "05" / "rollout-fifo.jsonl")
    with (home / ".pi" / "agent" / "sessions" / "--tmp-demo--" / "deep.jsonl").open("w") as out:
        out.write('{"type": "session", "id": "x"}\n{"type": ' + DEEP + "}\n")
    before = _listing(home)
    runs = [["sessions"], ["sessions", "--json"], ["sessions", "--no-cache", "-v"], ["context", "--latest"]]
    runs += [["context", str(path)] for path in files.values()]
    for args in runs:
        done = _command(*args)
        out = done.stdout.decode() + done.stderr.decode()
        assert b"Traceback" not in done.stderr and done.returncode in (0, 1), (args, out)
        assert not UNSAFE.search(out), (args, UNSAFE.findall(out))
    assert _listing(home) == before


# --- 7. the small ones ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "said"),
    [
        ("  - reply: .inf", "got inf"),
        ("  - reply: 1000000000000", "larger than any context window"),
        ("  - bash: {command: x, output: {chars: 99999999999999}}", "larger than any context window"),
    ],
)
def test_a_scenario_size_no_window_holds_is_refused(home: Path, line: str, said: str) -> None:
    scenario = home / "s.yaml"
    scenario.write_text(f"name: s\nevents:\n  - prompt: hi\n{line}\n", encoding="utf-8")
    code, out = _run("run", str(scenario))
    assert code == 1 and said in out and "s.yaml:4" in out


def test_a_window_of_zero_is_refused_not_the_default(home: Path) -> None:
    scenario = home / "s.yaml"
    scenario.write_text("name: s\nwindow: 0\nevents:\n  - prompt: hi\n", encoding="utf-8")
    code, out = _run("validate", str(scenario))
    assert code == 1 and "s.yaml:2:1: window" in out


def test_context_on_a_folder_is_bad_input(home: Path) -> None:
    code, out = _run("context", str(home))
    assert code == 1 and "a folder" in out


@pytest.mark.parametrize("agent", ["pi", "grok-build"])
def test_junk_lines_at_the_top_do_not_hide_whose_file_it_is(home: Path, agent: str) -> None:
    path = every_agent(home)[agent]
    path.write_text("".join(f"junk line {n}\n" for n in range(30)) + path.read_text(encoding="utf-8"))
    result = CliRunner().invoke(main, ["context", "--json", str(path)])
    assert result.exit_code == 0 and json.loads(result.stdout)["step"] > 0  # read by its own reader
    assert "30 damaged" in result.output


def test_watch_reads_off_the_screens_thread_and_q_quits_during_a_read(home: Path) -> None:
    import asyncio
    import threading

    from ctxviz.live.watch import Watch
    from ctxviz.live.watch_app import WatchApp

    watch = Watch(every_agent(home)["pi"])
    first = watch.poll()
    assert first is not None and first.timeline is not None
    app = WatchApp(watch, first.timeline)
    started, release = threading.Event(), threading.Event()

    def slow_read() -> None:  # a read that does not end while the person is there (a huge file)
        started.set()
        release.wait(SECONDS)

    watch.poll = slow_read  # type: ignore[method-assign,assignment]

    async def run() -> None:
        async with app.run_test(size=(100, 30)) as pilot:
            while not started.is_set():
                await pilot.pause(0.05)
            reading_since = time.monotonic()
            await pilot.press("right")  # the screen still answers
            await pilot.press("q")
            await pilot.pause(0.2)
            assert time.monotonic() - reading_since < SECONDS / 4  # not when the read ends
            assert not app.is_running or app.return_code is not None
            release.set()  # the read ends: asyncio's own shutdown waits for its thread

    try:
        asyncio.run(asyncio.wait_for(run(), SECONDS))
    finally:
        release.set()


@pytest.mark.parametrize("tamper", ["negative", "peak below last", "deep"])
def test_a_tampered_summary_index_is_never_shown(home: Path, tamper: str) -> None:
    every_agent(home)
    honest = _rows()
    index = Path(os.environ["XDG_CACHE_HOME"]) / "ctxviz" / "sessions-index.json"
    data = json.loads(index.read_text(encoding="utf-8"))
    for entry in data["rows"].values():
        if "row" in entry:
            entry["row"]["peak"], entry["row"]["last"] = (-150_000, 0) if tamper == "negative" else (5, 10**12)
    text = json.dumps(data) if tamper != "deep" else '{"format": ' + DEEP + "}"
    index.write_text(text, encoding="utf-8")
    assert _rows() == honest  # each row worked out again from its session


def test_the_step_counter_shows_a_huge_session() -> None:
    import asyncio

    from textual.geometry import Region
    from textual.widgets import Label
    from tui_timelines import long_timeline

    from ctxviz.tui.app import CtxvizApp

    timeline = long_timeline(100_001)

    async def run() -> None:
        app = CtxvizApp(timeline)
        async with app.run_test(size=(120, 36)) as pilot:
            await pilot.press("end", "left")
            counter = app.screen.query_one("#header-step", Label)
            # the header is one line high: only the label's first line is ever on screen
            drawn = counter.render_lines(Region(0, 0, counter.size.width, 1))[0].text
            assert drawn.strip() == "99999/100000"  # its last step but one

    asyncio.run(run())


@pytest.mark.parametrize(
    ("index", "last", "shown"),
    [(7, 99, "step 7/99"), (99_999, 100_000, "99999/100000"), (1_234_567, 12_000_000, "1.2M/12M")],
)
def test_the_step_counter_fits_its_cell(index: int, last: int, shown: str) -> None:
    from ctxviz.tui.widgets.context_header import step_counter

    assert step_counter(index, last) == shown


def _token_count(stamp: str, context: int, total: int) -> dict[str, Any]:
    usage = {"input_tokens": context, "output_tokens": 10}
    info = {"last_token_usage": usage, "total_token_usage": {"input_tokens": total}, "model_context_window": 258_400}
    return {"timestamp": stamp, "type": "event_msg", "payload": {"type": "token_count", "info": info}}


def test_a_codex_rollout_written_backwards_ends_at_its_last_call(tmp_path: Path) -> None:
    records = [
        {"timestamp": "2026-08-03T10:00:00.000Z", "type": "session_meta", "payload": {"id": "s", "cwd": "/p"}},
        _token_count("2026-08-03T10:00:01.000Z", 12_000, 12_000),  # the first call
        _token_count("2026-08-03T10:00:05.000Z", 30_000, 42_000),  # the last call
    ]
    rollout = tmp_path / "rollout-2026-08-03-backwards.jsonl"
    rollout.write_text("".join(json.dumps(r) + "\n" for r in reversed(records)), encoding="utf-8")
    timeline = open_transcript(rollout)
    assert timeline.used_at(timeline.last) == 30_000
    assert any("not in time order" in notice for notice in timeline.notices)


@pytest.mark.parametrize("value", ["1", "!!int 1"])  # a tagged value is counted another way
def test_a_scenario_of_too_many_values_is_refused_before_it_is_composed(value: str) -> None:
    import tracemalloc

    from ctxviz.scenario.yaml_source import YamlError, YamlLimits, parse_yaml

    text = "[" + f"{value}," * 299_999 + "1]"  # 300,000 values: thirty times the cap below
    tracemalloc.start()
    try:
        with pytest.raises(YamlError, match="more than 10,000 values") as refused:
            parse_yaml(text, YamlLimits(max_nodes=10_000))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    # the list is a value too: its 10,000th item is the 10,001st value, after "[" and 9,999 items
    assert (refused.value.line, refused.value.column) == (1, 1 + 9_999 * (len(value) + 1) + 1)
    assert peak < 5_000_000  # composing all 300,000 would hold them all (tens of MB)
