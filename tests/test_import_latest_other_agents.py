"""``import --latest`` / ``--session ID`` and ``fidelity --latest`` for every agent whose log records usage,
through the command; an agent whose log records none is refused in one line naming it."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from ctxviz.cli import main
from tests.test_fidelity_agents import _codex_rollout, _pi_session

OTHER = Path(__file__).parent / "fixtures" / "other-agents"


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    for name in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "PI_CODING_AGENT_DIR"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    return home


def _codex_in(home: Path) -> Path:
    path = home / ".codex" / "sessions" / "2026" / "06" / "18" / "rollout-2026-06-18T07-55-31-codex-1.jsonl"
    path.parent.mkdir(parents=True)
    return _codex_rollout(path)


def _pi_in(home: Path) -> Path:
    path = home / ".pi" / "agent" / "sessions" / "--tmp-demo--" / "2025-12-08T22-41-00-000Z_pi-1.jsonl"
    path.parent.mkdir(parents=True)
    return _pi_session(path, next_call=37_500)


def test_import_latest_takes_the_newest_session_of_any_agent(home: Path) -> None:
    codex, pi = _codex_in(home), _pi_in(home)
    os.utime(codex, (1e9, 1e9))
    os.utime(pi, (2e9, 2e9))  # written later
    result = CliRunner().invoke(main, ["import", "--latest"])
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("# Imported by `ctxviz import` from pi session")
    assert "agent: pi" in result.stdout


def test_import_session_by_id_finds_a_codex_rollout(home: Path, tmp_path: Path) -> None:
    _codex_in(home)
    out = tmp_path / "codex.yaml"
    result = CliRunner().invoke(main, ["import", "--session", "codex-1", "-o", str(out)])
    assert result.exit_code == 0, result.output
    text = out.read_text()
    assert "agent: codex" in text
    # the rollout's four calls with usage (token_count events with input), as the log records them
    assert "4 API calls" in text


def test_fidelity_latest_scores_a_pi_session(home: Path) -> None:
    _pi_in(home)
    result = CliRunner().invoke(main, ["fidelity", "--latest", "--json"])
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    assert document["agent"] == "pi"
    # the calls the session measured, in order (its assistant messages' input): 3,000, 150,000, 183,600, 37,500
    assert [c["measured"] for c in document["calls"]] == [3_000, 150_000, 183_600, 37_500]


def test_import_latest_of_a_log_without_usage_is_one_line_naming_the_agent(home: Path) -> None:
    folder = home / ".cursor" / "projects" / "demo" / "agent-transcripts"
    folder.mkdir(parents=True)
    shutil.copy(OTHER / "cursor" / "agent-sessions_small.jsonl", folder / "c0ffee.jsonl")
    result = CliRunner().invoke(main, ["import", "--latest"])
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1
    assert "a Cursor agent transcript: Cursor records no token usage" in result.output, result.output


def test_fidelity_names_the_agent_it_cannot_score(home: Path) -> None:
    gemini = OTHER / "gemini-cli" / "agent-sessions_jsonl_v040.jsonl"
    result = CliRunner().invoke(main, ["fidelity", str(gemini)])
    assert result.exit_code == 1 and len(result.output.strip().splitlines()) == 1
    assert "a gemini-cli session; `ctxviz fidelity` replays" in result.output
