"""Small fixes to what the commands say: help texts, hints and labels that must hold for every agent."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from ctxviz.cli import main


def _help(command: str) -> str:
    result = CliRunner().invoke(main, [command, "--help"], env={"COLUMNS": "80"})
    assert result.exit_code == 0
    return result.output


def test_sessions_help_explains_the_cmp_column_and_the_estimate_mark() -> None:
    text = " ".join(_help("sessions").split())
    assert 'cmp counts the compactions: "2a" is two automatic ones, "1m" one /compact, "1?" one whose' in text
    assert 'A "~" before peak and last marks estimates' in text


@pytest.mark.parametrize(
    ("command", "suggests"),
    [("run", False), ("compare", False), ("play", True), ("fidelity", True), ("import", True)],
)
def test_a_folder_named_as_a_session_suggests_only_options_the_command_has(
    command: str, suggests: bool, tmp_path: Path
) -> None:
    folder = tmp_path / "folder.jsonl"
    folder.mkdir()
    result = CliRunner().invoke(main, [command, str(folder)])
    assert result.exit_code == 1
    assert result.stderr.startswith(f"{folder}: a folder; give a session's")
    assert ("(or use --session / --latest)" in result.stderr) is suggests
    assert "--latest" in _help(command) or not suggests


def test_statusline_help_fits_80_columns_and_names_every_field() -> None:
    from ctxviz.live.statusline import DEFAULT_FORMAT, FIELDS

    text = _help("statusline")
    assert max(len(line) for line in text.splitlines()) < 80
    fields = " ".join(text.split()).partition("Fields in braces: ")[2].partition(".")[0]
    assert fields.split(", ") == list(FIELDS)
    assert f'"{DEFAULT_FORMAT}"' in text


OTHER_AGENTS = Path(__file__).parent / "fixtures" / "other-agents"
CODEX = OTHER_AGENTS / "codex" / "agent-sessions_stage0_small.jsonl"
PI = OTHER_AGENTS / "pi" / "synthetic-branch-compaction.jsonl"


@pytest.mark.parametrize(("session", "cmp", "at_calls"), [(CODEX, "7?", [0, 1, 1, 1, 1, 1, 1]), (PI, "1?", [4])])
def test_a_compaction_whose_transcript_does_not_say_how_it_came_is_not_called_automatic(
    session: Path, cmp: str, at_calls: list[int], tmp_path: Path
) -> None:
    folder = tmp_path / "sessions"
    folder.mkdir()
    (folder / session.name).write_bytes(session.read_bytes())
    listed = CliRunner().invoke(main, ["sessions", "--root", str(folder), "--json", "--no-cache"])
    (row,) = json.loads(listed.stdout)
    assert [(c["trigger"], c["at_call"]) for c in row["compactions"]] == [("unknown", n) for n in at_calls]
    table = CliRunner().invoke(main, ["sessions", "--root", str(folder), "--no-cache"], env={"COLUMNS": "100"})
    assert f" {cmp} " in table.stdout.splitlines()[-1]
    context = CliRunner().invoke(main, ["context", str(session)], env={"COLUMNS": "200"})
    last = at_calls[-1]
    assert "Compactions so far (automatic or not: not recorded)\n" in context.stdout
    assert f"  compaction after call {last}: " in context.stdout
    assert " auto after" not in context.stdout
    as_json = json.loads(CliRunner().invoke(main, ["context", str(session), "--json"]).stdout)
    assert {c["trigger"] for c in as_json["compactions"]} == {"unknown"}
