"""What a new user's first run of every command turned up: tables that fit 80 columns, usage errors
that exit 2, and messages that name the command and the way out."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from ctxviz.cli import COMMAND_MODULES, load_command, main

FIXTURES = Path(__file__).parent / "fixtures"
SPOTTER = FIXTURES / "claude-code/spotter-4d5611e5/4d5611e5-241a-462a-8d15-5122611a9569.jsonl"
CODEX_TWO_MODELS = FIXTURES / "other-agents/codex/ccusage-session-alpha.jsonl"
PI = FIXTURES / "other-agents/pi/synthetic-branch-compaction.jsonl"


def _root_with_two_sessions(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))  # no session of the machine's own
    for name in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME", "XDG_DATA_HOME", "PI_CODING_AGENT_DIR"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.delenv("GROK_HOME", raising=False)
    root = tmp_path / "root"
    (root / "claude").mkdir(parents=True)
    (root / "codex").mkdir()
    shutil.copy(SPOTTER, root / "claude")
    shutil.copy(CODEX_TWO_MODELS, root / "codex")
    return root


@pytest.mark.parametrize("columns", [80, 89, 90, 120])
def test_the_sessions_table_keeps_every_number_within_the_terminal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, columns: int
) -> None:
    root = _root_with_two_sessions(tmp_path, monkeypatch)
    result = CliRunner().invoke(main, ["sessions", "--root", str(root)], env={"COLUMNS": str(columns)})
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert len(lines) == 3
    assert max(len(line) for line in lines) <= columns
    assert lines[0].split()[-6:] == ["calls", "peak", "last", "cmp", "sub", "size"]
    spotter = next(line for line in lines if "4d5611e5" in line)
    assert spotter.split()[-6:] == ["139", "165k", "106k", "1a", "1", "3.2M"]
    codex = next(line for line in lines if "ccusage-" in line)
    assert codex.split()[-6:] == ["2", "2.5k", "2.5k", "–", "0", "<1k"]  # 899 bytes: under 1k, not "1k"
    # the start keeps its time of day from 90 columns on; below, the date only
    assert ("02-12 16:02" in spotter) is (columns >= 90)


@pytest.mark.parametrize(("columns", "spotter_start", "codex_start"), [(80, "26-02-12", "25-05-13"),
                                                                       (120, "2026-02-12", "2025-05-13")])  # fmt: skip
def test_sessions_of_two_years_show_the_year(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, columns: int, spotter_start: str, codex_start: str
) -> None:
    root = _root_with_two_sessions(tmp_path, monkeypatch)
    last_year = root / "codex" / CODEX_TWO_MODELS.name
    last_year.write_text(CODEX_TWO_MODELS.read_text(encoding="utf-8").replace('"2026-', '"2025-'), encoding="utf-8")
    result = CliRunner().invoke(main, ["sessions", "--root", str(root)], env={"COLUMNS": str(columns)})
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert max(len(line) for line in lines) <= columns
    codex, spotter = lines[1:]  # oldest first
    assert f" {codex_start} " in codex and f" {spotter_start} " in spotter
    assert "16:02" not in spotter  # the year takes the time of day's place


def test_an_unknown_agent_is_a_usage_error_in_agents_and_sessions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _root_with_two_sessions(tmp_path, monkeypatch)
    named = CliRunner().invoke(main, ["agents", "nosuch"])
    assert named.exit_code == 2
    assert "unknown agent 'nosuch'; expected one of claude-code, codex" in named.output
    listed = CliRunner().invoke(main, ["sessions", "--agent", "nosuch", "--root", str(root)])
    assert listed.exit_code == 2
    assert "no reader for agent 'nosuch'; choose one of: claude-code, codex, cursor" in listed.output
    only_codex = CliRunner().invoke(main, ["sessions", "--agent", "codex", "--root", str(root), "--json"])
    assert only_codex.exit_code == 0, only_codex.output
    assert '"agent": "codex"' in only_codex.stdout and "claude-code" not in only_codex.stdout


def test_the_agents_table_never_cuts_an_agent_name_at_80_columns() -> None:
    result = CliRunner().invoke(main, ["agents", "--no-numbers"], env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    for table in result.stdout.split("When each compacts"):  # the profiles, then each one's rule
        rows = [line.split()[0] for line in table.splitlines() if line.startswith(" ") and line[1] != " "]
        names = [name for name in rows if name != "agent"]
        assert names == ["claude-code", "codex", "gemini-cli", "opencode", "pi", "grok-build", "cursor", "paimon"]


def test_import_on_another_agents_session_makes_a_scenario_of_that_agent() -> None:
    result = CliRunner().invoke(main, ["import", str(PI)])
    assert result.exit_code == 0, result.output
    assert "\nagent: pi\n" in result.stdout


@pytest.mark.parametrize("command", ["run", "validate", "compare"])
def test_a_bare_word_that_is_no_file_points_at_the_built_in_names(command: str, tmp_path: Path) -> None:
    result = CliRunner().invoke(main, [command, "mention-mith"])
    assert result.exit_code == 1
    assert result.output.strip() == (
        "mention-mith: cannot read the scenario: No such file or directory; "
        "not a built-in scenario's name either (`ctxviz scenarios` lists them)"
    )
    missing = tmp_path / "missing.yaml"  # a path is a path: no hint about names
    result = CliRunner().invoke(main, [command, str(missing)])
    assert result.exit_code == 1
    assert result.output.strip() == f"{missing}: cannot read the scenario: No such file or directory"


@pytest.mark.parametrize("command", ["context", "fidelity", "import", "run"])
def test_a_compressed_session_reads_as_its_decompressed_copy(command: str, tmp_path: Path) -> None:
    """Its subagents' files too, compressed under its folder as the session is."""
    import gzip

    session = "8463c716-a2ea-4c14-9efa-87158ebd9f20"
    shutil.copytree(FIXTURES / "claude-code/spotter-shrunk", tmp_path / "packed", ignore=_other_than(session))
    shutil.copytree(tmp_path / "packed", tmp_path / "plain")
    for file in (tmp_path / "plain").rglob("*.gz"):
        file.with_suffix("").write_bytes(gzip.decompress(file.read_bytes()))
        file.unlink()
    packed, plain = tmp_path / "packed" / f"{session}.jsonl.gz", tmp_path / "plain" / f"{session}.jsonl"
    from_packed = CliRunner().invoke(main, [command, str(packed)])
    from_plain = CliRunner().invoke(main, [command, str(plain)])
    assert from_packed.exit_code == 0, from_packed.output
    assert from_packed.output.replace(str(packed), str(plain)) == from_plain.output


