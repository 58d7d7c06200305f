"""What walking every command over every log and over hostile input turned up
(benchmarks/walk_commands.py): the same kind of bad input gets the same exit code and a message that
names the file, whichever command was given it."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from ctxviz.cli import COMMAND_MODULES, load_command, main

FIXTURES = Path(__file__).parent / "fixtures"
CLAUDE = FIXTURES / "claude-code/spotter-misc/short.jsonl"


@pytest.mark.parametrize("command", ["context", "import", "fidelity", "audit", "run", "compare", "watch", "validate"])
def test_a_folder_given_as_the_session_is_bad_input_in_every_command(command: str, tmp_path: Path) -> None:
    given = tmp_path / "given"
    given.mkdir()
    result = CliRunner().invoke(main, [command, str(given)])
    assert result.exit_code == 1, result.output
    assert result.stderr.startswith(f"{given}: ")
    assert "a folder" in result.stderr.removeprefix(str(given))


def test_a_folder_as_the_price_table_is_bad_input(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["audit", str(CLAUDE), "--prices", str(tmp_path)])
    assert result.exit_code == 1, result.output
    assert str(tmp_path) in result.stderr


def test_a_log_written_as_one_json_array_says_so_with_its_line(tmp_path: Path) -> None:
    records = [json.loads(line) for line in CLAUDE.read_text(encoding="utf-8").splitlines()]
    array = tmp_path / "array.jsonl"
    array.write_text(json.dumps(records, indent=2), encoding="utf-8")
    result = CliRunner().invoke(main, ["context", str(array)])
    assert result.exit_code == 1, result.output
    assert "expected one JSON object a line" in result.stderr
    assert f"{array}:1: a JSON array, not a JSON object" in result.stderr


def test_junk_says_what_was_expected_and_where_it_first_failed(tmp_path: Path) -> None:
    junk = tmp_path / "junk.jsonl"
    junk.write_bytes(b"x" * 5000)  # one line, no newline: not a record cut short
    result = CliRunner().invoke(main, ["context", str(junk)])
    assert result.exit_code == 1, result.output
    assert result.stderr.startswith(f"{junk}: no readable Claude Code records in 1 line (expected one JSON object")
    assert f"{junk}:1: not a JSON object" in result.stderr


@pytest.mark.parametrize("name", sorted(COMMAND_MODULES))
def test_every_option_says_what_it_does_and_names_its_value(name: str) -> None:
    """Each option has a sentence of help, and a value named for what it is (N, ID, NAME), never click's
    type name (TEXT, INTEGER)."""
    command = load_command(name)
    assert command is not None
    for param in command.params:
        if not isinstance(param, click.Option) or param.hidden:
            continue
        assert param.help, f"{name} {param.opts[0]} has no help"
        if not param.is_flag and param.type.name in ("text", "integer"):
            assert param.metavar, f"{name} {param.opts[0]} shows its value as {param.type.name.upper()}"


@pytest.mark.parametrize("command", ["context", "audit"])
def test_a_negative_top_is_a_usage_error_not_all_but_the_last(command: str) -> None:
    result = CliRunner().invoke(main, [command, str(CLAUDE), "--top", "-2"])
    assert result.exit_code == 2, result.output
    assert "--top" in result.stderr


def test_watch_refuses_another_agents_session_named_as_this_agents() -> None:
    """--agent names the reader of a file that tells no agent yet; a Codex rollout read as pi's showed no
    call and waited for ever."""
    codex = FIXTURES / "other-agents/codex/ccusage-session-alpha.jsonl"
    done = subprocess.run(
        [sys.executable, "-m", "ctxviz", "watch", str(codex), "--agent", "pi"],
        capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=60,
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    assert done.stderr.startswith(f"{codex}: a codex session, not pi's")


@pytest.mark.parametrize("command", ["import", "fidelity"])
def test_a_damaged_line_is_warned_of_by_import_and_fidelity_alike(command: str, tmp_path: Path) -> None:
    lines = CLAUDE.read_bytes().splitlines(keepends=True)
    damaged = tmp_path / "damaged.jsonl"
    damaged.write_bytes(b"".join([lines[0], b"\xff not a record\n", *lines[1:]]))
    result = CliRunner().invoke(main, [command, str(damaged)])
    assert result.exit_code == 0, result.output
    assert f"warning: {damaged}:2: " in result.stderr


CUT_FIGURE = re.compile(r"\d…")  # a number that lost its last digits to the width
WIDE_CUT_SESSION = FIXTURES / "claude-code/entireio-shrunk/76-62d755ef9f.jsonl.gz"  # +93,386 −117,462 at once


@pytest.mark.parametrize(
    "args",
    [["agents", "--no-numbers"], ["compare", str(WIDE_CUT_SESSION), "--table", "--agents", "claude-code,codex"]],
)
def test_no_figure_is_cut_at_80_columns(args: list[str]) -> None:
    result = CliRunner().invoke(main, args, env={"COLUMNS": "80", "NO_COLOR": "1"})
    assert result.exit_code == 0, result.output
    assert not CUT_FIGURE.findall(result.stdout), [line for line in result.stdout.splitlines() if "…" in line][:5]
    assert max(len(line) for line in result.stdout.splitlines()) <= 80


def test_compare_replays_a_session_kept_as_json_as_run_reads_it() -> None:
    """gemini-cli keeps a chat as one .json file: compare took it for a scenario missing its name."""
    gemini = FIXTURES / "other-agents/gemini-cli/agent-sessions_large.json"
    result = CliRunner().invoke(main, ["compare", str(gemini), "--table", "--agents", "gemini-cli"])
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("agent-sessions_large · ")


def test_fidelity_names_every_column_in_full_at_80_columns() -> None:
    codex = FIXTURES / "other-agents/codex/agent-sessions_stage0_small.jsonl"  # seven compactions recorded
    result = CliRunner().invoke(main, ["fidelity", str(codex)], env={"COLUMNS": "80", "NO_COLOR": "1"})
    assert result.exit_code == 0, result.output
    assert "…" not in result.stdout


def test_the_command_list_says_what_each_does_whole_on_one_line() -> None:
    """click cuts a command's first sentence at about 45 characters ('Replay SCENARIO (a file, a...')."""
    result = CliRunner().invoke(main, ["--help"], env={"COLUMNS": "80"})
    listed = result.stdout.split("Commands:\n")[1].splitlines()
    assert len(listed) == len(COMMAND_MODULES), listed
    assert not [line for line in listed if line.endswith("...")]


def test_one_call_is_said_in_the_singular() -> None:
    codex = FIXTURES / "other-agents/codex/agent-sessions_stage0_small.jsonl"  # one call
    result = CliRunner().invoke(main, ["fidelity", str(codex)], env={"COLUMNS": "200", "NO_COLOR": "1"})
    assert result.exit_code == 0, result.output
    assert ": 1 call replayed under codex" in result.stdout and "1 calls" not in result.stdout
    truncated = CliRunner().invoke(main, ["validate", str(CLAUDE)])  # its one call, as a step
    assert "1 steps" not in truncated.stdout and ": ok — 1 step," in truncated.stdout


@pytest.mark.parametrize("command", ["context", "audit", "run", "play"])
def test_agent_with_a_session_file_is_one_usage_error_in_every_command(command: str) -> None:
    """--agent chooses sessions (context, audit) or replays a scenario (run, play): with a session file
    alone it applies to nothing, and every command says so the same way (exit 2)."""
    codex = FIXTURES / "other-agents/codex/ccusage-session-alpha.jsonl"
    result = CliRunner().invoke(main, [command, str(codex), "--agent", "pi"])
    assert result.exit_code == 2, result.output
    assert "--agent" in result.stderr


def test_one_call_and_one_event_are_said_in_the_singular_by_audit_context_and_compare() -> None:
    gemini = str(FIXTURES / "other-agents/gemini-cli/agent-sessions_large.json")  # one call, one event
    said = {
        "): 1 call sent 100 input tokens": ["audit", gemini],
        "(tokens × calls; 1 call sent": ["context", gemini],
        "agent-sessions_large · 1 event · 1 run": ["compare", gemini, "--table", "--agents", "gemini-cli"],
    }
    for words, args in said.items():
        result = CliRunner().invoke(main, args, env={"COLUMNS": "200"})
        assert result.exit_code == 0, result.output
        assert words in result.stdout and "1 calls" not in result.stdout, args


GROK_COMPACTED = (
    FIXTURES / "other-agents/grok-build/synthetic/sessions/%2Ftmp%2Fdemo/019f7000-aaaa-7bbb-8ccc-000000000001"
)


@pytest.mark.parametrize("command", ["import", "compare"])
def test_a_grok_build_session_with_a_compaction_imports(command: str, tmp_path: Path) -> None:
    """The import wrote each compaction's summary for a profile that has one summary size only: the scenario
    failed to validate, naming a file that does not exist."""
    args = [command, str(GROK_COMPACTED / "updates.jsonl")] + (["-o", str(tmp_path / "s.yaml")] * (command == "import"))
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    if command == "import":
        written = (tmp_path / "s.yaml").read_text()
        assert "summary_each" not in written.split("\nname:")[1]
        assert "# The grok-build profile takes no summary_each" in written
