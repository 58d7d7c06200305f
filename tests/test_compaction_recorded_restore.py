"""Newer Claude Code transcripts record what a compaction put back (``file``, ``compact_file_reference``,
``plan_file_reference`` and ``invoked_skills`` attachments after the boundary): the replay puts back
exactly those, and the profile's own choice of files, plan and skills is not added on top."""

from __future__ import annotations

from pathlib import Path

from ctxviz.importer import fidelity, session_to_scenario
from ctxviz.importer.replay import build_scenario, replay
from ctxviz.kinds import BlockKind, EventKind, StepKind
from ctxviz.profiles.claude_code import CLAUDE_CODE

SESSION = Path(__file__).parent / "fixtures" / "claude-code" / "newer-restore" / "restore-after-compaction.jsonl"

# By hand, from the fixture's recorded text (see its README): the summary, 400 chars at 4 a token; the
# file a.go, 226 chars at the profile's measured 2.26 chars per Read token, plus the Read's call envelope;
# the reference note Claude Code sends for b.go, 150 chars; the plan, 80 chars; the skill's body, 120
# chars; the prompt "go on", 5 chars.
SUMMARY, FILE, REFERENCE, PLAN, SKILL, PROMPT = 100, 100, 38, 20, 30, 2
STARTUP = 20_000 - 1  # the first call's measured 20,000 less its one message, "go" (1 token)


def test_the_restores_after_the_boundary_become_events_sized_from_their_text() -> None:
    result = session_to_scenario(SESSION)
    assert result.scenario.profile["restores_recorded"] is True
    events = result.scenario.events
    at = next(n for n, e in enumerate(events) if e.kind == EventKind.COMPACT)
    read, reference, plan, skills = events[at + 1 : at + 5]
    assert (read.kind, read.tool.name, read.tool.reads, read.tool.output.tokens) == ("tool", "Read", "a.go", FILE)
    assert (reference.prompt.text, reference.prompt.size.tokens) == ("Referenced file b.go", REFERENCE)
    assert plan.plan.tokens == PLAN
    assert (skills.prompt.text, skills.prompt.size.tokens) == ("Skills restored: review", SKILL)


def test_the_first_call_after_the_compaction_is_what_the_transcript_put_back() -> None:
    """The session measured 20,349 at its first call after the /compact: the start-up, the summary and
    what the attachments put back, nothing more (the file's Read counted once)."""
    expected = STARTUP + SUMMARY + CLAUDE_CODE.tool_call + FILE + REFERENCE + PLAN + SKILL + PROMPT
    assert expected == 20_349
    calls = fidelity(SESSION).calls
    assert [(c.measured, c.simulated) for c in calls] == [(20_000, 20_000), (20_500, 20_500), (20_349, expected)]


def test_the_profile_does_not_choose_files_when_the_transcript_says_what_came_back() -> None:
    """The compaction step keeps no fate of a file it re-read on its own; with the switch off, the same
    events would bring a.go back twice: once as the profile's guess, once as the recorded attachment."""
    result = session_to_scenario(SESSION)
    flat = sum(len(top.flat()) for top in result.draft.events)
    recorded = replay(result.scenario, flat).timeline
    (compaction,) = [s for s in recorded.steps if s.kind == StepKind.COMPACT]
    assert not [f for f in compaction.fates if f.kind == BlockKind.RESTORED_FILE]

    document = result.calibrated.document
    document = {**document, "profile": {**document["profile"], "restores_recorded": False}}
    guessed = replay(build_scenario(document), flat).timeline
    (again,) = [s for s in guessed.steps if s.kind == StepKind.COMPACT]
    (restored,) = [f for f in again.fates if f.kind == BlockKind.RESTORED_FILE]
    assert restored.label == "a.go"
    assert guessed.steps[-1].used - recorded.steps[-1].used == restored.tokens


def test_an_attachment_with_no_compaction_before_it_stays_a_hidden_item(tmp_path: Path) -> None:
    """A ``file`` attachment in the middle of a session (an @-mention) is no restore: the switch stays off."""
    lines = SESSION.read_text().splitlines()
    no_boundary = [line for line in lines if '"compact_boundary"' not in line and '"isCompactSummary"' not in line]
    path = tmp_path / "s.jsonl"
    path.write_text("\n".join(no_boundary).replace('"parentUuid": "s1"', '"parentUuid": "a1"') + "\n")
    result = session_to_scenario(path)
    assert "restores_recorded" not in result.scenario.profile
    assert not [e for e in result.scenario.events if e.kind == EventKind.PLAN]
