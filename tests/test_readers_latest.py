"""``context --latest`` and ``play --latest``: the most recently written session of any agent, in a home
that holds one session of each agent in its default folders; narrowed by ``--agent`` and ``-p``."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from agent_homes import OTHERS, SPOTTER, T0, copy_to, empty_home, every_agent, newest
from click.testing import CliRunner

from ctxviz.cli import main
from ctxviz.errors import InputError
from ctxviz.timeline import Timeline
from ctxviz.transcripts.find import latest_session


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return empty_home(tmp_path, monkeypatch)


def _latest(*args: str) -> dict[str, object]:
    result = CliRunner().invoke(main, ["context", "--latest", "--json", *args])
    assert result.exit_code == 0, result.output
    data: dict[str, object] = json.loads(result.stdout)
    return data


def test_latest_is_the_most_recently_written_session_of_any_agent(home: Path) -> None:
    files = every_agent(home)
    assert _latest()["file"] == str(files["claude-code"])  # the newest of the six as copied
    for agent, path in files.items():
        newest(path)
        data = _latest()
        assert data["file"] == str(path), agent
        os.utime(path, (T0 - 1000,) * 2)
    newest(files["codex"])
    assert _latest("--at", "1")["used"] == 16_341  # the rollout's one call


def test_latest_narrowed_by_agent_and_project(home: Path) -> None:
    files = every_agent(home)
    newest(files["codex"])
    newest(files["gemini-cli"], -10)
    assert _latest("--agent", "pi")["file"] == str(files["pi"])
    assert _latest("--agent", "pi", "--agent", "gemini-cli")["file"] == str(files["gemini-cli"])
    assert _latest("--agent", "claude-code")["file"] == str(files["claude-code"])
    assert _latest("-p", "/tmp/demo")["file"] == str(files["pi"])  # pi and grok-build ran there; pi is newer
    assert _latest("-p", "spotter")["file"] == str(files["claude-code"])
    missing = CliRunner().invoke(main, ["context", "--latest", "--agent", "codex", "-p", "nowhere"])
    assert missing.exit_code == 1
    assert missing.stderr.strip() == (
        "no codex sessions of a project containing 'nowhere' found "
        "(see `ctxviz sessions --help` for the folders searched)"
    )
    wrong = CliRunner().invoke(main, ["context", "--latest", "--agent", "emacs"])
    assert wrong.exit_code == 1 and "no reader for agent 'emacs'" in wrong.stderr


def test_latest_in_an_empty_home_says_where_to_look(home: Path) -> None:
    result = CliRunner().invoke(main, ["context", "--latest"])
    assert result.exit_code == 1
    assert result.stderr.strip() == ("no sessions found (see `ctxviz sessions --help` for the folders searched)")


def test_this_folders_project_wins_over_a_newer_session(home: Path) -> None:
    files = every_agent(home)
    newest(files["codex"])
    env = dict(os.environ)
    assert latest_session(env, home, cwd="/tmp/demo").path == files["pi"]  # newer than grok-build's
    assert latest_session(env, home, cwd="/tmp/demo/").path == files["pi"]
    assert latest_session(env, home, cwd=SPOTTER).path == files["claude-code"]
    assert latest_session(env, home, cwd="/elsewhere").path == files["codex"]  # no session here: the newest


def test_a_subagents_rollout_and_cursor_are_not_the_latest(home: Path) -> None:
    files = every_agent(home)
    lines = (OTHERS / "codex" / "agent-sessions_stage0_small.jsonl").read_text().splitlines()
    child = files["codex"].with_name("rollout-2026-08-03-child.jsonl")
    child.write_text("\n".join([lines[28], lines[21]]) + "\n")  # a subagent's own rollout: its meta, one call
    cursor = copy_to(OTHERS / "cursor" / "agent-sessions_small.jsonl",
                   home / ".cursor" / "projects" / "p" / "agent-transcripts" / "c.jsonl")  # fmt: skip
    newest(child, 20)
    newest(cursor, 30)
    newest(files["gemini-cli"], 10)
    assert _latest()["file"] == str(files["gemini-cli"])
    named = CliRunner().invoke(main, ["context", "--latest", "--agent", "cursor"])
    assert named.exit_code == 1 and "Cursor records no token usage" in named.stderr
    for path in files.values():  # only Cursor's transcript left: its one-line message, not "no sessions"
        path.unlink()
    child.unlink()
    alone = CliRunner().invoke(main, ["context", "--latest"])
    assert alone.exit_code == 1
    assert alone.stderr.strip() == (
        f"{cursor}: a Cursor agent transcript: Cursor records no token usage, so its context cannot be shown"
    )


def test_sessions_in_one_opencode_database_are_told_apart_by_their_time(home: Path) -> None:
    data = home / ".local" / "share" / "opencode"
    copy_to(OTHERS / "opencode" / "synthetic-db" / "opencode.db", data / "opencode.db")
    ref = latest_session(dict(os.environ), home)
    assert (ref.agent, ref.session, ref.mtime) == ("opencode", "s_stage0_large", 1_730_000_109.0)  # time.updated
    assert _latest("--agent", "opencode")["used"] == 120
    with pytest.raises(InputError, match="no opencode sessions of a project containing 'zzz'"):
        latest_session(dict(os.environ), home, agents=["opencode"], project="zzz")


def test_play_latest_opens_any_agents_session(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    files = every_agent(home)
    newest(files["gemini-cli"])
    shown: list[Timeline] = []
    monkeypatch.setattr("ctxviz.tui.app.run_app", shown.append)
    monkeypatch.setattr("ctxviz.cli.tui_commands.has_terminal", lambda: True)
    result = CliRunner().invoke(main, ["play", "--latest"])
    assert result.exit_code == 0, result.output
    assert [(t.agent, t.source.path) for t in shown] == [("gemini-cli", str(files["gemini-cli"]))]
    result = CliRunner().invoke(main, ["play", "--latest", "--agent", "claude-code"])  # a profile's name
    assert result.exit_code == 0, result.output
    assert (shown[-1].agent, shown[-1].source.path) == ("claude-code", str(files["claude-code"]))
    result = CliRunner().invoke(main, ["play", "--latest", "--agent", "pi"])
    assert result.exit_code == 0, result.output
    assert (shown[-1].agent, shown[-1].steps[-1].used) == ("pi", 3_222)


def test_agent_with_a_file_is_a_usage_error(home: Path) -> None:
    files = every_agent(home)
    result = CliRunner().invoke(main, ["context", str(files["pi"]), "--agent", "pi"])
    assert result.exit_code == 2
    assert "--agent chooses among the sessions found: give it with --latest or --session" in result.output


def test_play_session_opens_another_agents_session_by_id(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    files = every_agent(home)
    shown: list[Timeline] = []
    monkeypatch.setattr("ctxviz.tui.app.run_app", shown.append)
    monkeypatch.setattr("ctxviz.cli.tui_commands.has_terminal", lambda: True)
    result = CliRunner().invoke(main, ["play", "--session", "0190aaaa"])  # the id `sessions` prints for pi
    assert result.exit_code == 0, result.output
    assert [(t.agent, t.source.path, t.steps[-1].used) for t in shown] == [("pi", str(files["pi"]), 3_222)]
