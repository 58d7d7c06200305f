"""What walking every command over every log and over hostile input turned up
(benchmarks/walk_commands.py): the same kind of bad input gets the same exit code and a message that
names the file, whichever command was given it."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from ctxviz.cli import main

FIXTURES = Path(__file__).parent / "fixtures"
CLAUDE = FIXTURES / "claude-code/spotter-misc/short.jsonl"


@pytest.mark.parametrize("command", ["context", "import", "fidelity", "audit", "run", "compare", "watch"])
def test_a_folder_given_as_the_session_is_bad_input_in_every_command(command: str, tmp_path: Path) -> None:
    folder = tmp_path / "a-folder"
    folder.mkdir()
    result = CliRunner().invoke(main, [command, str(folder)])
    assert result.exit_code == 1, result.output
    assert "a-folder" in result.stderr and "folder" in result.stderr.replace("a-folder", "")


def test_a_folder_as_the_price_table_is_bad_input(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["audit", str(CLAUDE), "--prices", str(tmp_path)])
    assert result.exit_code == 1, result.output
    assert str(tmp_path) in result.stderr
