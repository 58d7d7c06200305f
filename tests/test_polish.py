"""Small fixes to what the commands say: help texts, hints and labels that must hold for every agent."""

from __future__ import annotations

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
    assert 'cmp counts the compactions: "2a" is two automatic ones, "1m" one /compact.' in text
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
