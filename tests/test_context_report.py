"""``ctxviz context`` and ``ctxviz sessions`` end to end, and the /context renderable."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from rich.console import Console

from ctxviz.cli import main
from ctxviz.report.context import context_renderable
from ctxviz.report.context_data import api_call_indices, context_dict
from ctxviz.transcripts import open_transcript

SAMPLES = Path(__file__).resolve().parent / "fixtures" / "claude-code"
SPOTTER = SAMPLES / "spotter-4d5611e5/4d5611e5-241a-462a-8d15-5122611a9569.jsonl"
SESSION = "4d5611e5-241a-462a-8d15-5122611a9569"


@pytest.fixture
def config_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A Claude config folder holding the spotter session in the current layout, and an empty HOME."""
    project = tmp_path / "config" / "projects" / "-home-USER-projects-spotter-worktrees-spotter-dov"
    (project / SESSION / "subagents").mkdir(parents=True)
    shutil.copy(SPOTTER, project / f"{SESSION}.jsonl")
    for agent in (SAMPLES / "spotter-4d5611e5" / "subagents").iterdir():
        shutil.copy(agent, project / SESSION / "subagents" / agent.name)
    fasthooks = tmp_path / "config" / "projects" / "-workspace"
    fasthooks.mkdir()
    shutil.copy(SAMPLES / "fasthooks/sample_main_transcript.jsonl", fasthooks / "c45af7b1.jsonl")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "config"))
    return tmp_path / "config"


