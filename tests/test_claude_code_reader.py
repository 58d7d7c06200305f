"""The transcript reader on the real sample sessions in tests/fixtures/claude-code (exact numbers)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ctxviz.errors import InputError
from ctxviz.transcripts import open_transcript
from ctxviz.transcripts.claude_code.load import read_transcript
from ctxviz.transcripts.claude_code.summary import summarize

SAMPLES = Path(__file__).resolve().parent / "fixtures" / "claude-code"

SPOTTER = "spotter-4d5611e5/4d5611e5-241a-462a-8d15-5122611a9569.jsonl"


def calls(timeline):
    return [s.used for s in timeline.steps if s.kind == "api-call"]


def test_spotter_main_chain_calls_and_sizes() -> None:
    timeline = open_transcript(SAMPLES / SPOTTER)
    used = calls(timeline)
    assert len(used) == 139
    assert (used[0], max(used), used[-1]) == (26_450, 164_831, 106_060)
    assert all(s.measured for s in timeline.steps if s.kind == "api-call")
    assert timeline.model == "claude-opus-4-6"
    assert timeline.window == 200_000
    assert (timeline.thresholds.autocompact, timeline.thresholds.warning) == (167_000, 147_000)
    assert (timeline.thresholds.blocking, timeline.thresholds.buffer) == (177_000, 33_000)


def test_spotter_auto_compaction_after_call_61() -> None:
    timeline = open_transcript(SAMPLES / SPOTTER)
    (index,) = timeline.compaction_indices()
    step = timeline.steps[index]
    assert step.kind == "auto-compact"
    assert sum(1 for s in timeline.steps[:index] if s.kind == "api-call") == 61
    assert "170,251" in step.notes[0]
    assert [s.used for s in timeline.steps[index + 1 : index + 3]] == [36_081, 39_121]
    # everything but the fixed overhead left; the summary entered
    assert [timeline.block(i).kind for i in step.added] == ["summary"]
    assert {b.kind for b in timeline.state_at(index)} == {"overhead", "summary"}


def test_spotter_subagent_and_compaction_call_are_children() -> None:
    timeline = open_transcript(SAMPLES / SPOTTER)
    children = {s.index: s.child for s in timeline.steps if s.child is not None}
    names = sorted(c.source.name for c in children.values())
    assert names == ["agent-a2898e3", "agent-acompact-e1f845"]
    agent = next(c for c in children.values() if c.source.name == "agent-a2898e3")
    assert (len(calls(agent)), calls(agent)[0], agent.peak) == (12, 13_525, 71_257)
    assert agent.model == "claude-sonnet-4-5-20250929"
    compaction = children[timeline.compaction_indices()[0]]
    assert calls(compaction) == [173_514]  # 3 + 8,681 + 164,830


def test_spotter_first_call_overhead_and_blocks_sum_to_used() -> None:
    timeline = open_transcript(SAMPLES / SPOTTER)
    first = timeline.steps[0]
    overhead = [timeline.block(i) for i in first.added if timeline.block(i).kind == "overhead"]
    assert len(overhead) == 1
    assert overhead[0].label == "system prompt, tools, CLAUDE.md and memory: not recorded in transcripts"
    assert overhead[0].tokens == 26_413
    for step in timeline.steps:
        assert sum(b.tokens for b in timeline.state_at(step.index)) == step.used


def test_spotter_summary_agrees_with_reader() -> None:
    row = summarize(SAMPLES / SPOTTER)
    assert (row.calls, row.first, row.peak, row.last) == (139, 26_450, 164_831, 106_060)
    assert [(c.trigger, c.pre_tokens, c.at_call) for c in row.compactions] == [("auto", 170_251, 61)]
    assert row.subagents == 1  # agent-a2898e3; the compaction's own call is not a subagent
    assert row.models == ("claude-opus-4-6",)
    assert row.project == "/home/USER/projects/spotter-worktrees/spotter-dov"
    assert (row.started, row.ended) == ("2026-02-12T16:02:23.545Z", "2026-02-12T21:03:34.206Z")
    assert row.bytes == 3_158_801
    assert row.problems == ()


def test_fasthooks_manual_compaction() -> None:
    timeline = open_transcript(SAMPLES / "fasthooks/sample_main_transcript.jsonl")
    used = calls(timeline)
    assert (len(used), used[0], max(used), used[-1]) == (12, 17_904, 21_331, 21_331)
    (index,) = timeline.compaction_indices()
    assert timeline.steps[index].kind == "compact"
    assert "21,558" in timeline.steps[index].notes[0]
    row = summarize(SAMPLES / "fasthooks/sample_main_transcript.jsonl")
    assert [(c.trigger, c.pre_tokens, c.at_call) for c in row.compactions] == [("manual", 21_558, 12)]


def test_fasthooks_usage_drop_keeps_blocks_equal_to_used() -> None:
    timeline = open_transcript(SAMPLES / "fasthooks/sample_main_transcript.jsonl")
    dropped = [s for s in timeline.steps if any("fell by" in n for n in s.notes)]
    assert [(s.used, timeline.used_at(s.index - 1)) for s in dropped] == [(18_753, 18_847)]
    for step in timeline.steps:
        assert sum(b.tokens for b in timeline.state_at(step.index)) == step.used


def test_rewind_branch_is_left_out() -> None:
    reading = read_transcript(SAMPLES / "claude-code-log-fixtures/dag_compact_after_rewind.jsonl")
    timeline = reading.timeline
    labels = [s.label for s in timeline.steps]
    assert len(calls(timeline)) == 4  # a1, b2a, b2a2, p1a: the first attempt (b1a) was rewound
    assert not any("First attempt" in label for label in labels)
    assert any("Second attempt" in label for label in labels)
    assert [s.kind for s in timeline.steps].count("auto-compact") == 1
    assert any("abandoned branches" in n for n in timeline.notices)
    assert summarize(SAMPLES / "claude-code-log-fixtures/dag_compact_after_rewind.jsonl").calls == 4


@pytest.mark.parametrize(
    ("name", "expected", "subagents"),
    [
        ("spotter-misc/short.jsonl", (1, 25_353, 25_353, 25_353), 0),
        ("spotter-misc/tool_heavy.jsonl", (4, 25_801, 27_666, 27_666), 0),
        ("spotter-misc/subagent.jsonl", (12, 28_162, 43_861, 43_861), 1),  # a Plan subagent: no file
        ("claude-code-viewer/fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl", (9, 16_208, 21_552, 21_552), 5),
        ("claude-code-viewer/5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl", (10, 18_768, 26_080, 26_080), 3),
        ("claude-code-viewer/1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl", (7, 15_553, 17_437, 17_437), 0),
        ("claude-code-viewer/agent-test-hash-123.jsonl", (1, 100, 100, 100), 0),
        ("claude-code-log-fixtures/sidechain_integrated.jsonl", (2, 141_275, 144_227, 144_227), 1),
        ("ccusage-fixtures/project-alpha-session-alpha-chat.jsonl", (3, 135, 340, 340), 0),
        ("fasthooks/sample_agent_sidechain.jsonl", (1, 728, 728, 728), 0),
        ("spotter-4d5611e5/subagents/agent-a2898e3.jsonl", (12, 13_525, 71_257, 71_257), 0),
        ("spotter-4d5611e5/subagents/agent-acompact-e1f845.jsonl", (1, 173_514, 173_514, 173_514), 0),
    ],
)
def test_every_sample_reads_the_same_both_ways(name: str, expected: tuple[int, ...], subagents: int) -> None:
    timeline = open_transcript(SAMPLES / name)
    used = calls(timeline)
    assert (len(used), used[0], max(used), used[-1]) == expected
    row = summarize(SAMPLES / name)
    assert (row.calls, row.first, row.peak, row.last) == expected
    assert row.subagents == subagents
    for step in timeline.steps:
        assert sum(b.tokens for b in timeline.state_at(step.index)) == step.used


def test_older_layout_sidechains_become_children() -> None:
    timeline = open_transcript(SAMPLES / "claude-code-viewer/fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl")
    children = [s.child for s in timeline.steps if s.child is not None]
    assert [(len(calls(c)), c.peak) for c in children] == [(9, 14_654), (25, 26_483)]
    notes = [n for s in timeline.steps for n in s.notes if n.startswith("subagent ")]
    assert len(notes) == 5  # five parallel Task calls, each named in its step's notes


def test_known_older_model_and_unknown_model_window(tmp_path: Path) -> None:
    sample = SAMPLES / "claude-code-viewer/1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl"
    known = open_transcript(sample)  # claude-sonnet-4-20250514: the date suffix is dropped
    assert known.window == 200_000
    assert not any("guess" in n for n in known.notices)
    renamed = tmp_path / "renamed.jsonl"
    renamed.write_bytes(sample.read_bytes().replace(b"claude-sonnet-4-20250514", b"claude-mystery-9"))
    unknown = open_transcript(renamed)
    assert unknown.window == 200_000
    assert any("guess" in n for n in unknown.notices)


def test_records_without_parents_follow_file_order() -> None:
    # a hand-made file where every record has parentUuid null: read in file order, not as 12 roots
    timeline = open_transcript(SAMPLES / "claude-code-log/representative_messages.jsonl")
    assert calls(timeline) == [25, 45, 78, 25, 45]
    assert summarize(SAMPLES / "claude-code-log/representative_messages.jsonl").calls == 5


@pytest.mark.parametrize(
    "name",
    [
        "fasthooks/sample_hook_logs.jsonl",
        "../other-agents/cursor/agent-sessions_small.jsonl",  # the other agents' samples: tests/test_readers*.py
    ],
)
def test_other_files_get_a_clear_message(name: str) -> None:
    with pytest.raises(InputError) as raised:
        open_transcript(SAMPLES / name)
    assert raised.value.message.startswith(str(SAMPLES / name))


def test_path_labels_are_relative_to_the_session_folder_and_keep_their_end() -> None:
    from ctxviz.transcripts.claude_code.parse import short_path

    assert short_path("/home/u/app/src/main.py", "/home/u/app") == "src/main.py"
    assert short_path("/home/u/app/src/main.py", "/home/u/app/") == "src/main.py"
    assert short_path("/etc/hosts", "/home/u/app") == "/etc/hosts"
    long = "/srv/" + "deep/" * 20 + "file.py"
    assert short_path(long, None, limit=20) == "…p/deep/deep/file.py"  # the last 19 characters
    timeline = open_transcript(SAMPLES / "spotter-4d5611e5/4d5611e5-241a-462a-8d15-5122611a9569.jsonl")
    reads = {b.label for b in timeline.blocks if b.kind == "file-read"}
    assert "lib/spotter_web/live/session_live.ex" in reads
    assert not any(label.startswith("/home/USER/projects/spotter-worktrees/spotter-dov/") for label in reads)
