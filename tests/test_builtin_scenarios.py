"""The built-in scenarios are fixtures: each is checked against numbers worked out by hand from the
docs' figures and the rules in docs/numbers.md — never copied from the engine's output."""

from __future__ import annotations

import pytest

from ctxviz.sources import builtin_scenarios, open_timeline
from ctxviz.timeline import Category, Timeline
from ctxviz.tokens import get_counter

COUNT = get_counter("cl100k").count

DOCS_STARTUP = 4_200 + 680 + 280 + 120 + 450 + 320 + 1_800  # the docs' seven startup blocks
TOOLS = 13_500  # what the docs leave out


def added(timeline: Timeline, index: int) -> int:
    return sum(timeline.block(i).tokens for i in timeline.steps[index].added)


def step_of(timeline: Timeline, kind: str, label: str) -> int:
    return next(s.index for s in timeline.steps if s.kind == kind and s.label == label)


@pytest.fixture(scope="module")
def default() -> Timeline:
    return open_timeline(None)


def test_every_builtin_scenario_runs() -> None:
    names = [p.stem for p in builtin_scenarios()]
    assert names == sorted(
        [
            "compaction-deep-dive",
            "explore-context-window",
            "large-outputs",
            "map-or-search",
            "mcp-heavy-startup",
            "mention-myth",
            "one-million",
            "subagent-vs-direct",
        ]
    )
    for name in names:
        timeline = open_timeline(name)
        assert timeline.steps and timeline.source.summary


def test_default_startup_is_the_docs_seven_blocks_plus_tools(default: Timeline) -> None:
    assert DOCS_STARTUP == 7_850  # the docs' own arithmetic
    first_prompt = step_of(default, "prompt", "Fix the auth bug where users get 401 after token refresh")
    assert default.used_at(first_prompt - 1) == DOCS_STARTUP + TOOLS == 21_350
    assert [s.kind for s in default.steps[:first_prompt]] == ["startup"] * 8
    assert default.breakdown_at(first_prompt - 1)["Skills"] == 450


def test_default_events_add_the_docs_numbers(default: Timeline) -> None:
    # (kind, label) → tokens the docs show for that event (rules arrive with the read that triggers them)
    expected = [
        ("prompt", "Fix the auth bug where users get 401 after token refresh", 45),
        ("read", "src/api/auth.ts", 2_400 + 380),  # + api-conventions.md (paths src/api/**)
        ("read", "src/lib/tokens.ts", 1_100),
        ("read", "src/api/middleware.ts", 1_800),
        ("read", "src/api/auth.test.ts", 1_600 + 290),  # + testing.md (*.test.ts)
        ("grep", "refreshToken", 600),
        ("edit", "src/api/auth.ts", 400 + 110),  # + prettier's additionalContext
        ("edit", "src/api/auth.test.ts", 600 + 110),
        ("bash", "npm test", 1_200),
        ("subagent", "general-purpose subagent", 80 + 420),
        ("prompt", "!git status", 180),
        ("prompt", "/commit-push", 620),
    ]
    for kind, label, tokens in expected:
        assert added(default, step_of(default, kind, label)) == tokens, label
    replies = [added(default, s.index) for s in default.steps if s.kind == "reply"]
    assert replies == [800, 400, 1_200]


def test_default_before_and_after_compact(default: Timeline) -> None:
    conversation = 14_375  # the docs' 22,225 − 7,850
    compact = step_of(default, "compact", "/compact")
    assert default.used_at(compact - 1) == DOCS_STARTUP + TOOLS + conversation == 35_725
    # after: everything not in the history (the startup blocks but the listing), the rebuilt listing,
    # the docs' 12% summary, the 4 files read or edited (most recent first) and the rules they bring,
    # and the invoked /commit-push body
    restored_files = 1_540 + 2_340 + 1_740 + 1_040
    assert default.used_at(compact) == (DOCS_STARTUP - 450) + TOOLS + 450 + 1_725 + restored_files + 380 + 290 + 620
    assert default.used_at(compact) == 31_025
    step = default.steps[compact]
    order = [default.block(i).label for i in step.added if default.block(i).kind == "restored-file"]
    assert order == [
        "Restored src/api/auth.test.ts",
        "Restored src/api/auth.ts",
        "Restored src/api/middleware.ts",
        "Restored src/lib/tokens.ts",
    ]
    fates = {f.label: f.fate for f in step.fates}
    assert fates[".claude/rules/api-conventions.md"] == "dropped"
    assert fates["CLAUDE.md"] == "reinjected"
    assert fates["System prompt"] == "kept"


def test_default_subagent_window(default: Timeline) -> None:
    step = default.steps[step_of(default, "subagent", "general-purpose subagent")]
    child = step.child
    assert child is not None
    # own system prompt 900, tools, MCP names, both CLAUDE.md copies, the listing, the task prompt,
    # 6,100 tokens of reads (3 × 60 calls + content), the 360-token answer; no auto memory
    assert child.used_at(child.last) == 900 + TOOLS + 120 + 320 + 1_800 + 450 + 20 + 6_100 + 360 == 23_570
    assert all(b.kind != "auto-memory" for b in child.blocks)
    assert "6,100 tokens" in step.notes[0]


