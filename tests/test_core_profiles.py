"""The profile layer: registry, provenance of every number, overrides, and why-notes that print the numbers
actually in use. Expected numbers are worked out by hand from the claude-code profile's parameters."""

from __future__ import annotations

import dataclasses
import math

import pytest
from engine_helpers import STARTUP_200K, added, event_steps, scenario, timeline

from ctxviz.engine import simulate
from ctxviz.kinds import BlockKind, EventKind, StepKind
from ctxviz.profiles import AGENT_NAMES, PROFILES, UnknownAgent, get_profile
from ctxviz.profiles.base import Profile, provenance
from ctxviz.profiles.claude_code import CLAUDE_CODE, PROFILE
from ctxviz.profiles.policies.subagents import NoSubagents


def test_kinds_are_the_json_strings() -> None:
    assert StepKind.AUTO_COMPACT == "auto-compact"
    assert BlockKind.SPILLED_OUTPUT == "spilled-output"
    assert [k.value for k in EventKind][:3] == ["prompt", "reply", "read"]


def test_registry_and_unknown_agent() -> None:
    assert "claude-code" in AGENT_NAMES
    assert get_profile("claude-code") is PROFILES["claude-code"] is PROFILE
    with pytest.raises(UnknownAgent) as raised:
        get_profile("emacs")
    assert str(raised.value) == f"unknown agent 'emacs'; expected one of {', '.join(AGENT_NAMES)}"


def test_registry_imports_only_the_profiles_used() -> None:
    # a run needs one profile: the others' modules stay unimported (they cost start-up time)
    import subprocess
    import sys

    probe = (
        "import sys; from ctxviz.sources import open_timeline; open_timeline(tokenizer='chars4'); "
        "print(sorted(m for m in sys.modules if m.startswith('ctxviz.profiles.')))"
    )
    loaded = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert "'ctxviz.profiles.claude_code'" in loaded
    assert not any(
        f"'ctxviz.profiles.{m}'" in loaded
        for m in ("codex", "cursor", "gemini_cli", "grok_build", "opencode", "paimon", "pi")
    )
    assert all(PROFILES[name].name == name for name in AGENT_NAMES)


def test_every_number_has_a_provenance() -> None:
    rows = provenance(CLAUDE_CODE)
    assert set(rows) == {f.name for f in dataclasses.fields(CLAUDE_CODE)}
    assert {p.confidence for _, p in rows.values()} <= {"documented", "source", "measured", "assumed"}
    assert all(p.source and p.source != "not recorded" for _, p in rows.values())
    value, origin = rows["restore_max_files"]
    assert (value, origin.confidence) == (5, "source")


def test_overrides_rebuild_the_policies() -> None:
    changed = PROFILE.with_overrides({"read_max_lines": 10, "not_a_number_of_this_agent": 3})
    assert changed.reads.read("a.py", scenario("files: {a.py: {lines: 20}}\n").files["a.py"].size).tokens == 100
    assert PROFILE.reads.read("a.py", scenario("files: {a.py: {lines: 20}}\n").files["a.py"].size).tokens == 200
    assert PROFILE.with_overrides({}) is PROFILE


def test_timeline_names_the_profile_and_agent_argument_wins() -> None:
    s = scenario("events:\n  - reply: 10\n")
    assert simulate(s).agent == "claude-code"
    assert simulate(s, agent="claude-code").agent == "claude-code"
    with pytest.raises(UnknownAgent):
        simulate(s, agent="emacs")


def test_steps_carry_their_event_index() -> None:
    tl = timeline(
        """
        files: {a.py: 1000}
        events:
          - prompt: go
          - parallel: [{read: a.py}, {bash: {command: ls, output: 10}}]
          - note: "just narration"
          - bash: {command: sleep, background: true}
          - reply: 5
        """
    )
    startup = [s.event for s in tl.steps if s.kind == StepKind.STARTUP]
    assert set(startup) == {None}
    assert [(s.kind, s.event) for s in event_steps(tl)] == [
        ("prompt", 0),
        ("read", 1),
        ("bash", 1),
        ("note", 2),
        ("bash", 3),
        ("reply", 4),
        ("notification", None),  # automatic: the background command finished
    ]


