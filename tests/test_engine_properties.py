"""Properties of the engine over generated scenarios: small random event lists over a fixed project."""

from __future__ import annotations

import json

from engine_helpers import scenario
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ctxviz.engine import simulate
from ctxviz.report.json import dumps
from ctxviz.timeline import COMPACTION_STEP_KINDS, Timeline

SETUP = {
    "memory": {"CLAUDE.md": 500},
    "auto_memory": 300,
    "rules": {
        ".claude/rules/style.md": 200,
        ".claude/rules/api.md": {"tokens": 380, "paths": ["src/api/**"]},
        ".claude/rules/tests.md": {"tokens": 290, "paths": ["*.test.ts"]},
    },
    "skills": [
        {"name": "pdf", "description": {"chars": 300}, "body": 7200},
        {"name": "review", "description": {"chars": 200}, "body": 2000},
        {"name": "commit", "body": 600, "disable_model_invocation": True},
    ],
    "hooks": [
        {"event": "SessionStart", "matcher": "startup", "name": "s", "adds": 100},
        {"event": "SessionStart", "matcher": "compact", "name": "c", "adds": 300},
        {"event": "SessionStart", "matcher": "clear", "name": "k", "adds": 200},
        {"event": "PostToolUse", "matcher": "Edit|Write", "name": "fmt", "adds": 110},
        {"event": "UserPromptSubmit", "name": "u", "adds": 50},
    ],
}
FILES = {
    "src/api/auth.ts": 2340,
    "src/api/CLAUDE.md": 700,
    "src/api/auth.test.ts": 1540,
    "src/lib/tokens.ts": 1040,
    "src/big.json": {"tokens": 9000, "lines": 400},
    "src/huge.log": {"tokens": 40000, "lines": 5000},
    "docs/notes.md": 300,
}
PATHS = sorted(p for p in FILES if not p.endswith("CLAUDE.md"))

size = st.integers(min_value=0, max_value=12_000)
path = st.sampled_from(PATHS)
chars = st.integers(min_value=0, max_value=80_000)

tool_events = st.one_of(
    st.builds(lambda p: {"read": p}, path),
    st.builds(lambda p, c: {"edit": {"path": p, "change": c}}, path, st.integers(0, 2_000)),
    st.builds(lambda p: {"write": p}, path),
    st.builds(lambda m: {"grep": {"pattern": "x", "matches": m}}, st.integers(0, 600)),
    st.builds(lambda c: {"glob": {"pattern": "x", "output": {"chars": c}}}, chars),
    st.builds(lambda c: {"bash": {"command": "run", "output": {"chars": c}}}, chars),
    st.builds(lambda c: {"tool": {"name": "WebFetch", "output": {"chars": c}}}, chars),
    st.builds(lambda n: {"skill": n}, st.sampled_from(["pdf", "review"])),
    st.builds(
        lambda t, r, n: {"subagent": {"type": t, "reads": r, "returns": n}},
        st.sampled_from(["general-purpose", "Explore", "Plan"]),
        st.lists(path, max_size=3),
        st.integers(0, 3_000),
    ),
)
sequential_events = st.one_of(
    tool_events,
    st.builds(lambda s: {"prompt": {"text": "do it @src/lib/tokens.ts", "size": s}}, st.integers(1, 500)),
    st.builds(lambda s: {"reply": s}, size),
    st.builds(lambda s: {"plan": s}, st.integers(0, 2_000)),
    st.builds(lambda n: {"bash": {"command": "dev", "background": True, "finishes_after": n}}, st.integers(0, 3)),
    st.builds(lambda s: {"compact": {"summary": s}}, st.integers(0, 25_000)),
    st.just({"compact": None}),
    st.just({"clear": None}),
    st.just({"note": "narration"}),
    st.builds(lambda n: {"skill": {"name": n, "by": "user"}}, st.sampled_from(["pdf", "commit"])),
)
any_events = st.one_of(
    sequential_events, st.builds(lambda g: {"parallel": g}, st.lists(tool_events, min_size=2, max_size=4))
)
# the auto-compact threshold: 15% → 27,000; 30% → 54,000; off
autocompact = st.sampled_from([{"autocompact_pct": 15}, {"autocompact_pct": 30}, {}, {"autocompact": "off"}])


