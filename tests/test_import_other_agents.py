"""``ctxviz import`` on sessions of agents other than Claude Code: the reader's timeline becomes a scenario
of the session's agent, which replays to the first call's size as the log measured it."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from ctxviz.cli import main
from ctxviz.engine import simulate
from ctxviz.importer.from_timeline import timeline_to_scenario
from ctxviz.kinds import StepKind
from ctxviz.transcripts.registry import read_target
from tests.test_fidelity_agents import _codex_rollout, _pi_session

OTHER = Path(__file__).parent / "fixtures" / "other-agents"


def test_a_codex_rollout_becomes_a_codex_scenario_that_starts_at_the_measured_first_call(tmp_path: Path) -> None:
    result = timeline_to_scenario(read_target(_codex_rollout(tmp_path / "rollout.jsonl")).timeline, "rollout")
    scenario = result.scenario
    assert (scenario.agent, result.calls, result.automatic) == ("codex", 4, 1)  # 4 token_count with usage
    replayed = simulate(scenario)
    # before the first reply: the profile's start-up, the start-up the log records beyond it, the first prompt;
    # together what the rollout measured at its first call (input_tokens 20,000)
    [first_prompt] = [step for step in replayed.steps if step.label == "first turn"]
    assert first_prompt.used == 20_000
    assert not any(step.kind == StepKind.COMPACT for step in replayed.steps)  # the automatic one is left to rules


def test_a_pi_session_imports_and_any_profile_replays_it(tmp_path: Path) -> None:
    path = _pi_session(tmp_path / "pi.jsonl", next_call=37_500)
    result = timeline_to_scenario(read_target(path).timeline, "pi")
    assert (result.scenario.agent, result.calls) == ("pi", 4)  # 4 assistant messages with usage
    replayed = simulate(result.scenario)
    first_reply = next(n for n, step in enumerate(replayed.steps) if step.kind == StepKind.REPLY)
    assert replayed.steps[first_reply - 1].used == 3_000  # the first call's usage: input 3,000
    for agent in ("claude-code", "codex", "gemini-cli", "opencode"):
        assert simulate(result.scenario, agent=agent).steps


@pytest.mark.parametrize(
    "fixture",
    [
        "codex/agent-sessions_stage0_small.jsonl",
        "pi/agent-sessions_small.jsonl",
        "gemini-cli/agent-sessions_jsonl_v040.jsonl",
    ],
)
def test_import_writes_a_scenario_that_validates(fixture: str, tmp_path: Path) -> None:
    out = tmp_path / "scenario.yaml"
    result = CliRunner().invoke(main, ["import", str(OTHER / fixture), "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert "wrote" in result.output
    assert "events:" in out.read_text()
    assert CliRunner().invoke(main, ["validate", str(out)]).exit_code == 0


def test_import_of_a_log_without_usage_is_one_located_line() -> None:
    path = OTHER / "cursor" / "agent-sessions_small.jsonl"
    result = CliRunner().invoke(main, ["import", str(path)])
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert str(path) in result.output and len(result.output.strip().splitlines()) == 1


def test_what_left_with_no_compaction_is_the_next_events_cleared(tmp_path: Path) -> None:
    path = _pi_session(tmp_path / "pi.jsonl", next_call=37_500)
    lines = path.read_text().splitlines()
    # the second call measured 150,000; make it 2,000: the usage falls below the first call's 3,000 with
    # no compaction, so what the reader drops there is cleared on the next event; what it drops right
    # after the compaction (the entries pi did not keep) is the compaction's, not cleared
    path.write_text("\n".join(line.replace('"input": 150000', '"input": 2000').replace(
        '"totalTokens": 150100', '"totalTokens": 2100') for line in lines) + "\n")  # fmt: skip
    result = timeline_to_scenario(read_target(path).timeline, "pi")
    events = result.scenario.events
    cleared = [n for n, event in enumerate(events) if event.cleared]
    second = result.measured[1]
    assert second.measured == 2_000 and second.after_event is not None
    assert len(cleared) == 1 and cleared[0] <= second.after_event + 1


def test_a_vendored_codex_rollout_replays_to_the_input_it_recorded() -> None:
    # the rollout's one call with usage records last_token_usage.input_tokens 16,341 (the other is all zero)
    path = OTHER / "codex" / "agent-sessions_stage0_small.jsonl"
    result = timeline_to_scenario(read_target(path).timeline, "small")
    assert [(c.call, c.measured) for c in result.measured] == [(1, 16_341)]
    after = result.measured[0].after_event
    assert after is not None
    replayed = simulate(result.scenario)
    assert max(step.used for step in replayed.steps if step.event == after) == 16_341


def test_a_file_no_reader_recognises_is_refused_naming_it(tmp_path: Path) -> None:
    junk = tmp_path / "junk.jsonl"
    junk.write_text('garbage\n{"type": 1}\n')
    result = CliRunner().invoke(main, ["import", str(junk)])
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert f"{junk}: not a session of any agent ctxviz reads" in result.stderr