def _other_than(session: str) -> Callable[[str, list[str]], set[str]]:
    """For ``copytree``: every other session's file and folder left out."""
    return lambda folder, names: {name for name in names if folder.endswith("spotter-shrunk") and session not in name}


def test_a_damaged_compressed_session_says_so(tmp_path: Path) -> None:
    packed = FIXTURES / "claude-code/spotter-shrunk/8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl.gz"
    cut = tmp_path / "cut.jsonl.gz"
    cut.write_bytes(packed.read_bytes()[:200])  # the gzip stream ends before its end marker
    result = CliRunner().invoke(main, ["context", str(cut)])
    assert result.exit_code == 1
    assert result.output.startswith(f"{cut}: cannot read: ") and "Traceback" not in result.output


def _readme_command_rows() -> list[tuple[str, set[str]]]:
    """Each row of the README's command table: the command named first, and every option its first cell shows."""
    import re

    readme = (Path(__file__).parents[1] / "README.md").read_text(encoding="utf-8")
    rows = []
    for line in readme.splitlines():
        if not line.startswith("| `ctxviz"):
            continue
        usage = line.split(" | ")[0]
        names = re.findall(r"`ctxviz ?([a-z]*)", usage)
        rows.append((names[0], set(re.findall(r"(?<![\w-])(--?[a-z][a-z-]*)", usage))))
    return rows


def test_the_readme_command_table_names_every_command_and_only_real_options() -> None:
    rows = _readme_command_rows()
    assert {name for name, _ in rows} == {"", *COMMAND_MODULES}  # "": the bare `ctxviz`
    for name, options in rows:
        command = load_command(name) or main
        known = {opt for param in command.params for opt in (*param.opts, *param.secondary_opts)}
        assert options <= known, (name, options - known)


def test_run_with_a_what_if_says_so_in_its_table_and_its_json() -> None:
    import json

    table = CliRunner().invoke(main, ["run", "mention-myth", "--set", "window=1m", "--set", "drop=3"])
    assert table.exit_code == 0, table.output
    assert "! what-if: window=1m, drop=3\n" in table.stdout
    written = CliRunner().invoke(main, ["run", "mention-myth", "--json"])
    what_if = CliRunner().invoke(main, ["run", "mention-myth", "--set", "window=1m", "--json"])
    assert json.loads(written.stdout)["notices"] == []
    assert json.loads(what_if.stdout)["notices"] == ["what-if: window=1m"]
    assert json.loads(what_if.stdout)["window"] == 1_000_000


def test_statusline_debug_says_why_no_call_is_shown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import io
    import json
    import sys

    from ctxviz.live import statusline

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    other = FIXTURES / "other-agents/codex/agent-sessions_codex_051_usage.jsonl"  # turn totals only: no call
    stdin = json.dumps({"transcript_path": str(other)}).encode()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin)))
    assert statusline.run(["--debug"]) == 0
    out, err = capsys.readouterr()
    assert out == "ctxviz: no API call yet\n"
    assert f"ctxviz statusline: {other}: no API call with usage recorded in it yet\n" in err


def test_the_tokenizer_label_does_not_call_every_model_claude() -> None:
    import json

    result = CliRunner().invoke(main, ["run", "mention-myth", "--agent", "codex", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["tokenizer"] == "cl100k_base (an estimate of the model's own tokenizer)"


def test_the_readme_lists_every_built_in_scenario() -> None:
    import re

    from ctxviz.sources import builtin_scenarios

    readme = (Path(__file__).parents[1] / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Built-in scenarios", 1)[1].split("\n## ", 1)[0]
    listed = re.findall(r"^\| `([a-z0-9-]+)`", section, flags=re.MULTILINE)
    assert sorted(listed) == sorted(path.stem for path in builtin_scenarios())


def test_every_command_is_loaded_from_the_module_the_table_names_and_no_command_is_missing() -> None:
    import importlib
    import pkgutil

    import ctxviz.cli

    defined = {}
    for module in pkgutil.iter_modules(ctxviz.cli.__path__):
        if module.name.endswith("_commands"):
            for command in importlib.import_module(f"ctxviz.cli.{module.name}").COMMANDS:
                defined[command.name] = module.name
    assert defined == COMMAND_MODULES
    assert all(load_command(name).name == name for name in COMMAND_MODULES)  # type: ignore[union-attr]
    assert load_command("no-such-command") is None


def test_a_command_imports_no_other_command_module() -> None:
    import subprocess
    import sys

    code = (
        "import sys; from click.testing import CliRunner; from ctxviz.cli import main; "
        "CliRunner().invoke(main, ['sessions', '--help']); "
        "print(sorted(m for m in sys.modules if m.startswith('ctxviz.cli.')))"
    )
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert loaded.strip() == "['ctxviz.cli.common', 'ctxviz.cli.transcript_commands']"