def test_compaction_deep_dive() -> None:
    t = open_timeline("compaction-deep-dive")
    [auto] = t.compaction_indices()
    step = t.steps[auto]
    assert step.kind == "auto-compact"
    assert t.used_at(auto - 1) >= 167_000 > t.used_at(auto - 2)
    fates = {f.label: (f.fate, f.tokens) for f in step.fates}
    # files, most recent first: engine.py (the re-read stub), routes.py (edited), models.py,
    # handlers.py, utils.py; migrations.py, app.ts, architecture.md fall outside the 5
    assert fates["src/core/engine.py"] == ("referenced", 40)  # 18,000 > 5,000
    assert fates["src/api/routes.py"] == ("restored", 4_200)
    assert fates["src/db/models.py"] == ("restored", 3_100)
    assert fates["src/api/handlers.py"] == ("referenced", 40)  # 6,800 > 5,000
    assert fates["src/core/utils.py"] == ("restored", 2_400)
    for left_out in ("src/db/migrations.py", "src/ui/app.ts", "docs/architecture.md"):
        assert fates[left_out] == ("not-restored", 0)  # summarised with the history: its tokens counted there
    # skills, most recent first, 5,000 each (start kept), 25,000 in all:
    # docs 2k, security 8k→5k, release 5k, testing 4k, api-design 3k, migrate 9k→5k = 24k;
    # perf 6k→5k would make 29k > 25k: the oldest is dropped
    assert fates["Skill: docs"] == ("reinjected", 2_000)
    assert fates["Skill: security"] == ("truncated", 5_000)
    assert fates["Skill: migrate"] == ("truncated", 5_000)
    assert fates["Skill: perf"] == ("not-restored", 0)
    assert fates["Summary"][0] == "new"
    startup = t.used_at(step_of(t, "startup", "Skill descriptions"))
    listing = next(b.tokens for b in t.blocks if b.kind == "skill-listing")
    restored = 40 + 4_200 + 400 + 600 + 3_100 + 350 + 40 + 2_400  # files + api/db rules + nested CLAUDE.md
    skills = 2_000 + 5_000 + 5_000 + 4_000 + 3_000 + 5_000
    assert t.used_at(auto) == (startup - listing) + 4_000 + restored + skills + listing + 300
    assert t.used_at(auto) < 167_000


def test_subagent_vs_direct() -> None:
    t = open_timeline("subagent-vs-direct")
    files = 5_200 + 3_800 + 4_400 + 6_100 + 4_900 + 2_600
    clear = step_of(t, "clear", "/clear")
    direct = t.used_at(clear - 1) - t.used_at(clear)
    prompt = COUNT("How does session expiry work? I need to change the timeout rules.")
    assert direct == prompt + 6 * 60 + files + 450 + 900  # calls + content + auth rule + reply
    sub = t.steps[step_of(t, "subagent", "Explore subagent")]
    assert added(t, sub.index) == 60 + 150 + 800  # call + task prompt + answer, no trailer for Explore
    assert sub.child is not None
    assert all(b.kind != "memory-file" for b in sub.child.blocks)  # Explore skips CLAUDE.md


def test_large_outputs() -> None:
    t = open_timeline("large-outputs")
    preview = 50 + 2_000 // 4
    kinds = {s.label: [t.block(i).kind for i in s.added] for s in t.steps}
    assert "spilled-output" in kinds["make build 2>&1"]
    assert "spilled-output" in kinds["ERROR"]
    assert added(t, step_of(t, "grep", "TODO")) == 60 + 250 * 15
    assert added(t, step_of(t, "glob", "**/*.py")) == 60 + 100 * 10
    assert added(t, step_of(t, "read", "logs/app.log")) == 60 + 100
    assert added(t, step_of(t, "read", "src/big_module.py")) == 60 + 100
    assert added(t, step_of(t, "read", "src/generated/schema.py")) == 60 + 20_000  # 2,000 of 2,600 lines
    parallel = [s for s in t.steps if s.kind == "tool"][-5:]
    assert [added(t, s.index) for s in parallel] == [60 + preview, 60 + 11_750, 60 + 11_500, 60 + 11_250, 60 + 11_000]
    first_bash = step_of(t, "bash", "make test 2>&1 | tail -200")
    assert added(t, first_bash) == 60 + 3_000 + preview  # inline output + the capped hook report


def test_mcp_heavy_startup() -> None:
    t = open_timeline("mcp-heavy-startup")
    first_prompt = next(s.index for s in t.steps if s.kind == "prompt")
    assert t.breakdown_at(first_prompt)["MCP tools"] == 40 * 15 + 25 * 15 + 38_000 + 12 * 400
    creates = [s.index for s in t.steps if s.label == "mcp__github__create_issue"]
    assert [added(t, i) for i in creates] == [400 + 60 + 120 + 300, 60 + 120 + 300]


def test_one_million() -> None:
    t = open_timeline("one-million")
    assert t.window == 1_000_000
    assert t.thresholds.autocompact == 500_000 - 20_000 - 13_000 == 467_000
    assert t.thresholds.buffer == 1_000_000 - 467_000
    [auto] = t.compaction_indices()
    assert t.used_at(auto - 1) >= 467_000 > t.used_at(auto - 2)
    assert t.category_totals_at(auto)[Category.MESSAGES] < t.category_totals_at(auto - 1)[Category.MESSAGES]
