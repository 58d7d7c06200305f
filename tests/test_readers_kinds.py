"""Every reader speaks the one vocabulary of ``ctxviz.kinds``: each step and block kind of each agent's
sample is a member of ``StepKind`` / ``BlockKind``, never a string of its own."""

from __future__ import annotations

from pathlib import Path

import pytest

from ctxviz.kinds import BlockKind, StepKind
from ctxviz.transcripts.protocol import ref_for
from ctxviz.transcripts.registry import reader_for

FIXTURES = Path(__file__).parent / "fixtures" / "other-agents"
SAMPLES = [
    FIXTURES / "codex" / "agent-sessions_stage0_small.jsonl",
    FIXTURES / "codex" / "ccusage-session-alpha.jsonl",
    FIXTURES / "gemini-cli" / "agent-sessions_large.json",
    FIXTURES / "gemini-cli" / "agent-sessions_jsonl_v040.jsonl",
    FIXTURES / "opencode" / "agent-sessions_storage_v2" / "session" / "proj_test" / "ses_s_stage0_large.json",
    FIXTURES / "pi" / "synthetic-branch-compaction.jsonl",
    FIXTURES / "grok-build" / "synthetic" / "sessions" / "%2Ftmp%2Fdemo" / "019f7000-aaaa-7bbb-8ccc-000000000001"
    / "updates.jsonl",
    FIXTURES / "grok-build" / "agent-sessions" / "019f6851-7ec4-7ef0-97d3-03f3eee38755" / "chat_history.jsonl",
]  # fmt: skip


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_kinds_come_from_the_enums(path: Path) -> None:
    reader = reader_for(path)
    assert reader is not None
    timeline = reader.timeline(ref_for(reader.name, path))
    assert timeline.steps and timeline.blocks
    assert {type(s.kind) for s in timeline.steps} == {StepKind}
    assert {type(b.kind) for b in timeline.blocks} == {BlockKind}