def test_auto_compaction_step_has_no_event() -> None:
    tl = timeline("events:\n  - reply: 170000\n  - reply: 10\n")
    assert [(s.kind, s.event) for s in event_steps(tl)] == [("reply", 0), ("auto-compact", None), ("reply", 1)]
    # the note gives the trigger and the rule with this profile's numbers
    notes = event_steps(tl)[1].notes
    assert notes[0] == (
        f"auto-compaction: {STARTUP_200K + 170_000:,} ≥ 167,000 (window − min(max output, 20,000) − 13,000; "
        "warning 20,000 below), checked before the next model call"
    )


def test_why_note_prints_the_overridden_read_limit() -> None:
    # 2,000 bytes > an overridden 1,024-byte limit: the note names 1,024, not Claude Code's 256 KB
    tl = timeline("profile: {read_max_bytes: 1024}\nfiles: {a.txt: {chars: 2000}}\nevents:\n  - read: a.txt\n")
    read = event_steps(tl)[0]
    assert [b.tokens for b in added(tl, read.index)] == [60, 100]
    assert read.notes == (
        "a.txt not read: 2,000 bytes > 1,024; the model gets a 100-token error telling it to use offset/limit",
    )


def test_why_note_prints_the_overridden_listing_budget() -> None:
    # budget = 200,000 × 4 × 0.001 = 800 chars; two skills of 2 + 4 + 500 chars = 1,012 > 800:
    # the least used (b, listed last among equals) keeps its name only: 1,012 − 500 = 512 chars
    tl = timeline(
        "profile: {skill_listing_budget_fraction: 0.001}\n"
        "setup: {skills: [{name: a, description: {chars: 500}}, {name: b, description: {chars: 500}}]}\n"
    )
    listing = [b for b in tl.blocks if b.kind == "skill-listing"]
    assert [b.tokens for b in listing] == [math.ceil(512 / 4)]
    notes = [n for s in tl.steps for n in s.notes]
    assert (
        "skill listing over its budget of 800 chars (0.001 × the window × 4 chars a token): "
        "b listed by name only (least used first)" in notes
    )


def test_agent_without_subagents_does_the_work_inline() -> None:
    s = scenario("files: {a.py: 1000}\nevents:\n  - subagent: {reads: [a.py], returns: 300}\n")
    tl = simulate(s, profile=dataclasses.replace(PROFILE, subagents=NoSubagents()))
    only = event_steps(tl)[0]
    assert only.child is None
    assert [(b.kind, b.tokens) for b in added(tl, only.index)] == [
        ("tool-call", 60),
        ("file-read", 1_000),
        ("reply", 300),
    ]
    assert only.used == STARTUP_200K + 60 + 1_000 + 300


def test_another_agents_model_gives_this_agents_default(monkeypatch: pytest.MonkeyPatch) -> None:
    # no agent runs zz-* models: zz-model-1 is an unknown model, kept, its window a guess
    tl = timeline("model: zz-model-1\n")
    assert (tl.model, tl.window) == ("zz-model-1", 200_000)
    assert tl.notices == ("unknown model 'zz-model-1': assumed a 200,000-token window",)
    # once an agent runs zz-* models, claude-code runs its own default instead
    monkeypatch.setitem(PROFILES, "zz-agent", dataclasses.replace(PROFILE, name="zz-agent", model_prefixes=("zz-",)))
    tl = timeline("model: zz-model-1\n")
    assert (tl.model, tl.window) == ("claude-sonnet-4-6", 200_000)
    assert tl.notices == ("claude-code does not run zz-model-1: its default model claude-sonnet-4-6 is used",)


def test_no_model_means_the_agents_default() -> None:
    tl = timeline("events:\n  - reply: 1\n")
    assert (tl.model, tl.window, tl.notices) == ("claude-sonnet-4-6", 200_000, ())


def test_file_versions_count_edits_and_writes() -> None:
    from ctxviz.engine.session import EngineSession
    from ctxviz.timeline import Source

    s = scenario("files: {a.py: 10}\n")
    session = EngineSession(s, PROFILE, source=Source(kind="scenario", name="t"))
    assert session.file_version("a.py") == 0
    session.changed("a.py", "edit")
    session.changed("a.py", "write")
    assert (session.file_version("a.py"), session.file_version("b.py")) == (2, 0)


