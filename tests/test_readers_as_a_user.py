"""What a new user sees with one session of each agent in its default folders, at 80 columns: no column
cut off, no estimate shown as measured, labels that say what they are."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from agent_homes import OTHERS, empty_home, every_agent
from click.testing import CliRunner

from ctxviz.cli import main
from ctxviz.report.sessions import size_label
from ctxviz.transcripts.codex.rollout import _command

NARROW = {"COLUMNS": "80"}


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return empty_home(tmp_path, monkeypatch)


def _run(*args: str, env: dict[str, str] | None = None) -> tuple[str, str]:
    result = CliRunner().invoke(main, list(args), env=env)
    assert result.exit_code == 0, result.output
    return result.stdout, result.stderr


def test_sessions_of_six_agents_fit_80_columns(home: Path) -> None:
    every_agent(home)
    out, _ = _run("sessions", env=NARROW)
    lines = out.splitlines()
    assert max(len(line) for line in lines) <= 80
    assert lines[0].split() == ["agent", "project", "session", "started", "models", "calls", "peak", "last", "cmp",
                                "sub", "size"]  # fmt: skip
    assert [line.split()[0] for line in lines[1:]] == ["opencode", "claude-code", "gemini-cli", "pi", "grok-build",
                                                       "codex"]  # fmt: skip
    codex = lines[-1].split()
    assert codex[-6:-1] == ["1", "16.3k", "16.3k", "7?", "1"]  # calls, peak, last, compactions, subagents whole
    wide, _ = _run("sessions", env={"COLUMNS": "140"})
    assert wide.splitlines()[0].split()[-1] == "size"
    assert "claude-code" in wide
    assert [size_label(n) for n in (272, 3_640, 3_158_801)] == ["<1k", "4k", "3.2M"]  # a small file is not "0k"


def test_one_session_without_usage_is_said_in_the_singular(home: Path) -> None:
    every_agent(home)
    storage = home / ".local" / "share" / "opencode" / "storage" / "session" / "proj_test"
    (storage / "ses_s_stage0_small.json").write_bytes(
        (OTHERS / "opencode" / "agent-sessions_storage_v2" / "session" / "proj_test" / "ses_s_stage0_small.json")
        .read_bytes()
    )  # fmt: skip
    _, err = _run("sessions", "--json")
    assert err.startswith("ctxviz: 1 session records no token usage, not listed: ")


def _row(out: str, name: str) -> str:
    """A /context row: its name, then its figures, whatever the layout puts beside it."""
    line = next(line for line in out.splitlines() if f"{name} " in line and "tokens" in line)
    return " ".join(line[line.index(name) :].split())


def test_context_at_80_columns_cuts_no_figure(home: Path) -> None:
    files = every_agent(home)
    out, _ = _run("context", str(files["codex"]), env=NARROW)
    assert max(len(line) for line in out.splitlines()) <= 80
    assert _row(out, "⛁ System prompt") == "⛁ System prompt ~16.3k tokens 6.3%"
    assert _row(out, "⛝ Autocompact buffer") == "⛝ Autocompact buffer 13.6k tokens 5.3%"
    # the items' "since" column, whole, in one unit: the session's one measured call, and what came after it
    assert out.count(" after call 1 \n") == 9 and out.count(" call 1 \n") == 10
    gemini, _ = _run("context", str(files["gemini-cli"]), env=NARROW)  # a 1M window
    assert max(len(line) for line in gemini.splitlines()) <= 80
    assert _row(gemini, "⛁ System prompt") == "⛁ System prompt ~11.8k tokens 1.1%"
    assert _row(gemini, "⛝ Autocompact buffer") == "⛝ Autocompact buffer 524k tokens 50.0%"


def test_a_size_before_any_measured_call_is_marked_as_an_estimate(home: Path) -> None:
    files = every_agent(home)
    out, _ = _run("context", str(files["codex"]), env=NARROW)
    assert "Compactions so far (automatic or not: not recorded)\n" in out  # a rollout does not say
    assert "  compaction before the first call: ~0 → ~0 tokens" in out
    assert "  compaction after call 1: 16,341 → ~16,341 tokens" in out  # right after the measured call
    assert "  compaction after call 1: ~16,341 → ~16,434 tokens" in out  # after another compaction's estimate
    data = json.loads(_run("context", str(files["codex"]), "--json")[0])
    assert [c["before_measured"] for c in data["compactions"]] == [False, True, False, False, False, False, False]
    grok, _ = _run("context", str(files["grok-build"]), env=NARROW)
    assert grok.startswith("model not recorded · ~9.8k/256k tokens (4%)  estimated")
    # no calls to count; the size before is the log's own tokens_before (218,500 in the fixture's compaction)
    assert "  auto at step 2: 218,500 → ~9,800 tokens  (before: as the agent recorded it;" in grok


def test_a_codex_tool_call_is_labelled_by_its_command() -> None:
    assert _command('{"command":["bash","-lc","ls -la"],"workdir":"/tmp"}') == "bash -lc ls -la"
    assert _command('{"cmd":"git status"}') == "git status"
    assert _command("*** Begin Patch\n*** Update File: a.py") == "*** Begin Patch"  # apply_patch's raw input
    assert _command('{"path":"a.py"}') == ""


def test_the_codex_steps_name_the_shell_command(home: Path) -> None:
    files = every_agent(home)
    data = json.loads(_run("context", str(files["codex"]), "--json", "--at", "1")[0])
    assert {item["label"] for item in data["items"] if item["kind"] == "tool-output"} == {"shell ls"}


def test_session_by_the_short_id_sessions_prints_for_each_agent(home: Path) -> None:
    files = every_agent(home)
    out, _ = _run("sessions", env={"COLUMNS": "140"})
    short_ids = {line.split()[0]: line.split()[2] for line in out.splitlines()[1:]}
    assert short_ids["gemini-cli"] == "gemini_s"  # its id, not its file's name
    for agent, short in short_ids.items():
        data = json.loads(_run("context", "--session", short, "--json")[0])
        assert data["file"] == str(files[agent]), agent


def test_grok_build_turn_notes_count_calls_in_the_right_number(home: Path) -> None:
    from ctxviz.transcripts import open_transcript

    timeline = open_transcript(every_agent(home)["grok-build"])
    notes = [n for s in timeline.steps for n in s.notes if n.startswith("the turn's")]
    assert notes[-1] == "the turn's 1 model call read 12,020 input tokens in all (a sum over calls, not a context size)"
    assert notes[0].startswith("the turn's 2 model calls read 30,412 input tokens")


def test_the_tui_context_view_marks_a_transcripts_split_as_estimated(home: Path) -> None:
    from rich.console import Console

    from ctxviz.transcripts import open_transcript
    from ctxviz.tui.renderables.context import context_view
    from ctxviz.tui.segments import SegmentTotals

    timeline = open_transcript(every_agent(home)["codex"])
    live = timeline.state_at(1)
    console = Console(width=80, record=True, color_system=None)
    console.print(context_view(timeline, 1, live, SegmentTotals(timeline).at(1), {}))
    text = console.export_text()
    assert "16,341/258k tokens" in text and "(6%, measured) at step 1" in text  # the total: measured
    assert "⛁ System prompt: ~16.3k tokens (6.3%)" in text  # its split: estimated
    assert "⛶ Free space: 228k tokens (88.4%)" in text
    assert "└ Tool output: ~6 tokens" in text and "└ shell ls: ~6 tokens" in text


def test_an_opencode_sessions_size_is_its_own_not_its_first_files_or_the_databases(home: Path) -> None:
    every_agent(home)
    rows = json.loads(_run("sessions", "--json", "--agent", "opencode")[0])
    # session file 272 + its 4 message files + the parts of those messages: 3,640 bytes (not the 272 alone)
    assert [(r["session"], r["bytes"]) for r in rows] == [("s_stage0_large", 3_640)]
    database = home / ".local" / "share" / "opencode" / "opencode.db"
    database.write_bytes((OTHERS / "opencode" / "synthetic-db" / "opencode.db").read_bytes())
    rows = json.loads(_run("sessions", "--json", "--agent", "opencode")[0])
    assert database.stat().st_size > 30_000
    assert [(r["session"], r["bytes"]) for r in rows] == [("s_stage0_large", 2_383)]  # its records' data


@pytest.mark.parametrize("agent", ["pi", "grok-build"])
def test_context_and_sessions_give_the_same_recorded_size_before_a_compaction(home: Path, agent: str) -> None:
    """The size before a compaction that the agent wrote in its log (pi's tokensBefore, grok-build's
    tokens_before) is a field of the step: `context --json` gives it as `sessions --json` does."""
    files = every_agent(home)
    recorded = {"pi": "tokensBefore", "grok-build": "tokens_before"}[agent]
    logged = [
        value
        for line in files[agent].read_text().splitlines()
        if recorded in line
        for value in _values_of(json.loads(line), recorded)
    ]
    context = json.loads(_run("context", str(files[agent]), "--json")[0])
    rows = [r for r in json.loads(_run("sessions", "--json", "--agent", agent)[0])]
    assert logged  # the fixture records the figure
    assert [c["pre_tokens"] for c in context["compactions"]] == logged
    assert [c["pre_tokens"] for c in rows[0]["compactions"]] == logged


def _values_of(record: object, key: str) -> list[int]:
    if isinstance(record, dict):
        found = [record[key]] if isinstance(record.get(key), int) else []
        return found + [v for value in record.values() for v in _values_of(value, key)]
    if isinstance(record, list):
        return [v for value in record for v in _values_of(value, key)]
    return []