def test_context_json_at_call_61() -> None:
    result = CliRunner().invoke(main, ["context", str(SPOTTER), "--at", "61", "--json", "--top", "3"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["format"] == "ctxviz.context/1"
    assert (data["session"], data["model"], data["window"]) == (SESSION, "claude-opus-4-6", 200_000)
    assert (data["used"], data["measured"], data["at_call"], data["calls"]) == (164_831, True, 61, 139)
    assert data["breakdown"]["Free space"] == 200_000 - 164_831 - 33_000
    assert data["breakdown"]["Autocompact buffer"] == 33_000
    assert sum(v or 0 for k, v in data["breakdown"].items() if k not in ("Free space", "Autocompact buffer")) == 164_831
    # the unrecorded overhead holds the tools, memory and skills: not known apart, so not zeros
    assert data["unrecorded_overhead"] == data["breakdown"]["System prompt"] == 26_413
    for row in ("System tools", "MCP tools", "Custom agents", "Memory files", "Skills"):
        assert data["breakdown"][row] is None
    assert [item["kind"] for item in data["items"]][0] == "overhead"
    assert data["compactions"] == []


def test_context_json_last_call_lists_the_compaction() -> None:
    result = CliRunner().invoke(main, ["context", str(SPOTTER), "--json"])
    data = json.loads(result.stdout)
    assert (data["used"], data["at_call"]) == (106_060, 139)
    # one "before" (the boundary's own preTokens); the size after is an estimate, the next call measured
    assert data["compactions"] == [
        {"trigger": "auto", "at_call": 61, "step": 61, "pre_tokens": 170_251, "before": 170_251,
         "before_measured": True, "after": 30_349, "after_measured": False, "next_call_used": 36_081}
    ]  # fmt: skip


def test_context_table_has_the_context_look() -> None:
    timeline = open_transcript(SPOTTER)
    console = Console(width=120, record=True, color_system=None)
    console.print(context_renderable(timeline, api_call_indices(timeline)[0], top_items=3))
    text = console.export_text()
    assert text.splitlines()[0] == "claude-opus-4-6 · 26.4k/200k tokens (13%)  measured  ·  call 1 of 139"
    for row in ("System prompt", "Messages", "Free space", "Autocompact buffer", "Largest items in the window"):
        assert row in text
    assert "⛝" in text and "⛶" in text
    assert "No compactions so far." in text


def test_context_renders_narrow() -> None:
    timeline = open_transcript(SPOTTER)
    console = Console(width=50, record=True, color_system=None)
    console.print(context_renderable(timeline, timeline.last))
    assert "auto after call 61" in console.export_text()


def test_context_dict_is_deterministic() -> None:
    a = json.dumps(context_dict(open_transcript(SPOTTER), 100))
    b = json.dumps(context_dict(open_transcript(SPOTTER), 100))
    assert a == b


def test_context_at_out_of_range_is_a_usage_error() -> None:
    result = CliRunner().invoke(main, ["context", str(SPOTTER), "--at", "140"])
    assert result.exit_code == 2
    assert "calls 1–139" in result.output


def test_context_of_a_file_that_is_no_transcript_says_so() -> None:
    hook_log = SAMPLES / "fasthooks/sample_hook_logs.jsonl"
    result = CliRunner().invoke(main, ["context", str(hook_log)])
    assert result.exit_code == 1
    assert result.output == f"{hook_log}: not a Claude Code transcript (its records have no type)\n"


def test_context_of_a_file_without_usage_says_so() -> None:
    cursor = SAMPLES.parent / "other-agents/cursor/agent-sessions_small.jsonl"  # other agents: test_readers*.py
    result = CliRunner().invoke(main, ["context", str(cursor)])
    assert result.exit_code == 1
    assert "Cursor records no token usage" in result.output
    assert "Traceback" not in result.output


def test_context_latest_and_session(config_root: Path) -> None:
    latest = CliRunner().invoke(main, ["context", "--latest", "--json", "--project", "spotter"])
    assert latest.exit_code == 0, latest.output
    assert json.loads(latest.stdout)["session"] == SESSION
    by_id = CliRunner().invoke(main, ["context", "--session", "c45af7b1", "--json"])
    assert json.loads(by_id.stdout)["calls"] == 12
    missing = CliRunner().invoke(main, ["context", "--session", "nope"])
    assert missing.exit_code == 1


def test_sessions_json(config_root: Path) -> None:
    result = CliRunner().invoke(main, ["sessions", "--json"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    assert [(r["session"], r["calls"], r["peak"], r["last"], r["subagents"]) for r in rows] == [
        ("c45af7b1-cb7c-4e51-93db-8cbb250a877a", 12, 21_331, 21_331, 0),
        (SESSION, 139, 164_831, 106_060, 1),
    ]
    assert rows[1]["compactions"] == [{"trigger": "auto", "pre_tokens": 170_251, "at_call": 61}]
    assert rows[0]["compactions"] == [{"trigger": "manual", "pre_tokens": 21_558, "at_call": 12}]
    assert rows[1]["project"] == "/home/USER/projects/spotter-worktrees/spotter-dov"
    assert rows[1]["bytes"] == 3_158_801
    assert rows[1]["models"] == ["claude-opus-4-6"]


def test_sessions_filters(config_root: Path) -> None:
    only = CliRunner().invoke(main, ["sessions", "--json", "--project", "spotter-dov"])
    assert [r["calls"] for r in json.loads(only.stdout)] == [139]
    since = CliRunner().invoke(main, ["sessions", "--json", "--since", "20260201"])
    assert [r["calls"] for r in json.loads(since.stdout)] == [139]
    until = CliRunner().invoke(main, ["sessions", "--json", "--until", "2026-01-31"])
    assert [r["calls"] for r in json.loads(until.stdout)] == [12]
    bad = CliRunner().invoke(main, ["sessions", "--since", "yesterday"])
    assert bad.exit_code == 2


def test_sessions_table(config_root: Path) -> None:
    result = CliRunner().invoke(main, ["sessions"])
    assert result.exit_code == 0
    assert "165k" in result.stdout and "1a" in result.stdout


def test_symlink_out_of_the_root_is_not_followed(config_root: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    shutil.copy(SAMPLES / "spotter-misc/short.jsonl", outside / "short.jsonl")
    (config_root / "projects" / "-escape").symlink_to(outside)
    rows = json.loads(CliRunner().invoke(main, ["sessions", "--json"]).stdout)
    assert len(rows) == 2


def test_the_since_column_of_a_session_counts_in_calls_only() -> None:
    timeline = open_transcript(SPOTTER)
    console = Console(width=120, record=True, color_system=None)
    console.print(context_renderable(timeline, api_call_indices(timeline)[-1], top_items=20))
    text = console.export_text()
    rows = text[text.index("Largest items in the window") :].splitlines()[2:22]
    since = [row.split()[-2:] for row in rows if row.strip()]
    assert since and all(unit == "call" for unit, _ in since), since
    assert all(1 <= int(number) <= len(api_call_indices(timeline)) for _, number in since)