def test_overrides_another_agent_lacks_are_named(monkeypatch: pytest.MonkeyPatch) -> None:
    @dataclasses.dataclass(frozen=True)
    class Tiny:  # the numbers every profile reads, and one of its own
        default_model: str = "claude-sonnet-4-6"
        tool_call: int = 60
        edit_result: int = 40
        notification: int = 60
        read_max_lines: int = 10

    def build(numbers: Tiny) -> Profile:
        limits = dataclasses.replace(PROFILE.reads, max_lines=numbers.read_max_lines)
        return dataclasses.replace(PROFILE, name="tiny", numbers=numbers, build=build, reads=limits)

    monkeypatch.setitem(PROFILES, "tiny", build(Tiny()))
    s = scenario(
        "profile: {read_max_lines: 5, restore_max_files: 1}\nfiles: {a.py: {lines: 20}}\nevents:\n  - read: a.py\n"
    )
    tl = simulate(s, agent="tiny")
    assert tl.agent == "tiny"
    assert tl.notices == ("profile: restore_max_files not used: tiny has no such number",)
    # read_max_lines applies: 5 of 20 lines, 50 tokens
    assert [b.tokens for b in added(tl, event_steps(tl)[0].index)] == [60, 50]


def test_assumed_numbers_are_known_and_printed_as_such() -> None:
    from ctxviz.profiles.base import assumed_names, figure

    assumed = assumed_names(CLAUDE_CODE)
    assert {"tool_call", "read_error", "summary_tokens"} <= assumed
    assert "restore_max_files" not in assumed
    assert (figure(5_000), figure(60, assumed=True)) == ("5,000", "60 (assumed)")


def test_is_assumed() -> None:
    from ctxviz.profiles.base import is_assumed

    assert is_assumed(CLAUDE_CODE, "tool_call") and not is_assumed(CLAUDE_CODE, "restore_max_files")


def test_engine_names_no_agent_and_no_tool() -> None:
    # the engine is agent-neutral: every agent's name and tool names come from its profile
    from pathlib import Path

    import ctxviz.engine

    source = "\n".join(p.read_text() for p in Path(ctxviz.engine.__file__).parent.glob("*.py"))
    for profile in PROFILES.values():
        # a tool named like a neutral event kind ("read", "bash") cannot be told apart from that vocabulary
        tools = [t for t in dataclasses.astuple(profile.tools) if isinstance(t, str) and len(t) > 2]
        for name in (f'"{profile.name}"', *(f'"{t}"' for t in tools if t not in set(EventKind))):
            assert name not in source, name


def test_json_steps_carry_event() -> None:
    import json

    from ctxviz.report.json import dumps

    document = json.loads(dumps(timeline("events:\n  - reply: 5\n")))
    assert [(s["kind"], s["event"]) for s in document["steps"]][-2:] == [("startup", None), ("reply", 0)]


def test_every_event_kind_has_one_handler() -> None:
    from ctxviz.engine.replay import HANDLERS

    assert set(HANDLERS) == set(EventKind)


def test_window_functions_over_a_profile_or_the_numbers() -> None:
    from ctxviz.profiles.windows import model_window, thresholds

    for holder in (PROFILE, CLAUDE_CODE):
        spec = model_window(holder, "claude-opus-4-6[1m]")
        assert (spec.window, spec.max_output, spec.known) == (1_000_000, 64_000, True)
        # 1,000,000 − min(64,000, 20,000) − 13,000
        assert thresholds(holder, spec.window, spec.max_output).autocompact == 967_000
    assert model_window(PROFILE, "gpt-5.4").known is False  # a recorded model is kept, its window a guess


def test_a_restored_file_is_read_again_whole() -> None:
    # after /compact a.py comes back (1,000 ≤ 5,000); reading it again returns its content, not the stub
    tl = timeline("files: {a.py: 1000}\nevents:\n  - read: a.py\n  - compact:\n  - read: a.py\n")
    read, compact, again = event_steps(tl)
    assert [(b.kind, b.tokens) for b in added(tl, compact.index) if b.kind == "restored-file"] == [
        ("restored-file", 1_000)
    ]
    assert [(b.kind, b.tokens) for b in added(tl, again.index)] == [("tool-call", 60), ("file-read", 1_000)]
