"""``sessions``, ``context`` and ``play``'s loader over every agent's sessions, agent told by content."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from agent_homes import empty_home
from click.testing import CliRunner

from ctxviz.cli import main
from ctxviz.sources import open_timeline

FIXTURES = Path(__file__).parent / "fixtures" / "other-agents"


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty home: no agent's own folder exists, so only what a test points at is found."""
    return empty_home(tmp_path, monkeypatch)


def _sessions(*args: str) -> tuple[list[dict[str, object]], str]:
    result = CliRunner().invoke(main, ["sessions", "--json", *args])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout), result.stderr


def test_sessions_under_a_root_names_each_agent(home: Path) -> None:
    rows, err = _sessions("--root", str(FIXTURES))
    by_agent: dict[str, list[int]] = {}
    for row in rows:
        by_agent.setdefault(str(row["agent"]), []).append(int(row["calls"]))  # type: ignore[call-overload]
    assert {a: sorted(c) for a, c in by_agent.items()} == {
        "codex": [1, 1, 2],
        "gemini-cli": [1, 2],
        "opencode": [1, 1],  # the storage tree and the database made from it
        "pi": [2, 5],
        "grok-build": [0, 5],  # model calls as grok-build sums them; no per-call context
    }
    # Codex turn usage only, opencode's session without tokens (tree and database), 2 Cursor transcripts
    assert "5 sessions record no token usage" in err


def test_sessions_agent_filter_and_bad_agent(home: Path) -> None:
    rows, _ = _sessions("--root", str(FIXTURES), "--agent", "pi")
    assert [(r["agent"], r["calls"], r["peak"]) for r in rows] == [("pi", 2, 12), ("pi", 5, 4_634)]
    result = CliRunner().invoke(main, ["sessions", "--agent", "vim"])
    assert result.exit_code == 2  # a usage error, as an unknown --agent is everywhere
    assert "no reader for agent 'vim'; choose one of: claude-code, codex, cursor" in result.stderr


def test_sessions_finds_each_agent_under_its_own_variable(home: Path, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    codex = tmp_path / "codex-home" / "sessions" / "2026" / "08" / "03"
    codex.mkdir(parents=True)
    shutil.copy(FIXTURES / "codex" / "agent-sessions_stage0_small.jsonl", codex / "rollout-2026-08-03-x.jsonl")
    data = tmp_path / "data" / "opencode"
    shutil.copytree(FIXTURES / "opencode" / "agent-sessions_storage_v2", data / "storage")
    shutil.copy(FIXTURES / "opencode" / "synthetic-db" / "opencode.db", data / "opencode.db")  # holds the tree too
    gemini = tmp_path / "gemini" / ".gemini" / "tmp" / "demo" / "chats"
    gemini.mkdir(parents=True)
    shutil.copy(FIXTURES / "gemini-cli" / "agent-sessions_large.json", gemini / "session-2025-12-16T23-47-b4f1.json")
    pi = tmp_path / "pi-agent" / "sessions" / "--tmp-demo--"
    pi.mkdir(parents=True)
    shutil.copy(FIXTURES / "pi" / "synthetic-branch-compaction.jsonl", pi / "2026-06-01_x.jsonl")
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex-home"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("GEMINI_CLI_HOME", str(tmp_path / "gemini"))
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(tmp_path / "pi-agent"))
    monkeypatch.setenv("GROK_HOME", str(FIXTURES / "grok-build" / "synthetic"))
    rows, _ = _sessions()
    assert sorted((r["agent"], r["calls"]) for r in rows) == [
        ("codex", 1), ("gemini-cli", 1), ("grok-build", 5), ("opencode", 1), ("pi", 5)
    ]  # fmt: skip


