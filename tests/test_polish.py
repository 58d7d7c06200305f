"""Small fixes to what the commands say: help texts, hints and labels that must hold for every agent."""

from __future__ import annotations

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