def build(events: list, extra: dict) -> Timeline:
    data = {"name": "generated", **extra, "setup": SETUP, "files": FILES, "events": events}
    return simulate(scenario(json.dumps(data)))  # JSON is YAML, and much faster to write


def timelines(tl: Timeline):
    """The timeline and every subagent's timeline inside it."""
    yield tl
    for step in tl.steps:
        if step.child is not None:
            yield from timelines(step.child)


SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(st.lists(any_events, max_size=20), autocompact)
def test_accounting(events: list, extra: dict) -> None:
    tl = build(events, extra)
    for t in timelines(tl):
        # the last step's totals, summed on their own when the per-step tables are not needed
        assert t._last_totals == (t._tables[0][-1] if t.steps else (0,) * len(t._last_totals))
        running = 0
        for step in t.steps:
            i = step.index
            live = t.state_at(i)
            # the breakdown's categories sum to used; used is the sum of the live blocks
            assert sum(t.category_totals_at(i).values()) == t.used_at(i)
            assert sum(b.tokens for b in live) == t.used_at(i)
            running += sum(b.tokens for b in t.blocks_of(step.added)) - sum(b.tokens for b in t.blocks_of(step.removed))
            assert running == step.used
            rows = t.breakdown_at(i)
            assert rows["Free space"] == max(0, t.window - t.used_at(i) - t.thresholds.buffer)


@SETTINGS
@given(st.lists(any_events, max_size=20), autocompact)
def test_blocks_never_mutate(events: list, extra: dict) -> None:
    tl = build(events, extra)
    for t in timelines(tl):
        added_at: dict[int, int] = {}
        removed_at: dict[int, int] = {}
        for step in t.steps:
            for block_id in step.added:
                assert block_id not in added_at
                added_at[block_id] = step.index
            for block_id in step.removed:
                assert block_id not in removed_at
                removed_at[block_id] = step.index
        for block in t.blocks:
            assert block.tokens >= 0
            assert block.entered == added_at[block.id]
            assert block.left == removed_at.get(block.id)
            assert block.left is None or block.entered <= block.left


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(any_events, max_size=20), autocompact)
def test_replay_is_deterministic(events: list, extra: dict) -> None:
    first = dumps(build(events, extra))
    assert first == dumps(build(events, extra))


@SETTINGS
@given(st.lists(sequential_events, max_size=20), st.sampled_from([15, 20, 30]))
def test_below_threshold_before_every_event(events: list, pct: int) -> None:
    tl = build(events, {"autocompact_pct": pct})
    threshold = tl.thresholds.autocompact
    assert threshold == 180_000 * pct // 100
    startup = max(s.used for s in tl.steps if s.kind == "startup")
    assert startup < threshold
    for step in tl.steps[1:]:
        if step.kind in COMPACTION_STEP_KINDS or step.kind in ("startup", "notification"):
            continue  # notifications arrive with the previous event, before the check
        assert tl.used_at(step.index - 1) < threshold, (step.index, step.kind)


@SETTINGS
@given(st.lists(sequential_events, max_size=20), st.sampled_from([15, 20, 30]))
def test_auto_compaction_lands_below_threshold(events: list, pct: int) -> None:
    tl = build(events, {"autocompact_pct": pct})
    threshold = tl.thresholds.autocompact
    startup = max(s.used for s in tl.steps if s.kind == "startup")
    for step in tl.steps:
        if step.kind == "auto-compact":
            assert tl.used_at(step.index - 1) >= threshold
            # what an automatic compaction cannot drop: the startup content without the startup hook's
            # output (it was history), the 4,000-token summary and the compact hook's 300
            if startup - 100 + 4_000 + 300 < threshold:
                assert step.used < threshold
