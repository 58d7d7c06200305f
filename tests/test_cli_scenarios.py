"""The headless scenario commands: run (table and JSON), validate, scenarios, schema; exit codes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from ctxviz.cli import main
from ctxviz.report.json import FORMAT
from ctxviz.sources import builtin_scenarios

ROOT = Path(__file__).resolve().parents[1]


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.parametrize("name", [p.stem for p in builtin_scenarios()])
def test_run_and_json_work_on_every_builtin(name: str) -> None:
    code, out, _ = invoke("run", name)
    assert code == 0
    assert "Autocompact buffer" in out and "Free space" in out
    code, out, _ = invoke("run", name, "--json")
    assert code == 0
    document = json.loads(out)
    assert document["format"] == FORMAT
    last = document["steps"][-1]
    assert document["at"] == last["index"]
    breakdown = document["breakdown"]
    categories = sum(v for k, v in breakdown.items() if k not in ("Free space", "Autocompact buffer"))
    assert categories == last["used"]
    at = last["index"]
    live = [b for b in document["blocks"] if b["entered"] <= at and (b["left"] is None or b["left"] > at)]
    assert sum(b["tokens"] for b in live) == last["used"]


def test_json_is_byte_identical_across_processes() -> None:
    command = [sys.executable, "-m", "ctxviz", "run", "explore-context-window", "--json"]
    first = subprocess.run(command, capture_output=True, check=True, cwd=ROOT).stdout
    second = subprocess.run(command, capture_output=True, check=True, cwd=ROOT).stdout
    assert first == second and len(first) > 10_000


def test_run_at_a_step_gives_that_steps_breakdown() -> None:
    code, out, _ = invoke("run", "explore-context-window", "--json", "--at", "7")
    document = json.loads(out)
    assert code == 0 and document["at"] == 7
    # after the seven docs startup blocks and the tool definitions
    assert sum(v for k, v in document["breakdown"].items() if k not in ("Free space", "Autocompact buffer")) == 21_350
    assert document["breakdown"]["Free space"] == 200_000 - 21_350 - 33_000


def test_run_table_shows_steps_and_why_notes() -> None:
    code, out, _ = invoke("run", "explore-context-window", "--why")
    assert code == 0
    assert "api-conventions.md loaded (380 tokens)" in out
    assert "/compact" in out and "35,725" in out and "31,025" in out


def test_exit_codes() -> None:
    assert invoke("run", "no-such-scenario")[0] == 1
    assert invoke("run", "explore-context-window", "--at", "999")[0] == 2
    assert invoke("run")[0] == 2
    assert invoke("frobnicate")[0] == 2


def test_bad_scenario_prints_located_errors_not_a_traceback(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: t\nevents:\n  - read: nowhere.py\n")
    code, out, err = invoke("run", str(bad))
    assert code == 1
    assert f"{bad}:3:5: events[0].read: unknown file 'nowhere.py'" in err
    assert "Traceback" not in out + err


def test_validate_reports_each_file(tmp_path: Path) -> None:
    good = tmp_path / "good.yaml"
    good.write_text("name: t\nevents:\n  - reply: 10\n")
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: t\nevents:\n  - reply: -1\n")
    code, out, err = invoke("validate", str(good), str(bad))
    assert code == 1
    assert f"{good}: ok" in out
    assert f"{bad}:3:5: events[0].reply: a size cannot be negative (got -1)" in err
    assert invoke("validate", str(good))[0] == 0


def test_scenarios_lists_the_builtins() -> None:
    code, out, _ = invoke("scenarios", "--json")
    rows = json.loads(out)
    assert code == 0
    assert [r["name"] for r in rows] == [p.stem for p in builtin_scenarios()]
    assert [r["name"] for r in rows if r["default"]] == ["explore-context-window"]


def test_schema_is_a_json_schema_for_the_format() -> None:
    code, out, _ = invoke("schema")
    schema = json.loads(out)
    assert code == 0
    assert schema["title"] == "ctxviz scenario"
    assert {"name", "events", "setup", "files", "profile"} <= set(schema["properties"])
    read = schema["$defs"]["ReadEvent"]["properties"]["read"]
    assert {"type": "string"} in read["anyOf"]  # the `read: path` shorthand validates in editors
    assert "read_max_lines" in schema["properties"]["profile"]["properties"]


def test_chars4_tokenizer_is_labelled(tmp_path: Path) -> None:
    scenario = tmp_path / "s.yaml"
    scenario.write_text("name: t\nevents:\n  - prompt: 'abcdefgh'\n")
    code, out, _ = invoke("--tokenizer", "chars4", "run", str(scenario), "--json")
    document = json.loads(out)
    assert code == 0 and document["tokenizer"] == "chars/4 estimate"
    prompt = next(b for b in document["blocks"] if b["kind"] == "prompt")
    assert prompt["tokens"] == 2
