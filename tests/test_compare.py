"""``ctxviz compare``: runs aligned by scenario event, the JSON document, the tables, and bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from ctxviz.cli import main
from ctxviz.profiles import AGENT_NAMES, get_profile
from ctxviz.report.compare_json import FORMAT
from ctxviz.report.compare_runs import (
    STARTUP,
    RunSpec,
    cell,
    compactions_of,
    compare,
    parse_run_specs,
    widest_event,
)
from ctxviz.report.json import FORMAT as TIMELINE_FORMAT
from ctxviz.scenario.model import Scenario
from ctxviz.sources import builtin_scenarios, open_replayable
from ctxviz.whatif import Settings, parse_settings

CLAUDE = get_profile("claude-code").numbers
TINY = """\
name: Tiny
files:
  a.py: 1000
events:
  - prompt: {text: fix the bug, size: 3}
  - read: a.py
  - bash: {command: pytest, output: {chars: 61000}}
  - reply: 500
"""
PREVIEW = CLAUDE.spill_preview_bytes // CLAUDE.chars_per_token + CLAUDE.spill_wrapper  # 2,000 bytes as tokens + wrapper


@pytest.fixture
def tiny_file(tmp_path: Path) -> Path:
    path = tmp_path / "tiny.yaml"
    path.write_text(TINY, encoding="utf-8")
    return path


def tiny() -> Scenario:
    import yaml

    return Scenario.model_validate(yaml.safe_load(TINY))


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_a_reply_event_has_a_neutral_label_whichever_agent_runs_first(tiny_file: Path) -> None:
    comparison = compare(tiny(), parse_run_specs("codex,claude-code", []), Settings())
    assert comparison.events[3].label == ""  # the kind says reply; each run names its own
    code, out, _ = invoke("compare", str(tiny_file), "--agents", "codex,claude-code", "--table")
    assert code == 0
    assert "3 reply" in " ".join(out.split()) and "reply reply" not in out
    assert "Codex's reply" not in out


def test_runs_line_up_event_by_event_with_exact_numbers() -> None:
    specs = parse_run_specs("claude-code,cap=claude-code,skip=claude-code", [])
    settings = parse_settings(["cap.output_cap=2k", "skip.drop=1"])
    comparison = compare(tiny(), specs, settings)
    base, cap, skip = comparison.runs
    assert [e.kind for e in comparison.events] == ["prompt", "read", "bash", "reply"]
    assert [e.label for e in comparison.events] == ["fix the bug", "a.py", "pytest", ""]
    startup = cell(base, STARTUP).total
    assert startup == CLAUDE.system_prompt + CLAUDE.environment + CLAUDE.tools
    read = 1000 + CLAUDE.tool_call
    assert [cell(base, n).added for n in range(4)] == [3, read, CLAUDE.tool_call + PREVIEW, 500]
    assert [cell(cap, n).added for n in range(4)] == [3, read, CLAUDE.tool_call + 2000, 500]
    assert [cell(skip, n).added for n in range(4)] == [3, 0, CLAUDE.tool_call + PREVIEW, 500]
    assert cell(base, 3).total == startup + 3 + read + CLAUDE.tool_call + PREVIEW + 500
    assert cell(skip, 3).total == cell(base, 3).total - read
    assert cell(base, 2).why == "kept as a 2,000-byte preview (550 tokens)…"
    assert cell(cap, 2).why == ""
    assert cell(skip, 1).why == "left out (what-if drop)"


def test_a_compaction_belongs_to_the_event_that_set_it_off() -> None:
    scenario = tiny().model_copy(update={"autocompact_pct": 11.0})  # 11% of (200,000 − 20,000) = 19,800
    (run,) = compare(scenario, [RunSpec("claude-code", "claude-code")], Settings()).runs
    assert run.timeline.thresholds.autocompact == 19_800
    (found,) = compactions_of(run)
    assert (found.event, found.kind) == (3, "auto-compact")
    startup = CLAUDE.system_prompt + CLAUDE.environment + CLAUDE.tools
    assert found.before == startup + 3 + 1000 + CLAUDE.tool_call + CLAUDE.tool_call + PREVIEW + 500 == 20_153
    assert cell(run, 3).compacted and cell(run, 3).why == "compacted: 9.9% of 200,000"
    assert cell(run, 3).total == found.after
    assert not any(cell(run, n).compacted for n in range(3))


def test_run_specs() -> None:
    assert parse_run_specs(None, ["claude-code"]) == (RunSpec("claude-code", "claude-code"),)
    assert parse_run_specs(" claude-code , big=claude-code", []) == (
        RunSpec("claude-code", "claude-code"),
        RunSpec("big", "claude-code"),
    )


def test_json_document(tiny_file: Path) -> None:
    code, out, _ = invoke(
        "compare", str(tiny_file), "--agents", "claude-code,big=claude-code", "--set", "big.window=1m", "--json"
    )
    assert code == 0
    document = json.loads(out)
    assert document["format"] == FORMAT == "ctxviz.compare/1"
    assert document["scenario"]["name"] == "Tiny" and document["scenario"]["path"] == str(tiny_file)
    assert [e["kind"] for e in document["scenario"]["events"]] == ["prompt", "read", "bash", "reply"]
    assert [(r["label"], r["agent"], r["settings"]) for r in document["runs"]] == [
        ("claude-code", "claude-code", {}),
        ("big", "claude-code", {"window": 1_000_000}),
    ]
    for run in document["runs"]:
        assert run["timeline"]["format"] == TIMELINE_FORMAT
    assert [r["timeline"]["window"] for r in document["runs"]] == [200_000, 1_000_000]
    assert document["runs"][1]["timeline"]["thresholds"]["autocompact"] == 1_000_000 - 20_000 - 13_000


def test_json_is_deterministic(tiny_file: Path) -> None:
    assert invoke("compare", str(tiny_file), "--json")[1] == invoke("compare", str(tiny_file), "--json")[1]


def test_set_without_agents_compares_as_written_with_the_what_if(tiny_file: Path) -> None:
    code, out, _ = invoke("compare", str(tiny_file), "--set", "drop=1", "--json")
    assert code == 0
    runs = json.loads(out)["runs"]
    assert [(r["label"], r["settings"]) for r in runs] == [("as-written", {}), ("what-if", {"drop": [1]})]


def test_tables_name_model_and_window_and_the_compactions(tiny_file: Path) -> None:
    code, out, _ = invoke(
        "compare", "explore-context-window", "--agents", "claude-code,big=claude-code", "--set", "big.window=1m"
    )
    assert code == 0
    assert "claude-sonnet-4-6" in out and "window 200,000" in out and "window 1,000,000" in out
    assert "compacted (manual) at event 16: 35,725 → 31,025" in out
    assert "What-ifs  big: big.window=1m" in out
    assert "Free space" in out and "Autocompact buffer" in out


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["--agents", "claude-code,nobody"], 2, "unknown agent 'nobody'; expected one of claude-code"),
        (["--agents", "claude-code,claude-code"], 2, "the run label 'claude-code' appears twice"),
        (["--agents", "x="], 2, "expected AGENT or LABEL=AGENT in --agents, got 'x='"),
        (["--set", "windw=1m"], 2, "unknown setting 'windw'; valid keys: model, window"),
        (["--set", "window=huge"], 2, "bad value in 'window=huge'"),
        (["--set", "big.window=1m"], 2, "'big' is neither a run label nor an agent of this comparison"),
        (["--set", "drop=9"], 1, "drop=9: the scenario has events 0–3, not 9"),
        (["--agents", "claude-code,codex", "--set", "spill_preview_bytes=4000"], 1, "scope it to the agents"),
    ],
)
def test_bad_input_is_named_and_nothing_is_half_printed(
    tiny_file: Path, args: list[str], code: int, message: str
) -> None:
    exit_code, out, err = invoke("compare", str(tiny_file), *args)
    assert exit_code == code
    assert out == ""
    assert message in err
    assert "Traceback" not in err


def test_missing_scenario_is_bad_input() -> None:
    code, out, err = invoke("compare", "no-such-scenario.yaml")
    assert code == 1 and out == "" and "no-such-scenario.yaml" in err


def test_run_takes_set_and_agent(tiny_file: Path) -> None:
    code, out, _ = invoke("run", str(tiny_file), "--set", "window=1m", "--agent", "claude-code", "--json")
    assert code == 0 and json.loads(out)["window"] == 1_000_000
    code, _, err = invoke("run", str(tiny_file), "--set", "nope=1")
    assert code == 2 and "unknown setting 'nope'" in err
    code, _, err = invoke("run", str(tiny_file), "--set", "drop=4")
    assert code == 1 and err == "drop=4: the scenario has events 0–3, not 4\n"


def test_compare_tui_needs_a_terminal(tiny_file: Path) -> None:
    code, out, err = invoke("compare", str(tiny_file), "--tui")
    assert code == 1 and out == "" and "needs a terminal" in err


def test_every_agent_at_one_mention_gives_its_own_reason() -> None:
    code, out, _ = invoke("compare", "mention-myth", "--json")
    assert code == 0
    document = json.loads(out)
    assert [r["agent"] for r in document["runs"]] == list(AGENT_NAMES)
    loaded = open_replayable("mention-myth", "cl100k")
    comparison = compare(loaded.scenario, parse_run_specs(None, AGENT_NAMES), Settings())
    event = widest_event(comparison)
    assert comparison.events[event].kind == "prompt" and "@src/parser.py" in comparison.events[event].label
    by_agent = {run.agent: cell(run, event) for run in comparison.runs}
    # codex sends the path only: the prompt's own tokens, nothing read
    assert by_agent["codex"].why == "the path only; nothing is read"
    assert by_agent["grok-build"].why.startswith("stub: ~14,293 > 5,000 estimated tokens")
    assert by_agent["claude-code"].added > 12_000 > by_agent["codex"].added


def test_the_table_fits_the_width_and_balances_the_runs(tiny_file: Path) -> None:
    import io

    from rich.console import Console

    from ctxviz.report.compare import comparison_renderable

    loaded = open_replayable("mention-myth", "cl100k")
    comparison = compare(loaded.scenario, parse_run_specs(None, AGENT_NAMES), Settings())
    for width in (80, 160):
        console = Console(file=io.StringIO(), width=width, color_system=None)
        console.print(comparison_renderable(comparison, width))
        lines = console.file.getvalue().splitlines()  # type: ignore[attr-defined]
        assert max(len(line.rstrip()) for line in lines) <= width
    heads = [line for line in lines if line.strip().startswith("claude-code ") or line.strip().startswith("pi ")]
    assert len(heads) >= 2  # at 160 columns: 8 runs as 4 + 4
    assert "event 2" not in heads[0]


def test_screenshot_writes_an_svg(tmp_path: Path) -> None:
    out = tmp_path / "compare.svg"
    code, stdout, _ = invoke("compare", "mention-myth", "--agents", "claude-code,codex", "--screenshot", str(out))
    assert code == 0 and stdout.strip() == str(out)
    text = out.read_text(encoding="utf-8")
    assert text.startswith("<svg") and "codex" in text and "path&#160;only" in text  # SVG spaces are &#160;


def test_a_sessions_measured_context_per_event_is_the_last_call_after_it() -> None:
    from dataclasses import dataclass

    from ctxviz.importer.imported import measured_per_event

    @dataclass(frozen=True)
    class Call:
        call: int
        measured: int
        after_event: int | None

    calls = [Call(1, 20_000, None), Call(2, 21_500, 0), Call(3, 30_100, 2), Call(4, 31_000, 2), Call(5, 9_000, 4)]
    assert measured_per_event(calls, 5) == [21_500, None, 31_000, None, 9_000]


def test_the_what_ifs_and_the_alignment_import_no_textual_and_no_rich() -> None:
    import subprocess
    import sys

    probe = (
        "import sys, ctxviz.whatif, ctxviz.report.compare_runs, ctxviz.report.compare_json;"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'rich')))"
    )
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60)
    assert result.stdout.strip() == "[]"


@pytest.mark.parametrize("name", [p.stem for p in builtin_scenarios()])
def test_every_builtin_lines_up_under_every_agent(name: str) -> None:
    loaded = open_replayable(name, "chars4")
    comparison = compare(loaded.scenario, parse_run_specs(None, AGENT_NAMES), Settings())
    for run in comparison.runs:
        steps = run.timeline.steps
        # every event made at least one step in every run, and the groups tile the steps in order
        assert all(run.steps_of(event.index) for event in comparison.events)
        assert [i for group in run.groups for i in group] == list(range(len(steps)))
        for event in comparison.events:
            first = steps[run.steps_of(event.index)[0]]
            assert first.event == event.index
        assert cell(run, len(comparison.events) - 1).total == run.timeline.used_at(run.timeline.last)
