"""Properties every agent profile keeps, over generated scenarios: tokens are conserved (used is the sum of
the live blocks), nothing is live after it left, and an automatic compaction happens only at or above the
profile's trigger. Plus: every built-in scenario runs under every profile."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from agent_helpers import scenario
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ctxviz.engine import simulate
from ctxviz.profiles import AGENT_NAMES
from ctxviz.scenario_file import load_scenario
from ctxviz.timeline import Timeline
from ctxviz.tokens import CharsPerToken

SETUP = {
    "memory": {"CLAUDE.md": 500, "AGENTS.md": 400, "GEMINI.md": 300},
    "rules": {
        ".claude/rules/api.md": {"tokens": 380, "paths": ["src/api/**"]},
        ".cursor/rules/style.mdc": 200,
    },
    "skills": [{"name": "pdf", "description": {"chars": 300}, "body": 7200}],
}
FILES = {
    "src/api/auth.ts": 2340,
    "src/api/AGENTS.md": 300,
    "src/lib/tokens.ts": {"lines": 300},
    "src/big.json": {"tokens": 9000, "lines": 400},
    "src/huge.log": {"tokens": 40000, "lines": 5000},
}
PATHS = sorted(p for p in FILES if not p.endswith(".md"))

path = st.sampled_from(PATHS)
chars = st.integers(min_value=0, max_value=120_000)
mention = st.sampled_from(
    ["@src/lib/tokens.ts", "@src/huge.log:10-40", "@src/big.json#5-9", "@src/", "@src/api/auth.ts"]
)
tool_events = st.one_of(
    st.builds(lambda p: {"read": p}, path),
    st.builds(lambda p, c: {"edit": {"path": p, "change": c}}, path, st.integers(0, 2_000)),
    st.builds(lambda m: {"grep": {"pattern": "x", "matches": m}}, st.integers(0, 600)),
    st.builds(lambda c: {"glob": {"pattern": "x", "output": {"chars": c}}}, chars),
    st.builds(lambda c: {"bash": {"command": "run", "output": {"chars": c}}}, chars),
    st.builds(lambda c: {"tool": {"name": "WebFetch", "output": {"chars": c}}}, chars),
    st.builds(
        lambda r, n: {"subagent": {"type": "Explore", "reads": r, "returns": n}},
        st.lists(path, max_size=2),
        st.integers(0, 3_000),
    ),
)
events = st.one_of(
    tool_events,
    st.builds(lambda m, s: {"prompt": {"text": f"look at {m}", "size": s}}, mention, st.integers(1, 30_000)),
    st.builds(lambda s: {"reply": s}, st.integers(0, 30_000)),
    st.builds(lambda s: {"compact": {"summary": s}}, st.integers(0, 8_000)),
    st.just({"compact": None}),
    st.just({"clear": None}),
    st.builds(
        lambda name: {"write": {"path": name, "content": 700}}, st.sampled_from(["new/a.py", "src/lib/tokens.ts"])
    ),
)
# small windows so that generated scenarios reach every profile's trigger
windows = st.sampled_from([{"window": 60_000}, {"window": 120_000}, {}, {"autocompact": "off", "window": 80_000}])
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def build(agent: str, generated: list, extra: dict) -> Timeline:
    data = {"name": "generated", **extra, "setup": SETUP, "files": FILES, "events": generated}
    return simulate(scenario(json.dumps(data)), agent=agent)


def timelines(tl: Timeline):
    yield tl
    for step in tl.steps:
        if step.child is not None:
            yield from timelines(step.child)


@SETTINGS
@given(st.sampled_from(AGENT_NAMES), st.lists(events, max_size=16), windows)
def test_tokens_are_conserved_and_nothing_is_live_after_it_left(agent: str, generated: list, extra: dict) -> None:
    for tl in timelines(build(agent, generated, extra)):
        for step in tl.steps:
            live = tl.state_at(step.index)
            assert sum(b.tokens for b in live) == step.used, (agent, step.index)
            assert all(b.entered <= step.index and (b.left is None or step.index < b.left) for b in live)
        for block in tl.blocks:
            assert block.tokens >= 0
            if block.left is not None:
                assert all(b.id != block.id for b in tl.state_at(block.left))
                assert all(b.id != block.id for b in tl.state_at(tl.last)) or block.left > tl.last


@SETTINGS
@given(st.sampled_from(AGENT_NAMES), st.lists(events, max_size=16), windows)
def test_automatic_compaction_only_at_or_above_the_trigger(agent: str, generated: list, extra: dict) -> None:
    tl = build(agent, generated, extra)
    trigger = tl.thresholds.autocompact
    for step in tl.steps:
        if step.kind == "auto-compact":
            assert trigger is not None
            assert tl.used_at(step.index - 1) >= trigger, (agent, step.index)


BUILTIN = sorted((Path(__file__).parent.parent / "ctxviz" / "scenarios").glob("*.yaml"))


@pytest.mark.parametrize("agent", AGENT_NAMES)
@pytest.mark.parametrize("path", BUILTIN, ids=lambda p: p.stem)
def test_every_builtin_scenario_runs_under_every_profile(path: Path, agent: str) -> None:
    tl = simulate(load_scenario(path, counter=CharsPerToken()), agent=agent)
    assert tl.agent == agent
    assert tl.steps[-1].used == sum(b.tokens for b in tl.state_at(tl.last))
    assert all(s.event is not None for s in tl.steps if s.kind in ("prompt", "read", "bash"))


@pytest.mark.parametrize(
    ("agent", "system_prompt"),
    [("codex", 5_583), ("gemini-cli", 1_500), ("opencode", 2_053), ("grok-build", 1_376)],
)
def test_a_subagent_runs_in_its_own_window_and_only_its_answer_comes_back(agent: str, system_prompt: int) -> None:
    tl = simulate(
        scenario("files: {src/a.py: 900}\nevents:\n  - subagent: {type: Explore, reads: [src/a.py], returns: 400}"),
        agent=agent,
    )
    step = next(s for s in tl.steps if s.event == 0)
    assert step.child is not None and step.child.used_at(0) == system_prompt
    # the task prompt (100) in a tool call (60, assumed) and the answer (400): no trailer in these agents
    assert sorted(tl.block(b).tokens for b in step.added) == [160, 400]


@pytest.mark.parametrize("agent", ["pi", "cursor"])
def test_without_subagents_the_work_happens_in_the_main_window(agent: str) -> None:
    tl = simulate(
        scenario("files: {src/a.py: 900}\nevents:\n  - subagent: {type: Explore, reads: [src/a.py], returns: 400}"),
        agent=agent,
    )
    step = next(s for s in tl.steps if s.event == 0)
    assert step.child is None
    assert [tl.block(b).tokens for b in step.added] == [60, 900, 400]  # the read and the answer, as a reply


@pytest.mark.parametrize("agent", AGENT_NAMES)
def test_replay_is_byte_identical(agent: str) -> None:
    from ctxviz.report.json import dumps

    path = next(p for p in BUILTIN if p.stem == "mention-myth")
    first = dumps(simulate(load_scenario(path, counter=CharsPerToken()), agent=agent))
    assert first == dumps(simulate(load_scenario(path, counter=CharsPerToken()), agent=agent))
