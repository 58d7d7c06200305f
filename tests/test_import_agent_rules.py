"""What the codex and pi profiles replay of an imported session beyond a written scenario: an output the
agent already cut (``cut_by``), what left with no compaction (``cleared``), the agent's own count before a
call (``count_gap``, for the scenario's own agent only), and the start-up the log records."""

from __future__ import annotations

from pathlib import Path

import yaml

from ctxviz.engine import simulate
from ctxviz.importer.from_timeline import ENTERED_BEFORE_COMPACTION, timeline_to_scenario
from ctxviz.importer.replay_recorded import agent_counts
from ctxviz.kinds import StepKind
from ctxviz.profiles.codex import NUMBERS as CODEX
from ctxviz.scenario.event_model import PromptEvent
from ctxviz.scenario.model import Scenario
from ctxviz.scenario_file import parse_scenario
from ctxviz.tokens import CharsPerToken
from ctxviz.transcripts.registry import read_target
from tests.test_fidelity_agents import _codex_rollout


def _scenario(agent: str, events: list[dict[str, object]], profile: dict[str, object] | None = None) -> Scenario:
    document = {"name": "t", "agent": agent, "model": "gpt-5.5", "events": events} | (
        {"profile": profile} if profile else {}
    )
    return parse_scenario(yaml.safe_dump(document), "t.yaml", counter=CharsPerToken())


def _growth(agent: str, events: list[dict[str, object]], step: int = -1) -> int:
    """How much the window grew over the last event (its step's total less the one before)."""
    steps = simulate(_scenario(agent, events)).steps
    return steps[step].used - steps[step - 1].used


def test_an_output_the_agent_already_cut_is_not_cut_again() -> None:
    tool = {"name": "exec_command", "call": 0, "output": 12_000}
    # 12,000 tokens > Codex's 10,000: cut to 10,000 + its marker, plus the profile's envelope per tool call
    assert _growth("codex", [{"tool": tool}]) == CODEX.tool_call + CODEX.output_max_tokens + CODEX.truncation_marker
    # as the rollout holds it, already cut by Codex: 12,000 stays 12,000
    assert _growth("codex", [{"tool": {**tool, "cut_by": "codex"}}]) == CODEX.tool_call + 12_000


def test_codex_and_pi_take_out_what_the_log_shows_leaving() -> None:
    for agent in ("codex", "pi"):
        events: list[dict[str, object]] = [{"reply": 5_000}, {"reply": 3_000}, {"reply": 100, "cleared": 4_000}]
        # the oldest 4,000 of the 8,000 go before the last reply comes: 8,000 - 4,000 + 100
        assert _growth(agent, events) == 100 - 4_000, agent


def test_the_agents_own_count_decides_only_under_its_own_profile() -> None:
    # 200,000 exactly, 250,000 by Codex's count: over its 244,800 (90% of gpt-5.5's 272,000)
    events: list[dict[str, object]] = [{"reply": 200_000, "count_gap": 50_000}, {"reply": 10}]
    compacted = [s.kind for s in simulate(_scenario("codex", events)).steps if s.kind == StepKind.AUTO_COMPACT]
    assert compacted == [StepKind.AUTO_COMPACT]
    # a pi session's scenario replayed under codex: the gap was pi's count, so Codex's rule compares the exact
    # 200,000, under its line
    other = simulate(_scenario("pi", events), agent="codex").steps
    assert not any(s.kind == StepKind.AUTO_COMPACT for s in other)


def test_an_imported_rollout_starts_at_its_first_call_and_decides_where_codex_did(tmp_path: Path) -> None:
    path = _codex_rollout(tmp_path / "rollout.jsonl")
    result = timeline_to_scenario(read_target(path).timeline, "rollout", agent_counts("codex", path))
    steps = simulate(result.scenario).steps
    startup = [s for s in steps if s.kind == StepKind.STARTUP]
    # the first call measured 20,000, of which "first turn" (10 chars) is 3 tokens: the rest is start-up
    assert startup[-1].used == 19_997
    [entered] = [e for e in result.scenario.events if isinstance(e, PromptEvent)
                 and e.prompt.text == ENTERED_BEFORE_COMPACTION]  # fmt: skip
    # Codex's count after call 3: 238,000 + 500 + 1,015 + 6,350 = 245,865; exactly, the call and the tool
    # output that entered before the compaction (1,015 as Codex counts it): 239,015
    assert entered.count_gap == 245_865 - 239_015
    assert [s.index for s in steps if s.kind == StepKind.AUTO_COMPACT]  # it compacted there


def test_a_compaction_leaves_the_new_context_the_agents_own_figures_give() -> None:
    events: list[dict[str, object]] = [{"prompt": {"text": "p", "size": 1_000}}, {"reply": 250_000}]
    steps = simulate(_scenario("codex", events, {"new_context_each": [30_000]})).steps
    [compaction] = [s for s in steps if s.kind == StepKind.AUTO_COMPACT]
    # 251,000 plus the start-up is over 244,800; after it: start-up, the 1,000-token message, and a summary
    # of what Codex's figure (30,000) leaves beyond them: 30,000 in all
    assert compaction.used == 30_000
    # without the figure: the start-up, the message and the 4,000-token summary Codex's profile assumes
    plain = [s for s in simulate(_scenario("codex", events)).steps if s.kind == StepKind.AUTO_COMPACT]
    startup = [s for s in steps if s.kind == StepKind.STARTUP][-1].used
    assert plain[0].used == startup + 1_000 + CODEX.summary
