"""The notes say what happened in plain words: no internal field names ("preTokens", "trailer") or
shorthand ("decision frozen"), and a compaction calls the summary "new" and what it leaves out
"not-restored", never "dropped" with 0 tokens."""

from __future__ import annotations

from pathlib import Path

from ctxviz.sources import open_timeline
from ctxviz.timeline import Timeline
from ctxviz.transcripts import open_transcript

SPOTTER = (
    Path(__file__).resolve().parent / "fixtures/claude-code/spotter-4d5611e5/4d5611e5-241a-462a-8d15-5122611a9569.jsonl"
)


def notes(timeline: Timeline) -> list[str]:
    return [note for step in timeline.steps for note in step.notes]


def test_the_default_scenario_explains_its_startup_subagent_and_hook_in_plain_words() -> None:
    said = notes(open_timeline(None))
    assert "names only: 8 tools × 15 tokens; a tool's full description loads when Claude first uses it" in said
    assert "commit-push is not in the listing: only you can start it (disable-model-invocation)" in said
    assert (
        "hook prettier (PostToolUse:Edit) added 110 tokens: its output returned as additionalContext, "
        "which enters the context"
    ) in said
    assert (
        "6,100 tokens of the subagent's work stayed in its own window (peak 23,570); only its answer (360) and "
        "a 60-token footer with its id and usage come back"
    ) in said


def test_a_spilled_result_says_it_stays_a_preview() -> None:
    said = notes(open_timeline("large-outputs"))
    assert (
        "make build 2>&1: kept as a 2,000-byte preview (550 tokens) instead of 15,301: 61,204 chars > 30,000 "
        "for Bash; the full output is saved to disk, and the result stays a preview for the rest of the session"
    ) in said


def test_no_note_uses_the_old_jargon() -> None:
    for name in (None, "compaction-deep-dive", "large-outputs", "subagent-vs-direct"):
        text = " ".join(notes(open_timeline(name)))
        for jargon in ("decision frozen", "trailer", "preTokens", "schemas load on use", "not listed ("):
            assert jargon not in text, (name, jargon)


def test_a_transcripts_compaction_gives_the_size_before_it_in_words() -> None:
    timeline = open_transcript(SPOTTER)
    (index,) = timeline.compaction_indices()
    step = timeline.steps[index]
    assert step.notes[0] == (
        "auto-compaction after call 61; Claude Code counted 170,251 tokens before it: the last call's measured "
        "size plus its estimate of what came after"
    )
    assert step.pre_tokens == 170_251
    assert [(f.kind, f.fate) for f in step.fates if f.kind == "summary"] == [("summary", "new")]


def test_a_compaction_calls_the_summary_new_and_never_drops_0_tokens() -> None:
    timeline = open_timeline("compaction-deep-dive")
    (index,) = timeline.compaction_indices()
    fates = timeline.steps[index].fates
    assert [f.fate for f in fates if f.kind == "summary"] == ["new"]
    assert all(f.tokens > 0 for f in fates if f.fate == "dropped")
    left_out = sorted(f.label for f in fates if f.fate == "not-restored")
    assert left_out == ["Skill: perf", "docs/architecture.md", "src/db/migrations.py", "src/ui/app.ts"]


def test_every_fate_has_a_meaning_in_the_glossary() -> None:
    from typing import get_args, get_type_hints

    from ctxviz import glossary
    from ctxviz.timeline import Fate

    assert set(glossary.FATES) == set(get_args(get_type_hints(Fate)["fate"]))


def test_what_came_back_counts_the_skill_left_out_as_not_restored() -> None:
    from ctxviz.compaction_story import what_came_back

    timeline = open_timeline("compaction-deep-dive")
    (index,) = timeline.compaction_indices()
    rows = {row.what: (row.tokens, row.detail) for row in what_came_back(timeline, index)}
    assert rows["Invoked skills"] == (
        24_000,
        "6 back, ≤ 5,000 each, ≤ 25,000 in all; 2 cut to its start; 1 not restored (oldest)",
    )


def test_another_agents_transcript_calls_its_summary_new() -> None:
    pi = Path(__file__).resolve().parent / "fixtures/other-agents/pi/agent-sessions_small.jsonl"
    timeline = open_transcript(pi)
    first = timeline.steps[timeline.compaction_indices()[0]]
    assert [(f.kind, f.fate) for f in first.fates if f.kind == "summary"] == [("summary", "new")]