def test_context_tells_the_agent_by_content(home: Path, tmp_path: Path) -> None:
    renamed = tmp_path / "notes.txt"  # the name says nothing; the content says pi
    shutil.copy(FIXTURES / "pi" / "synthetic-branch-compaction.jsonl", renamed)
    result = CliRunner().invoke(main, ["context", str(renamed), "--json", "--at", "4"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert (data["used"], data["measured"], data["at_call"], data["calls"]) == (4_634, True, 4, 5)


def test_context_reports_damage_on_one_line(home: Path, tmp_path: Path) -> None:
    damaged = tmp_path / "rollout.jsonl"
    damaged.write_text((FIXTURES / "codex" / "ccusage-session-alpha.jsonl").read_text() + "{oops\n")
    result = CliRunner().invoke(main, ["context", str(damaged), "--json"])
    assert result.exit_code == 0
    assert json.loads(result.stdout)["used"] == 2_500
    assert result.stderr.strip() == "ctxviz: 1 damaged or unknown lines skipped (--verbose lists them)"


def test_context_on_cursor_is_one_clear_line(home: Path) -> None:
    path = FIXTURES / "cursor" / "agent-sessions_large.jsonl"
    result = CliRunner().invoke(main, ["context", str(path)])
    assert result.exit_code == 1
    assert result.stderr.splitlines() == [
        f"{path}: a Cursor agent transcript: Cursor records no token usage, so its context cannot be shown"
    ]


def test_play_opens_any_agents_file(home: Path) -> None:
    gemini = open_timeline(FIXTURES / "gemini-cli" / "agent-sessions_large.json")
    assert gemini.agent == "gemini-cli" and gemini.steps[-1].used == 100
    opencode = open_timeline(FIXTURES / "opencode" / "agent-sessions_storage_v2" / "session" / "proj_test"
                             / "ses_s_stage0_large.json")  # fmt: skip
    assert opencode.agent == "opencode"


def test_each_agents_default_folder(home: Path) -> None:
    from ctxviz.transcripts.registry import reader_named

    folders = {
        "codex": home / ".codex" / "sessions",
        "gemini-cli": home / ".gemini" / "tmp",
        "opencode": home / ".local" / "share" / "opencode" / "storage" / "session",
        "pi": home / ".pi" / "agent" / "sessions",
        "grok-build": home / ".grok" / "sessions",
        "cursor": home / ".cursor" / "projects",
    }
    for agent, folder in folders.items():
        assert reader_named(agent).roots({}, home) == [], agent  # nothing there yet: no root
        folder.mkdir(parents=True)
        root = folder.parent.parent if agent == "opencode" else folder.parent  # opencode: its data folder
        assert reader_named(agent).roots({}, home) == [root], agent


def test_a_root_with_symlink_loops_is_walked_once(home: Path, tmp_path: Path) -> None:
    root = tmp_path / "root"
    (root / "a").mkdir(parents=True)
    shutil.copy(FIXTURES / "pi" / "agent-sessions_small.jsonl", root / "a" / "s.jsonl")
    (root / "a" / "loop").symlink_to(root)  # back up the tree
    (root / "self").symlink_to(root / "self")  # a link to itself
    outside = tmp_path / "outside"
    outside.mkdir()
    shutil.copy(FIXTURES / "pi" / "synthetic-branch-compaction.jsonl", outside / "x.jsonl")
    (root / "out").symlink_to(outside)  # leads out of the root: not followed
    rows, _ = _sessions("--root", str(root))
    assert [(r["agent"], r["calls"]) for r in rows] == [("pi", 2)]


def test_context_session_finds_other_agents(home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    codex = tmp_path / "codex" / "sessions" / "2026" / "08" / "03"
    codex.mkdir(parents=True)
    name = "rollout-2026-08-03T10-48-56-019fc8be-3658-7ca3-9e29-000000000000.jsonl"
    shutil.copy(FIXTURES / "codex" / "agent-sessions_stage0_small.jsonl", codex / name)
    (tmp_path / "data" / "opencode").mkdir(parents=True)
    shutil.copy(FIXTURES / "opencode" / "synthetic-db" / "opencode.db", tmp_path / "data" / "opencode" / "opencode.db")
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    for wanted, used in (("019fc8be", 16_341), ("s_stage0_large", 120)):  # the ids `sessions` prints
        result = CliRunner().invoke(main, ["context", "--session", wanted, "--at", "1", "--json"])
        assert result.exit_code == 0, result.output
        assert json.loads(result.stdout)["used"] == used
    missing = CliRunner().invoke(main, ["context", "--session", "nope"])
    assert missing.exit_code == 1 and "no session 'nope' found" in missing.stderr


def test_a_codex_subagents_rollout_is_not_listed_as_a_session(home: Path, tmp_path: Path) -> None:
    lines = (FIXTURES / "codex" / "agent-sessions_stage0_small.jsonl").read_text().splitlines()
    assert '"source":{"subagent"' in lines[28]
    (tmp_path / "root").mkdir()
    (tmp_path / "root" / "child.jsonl").write_text("\n".join([lines[28], lines[21]]) + "\n")  # its meta, one call
    (tmp_path / "root" / "main.jsonl").write_text("\n".join(lines[:22]) + "\n")
    rows, _ = _sessions("--root", str(tmp_path / "root"))
    assert [(r["file"], r["calls"]) for r in rows] == [(str(tmp_path / "root" / "main.jsonl"), 1)]


def test_context_of_grok_build_is_estimated_and_has_no_calls(home: Path) -> None:
    path = FIXTURES / "grok-build" / "synthetic" / "sessions" / "%2Ftmp%2Fdemo"
    path = path / "019f7000-aaaa-7bbb-8ccc-000000000001" / "updates.jsonl"
    result = CliRunner().invoke(main, ["context", str(path), "--json"])
    data = json.loads(result.stdout)
    assert (data["used"], data["measured"], data["calls"], data["window"]) == (9_813, False, 0, 256_000)
    at = CliRunner().invoke(main, ["context", str(path), "--at", "1"])
    assert at.exit_code == 2 and "no per-call usage (its steps are estimates)" in at.output


def test_sessions_that_made_no_call_yet_are_counted_not_listed(home: Path) -> None:
    # A Claude Code session with a prompt and no reply yet, and a grok-build session whose log was just
    # created (empty): nothing to show, so neither is a row, and a table with no row says why.
    project = home / ".claude" / "projects" / "-tmp-demo"
    project.mkdir(parents=True)
    prompt = {"type": "user", "uuid": "u1", "sessionId": "s1", "timestamp": "2026-08-03T10:00:00Z",
              "message": {"role": "user", "content": "hi"}}  # fmt: skip
    (project / "s1.jsonl").write_text(json.dumps(prompt) + "\n", encoding="utf-8")
    grok = home / ".grok" / "sessions" / "%2Ftmp%2Fdemo" / "019f7000-aaaa-7bbb-8ccc-000000000009"
    grok.mkdir(parents=True)
    (grok / "updates.jsonl").write_bytes(b"")
    rows, _ = _sessions()
    assert rows == []
    table = CliRunner().invoke(main, ["sessions"])
    assert table.exit_code == 0, table.output
    assert table.stdout.strip() == "No session with an API call yet (2 sessions were found, each without one)."
    elsewhere = CliRunner().invoke(main, ["sessions", "-p", "somewhere-else"])  # neither is of that project
    assert elsewhere.stdout.startswith("No sessions found")
    # a grok-build session that recorded turns but no model-call count is still listed
    shutil.copytree(FIXTURES / "grok-build" / "agent-sessions", home / ".grok" / "sessions" / "%2Ftmp%2Fother")
    assert [(r["agent"], r["calls"]) for r in _sessions()[0]] == [("grok-build", 0)]


def test_a_root_that_does_not_exist_is_a_usage_error(home: Path, tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["sessions", "--root", str(tmp_path / "nowhere")])
    assert result.exit_code == 2  # not an empty listing: a typo in the path would look like no sessions
    assert "Invalid value for '--root'" in result.stderr and "does not exist" in result.stderr
